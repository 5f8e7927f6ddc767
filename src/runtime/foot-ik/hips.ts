/**
 * Lowering the hips so that a planted leg reaches its lock (foot IK's maxHipsDrop; on uneven ground
 * groundOptions.maxHipsDropLegLengths, for what the ground adds to the leg's need): how far each leg
 * needs the hip joint to come down (reachDrop, dropToReach; which free legs ask for it:
 * landingAhead), and the spring that lowers the body and shifts the world pose (lowerHips).
 * Functions on the foot IK state block (state.ts).
 */
import { quatInvRotateVec3 } from '../../math/quat.js';
import type { FootIKHost } from './host.js';
import type { FootIKOptions } from './options.js';
import type { FootRig, LegJoints } from './rig.js';
import { HIPS_DROP, HIPS_DROP_VEL, HIPS_DT, HIPS_E, HIPS_MAX, HIPS_SHOWN_VEL, HIPS_VEL_CHANGE_MAX, NEEDED_DROP, SETTLING, STEP_DT, TARGET } from './state.js';

/** On uneven ground the hips drop once a leg is within this share of its length of full stretch. */
const GROUND_REACH_SLACK = 0.03;
/** Decay rate of the hips drop spring (half-life 0.06 s). */
const HIPS_DROP_DAMPING = (2 * Math.LN2) / 0.06;
const DROP_VEC = new Float64Array(3);
const DROP_LOCAL = new Float64Array(3);

/**
 * Whether a free leg's target is ahead of its hip (along the character's forward): a foot about to
 * land, whose reach the hips drop may have to make (stepping down). A trailing foot is leaving the
 * ground: lowering the body for it only folded the other leg under it.
 */
export function landingAhead(S: Float64Array, at: number, leg: LegJoints, wp: Float64Array, rootRotation: Float64Array): boolean {
  const h = 3 * leg.hip;
  // forward (+Z) turned by the root's yaw rotation: = quatRotateVec3(rootRotation, (0, 0, 1))
  const qx = rootRotation[0], qy = rootRotation[1], qz = rootRotation[2], qw = rootRotation[3];
  const fx = 2 * (qx * qz + qw * qy), fz = 1 - 2 * (qx * qx + qy * qy);
  return (S[at + TARGET] - wp[h]) * fx + (S[at + TARGET + 2] - wp[h + 2]) * fz > 0;
}

/** reachDrop's answer (m): a scratch, since a number returned by a call that is not inlined is a heap box. */
export const REACH_DROP = new Float64Array(1);
/** The `rise` (m) of dropToReach on uneven ground, written by its caller: a number passed to a call that is not inlined is a heap box too. */
export const REACH_RISE = new Float64Array(1);
/** reachDrop's target, copied for reachDropAt. */
const REACH_TARGET = new Float64Array(3);

/**
 * How far the hip joint must come down for leg `leg` (posed as in `wp`) to reach the ankle target
 * (x, y, z), into REACH_DROP[0]. On uneven ground (`ground`) only what the ground adds: `rise` is
 * how far the ground has moved the target up from where the animation has it (negative below: a
 * step down), and the drop is the need less the need were the target at the animation's height,
 * so that a target the body has moved away from on level ground is left to the rules of flat
 * ground (a heel raised, the lock let go) rather than crouched for. (A standing character's lock
 * 60-70 cm out on level ground held the hips 28 cm down for seconds: a fifth of the real captures'
 * stop-go on the steps, the hips 25 cm below the frame played at the 5th percentile.)
 */
export function reachDrop(leg: LegJoints, wp: Float64Array, x: number, y: number, z: number, ground: boolean, rise: number): void {
  REACH_TARGET[0] = x; REACH_TARGET[1] = y; REACH_TARGET[2] = z;
  REACH_RISE[0] = rise;
  reachDropAt(leg, wp, REACH_TARGET, 0, ground);
}

/**
 * {@link reachDrop} for the target T[t..t+3] and, on uneven ground, the rise REACH_RISE[0]: no
 * number passes through the call (the foot IK step calls it for every planted leg; with five
 * numbers as arguments, 35 bytes of garbage per agent-step in a crowd).
 */
function reachDropAt(leg: LegJoints, wp: Float64Array, T: Float64Array, t: number, ground: boolean): void {
  const h = 3 * leg.hip, k = 3 * leg.knee, f = 3 * leg.foot;
  REACH_DROP[0] = 0;
  // On uneven ground a little more slack: a planted leg held at full stretch (the heel raise keeps
  // it at 99.5%) swings its knee fast as the body moves on (8 m/s downhill).
  // The thigh's and the shin's lengths as posed (= dist3(wp, k, h) + dist3(wp, f, k), written out).
  const tx = wp[k] - wp[h], ty = wp[k + 1] - wp[h + 1], tz = wp[k + 2] - wp[h + 2];
  const sx = wp[f] - wp[k], sy = wp[f + 1] - wp[k + 1], sz = wp[f + 2] - wp[k + 2];
  const reach = Math.sqrt(tx * tx + ty * ty + tz * tz) + Math.sqrt(sx * sx + sy * sy + sz * sz) - (ground ? GROUND_REACH_SLACK * leg.length : 0.01);
  const dx = T[t] - wp[h], dz = T[t + 2] - wp[h + 2], dy = wp[h + 1] - T[t + 1];
  const horizontal = dx * dx + dz * dz;
  if (dx * dx + dy * dy + dz * dz <= reach * reach || dy <= 0) return;
  // On uneven ground the limit is high: a target out of reach sideways is not lowered for, as no
  // drop brings it in reach (a trailing foot held behind a walking body pulled the hips down 28 cm).
  if (ground && horizontal >= reach * reach) return;
  // Lowering by d makes the vertical gap dy - d; the leg reaches when (dy - d)^2 + h^2 <= reach^2.
  const allowed = horizontal < reach * reach ? Math.sqrt(reach * reach - horizontal) : 0;
  // (at the animation's height the gap would be dy + rise: what that would need is the body's doing,
  // not the ground's)
  const need = ground ? dy - allowed - Math.max(0, dy + REACH_RISE[0] - allowed) : dy - allowed;
  REACH_DROP[0] = need > 0 ? need : 0;
}

/**
 * Raises NEEDED_DROP to how far the hip joint must come down for the leg to reach its target
 * (reachDrop; on uneven ground with the rise its caller wrote into REACH_RISE[0]).
 */
export function dropToReach(S: Float64Array, at: number, leg: LegJoints, wp: Float64Array, ground: boolean): void {
  reachDropAt(leg, wp, S, at + TARGET, ground);
  if (REACH_DROP[0] > S[NEEDED_DROP]) S[NEEDED_DROP] = REACH_DROP[0];
}

/**
 * Lowers the hips (a spring, and faster when more is needed: hipsDropSpeed) by at most S[HIPS_MAX],
 * its vertical speed changing by at most S[HIPS_VEL_CHANGE_MAX] a step, and refreshes the world
 * pose, so that planted feet are not dragged once the body moves past their reach.
 */
export function lowerHips(S: Float64Array, rig: FootRig, parents: Int32Array, host: FootIKHost, opts: FootIKOptions): void {
  const max = S[HIPS_MAX], dt = S[STEP_DT];
  if (max <= 0) return;
  const want = Math.min(max, S[NEEDED_DROP]);
  // A critically damped spring (half-life 0.06 s) towards the wanted drop: its velocity stays
  // continuous when the wanted drop jumps, so the body never jerks.
  if (dt > 0) {
    const y = HIPS_DROP_DAMPING, e = dt === S[HIPS_DT] ? S[HIPS_E] : Math.exp(-y * dt);
    S[HIPS_DT] = dt; S[HIPS_E] = e;
    const before = S[HIPS_DROP], x = before - want, j = S[HIPS_DROP_VEL] + x * y;
    let drop = want + e * (x + j * dt), vel = e * (S[HIPS_DROP_VEL] - j * y * dt);
    if (opts.hipsDropSpeed > 0 && drop < want) {
      // Lower by what is needed at once, but at most hipsDropSpeed (m/s) beyond the spring: a bounded
      // velocity change, so the leg reaches its lock without the spring's lag and the body never jerks.
      const fast = Math.min(want, before + opts.hipsDropSpeed * dt);
      if (fast > drop) { drop = fast; if (vel < 0) vel = 0; }
    }
    // The body's vertical speed changes by at most the captures' own largest change in a frame
    // (S[HIPS_VEL_CHANGE_MAX]) per step, and slows down before the limit and before the animation's
    // height (0) as fast as that allows: the whole body moves with the hips, and a leg near full
    // stretch turns a jolt of the hips into one of its knee. The spring alone rose 14 cm in 0.08 s
    // once a lock that had needed the drop was let go of, the faster lowering (hipsDropSpeed) then
    // reversed it within a step and the stretched leg's knee jumped 7.9 m/s (the real captures'
    // stop-go on hills); reaching the limit stopped it dead (7.5 m/s, the strafe).
    const change = S[HIPS_VEL_CHANGE_MAX], was = S[HIPS_SHOWN_VEL], wanted = (drop - before) / dt;
    let speed = wanted;
    // (no limit where the captures hold no clip of three frames: change is infinite)
    if (change < Number.POSITIVE_INFINITY) {
      if (speed > was + change) speed = was + change;
      else if (speed < was - change) speed = was - change;
      // The fastest speed from which a change of `change` per step still stops within the distance
      // left: v² = 2·(change/dt)·distance.
      const down = Math.sqrt((2 * change * Math.max(0, max - before)) / dt), up = Math.sqrt((2 * change * Math.max(0, before)) / dt);
      if (speed > down && speed > was - change) speed = Math.max(down, was - change);
      if (speed < -up && speed < was + change) speed = Math.min(-up, was + change);
      // (the spring goes on from the motion shown)
      if (speed !== wanted) { drop = before + speed * dt; vel = speed; }
    }
    // Never beyond the limit nor above the animation, whatever the momentum.
    if (drop > max) { drop = max; if (vel > 0) vel = 0; }
    if (drop < 0) { drop = 0; if (vel < 0) vel = 0; }
    // Just after a reset the body starts where the legs need it (state.ts SETTLING), at rest.
    const settling = S[SETTLING] === 1;
    if (settling) { drop = want; vel = 0; }
    S[HIPS_SHOWN_VEL] = settling ? 0 : (drop - before) / dt;
    S[HIPS_DROP] = drop; S[HIPS_DROP_VEL] = vel;
  }
  if (S[HIPS_DROP] < 1e-5 && Math.abs(S[HIPS_DROP_VEL]) < 1e-4 && want === 0) { S[HIPS_DROP] = 0; S[HIPS_DROP_VEL] = 0; return; }
  const hips = rig.hips, parent = parents[hips];
  DROP_VEC[0] = 0; DROP_VEC[1] = -S[HIPS_DROP]; DROP_VEC[2] = 0;
  // The drop is vertical in the world; express it in the hips' parent frame.
  if (parent >= 0) quatInvRotateVec3(DROP_LOCAL, 0, host.worldRotations, 4 * parent, DROP_VEC, 0);
  else quatInvRotateVec3(DROP_LOCAL, 0, host.rootRotation, 0, DROP_VEC, 0);
  for (let k = 0; k < 3; k++) host.translations[3 * hips + k] += DROP_LOCAL[k];
  // A translation of the hips moves its whole subtree rigidly by the same world vector: shift
  // those world positions rather than redo forward kinematics (rotations are unchanged).
  const wp = host.worldPositions, sub = rig.hipsSubtree, dy = DROP_VEC[1];
  for (let i = 0; i < sub.length; i++) wp[3 * sub[i] + 1] += dy;
}
