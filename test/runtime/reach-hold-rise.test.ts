/**
 * The reach hold on a free foot (runtime/foot-ik/leg.ts reachHold: how much of the ground's hold on
 * its offset the leg's reach allows) takes hold no faster than changes the shown foot's velocity by
 * the captures' own largest change of a contact point's velocity in a frame
 * (CapturedData.contactVelocityChangeMax). The hold stops the offset's horizontal blend
 * (decayOffset); a released foot blending back quickly whose target came back within reach had that
 * blend stopped within a step. Measured on the foot as shown (the animated ankle plus the offset),
 * as the quality command measures pops.
 */
import { describe, expect, it } from 'vitest';
import { reachHold } from '../../src/runtime/foot-ik/leg.js';
import { decayOffset } from '../../src/runtime/foot-ik/offsets.js';
import { DEFAULT_FOOT_IK_OPTIONS } from '../../src/runtime/foot-ik/options.js';
import { FOOT_IK_STATE_SIZE, HOLD, LOCKED, OFFSET, OFFSET_VEL, REACH, STEP_DT } from '../../src/runtime/foot-ik/state.js';
import type { LegJoints } from '../../src/runtime/foot-ik/rig.js';
import type { CapturedData } from '../../src/runtime/captured-data.js';
import { fromMotion, largestVelocityChange } from '../helpers/velocity-change.js';

const HZ = 30, DT = 1 / HZ;
/** The captures' largest change of a contact point's velocity in a frame (m/s). */
const DATA_CHANGE = 2;
/** Hip to ankle 0.9 m; the animated ankle 0.85 m straight below the hip (joints 0, 1, 2 of wp). */
const leg = { hip: 0, knee: 1, foot: 2, length: 0.9 } as unknown as LegJoints;

/** Hip at y 1, the animated ankle 0.85 m straight below it (joints 0 and 2 of wp). */
function animatedLeg(): Float64Array {
  return new Float64Array([0, 1, 0, 0, 0.575, 0, 0, 0.15, 0]);
}

/**
 * The shown ankle's x (m) per step: a free foot on the ground (its contact over) whose offset, 30 cm
 * to the side, blends back at 6 m/s and comes within the leg's reach on the way. `change`: the
 * captures' largest change (Infinity: no limit, the rule undone).
 */
function blendingBack(change: number, steps = 12): number[] {
  const wp = animatedLeg(), S = new Float64Array(FOOT_IK_STATE_SIZE);
  const data = { contactVelocityChangeMax: change } as unknown as CapturedData;
  S[STEP_DT] = DT; S[LOCKED] = 0; S[HOLD] = 1;
  S[OFFSET] = 0.3; S[OFFSET_VEL] = -6;
  const shown: number[] = [];
  for (let s = 0; s < steps; s++) {
    reachHold(leg, wp, S, OFFSET, REACH, data);
    decayOffset(S, 0, DEFAULT_FOOT_IK_OPTIONS);
    shown.push(wp[6] + S[OFFSET]);
  }
  return shown;
}

/** REACH after each of `steps` calls for a target within reach whose offset moves at `speed` (m/s). */
function holdRising(change: number, speed: number, steps: number): number[] {
  const wp = animatedLeg(), S = new Float64Array(FOOT_IK_STATE_SIZE);
  S[STEP_DT] = DT; S[OFFSET] = 0.05; S[OFFSET_VEL] = -speed;
  const out: number[] = [];
  for (let s = 0; s < steps; s++) {
    reachHold(leg, wp, S, OFFSET, REACH, { contactVelocityChangeMax: change } as unknown as CapturedData);
    out.push(S[REACH]);
  }
  return out;
}

describe('the reach hold on a foot blending back', () => {
  it('rises no faster than the captures\' own change of velocity over the offset\'s speed', () => {
    // 4 m/s of blend, 2 m/s allowed a step: half the hold a step.
    expect(holdRising(DATA_CHANGE, 4, 3)).toEqual([0.5, 1, 1]);
    // The rule undone: whole at once, whatever the offset's speed.
    expect(holdRising(Infinity, 4, 1)).toEqual([1]);
  });

  it('holds a foot whose offset is still at once', () => {
    expect(holdRising(DATA_CHANGE, 0, 1)).toEqual([1]);
  });

  it('changes the shown foot\'s velocity by less than the hold taken at once (the rule undone)', () => {
    const limited = largestVelocityChange(fromMotion(0.3, -6, DT, blendingBack(DATA_CHANGE)), DT), atOnce = largestVelocityChange(fromMotion(0.3, -6, DT, blendingBack(Infinity)), DT);
    expect(atOnce).toBeGreaterThan(2 * DATA_CHANGE);
    expect(limited).toBeLessThan(atOnce - 0.5);
    // Both end held: the foot still where it came back within reach.
    for (const x of [blendingBack(DATA_CHANGE, 30), blendingBack(Infinity, 30)]) expect(Math.abs(x[29] - x[28]) / DT).toBeLessThan(0.01);
  });
});
