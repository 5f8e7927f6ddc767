/**
 * How a planted foot turns (runtime/foot-ik/planted-turn.ts), on hand-made positions with known
 * answers: the heading held is the bearing of the ankle seen from the toe (what a viewer sees swing
 * round a planted toe), whatever the foot's pitch and roll; the heel raise that lets a leg reach is
 * the one the geometry gives.
 */
import { describe, expect, it } from 'vitest';
import { HELD_TURN, PIVOT, REACH_IN, YAW_TURN, footBearing, heelRaiseToReach, heldTurn } from '../../src/runtime/foot-ik/planted-turn.js';
import { LOCK_YAW } from '../../src/runtime/foot-ik/state.js';
import { quatFromAxisAngle, quatMultiply, quatRotateVec3 } from '../../src/math/quat.js';
import type { LegJoints } from '../../src/runtime/foot-ik/rig.js';

// Joints 0 hip, 1 knee, 2 ankle, 3 toe; a leg of 0.8 m and a foot of 0.14 m.
const LEG: LegJoints = { hip: 0, knee: 1, foot: 2, bit: 1, contact: 3, length: 0.8, plantedHeight: 0.02, anklePlantedHeight: 0.08, below: Int32Array.of(3) };
/** The toe from the ankle in the foot's own frame (forward and down). */
const TOE = Float64Array.of(0, -0.06, 0.126);

/**
 * World positions of a foot whose toe is at `toe` and whose world rotation is yaw about +Y, then
 * pitch about the foot's side (+X: heel up), then roll about its own length (the ankle-toe line,
 * which moves no joint); the hip is above the ankle.
 */
function footAt(toe: number[], yaw: number, pitch: number, roll: number): { wp: Float64Array; q: Float64Array } {
  const q = new Float64Array(4), t = new Float64Array(4), l = Math.hypot(TOE[0], TOE[1], TOE[2]);
  quatFromAxisAngle(q, 0, 0, 1, 0, yaw);
  quatFromAxisAngle(t, 0, 1, 0, 0, pitch);
  quatMultiply(q, 0, q, 0, t, 0);
  quatFromAxisAngle(t, 0, TOE[0] / l, TOE[1] / l, TOE[2] / l, roll);
  quatMultiply(q, 0, q, 0, t, 0);
  const v = new Float64Array(3);
  quatRotateVec3(v, 0, q, 0, TOE, 0);
  const wp = new Float64Array(12);
  wp.set([toe[0], toe[1], toe[2]], 9);
  wp.set([toe[0] - v[0], toe[1] - v[1], toe[2] - v[2]], 6);
  wp.set([wp[6], wp[7] + 0.4, wp[8]], 3);
  wp.set([wp[6], wp[7] + 0.75, wp[8]], 0);
  return { wp, q };
}

/** The twist of world rotation q about +Y: what the heading hold used to keep. */
const twistAboutY = (q: Float64Array): number => 2 * Math.atan2(q[1], q[3]);
const wrap = (a: number): number => a - 2 * Math.PI * Math.round(a / (2 * Math.PI));

describe('planted foot heading', () => {
  it('is the bearing of the ankle from the toe, turning with a turn about +Y as quatFromYaw does', () => {
    for (const yaw of [0, 0.7, -2.5, 3.1]) {
      const { wp } = footAt([1, 0.02, -2], yaw, 0, 0);
      // The ankle lies behind the toe: its bearing is the foot's heading turned half a turn.
      expect(wrap(footBearing(LEG, wp) - (yaw + Math.PI))).toBeCloseTo(0, 12);
      const turned = footAt([1, 0.02, -2], yaw + 0.4, 0, 0).wp;
      expect(wrap(footBearing(LEG, turned) - footBearing(LEG, wp))).toBeCloseTo(0.4, 12);
    }
  });

  it('holds the planted bearing while the body turns the foot and its heel rises and rolls', () => {
    const planted = footAt([0, 0.02, 0], 0.3, 0, 0).wp;
    const S = new Float64Array(80);
    S[LOCK_YAW] = footBearing(LEG, planted);
    // The animation turns the foot 0.35 rad further (the body's turn) and raises the heel 0.6 rad with a roll.
    const { wp, q } = footAt([0, 0.02, 0], 0.65, 0.6, 0.5);
    heldTurn(S, 0, LEG, wp);
    expect(HELD_TURN[0]).toBeCloseTo(-0.35, 12);
    // Turning the ankle about the toe by the held turn (YAW_TURN) puts it back on the planted bearing.
    const v = Float64Array.of(wp[6] - wp[9], wp[7] - wp[10], wp[8] - wp[11]);
    quatRotateVec3(v, 0, YAW_TURN, 0, v, 0);
    expect(wrap(Math.atan2(v[0], v[2]) - S[LOCK_YAW])).toBeCloseTo(0, 12);
    // The twist of the foot's rotation is not that heading: holding it left the heel swung sideways.
    const twistTurn = wrap(0.3 - twistAboutY(q));
    expect(Math.abs(twistTurn - HELD_TURN[0])).toBeGreaterThan(0.05);
  });

  it('lets the heading go where the foot stands too steep to show one, so the lock follows the animation', () => {
    const S = new Float64Array(80);
    S[LOCK_YAW] = footBearing(LEG, footAt([0, 0.02, 0], 0, 0, 0).wp);
    // Nearly on its toe (the ankle straight above it): no heading to hold, whatever the bearing says.
    const { wp } = footAt([0, 0.02, 0], 0.5, 1.0, 0);
    heldTurn(S, 0, LEG, wp);
    expect(Math.abs(HELD_TURN[0])).toBe(0);
    expect(wrap(S[LOCK_YAW] - footBearing(LEG, wp))).toBeCloseTo(0, 12);
    // Flat again, it holds from the heading it followed.
    const flat = footAt([0, 0.02, 0], 0.6, 0, 0).wp;
    heldTurn(S, 0, LEG, flat);
    expect(HELD_TURN[0]).toBeCloseTo(-0.1, 12);
  });
});

/**
 * heelRaiseToReach for the ankle and toe where `wp` has them, the hip where it is, the leg's whole
 * reach allowed (every input set: REACH_IN is shared, and a foot IK step run before this file in the
 * same worker left its own reach in the last slot).
 */
function reach(wp: Float64Array): void {
  REACH_IN.set([wp[6], wp[7], wp[8], wp[9], wp[10], wp[11], 0, Infinity]);
  heelRaiseToReach(LEG, wp);
}

describe('heel raise to reach', () => {
  it('is none where the leg reaches the ankle as it is', () => {
    const { wp } = footAt([0, 0.02, 0], 0, 0, 0);
    reach(wp);
    expect(PIVOT[0]).toBe(0);
  });

  it('turns the ankle about the toe just far enough for the leg to reach it', () => {
    const { wp } = footAt([0, 0.02, 0], 0, 0, 0);
    // The hip 0.85 m up and 0.2 m ahead of the toe: the ankle behind the toe is out of reach.
    wp.set([0, 0.87, 0.2], 0);
    reach(wp);
    const theta = PIVOT[0], r = PIVOT[7];
    expect(theta).toBeGreaterThan(0.05);
    const c = Math.cos(theta), s = Math.sin(theta);
    const ankle = [0, 1, 2].map((k) => wp[9 + k] + r * (c * PIVOT[1 + k] + s * PIVOT[4 + k]));
    expect(Math.hypot(ankle[0] - wp[0], ankle[1] - wp[1], ankle[2] - wp[2])).toBeCloseTo(0.995 * LEG.length, 9);
  });

  it('is the whole angle to the hip (at most MAX_HEEL_RAISE) where even a foot pointing at the hip falls short', () => {
    const { wp } = footAt([0, 0.02, 0], 0, 0, 0);
    wp.set([0, 0.02, 1.2], 0); // the hip a leg and a half away along the ground
    reach(wp);
    expect(PIVOT[0]).toBeCloseTo(Math.PI / 3, 12);
  });
});
