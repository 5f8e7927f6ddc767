/**
 * How far a leg's ankle target may be from the hip near full stretch (runtime/foot-ik/leg.ts), and
 * what the knee does as the target moves through there. Near full stretch a two-bone leg's knee
 * moves sideways far faster than its ankle moves away from the hip (the knee's offset from the
 * hip-ankle line is √(a² − D²/4) for bones of length a at distance D), so a target that crosses
 * into or out of the last millimetres of the leg's reach within a step snaps the knee.
 * - A free foot in the air carried far from the animated one by an offset, or on uneven ground by
 *   the ground under it, has its reach softened over the whole soft range (updateSoftWidening), not
 *   over what the animated leg leaves of it (nothing, for a leg the animation holds straight).
 * - A planted leg's ankle is kept on the same curve (plantedReach, capReach) when its heel cannot
 *   rise fast enough to keep it there, instead of being clamped at full stretch.
 * Each case runs the rule and the rule undone on the same motion and reads the knee's largest
 * change of velocity between steps (m/s), the measure `motionmatch quality` takes of every joint.
 */
import { describe, expect, it } from 'vitest';
import { capReach, plantedReach, softenReach, updateSoftWidening } from '../../src/runtime/foot-ik/leg.js';
import { FOOT_IK_STATE_SIZE, HOLD, IK_TARGET, LOCKED, OFFSET, SOFT_WIDEN, STEP_DT } from '../../src/runtime/foot-ik/state.js';
import type { LegJoints } from '../../src/runtime/foot-ik/rig.js';
import { largestVelocityChange } from '../helpers/velocity-change.js';

const HZ = 144, DT = 1 / HZ;
/** Thigh and shin length (m); the leg's full length is twice this. */
const BONE = 0.45, LENGTH = 2 * BONE;
/** Hip, knee and ankle in wp (joints 0, 1, 2). */
const leg = { hip: 0, knee: 1, foot: 2, length: LENGTH } as unknown as LegJoints;

/** World positions with the animated ankle straight below the hip at `straight` leg lengths. */
function animatedLeg(straight: number): Float64Array {
  const wp = new Float64Array(9);
  wp[1] = 1;
  wp[4] = 1 - (straight * LENGTH) / 2;
  wp[7] = 1 - straight * LENGTH;
  return wp;
}

/** The knee of a leg whose ankle is at `target` (the hip at wp's), bending towards +z, into out. */
function kneeOf(wp: Float64Array, target: Float64Array, out: Float64Array, o: number): void {
  const x = target[0] - wp[0], y = target[1] - wp[1], z = target[2] - wp[2];
  const d = Math.min(Math.hypot(x, y, z), LENGTH - 1e-4);
  const side = Math.sqrt(Math.max(0, BONE * BONE - (d * d) / 4)), k = 0.5 * d / Math.hypot(x, y, z);
  out[o] = wp[0] + x * k; out[o + 1] = wp[1] + y * k; out[o + 2] = wp[2] + z * k + side;
}

describe('a free foot carried far from the animated one, in the air', () => {
  /**
   * The animation holds the leg 99.9% straight; an offset 25 cm to the side and below carries the
   * target from 1.05 to 0.93 leg lengths from the hip at 1.4 m/s (a released foot's offset blending
   * out while the foot swings). Returns the knee's positions, 3 per step.
   */
  function sweep(widen: boolean): { knee: Float64Array; widening: number } {
    const wp = animatedLeg(0.999), S = new Float64Array(FOOT_IK_STATE_SIZE);
    S[STEP_DT] = DT; S[HOLD] = 0; S[LOCKED] = 0;
    const steps = Math.round((0.12 * LENGTH) / 1.4 / DT) + 30, knee = new Float64Array(3 * steps), target = new Float64Array(3);
    const side = 0.25;
    for (let s = 0; s < steps; s++) {
      // 30 steps at the far end first (the widening has its 0.1 s to come in), then the sweep.
      const t = Math.max(0, s - 30) * DT, d = 1.05 * LENGTH - 1.4 * t;
      const down = Math.sqrt(d * d - side * side);
      target[0] = side; target[1] = 1 - down; target[2] = 0;
      for (let k = 0; k < 3; k++) S[OFFSET + k] = target[k] - wp[6 + k];
      if (widen) updateSoftWidening(S, 0, leg, 0);
      IK_TARGET.set(target);
      softenReach(leg, wp, S, 0);
      kneeOf(wp, IK_TARGET, knee, 3 * s);
    }
    return { knee: knee.subarray(90), widening: S[SOFT_WIDEN] };
  }

  it('is softened over the whole soft range: the knee changes its velocity by little', () => {
    const { knee, widening } = sweep(true);
    expect(widening).toBe(1);
    expect(largestVelocityChange(knee, DT, 3)).toBeLessThan(1);
  });

  it('snaps the knee with the soft range the straight animated leg leaves (the rule undone)', () => {
    expect(largestVelocityChange(sweep(false).knee, DT, 3)).toBeGreaterThan(3);
  });

  it('widens no faster than over 0.1 s, and not at all for a foot on the ground or a locked one', () => {
    const S = new Float64Array(FOOT_IK_STATE_SIZE);
    S[STEP_DT] = DT; S[OFFSET] = 0.3;
    updateSoftWidening(S, 0, leg, 0);
    expect(S[SOFT_WIDEN]).toBeCloseTo(DT / 0.1, 12);
    for (let s = 0; s < 20; s++) updateSoftWidening(S, 0, leg, 0);
    expect(S[SOFT_WIDEN]).toBe(1);
    S[HOLD] = 1;
    updateSoftWidening(S, 0, leg, 0);
    expect(S[SOFT_WIDEN]).toBeCloseTo(1 - DT / 0.1, 12);
    S[HOLD] = 0; S[LOCKED] = 1; S[SOFT_WIDEN] = 0;
    updateSoftWidening(S, 0, leg, 0);
    expect(S[SOFT_WIDEN]).toBe(0);
    // A foot half off the ground, carried 2.25 cm (half the soft range's width): a quarter.
    S[LOCKED] = 0; S[HOLD] = 0.5; S[OFFSET] = 0.0225; S[SOFT_WIDEN] = 0.25;
    updateSoftWidening(S, 0, leg, 0);
    expect(S[SOFT_WIDEN]).toBeCloseTo(0.25, 12);
  });
});

describe('a free foot in the air carried below the animated one by the ground (uneven ground)', () => {
  /**
   * The animation holds the leg 99.9% straight and the foot carries no offset; the ground under it
   * (the height a free foot follows, FOLLOW · SHIFT, and its clearance over a step's edge) puts the
   * target straight below the animated ankle, from 1.05 to 0.93 leg lengths from the hip at 1.4 m/s:
   * a swinging foot coming down a slope as the ground under it rises again. `ground`: the ground's
   * part counts towards the widening, as the ground step passes it; else only the offset does.
   */
  function sweep(ground: boolean): Float64Array {
    const wp = animatedLeg(0.999), S = new Float64Array(FOOT_IK_STATE_SIZE);
    S[STEP_DT] = DT; S[HOLD] = 0; S[LOCKED] = 0;
    const steps = Math.round((0.12 * LENGTH) / 1.4 / DT) + 30, knee = new Float64Array(3 * steps), target = new Float64Array(3);
    for (let s = 0; s < steps; s++) {
      const t = Math.max(0, s - 30) * DT, d = 1.05 * LENGTH - 1.4 * t;
      target[0] = 0; target[1] = 1 - d; target[2] = 0;
      updateSoftWidening(S, 0, leg, ground ? target[1] - wp[7] : 0);
      IK_TARGET.set(target);
      softenReach(leg, wp, S, 0);
      kneeOf(wp, IK_TARGET, knee, 3 * s);
    }
    return knee.subarray(90);
  }

  it('is softened over the soft range as if an offset carried it: the knee changes its velocity by little', () => {
    expect(largestVelocityChange(sweep(true), DT, 3)).toBeLessThan(1.5);
  });

  it('snaps the knee when only the offset counts (the rule undone)', () => {
    expect(largestVelocityChange(sweep(false), DT, 3)).toBeGreaterThan(3);
  });
});

describe('a planted leg the body moves away from', () => {
  /**
   * The animated leg straightens from 0.93 to 0.99 leg lengths while the planted ankle's target
   * (the lock, the heel raised as far as its rate allowed) moves from 0.93 to 1.08 leg lengths away
   * at 3 m/s: a run's push-off with the body outrunning the lock. Returns the knee's positions.
   */
  function pushOff(capped: boolean): Float64Array {
    const S = new Float64Array(FOOT_IK_STATE_SIZE);
    S[STEP_DT] = DT; S[LOCKED] = 1;
    const steps = Math.round((0.15 * LENGTH) / 3 / DT) + 12, knee = new Float64Array(3 * steps);
    for (let s = 0; s < steps; s++) {
      const u = Math.min(1, s / (steps - 12));
      const wp = animatedLeg(0.93 + 0.06 * u), d = Math.min(0.93 * LENGTH + 3 * s * DT, 1.08 * LENGTH);
      IK_TARGET[0] = 0.1 * d; IK_TARGET[1] = 1 - Math.sqrt(0.99) * d; IK_TARGET[2] = 0;
      if (capped) capReach(leg, wp, plantedReach(leg, wp, S, 0));
      kneeOf(wp, IK_TARGET, knee, 3 * s);
    }
    return knee;
  }

  it('keeps the ankle on the soft curve: the knee does not snap straight', () => {
    expect(largestVelocityChange(pushOff(true), DT, 3)).toBeLessThan(3);
  });

  it('snaps the knee straight when the target is clamped at full stretch (the rule undone)', () => {
    expect(largestVelocityChange(pushOff(false), DT, 3)).toBeGreaterThan(6);
  });

  it('leaves a target within the animated leg\'s own reach where it is', () => {
    const wp = animatedLeg(0.97), S = new Float64Array(FOOT_IK_STATE_SIZE);
    IK_TARGET[0] = 0.05; IK_TARGET[1] = 1 - 0.95 * LENGTH; IK_TARGET[2] = 0.02;
    const before = Float64Array.from(IK_TARGET);
    capReach(leg, wp, plantedReach(leg, wp, S, 0));
    expect(Array.from(IK_TARGET)).toEqual(Array.from(before));
  });
});
