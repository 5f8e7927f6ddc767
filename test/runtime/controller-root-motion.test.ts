/**
 * The root-motion contract through the controller itself (docs/root-motion.md): playback, crossfade
 * and transitions move the character by the clips' increments, whatever their origins.
 */
import { describe, it, expect } from 'vitest';
import { MotionMatchingController, createInput, type ControllerOptions } from '../../src/runtime/controller/controller.js';
import type { PoseSearchPort, PoseSearchRequest, PoseSearchResult } from '../../src/runtime/search-port.js';
import { makeRootTrackDatabase } from '../helpers/root-track-db.js';

const FPS = 30;
const OFFSETS = [-100, -10, 0, 10, 100];

/** Answers the first search with `frame` (a transition), every later one with "keep playing". */
function scriptedSearch(frame: number): PoseSearchPort {
  let asked = 0;
  return { searchPose(_r: PoseSearchRequest, out: PoseSearchResult) { out.frame = asked++ === 0 ? frame : -1; out.cost = asked === 1 ? -Infinity : Infinity; } };
}

/** The animation alone moves the root: no adjustment towards the simulation, no clamp, no IK. */
function animationOnly(crossfadeTime: number): Partial<ControllerOptions> {
  return {
    blendMode: 'crossfade', crossfadeTime, footIK: false, inertialization: false,
    adjustPositionHalfLife: 0, adjustRotationHalfLife: 0, clampDistance: 1e9, clampAngle: Math.PI,
    searchInterval: 1000, startFrame: 0,
  };
}

describe('root motion through the controller', () => {
  it('crossfading A (0 -> 0.1 m) and B (10 -> 10.3 m) with B weighted 0.4 -> 0.6 advances 0.20 m, for any origins (25 pairs)', () => {
    for (const oa of OFFSETS) {
      for (const ob of OFFSETS) {
        const A = Array.from({ length: 12 }, (_, k) => oa + 0.1 * k);
        const B = Array.from({ length: 12 }, (_, k) => ob + 10 + 0.3 * k);
        const db = makeRootTrackDatabase([{ z: A, x: A.map(() => oa) }, { z: B, x: B.map(() => ob) }], FPS);
        const dt = 1 / FPS; // one frame per step: A moves 0.1 m, B 0.3 m per step
        const c = new MotionMatchingController(db, animationOnly(5 * dt)); // B's weight rises 0.2 per step
        const search = scriptedSearch(A.length), input = createInput();
        c.update(dt, input, search); // transition to B: 0 -> 0.2
        c.update(dt, input, search); // 0.2 -> 0.4
        const z0 = c.rootPosition[2], x0 = c.rootPosition[0];
        c.update(dt, input, search); // 0.4 -> 0.6
        // To the float32 precision the database stores root tracks in (an origin of 110 m rounds to ~8 µm).
        expect(Math.abs(c.rootPosition[2] - z0 - 0.2)).toBeLessThan(1e-5);
        expect(Math.abs(c.rootPosition[0] - x0)).toBeLessThan(1e-9);
      }
    }
  });

  it('integrates with sub-steps: A still, B still then 0.40 m in the second half, weight 0 -> 1 gives 0.30 m, not 0.20 m', () => {
    const A = Array.from({ length: 8 }, () => 5);
    const B = [0, 0, 0.4, 0.8, 1.2, 1.6, 2.0, 2.4].map((z) => -7 + z); // still over frame 0 -> 1, 0.4 m over 1 -> 2
    const db = makeRootTrackDatabase([{ z: A }, { z: B }], FPS);
    const dt = 2 / FPS; // one step spans B's still frame and its moving frame
    const c = new MotionMatchingController(db, animationOnly(dt)); // B's weight 0 -> 1 over the step
    const z0 = c.rootPosition[2];
    c.update(dt, createInput(), scriptedSearch(A.length));
    expect(c.rootPosition[2] - z0).toBeCloseTo(0.3, 6);
  });

  it('plays a looping clip across its wrap, accumulating its root motion (no jump back by a cycle)', () => {
    // A 10-frame loop moving 0.05 m per frame; its last frame flows into its first.
    const L = Array.from({ length: 10 }, (_, k) => 3 + 0.05 * k);
    const db = makeRootTrackDatabase([{ z: L, loop: true }], FPS);
    const c = new MotionMatchingController(db, { ...animationOnly(0.2), blendMode: 'inertialize' });
    const noSearch: PoseSearchPort = { searchPose(_r, out) { out.frame = -1; out.cost = Infinity; } };
    const z0 = c.rootPosition[2];
    const frames: number[] = [];
    for (let s = 0; s < 35; s++) { c.update(1 / FPS, createInput(), noSearch); frames.push(c.frame); }
    expect(frames).toContain(0); // it wrapped (more than once)
    expect(c.rootPosition[2] - z0).toBeCloseTo(35 * 0.05, 6);
  });
});
