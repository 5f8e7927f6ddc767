/**
 * The ground's hold on a free foot's horizontal motion (runtime/foot-ik/offsets.ts
 * followDataOnGround) changes the shown foot's velocity by no more in a step than the captures'
 * own feet change theirs in a frame (CapturedData.contactVelocityChangeMax): a foot that a
 * transition's blend still carries over the floor as it comes into the ground band slows over
 * several steps instead of stopping dead in one; a foot landing as captured is held at once.
 * Measured on the contact point as shown (the animated one plus the offset), as the quality
 * command measures pops.
 */
import { describe, expect, it } from 'vitest';
import { followDataOnGround } from '../../src/runtime/foot-ik/offsets.js';
import { ANIM_PREV, DATA_HOLD, FOOT_IK_STATE_SIZE, HOLD, HOLD_CAPTURED, LOCKED, OFFSET, REACH, RELEASED, STEP_DT } from '../../src/runtime/foot-ik/state.js';
import type { FootIKHost } from '../../src/runtime/foot-ik/host.js';
import type { CapturedData } from '../../src/runtime/captured-data.js';
import type { LegJoints } from '../../src/runtime/foot-ik/rig.js';
import type { Database } from '../../src/database/database.js';
import { fromMotion, largestVelocityChange } from '../helpers/velocity-change.js';

const HZ = 60, DT = 1 / HZ;
/** The animated contact point's speed over the floor (m/s, along x): a landing foot a blend still carries. */
const SPEED = 6;
/** The captures' largest change of a contact point's velocity in a frame (m/s). */
const DATA_CHANGE = 2;

/**
 * Leg 0's contact point shown (x, m) over `steps` steps: the animation carries it along x at SPEED
 * while the capture has it still, the foot fully in the ground band from the first step. `before`
 * is the hold the step before the first (0: coming down from its swing; 1: planted until then).
 */
function shownOverFloor(steps: number, before: number, locked = 0, speed = SPEED, captured = 0): number[] {
  const S = new Float64Array(FOOT_IK_STATE_SIZE);
  const wp = new Float64Array(3);
  const host = { worldPositions: wp, frame: 0, playRate: 1, rootRotation: new Float64Array([0, 0, 0, 1]) } as unknown as FootIKHost;
  // (the captured contact point moves `captured` m/s along x; db.fps 30: per frame captured / 30)
  const data = { contactMotion: new Float32Array([captured / 30, 0, 0, 0, 0, 0]), contactVelocityChangeMax: DATA_CHANGE } as unknown as CapturedData;
  const db = { fps: 30 } as unknown as Database;
  const leg = { contact: 0 } as unknown as LegJoints;
  S[STEP_DT] = DT;
  S[DATA_HOLD] = before;
  S[LOCKED] = locked;
  const shown: number[] = [];
  for (let s = 0; s < steps; s++) {
    S[HOLD] = 1; S[REACH] = 1; S[HOLD_CAPTURED] = 1;
    S[ANIM_PREV] = wp[0];
    wp[0] += speed * DT;
    followDataOnGround(S, 0, 0, leg, host, data, db);
    shown.push(wp[0] + S[OFFSET]);
  }
  return shown;
}

describe('the ground hold on a landing foot', () => {
  it('slows a foot the animation carries over the floor by at most the captures\' own change a step, then holds it still', () => {
    const x = shownOverFloor(10, 0);
    // 6 m/s go in three steps of 2 m/s, not in one step.
    expect(largestVelocityChange(fromMotion(0, SPEED, DT, x), DT)).toBeLessThanOrEqual(DATA_CHANGE + 1e-9);
    expect(x[0] / DT).toBeCloseTo(SPEED - DATA_CHANGE, 9);
    expect((x[1] - x[0]) / DT).toBeCloseTo(SPEED - 2 * DATA_CHANGE, 9);
    // Once the hold is whole the foot moves as the captured one: still.
    expect(Math.abs(x[9] - x[8])).toBeLessThan(1e-12);
  });

  it('fails the same measure when the hold is taken at once (the rule undone)', () => {
    // A hold already whole before the step is what the rule replaced: the foot stops dead.
    const x = shownOverFloor(5, 1);
    expect(largestVelocityChange(fromMotion(0, SPEED, DT, x), DT)).toBeCloseTo(SPEED, 9);
  });

  it('holds a foot landing as captured at once', () => {
    // The animation and the capture move the foot alike (1 m/s): nothing to absorb, whole hold in the first step.
    const x = shownOverFloor(3, 0, 0, 1, 1);
    for (let s = 1; s < x.length; s++) expect((x[s] - x[s - 1]) / DT).toBeCloseTo(1, 6);
  });

  it('holds a foot at once where it was planted the step before (a release keeps it where it stood)', () => {
    const x = shownOverFloor(5, 1, RELEASED);
    for (let s = 1; s < x.length; s++) expect(Math.abs(x[s] - x[0])).toBeLessThan(1e-12);
  });
});
