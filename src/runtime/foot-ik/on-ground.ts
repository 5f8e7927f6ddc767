/**
 * How much a foot is on the ground, and what that allows foot IK (foot-ik.ts): a lock held while the
 * animation still has the foot down (stillDown), the floor a free foot never goes under (floorLift),
 * the ground band's hold on a free foot (groundHold), and the step a foot the leg cannot hold takes
 * instead of being dragged (updateLift). Pure functions on a leg and its state block.
 */
import type { LegJoints } from './rig.js';
import { softReachStart } from './leg.js';
import { ANIM_HEIGHT, DECAY_DT, DECAY_E, HOLD, HOLD_ANIM, LIFT, LIFT_VEL, LOCK, OFFSET, REACH, STEP_DT } from './state.js';

/**
 * A locked foot whose contact the capture has ended stays planted while the animation still has it
 * down: its contact point no higher than this over its planted height (leg lengths; 2.6 cm for a
 * 0.87 m leg, about the skate measure's band)...
 */
export const STILL_DOWN_LEG_LENGTHS = 0.03;

/**
 * ...and the leg reaches the lock without stretching past its soft reach (softReachStart), with the
 * lock held where it is (its horizontal gap from the animated contact point). The contact label ends when the toe starts to
 * move (0.15 m/s), which after a transition's blend is often while the foot the viewer sees is still
 * on the floor: released there, the foot slid from the lock to the animation along the floor (on the
 * built-in database 79% of the strafe's skate was free feet near the ground). Held on past the soft
 * reach, a stretched leg snapped its knee when the lock let go (8.4 m/s).
 */
export function stillDown(leg: LegJoints, at: number, S: Float64Array, wp: Float64Array): boolean {
  if (S[at + ANIM_HEIGHT] - leg.plantedHeight > STILL_DOWN_LEG_LENGTHS * leg.length) return false;
  // The lock's gap from the animated contact point (not passed in: number arguments get boxed).
  const c = 3 * leg.contact, dx = S[at + LOCK] - wp[c], dz = S[at + LOCK + 2] - wp[c + 2];
  // The ankle held with the lock: the animated ankle shifted by the lock's gap (and any vertical offset left).
  const h = 3 * leg.hip, f = 3 * leg.foot;
  const x = wp[f] + dx - wp[h], y = wp[f + 1] + S[at + OFFSET + 1] - wp[h + 1], z = wp[f + 2] + dz - wp[h + 2];
  const reach = softReachStart(leg, wp);
  return x * x + y * y + z * z <= reach * reach;
}

/** A free foot is planted only once its contact point moves slower than this many leg lengths per second (about 0.5 m/s). */
export const PLANT_SPEED_LEG_LENGTHS = 0.6;

/**
 * How far (m) a free foot must go up so that neither its contact point nor its ankle is lower than it
 * stands when planted, with the foot moved by `shift` (m, vertically) from the animated pose, on the
 * flat ground at height `groundY`: max(0, planted − height) over the two joints.
 */
export function floorLift(leg: LegJoints, wp: Float64Array, shift: number, groundY: number): number {
  const c = wp[3 * leg.contact + 1] + shift - groundY, a = wp[3 * leg.foot + 1] + shift - groundY;
  const need = Math.max(leg.plantedHeight - c, leg.anklePlantedHeight - a);
  return need > 0 ? need : 0;
}

/** The ground band: a free contact point this far above its planted height (in leg lengths) is off the ground. */
export const GROUND_BAND_LEG_LENGTHS = 0.1;

/** A stepping foot may be planted where the leg's reach hold and the ground hold of its lift are at least this. */
export const STEP_LANDED_HOLD = 0.75;

/** Lifts below this (m) are none: the tolerance within which bendLeg skips a solve (0.05 mm), which would not show either. */
const LIFT_TOLERANCE = 5e-5;

/**
 * How much a free foot whose contact point is `h` m above its planted height is on the ground: 1 at
 * (or below) its planted height, falling smoothly to 0 at the ground band (the shape of the
 * foot-skate weight, clamp(2 − 2^(h/band), 0, 1)).
 */
export function groundHold(h: number, legLength: number): number {
  // = clamp(2 − 2^(h/band), 0, 1); outside (0, band) without the power (most steps of a walk).
  const band = GROUND_BAND_LEG_LENGTHS * legLength;
  if (h >= band) return 0;
  if (h <= 0) return 1;
  // 2^(h/band) as e^(h/band · ln 2): Math.pow costs 7-10 times Math.exp in V8 (56 against 5-8 ns
  // a call), and this runs for every free leg near the ground, every step.
  const w = 2 - Math.exp((h / band) * Math.LN2);
  return w <= 0 ? 0 : w >= 1 ? 1 : w;
}

/**
 * This step's ground holds of leg `at` into the block: S[HOLD] of the foot as shown (its animated
 * contact point raised by S[LIFT]), S[HOLD_ANIM] of the animated one, S[HOLD_LIFT] of the lift
 * alone (how far a stepping foot has come down), S[HOLD_CAPTURED] of the captured contact point at
 * the frame played (`captured[ci]`, capturedData's contactHeight); read by the offsets
 * (offsets.ts), the lift, the leg's bend and the landing. groundHold written out: numbers passed to
 * or returned from a call V8 does not inline are heap boxes, and these are read for every leg,
 * every step.
 */
export function updateGroundHolds(S: Float64Array, at: number, leg: LegJoints, captured: Float32Array, ci: number): void {
  const band = GROUND_BAND_LEG_LENGTHS * leg.length;
  for (let k = 0; k < 4; k++) {
    // HOLD, HOLD_ANIM, HOLD_LIFT, HOLD_CAPTURED in turn
    const h = k === 3 ? captured[ci] : k === 2 ? S[at + LIFT] : S[at + ANIM_HEIGHT] + (k === 0 ? S[at + LIFT] : 0) - leg.plantedHeight;
    let w: number;
    if (h >= band) w = 0;
    else if (h <= 0) w = 1;
    else { w = 2 - Math.exp((h / band) * Math.LN2); w = w <= 0 ? 0 : w >= 1 ? 1 : w; }
    S[at + HOLD + k] = w;
  }
}

/**
 * A free foot the leg cannot hold where it stands (its reach hold S[REACH] below 1: the held offset is
 * past the leg's soft reach) is not dragged along the floor: it rises, in proportion to what the leg
 * cannot hold, towards the ground band (where a foot counts as off the ground), and, off the ground
 * by that much, blends towards the animation as in the air (followDataOnGround and decayOffset take
 * its height with the lift): a step where the leg would have dragged it. Dragged, feet slid at 1-2 m/s
 * along the floor after transitions the data had no good match for (on the shared captures'
 * locomotion clips alone, 80% of the skate was free feet held out of reach). Only as far as the
 * animation has the foot on the ground (a swinging foot is in the air already); a locked foot's lift
 * goes to 0. The lift follows a critically damped spring with the offsets' half-life, so a foot rises
 * and comes down without a jump of velocity (a leg near full stretch turns a small lift into a large
 * knee motion).
 */
export function updateLift(S: Float64Array, at: number, leg: LegJoints, locked: boolean, halfLife: number): void {
  let want = locked ? 0 : (1 - S[at + REACH]) * GROUND_BAND_LEG_LENGTHS * leg.length * S[at + HOLD_ANIM];
  // A lift that would not show is none (a leg just past its soft reach): the leg keeps its fast paths.
  if (want < LIFT_TOLERANCE) want = 0;
  const l = at + LIFT, v = at + LIFT_VEL, dt = S[STEP_DT];
  if (want === 0 && S[l] === 0 && S[v] === 0) return;
  // = the decay spring (decaySpringUpdate) on lift - want, with decayOffset's cached e^(-y dt) (the same half-life)
  const y0 = (2 * Math.LN2) / halfLife;
  if (dt !== S[DECAY_DT]) { S[DECAY_DT] = dt; S[DECAY_E] = Math.exp(-y0 * dt); }
  // A planted foot comes down at twice the rate (half the half-life: e^(-2 y dt) = e²): it has
  // touched down, and what is left of its lift is the end of the step (brought down at the
  // offsets' rate, a foot planted 2 cm up still crept down 1 s after a stop).
  const y = locked ? 2 * y0 : y0, e = locked ? S[DECAY_E] * S[DECAY_E] : S[DECAY_E];
  const x = S[l] - want, j = S[v] + x * y;
  S[l] = want + e * (x + j * dt);
  S[v] = e * (S[v] - j * y * dt);
  // Never below the animation; settled to exactly 0, so that a still leg takes the fast paths again.
  if (S[l] < 0 || (want === 0 && S[l] < LIFT_TOLERANCE && Math.abs(S[v]) * dt < LIFT_TOLERANCE)) { S[l] = 0; S[v] = 0; }
}
