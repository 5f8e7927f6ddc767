/**
 * The hips drop (runtime/foot-ik/hips.ts lowerHips: the body lowered so that a leg reaches its lock
 * or a foot stepping down reaches the ground, on uneven ground or with maxHipsDrop) changes its
 * vertical speed by at most the captures' own largest change of the hips' vertical velocity in a
 * frame, per step, and slows down before its limit and before the animation's height instead of
 * stopping there. The whole body moves with the hips, and a leg near full stretch turns a jolt of
 * the hips into one of its knee: on the shared real captures' stop-go on hills the spring rose 14 cm
 * in 0.08 s once the lock that had needed the drop was let go of, the faster lowering then reversed
 * it within a step (2.4 m/s at the hips) and a stretched leg's knee jumped 7.9 m/s.
 * Measured on the hips joint's output positions: the largest change of its velocity between steps.
 */
import { describe, expect, it } from 'vitest';
import { lowerHips } from '../../src/runtime/foot-ik/hips.js';
import { FOOT_IK_STATE_SIZE, HIPS_DROP, HIPS_MAX, HIPS_VEL_CHANGE_MAX, NEEDED_DROP, STEP_DT } from '../../src/runtime/foot-ik/state.js';
import { DEFAULT_FOOT_IK_OPTIONS } from '../../src/runtime/foot-ik/options.js';
import type { FootRig } from '../../src/runtime/foot-ik/rig.js';
import type { FootIKHost } from '../../src/runtime/foot-ik/host.js';
import { largestVelocityChange } from '../helpers/velocity-change.js';

const HZ = 60, DT = 1 / HZ;
/** The real captures' largest change of the hips' vertical velocity in a frame (m/s), about. */
const CHANGE = 1.07;
/** The drop the legs need, per step: standing with a lock that needs 24 cm, let go of for 5 steps (10 cm), needed again (20 cm), then more than the limit (28 cm) allows, then none. */
function needed(step: number): number {
  return step < 30 ? 0.24 : step < 35 ? 0.1 : step < 60 ? 0.2 : step < 100 ? 0.4 : 0;
}

/** The hips' heights over the run (one joint, the hips, under nothing), with `change` as the limit. */
function run(change: number): { y: Float64Array; drops: Float64Array } {
  const S = new Float64Array(FOOT_IK_STATE_SIZE);
  S[STEP_DT] = DT; S[HIPS_MAX] = 0.28; S[HIPS_VEL_CHANGE_MAX] = change;
  const rig = { hips: 0, hipsSubtree: Int32Array.of(0) } as unknown as FootRig;
  const steps = 160, y = new Float64Array(steps), drops = new Float64Array(steps);
  for (let s = 0; s < steps; s++) {
    // Each step the animation puts the hips back at 1 m; the drop moves them down from there.
    const host = {
      translations: Float64Array.of(0, 1, 0), worldPositions: Float64Array.of(0, 1, 0),
      worldRotations: Float64Array.of(0, 0, 0, 1), rootRotation: Float64Array.of(0, 0, 0, 1),
    } as unknown as FootIKHost;
    S[NEEDED_DROP] = needed(s);
    lowerHips(S, rig, Int32Array.of(-1), host, DEFAULT_FOOT_IK_OPTIONS);
    y[s] = host.worldPositions[1]; drops[s] = S[HIPS_DROP];
  }
  return { y, drops };
}

describe('the hips drop', () => {
  it('changes the body\'s vertical speed by at most the captures\' own largest change in a step', () => {
    const { y, drops } = run(CHANGE);
    // (from step 2 on: the first steps settle from a standing start)
    expect(largestVelocityChange(y, DT)).toBeLessThanOrEqual(CHANGE + 1e-9);
    // Within its limit and never above the animation, and it still gets there.
    for (const d of drops) { expect(d).toBeLessThanOrEqual(0.28 + 1e-12); expect(d).toBeGreaterThanOrEqual(0); }
    expect(drops[99]).toBeCloseTo(0.28, 6);
    expect(drops[159]).toBeLessThan(1e-3);
  });

  it('jolts the body by nearly twice that without the limit (the rule undone)', () => {
    // The spring rising back for the 5 steps the lock was let go of, then the faster lowering: 1.99 m/s.
    const { y } = run(Number.POSITIVE_INFINITY);
    expect(largestVelocityChange(y, DT)).toBeGreaterThan(1.8 * CHANGE);
  });
});
