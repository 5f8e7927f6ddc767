/**
 * A leg's solve, besides the target: which way its knee points (the pole), how a free leg's reach
 * is softened near full stretch, and a foot's heading. Shared by foot IK on flat and on uneven
 * ground (foot-ik/foot-ik.ts).
 */
import type { LegJoints } from './rig.js';
import { IK_TARGET } from './state.js';

/** The pole kneePole computes (world direction), shared by every character of a thread. */
export const KNEE_POLE = new Float64Array(3);
/** Share of a free leg's length over which its reach is softened (see softenReach). */
export const SOFT_REACH = 0.05;
/** How much (in leg lengths) the foot's direction adds to the animated knee offset in the pole. */
const POLE_FOOT_SHARE = 0.05;

/**
 * The direction a leg's knee points (KNEE_POLE, world): the animated knee's offset from the line
 * hip-to-ankle, plus a little of the way the foot points (ankle to toe, else the character's
 * forward). A bent leg keeps its animated bend plane (the offset dominates); a nearly straight one,
 * whose bend plane the animation barely defines, bends the way its foot points. Without it a
 * swinging leg pulled back by a release's offset flipped its knee sideways within a step (6-7 m/s).
 */
export function kneePole(leg: LegJoints, wp: Float64Array, rootRotation: Float64Array, ground: boolean): boolean {
  const h = 3 * leg.hip, k = 3 * leg.knee, f = 3 * leg.foot, t = 3 * leg.contact;
  // Knee offset from the hip-ankle line.
  const ax = wp[f] - wp[h], ay = wp[f + 1] - wp[h + 1], az = wp[f + 2] - wp[h + 2];
  const bx = wp[k] - wp[h], by = wp[k + 1] - wp[h + 1], bz = wp[k + 2] - wp[h + 2];
  const aa = ax * ax + ay * ay + az * az, s = aa > 1e-12 ? (ax * bx + ay * by + az * bz) / aa : 0;
  const ox = bx - s * ax, oy = by - s * ay, oz = bz - s * az;
  const bend = Math.sqrt(ox * ox + oy * oy + oz * oz), share = POLE_FOOT_SHARE * leg.length;
  if (ground) return groundKneePole(ox, oy, oz, share, rootRotation);
  if (bend >= share) return false; // the pole would be the bend itself
  // Where the foot points, on the ground.
  let fx = wp[t] - wp[f], fz = wp[t + 2] - wp[f + 2];
  if (leg.contact === leg.foot || fx * fx + fz * fz < 1e-8) {
    // forward (+Z) turned by the root's yaw rotation: = quatRotateVec3(rootRotation, (0, 0, 1))
    const qx = rootRotation[0], qy = rootRotation[1], qz = rootRotation[2], qw = rootRotation[3];
    fx = 2 * (qx * qz + qw * qy); fz = 1 - 2 * (qx * qx + qy * qy);
  }
  // The foot's share fades out as the animated bend grows, so that a bent leg's pole is its own bend
  // and solving it for the animated ankle changes nothing (no snap when the solve stops).
  const fl = Math.sqrt(fx * fx + fz * fz), w = (share - bend) / fl;
  KNEE_POLE[0] = ox + w * fx; KNEE_POLE[1] = oy; KNEE_POLE[2] = oz + w * fz;
  return true;
}

/**
 * The knee pole on uneven ground, for every leg: the animated knee offset (ox, oy, oz) without any
 * part pointing backwards, plus `share` of the character's forward. Uneven ground bends legs the
 * animation has straight (a swinging leg under lowered hips, a foot on higher ground), where the
 * animated bend says little: a knee bending slightly backwards or sideways (mocap knees
 * overextend) flipped the solved knee within a step (15-38 m/s), and so did the foot's direction,
 * which points anywhere in a swing. A bent leg's pole is still its own bend.
 */
function groundKneePole(ox: number, oy: number, oz: number, share: number, rootRotation: Float64Array): boolean {
  // forward (+Z) turned by the root's yaw rotation: = quatRotateVec3(rootRotation, (0, 0, 1))
  const qx = rootRotation[0], qy = rootRotation[1], qz = rootRotation[2], qw = rootRotation[3];
  const fx = 2 * (qx * qz + qw * qy), fz = 1 - 2 * (qx * qx + qy * qy), fl = Math.sqrt(fx * fx + fz * fz);
  const back = (ox * fx + oz * fz) / fl, w = (share - (back < 0 ? back : 0)) / fl;
  KNEE_POLE[0] = ox + w * fx; KNEE_POLE[1] = oy; KNEE_POLE[2] = oz + w * fz;
  return true;
}

/**
 * Pulls a free leg's target (IK_TARGET) in smoothly where it nears the leg's full length: distance
 * d from the hip becomes s0 + w·(1 − e^(−(d − s0)/w)) beyond s0 = (1 − SOFT_REACH)·length, with
 * w = SOFT_REACH·length (continuous, with a continuous slope). A swinging leg blending out a
 * released lock otherwise ran into full extension and bent again within a step: the knee snapped
 * straight and back (6-7 m/s). Applied in proportion to what is left to blend (the length of
 * `offset`, the 3 numbers at o, up to w), so that a leg with nothing left to blend is the animation's, and the
 * solve stopping changes nothing. Planted legs keep their targets: the heel raise handles their reach.
 */
export function softenReach(leg: LegJoints, wp: Float64Array, offset: Float64Array | null, o: number): void {
  const h = 3 * leg.hip;
  const x = IK_TARGET[0] - wp[h], y = IK_TARGET[1] - wp[h + 1], z = IK_TARGET[2] - wp[h + 2];
  const d = Math.sqrt(x * x + y * y + z * z), w = SOFT_REACH * leg.length, s0 = leg.length - w;
  if (d <= s0 || d < 1e-9) return;
  // The blend is the offset's length (read here: a number argument to a call V8 does not inline is
  // boxed, docs/runtime.md); no offset softens fully (a = 1).
  const blend = offset === null ? w : Math.sqrt(offset[o] * offset[o] + offset[o + 1] * offset[o + 1] + offset[o + 2] * offset[o + 2]);
  const soft = s0 + w * (1 - Math.exp(-(d - s0) / w)), a = Math.min(1, blend / w);
  const k = (d + a * (soft - d)) / d;
  IK_TARGET[0] = wp[h] + x * k; IK_TARGET[1] = wp[h + 1] + y * k; IK_TARGET[2] = wp[h + 2] + z * k;
}

/** The heading of world rotation q[o..]: its twist about +Y, 2·atan2(y, w) (same sense as quatFromYaw). */
export function twistYaw(q: Float64Array, o: number): number {
  return 2 * Math.atan2(q[o + 1], q[o + 3]);
}
