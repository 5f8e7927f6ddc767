/**
 * The wave made from the rig (databases without gestures): it raises the right hand above the
 * shoulder and swings it, on the built-in rig and on the capture rig, over a walk; its mask is the
 * right arm alone, so the rest of the body (legs included) is the locomotion's, bit for bit.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { buildDatabase } from '../../src/database/build.js';
import { loadBvhSources } from '../../src/database/sources-node.js';
import type { Database } from '../../src/database/database.js';
import { MotionMatchingController, createInput } from '../../src/runtime/controller/controller.js';
import { OverlayLayer } from '../../src/runtime/overlay/overlay.js';
import { synthesizedWave } from '../../src/runtime/overlay/wave.js';
import { maskSparesLegs } from '../../src/runtime/overlay/bone-mask.js';
import type { PoseSearchPort } from '../../src/runtime/search-port.js';
import { HAS_MOCAP, MOCAP_DIR } from '../helpers/cli.js';
import { makeRootTrackDatabase } from '../helpers/root-track-db.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

const keepPlaying: PoseSearchPort = { searchPose(_r, out) { out.frame = -1; out.cost = Infinity; } };

/** Walks 3 s, waving from 0.5 s; returns how high the right hand got above its shoulder, and the steps it was above it. */
function waveOver(db: Database, hand: string, shoulder: string) {
  const wave = synthesizedWave(db);
  const base = new MotionMatchingController(db, { footIK: true });
  const c = new MotionMatchingController(db, { footIK: true });
  c.setOverlay(new OverlayLayer(db, { mask: wave.mask }));
  const input = createInput();
  input.velocityZ = 1.3;
  const h = db.skeleton.names.indexOf(hand), s = db.skeleton.names.indexOf(shoulder);
  let highest = -Infinity, above = 0;
  for (let k = 0; k < 90; k++) {
    if (k === 15) c.overlay!.play(wave.clip, { loop: true });
    c.update(1 / 30, input, keepPlaying);
    base.update(1 / 30, input, keepPlaying);
    const rise = c.worldPositions[3 * h + 1] - c.worldPositions[3 * s + 1];
    highest = Math.max(highest, rise);
    if (rise > 0.1) above++;
    for (let j = 0; j < c.joints; j++) {
      if (wave.mask.weights[j] > 0) continue;
      for (let d = 0; d < 3; d++) expect(c.worldPositions[3 * j + d]).toBe(base.worldPositions[3 * j + d]);
    }
  }
  return { wave, highest, above };
}

describe('the synthesized wave', () => {
  let builtin: Database;
  beforeAll(() => { builtin = builtinDatabase(); });

  it('waves the built-in character\'s right hand above its shoulder, the rest of the body untouched', () => {
    const { wave, highest, above } = waveOver(builtin, 'hand_r', 'upperarm_r');
    expect(wave.mask.label).toBe('right arm (clavicle_r)');
    expect(maskSparesLegs(wave.mask, builtin)).toBe(true);
    expect(wave.clip.loop).toBe(true);
    expect(wave.clip.frames).toBe(15);
    expect(highest).toBeGreaterThan(0.3);
    expect(above).toBeGreaterThan(50);
    expect(synthesizedWave(builtin)).toBe(wave);
  });

  it('wraps its loop at display rates that do not land on its frames: no NaN, no jump, the clock within the loop', () => {
    // The demo steps at the display's rate (60 Hz and more); the wave's 15 frames are 30 fps. Its clock
    // used to wrap as soon as it passed the last frame, went below 0 on such a step, and the arm read
    // frame -1: NaN at every wrap (the page's handRise was NaN on one frame in ten).
    const wave = synthesizedWave(builtin), period = wave.clip.frames / wave.clip.fps;
    const h = builtin.skeleton.names.indexOf('hand_r'), s = builtin.skeleton.names.indexOf('upperarm_r');
    for (const hz of [60, 144, 45]) {
      const c = new MotionMatchingController(builtin, { footIK: true });
      c.setOverlay(new OverlayLayer(builtin, { mask: wave.mask }));
      const input = createInput();
      input.velocityZ = 1.3;
      let wraps = 0, lastTime = -1, lastRise = NaN, worstJump = 0, lowest = Infinity;
      for (let k = 0; k < 3 * hz; k++) {
        if (k === Math.round(0.3 * hz)) c.overlay!.play(wave.clip, { loop: true });
        c.update(1 / hz, input, keepPlaying);
        for (const v of c.rotations) expect(Number.isFinite(v)).toBe(true);
        for (const v of c.worldPositions) expect(Number.isFinite(v)).toBe(true);
        const t = c.overlay!.clipTime;
        expect(t).toBeGreaterThanOrEqual(0);
        expect(t).toBeLessThan(period);
        if (t < lastTime) wraps++;
        lastTime = t;
        const rise = c.worldPositions[3 * h + 1] - c.worldPositions[3 * s + 1];
        if (k > 1.5 * hz) { worstJump = Math.max(worstJump, Math.abs(rise - lastRise)); lowest = Math.min(lowest, rise); }
        lastRise = rise;
      }
      expect(wraps, `${hz} Hz`).toBeGreaterThanOrEqual(4);
      // Once faded in, the hand stays above the shoulder and moves smoothly (0.5 m/s at most here, the wave's own swing).
      expect(lowest, `${hz} Hz`).toBeGreaterThan(0.1);
      expect(worstJump * hz, `${hz} Hz`).toBeLessThan(0.5);
    }
  });

  it.skipIf(!HAS_MOCAP)('works on the capture rig too', () => {
    const db = buildDatabase(loadBvhSources([join(MOCAP_DIR, 'core', 'dataset-2_walk_normal_005.bvh')]));
    const { wave, highest, above } = waveOver(db, 'Hand_R', 'UpperArm_R');
    expect(wave.mask.label).toBe('right arm (Shoulder_R)');
    expect(highest).toBeGreaterThan(0.3);
    expect(above).toBeGreaterThan(50);
  });

  it('a rig without a right arm says so', () => {
    const db = makeRootTrackDatabase([{ z: [0, 0.04, 0.08], loop: false }], 30);
    expect(() => synthesizedWave(db)).toThrow(/arms mask: no left\/right joints hang from the spine/);
  });
});
