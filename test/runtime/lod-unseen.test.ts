/**
 * Characters out of view (src/runtime/lod/view.ts, MotionMatchingController.unseen): the camera's
 * cone on the ground, and a pose that waits while its character is unseen and catches up when it is
 * seen, while everything but the pose (playback, root motion, trajectory, searches) steps exactly as
 * if it had been seen all along.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import type { MatcherSearchPort } from '../../src/runtime/matcher-port.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { DEFAULT_LOD_LEVELS, levelOptions } from '../../src/runtime/lod/levels.js';
import { LOD_VIEW_MARGIN, inLodView, revealsPerStep, seeAll, viewCosHalfAngle, type LodView } from '../../src/runtime/lod/view.js';
import { ScriptedDriver } from '../../src/sim/scenarios.js';
import type { Database } from '../../src/database/database.js';
import { builtinSearch } from '../helpers/builtin-search.js';

let db: Database;
let port: MatcherSearchPort;
beforeAll(async () => {
  ({ db, port } = await builtinSearch());
});

describe('the view on the ground', () => {
  const deg = Math.PI / 180;
  // Looking along +Z from the origin, 45° each side.
  const view: LodView = { x: 0, z: 0, forwardX: 0, forwardZ: 2, cosHalfAngle: Math.cos(45 * deg) };
  const at = (angleDeg: number, r = 50): [number, number] => [r * Math.sin(angleDeg * deg), r * Math.cos(angleDeg * deg)];

  it('sees what is within the half angle of the forward direction, on either side', () => {
    for (const a of [0, 20, -20, 44, -44]) expect(inLodView(view, ...at(a))).toBe(true);
    for (const a of [46, -46, 90, 135, 180, -120]) expect(inLodView(view, ...at(a))).toBe(false);
    // The camera's own place is seen; the distance does not matter.
    expect(inLodView(view, 0, 0)).toBe(true);
    expect(inLodView(view, ...at(30, 0.01))).toBe(true);
    expect(inLodView(view, ...at(60, 0.01))).toBe(false);
  });

  it('handles cones wider than a quarter turn and sees everything without a direction', () => {
    const wide: LodView = { ...view, cosHalfAngle: Math.cos(120 * deg) };
    for (const a of [0, 90, -90, 119, -119]) expect(inLodView(wide, ...at(a))).toBe(true);
    for (const a of [121, -121, 180]) expect(inLodView(wide, ...at(a))).toBe(false);
    const all = seeAll(3, 4);
    for (const a of [0, 90, 180]) expect(inLodView(all, ...at(a))).toBe(true);
    expect(inLodView({ ...view, forwardX: 0, forwardZ: 0 }, ...at(180))).toBe(true);
  });

  it('widens a camera’s horizontal field of view by the margin', () => {
    // 50° vertically at 16:9 is 79.3° across: 39.6° each side, plus the margin.
    const c = viewCosHalfAngle(50 * deg, 16 / 9);
    expect(Math.acos(c)).toBeCloseTo(Math.atan(Math.tan(25 * deg) * 16 / 9) + LOD_VIEW_MARGIN, 12);
    expect(viewCosHalfAngle(170 * deg, 10, Math.PI)).toBe(-1);
  });

  it('lets as many held poses catch up a step as the coarsest level updates anyway', () => {
    expect(revealsPerStep(2500, DEFAULT_LOD_LEVELS)).toBe(625); // level 3: every 4th step
    expect(revealsPerStep(2501, DEFAULT_LOD_LEVELS)).toBe(626);
    expect(revealsPerStep(3, [{ poseEvery: 1 }])).toBe(3);
    expect(revealsPerStep(0, DEFAULT_LOD_LEVELS)).toBe(1);
  });
});

/**
 * Steps one character for `steps` steps at `level` with a scripted driver; `unseen(s)` says whether
 * it is out of view at step s. Returns its root position and world pose after every step.
 */
function run(level: number, steps: number, unseen: (s: number) => boolean): { roots: number[][]; poses: Float64Array[]; poseSeconds: number[]; held: boolean[] } {
  const options = levelOptions(MotionMatchingController.resolveOptions({}), DEFAULT_LOD_LEVELS);
  const c = new MotionMatchingController(db, options[0]);
  c.reset(c.frame, 0, 0, 0);
  c.setLevel(options[level], DEFAULT_LOD_LEVELS[level]);
  const driver = new ScriptedDriver('wander', 7, 0, 1 / 30);
  const input = createInput();
  const out = { roots: [] as number[][], poses: [] as Float64Array[], poseSeconds: [] as number[], held: [] as boolean[] };
  for (let s = 0; s < steps; s++) {
    driver.drive(c.rootPosition, input);
    c.unseen = unseen(s);
    c.update(1 / 30, input, port);
    out.roots.push(Array.from(c.rootPosition));
    out.poses.push(Float64Array.from(c.worldPositions));
    out.poseSeconds.push(c.poseSeconds);
    out.held.push(c.poseHeld);
  }
  return out;
}

describe('a character out of view', () => {
  const away = (s: number) => s >= 30 && s < 90;

  for (const level of [1, 3]) {
    it(`holds its pose at level ${level} while unseen, moves exactly as if seen, and catches up when seen`, () => {
      const seen = run(level, 120, () => false);
      const hidden = run(level, 120, away);
      // The root (playback, root motion, trajectory, searches) never differs.
      expect(hidden.roots).toEqual(seen.roots);
      for (let s = 31; s < 90; s++) {
        // The pose waits: the world pose is the one of step 29, however far the root went.
        expect(hidden.poses[s]).toEqual(hidden.poses[29]);
        expect(hidden.poseSeconds[s]).toBe(0);
        expect(hidden.held[s]).toBe(true);
      }
      expect(Math.hypot(hidden.roots[89][0] - hidden.roots[29][0], hidden.roots[89][2] - hidden.roots[29][2])).toBeGreaterThan(1);
      // Seen again: updated at once with all the steps since its last update, and no longer held.
      let last = 29;
      while (hidden.poseSeconds[last] === 0) last--;
      expect(hidden.held[90]).toBe(false);
      expect(hidden.poseSeconds[90]).toBeCloseTo((90 - last) / 30, 9);
      // The pose is where the character is (the hips within a few cm of the seen run's).
      const hips = 0;
      const d = Math.hypot(hidden.poses[90][3 * hips] - seen.poses[90][3 * hips], hidden.poses[90][3 * hips + 2] - seen.poses[90][3 * hips + 2]);
      expect(d).toBeLessThan(0.05);
    });
  }

  it('changes nothing while never unseen (level 0 stays full detail)', () => {
    const a = run(0, 60, () => false);
    const plain = (() => {
      const c = new MotionMatchingController(db, MotionMatchingController.resolveOptions({}));
      c.reset(c.frame, 0, 0, 0);
      const driver = new ScriptedDriver('wander', 7, 0, 1 / 30), input = createInput();
      const poses: Float64Array[] = [];
      for (let s = 0; s < 60; s++) { driver.drive(c.rootPosition, input); c.update(1 / 30, input, port); poses.push(Float64Array.from(c.worldPositions)); }
      return poses;
    })();
    expect(a.poses).toEqual(plain);
  });
});
