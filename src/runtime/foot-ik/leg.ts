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
/** The furthest share of its soft range (to full stretch) unsoftenOffset undoes. */
const UNSOFTEN_MAX = 0.9;
/** How much (in leg lengths) the foot's direction adds to the animated knee offset in the pole. */
const POLE_FOOT_SHARE = 0.05;

/**
 * The direction a leg's knee points (KNEE_POLE, world), or false to keep the leg's own bend plane.
 * A knee bends to the front of the leg within the body's sagittal plane: the front is
 * right × (hip to ankle) with the character's right (forward for a leg hanging down, up for one
 * swung forward level, where the character's forward runs along the leg itself and says nothing).
 * A leg bent that way by at least POLE_FOOT_SHARE of its length keeps its own plane (the solver's
 * default, and its faster path); a straighter one takes the animated knee's offset from the
 * hip-ankle line without any part pointing to the back, plus the front for the rest of the share
 * (continuous with the leg's own plane where the offset reaches the share). Mocap knees overextend
 * slightly: a backward offset against a forward direction left a pole of a few millimetres
 * pointing anywhere, and the knee of a swinging leg being blended flipped within a step (7-13 m/s
 * on real captures). On uneven ground every leg takes the pole with the whole share of the front:
 * uneven ground bends legs the animation has straight (a swinging leg under lowered hips, a foot on
 * higher ground), where a bent leg's own plane, bending slightly backwards or sideways, flipped the
 * solved knee within a step (15-38 m/s).
 */
export function kneePole(leg: LegJoints, wp: Float64Array, rootRotation: Float64Array, ground: boolean): boolean {
  const h = 3 * leg.hip, k = 3 * leg.knee, f = 3 * leg.foot;
  // Knee offset from the hip-ankle line.
  const ax = wp[f] - wp[h], ay = wp[f + 1] - wp[h + 1], az = wp[f + 2] - wp[h + 2];
  const bx = wp[k] - wp[h], by = wp[k + 1] - wp[h + 1], bz = wp[k + 2] - wp[h + 2];
  const aa = ax * ax + ay * ay + az * az, s = aa > 1e-12 ? (ax * bx + ay * by + az * bz) / aa : 0;
  const ox = bx - s * ax, oy = by - s * ay, oz = bz - s * az;
  const share = POLE_FOOT_SHARE * leg.length;
  // The character's right (−X turned by the root's yaw rotation: = quatRotateVec3(rootRotation, (−1, 0, 0))),
  // then the leg's front, right × (hip to ankle), as a unit vector.
  const qx = rootRotation[0], qy = rootRotation[1], qz = rootRotation[2], qw = rootRotation[3];
  const rx = -(1 - 2 * (qy * qy + qz * qz)), ry = -2 * (qx * qy + qw * qz), rz = -2 * (qx * qz - qw * qy);
  let px = ry * az - rz * ay, py = rz * ax - rx * az, pz = rx * ay - ry * ax;
  const pl = Math.sqrt(px * px + py * py + pz * pz);
  if (!(pl > 1e-9)) return false; // a leg along the character's right: no front to bend to
  px /= pl; py /= pl; pz /= pl;
  const ahead = ox * px + oy * py + oz * pz, bend2 = ox * ox + oy * oy + oz * oz;
  if (!ground && ahead >= 0 && bend2 >= share * share) return false; // the pole would be the bend itself
  // The offset without its part to the back, and the front for what it lacks of the share.
  const back = ahead < 0 ? ahead : 0;
  const cx = ox - back * px, cy = oy - back * py, cz = oz - back * pz;
  const w = ground ? share : Math.max(0, share - Math.sqrt(cx * cx + cy * cy + cz * cz));
  KNEE_POLE[0] = cx + w * px; KNEE_POLE[1] = cy + w * py; KNEE_POLE[2] = cz + w * pz;
  return true;
}

/**
 * Pulls a free leg's target (IK_TARGET) in smoothly where it would stretch the leg further than the
 * animation does near its full length: a distance d from the hip beyond s0 (softReachStart) becomes
 * s0 + w·(1 − e^(−(d − s0)/w)), with w = length − s0 (continuous, with a continuous slope, and never
 * reaching full stretch). A target the animation reaches is left as it is, so a leg with
 * nothing to blend is the animation's and the solve stopping changes nothing; a swinging leg
 * blending out a released lock or a transition's offset no longer runs into full extension, where
 * the solver's clamp straightened it and its knee flipped within a step (8-12 m/s on real
 * captures). Planted legs keep their targets: the heel raise handles their reach.
 */
export function softenReach(leg: LegJoints, wp: Float64Array): void {
  const h = 3 * leg.hip;
  const x = IK_TARGET[0] - wp[h], y = IK_TARGET[1] - wp[h + 1], z = IK_TARGET[2] - wp[h + 2];
  const d = Math.sqrt(x * x + y * y + z * z);
  const s0 = softReachStart(leg, wp), w = leg.length - s0;
  if (d <= s0 || d < 1e-9) return;
  const soft = w > 1e-9 ? s0 + w * (1 - Math.exp(-(d - s0) / w)) : s0;
  const k = soft / d;
  IK_TARGET[0] = wp[h] + x * k; IK_TARGET[1] = wp[h + 1] + y * k; IK_TARGET[2] = wp[h + 2] + z * k;
}

/**
 * The inverse of softenReach for a leg being released: moves the ankle's offset (3 numbers of `S` at
 * `o`, added to the animated ankle) so that softenReach brings the target back to where the
 * planted leg had it. Held near full stretch by its heel raise, a released leg was otherwise pulled
 * in by a centimetre or two in one step, and its nearly straight knee jumped 6 m/s; now the pull-in
 * happens as the offset blends out. softenReach maps d > s0 to s0 + w·(1 − e^(−(d − s0)/w)), so the
 * distance that maps to x is s0 − w·ln(1 − (x − s0)/w).
 */
export function unsoftenOffset(leg: LegJoints, wp: Float64Array, S: Float64Array, o: number): void {
  const h = 3 * leg.hip, f = 3 * leg.foot;
  const x = wp[f] + S[o] - wp[h], y = wp[f + 1] + S[o + 1] - wp[h + 1], z = wp[f + 2] + S[o + 2] - wp[h + 2];
  const d = Math.sqrt(x * x + y * y + z * z), s0 = softReachStart(leg, wp), w = leg.length - s0;
  if (d <= s0 || !(w > 1e-9)) return;
  // At most the distance softenReach takes to 0.9 of its way to full stretch (1.065 lengths for
  // SOFT_REACH 0.05): the inverse grows without bound towards full stretch, and a leg held there
  // pushed its target half a metre out (the pull-in left over is a few millimetres).
  const u = Math.min((d - s0) / w, UNSOFTEN_MAX), raw = s0 - w * Math.log(1 - u);
  const k = raw / d - 1;
  S[o] += x * k; S[o + 1] += y * k; S[o + 2] += z * k;
}

/**
 * Where a leg's reach starts to be softened (m from the hip): the larger of the animated ankle's
 * distance and (1 − SOFT_REACH)·length. A planted leg's heel is raised to keep its ankle within it,
 * so that a released leg is not pulled in by softenReach the step it is let go.
 */
export function softReachStart(leg: LegJoints, wp: Float64Array): number {
  const h = 3 * leg.hip, f = 3 * leg.foot;
  const ax = wp[f] - wp[h], ay = wp[f + 1] - wp[h + 1], az = wp[f + 2] - wp[h + 2];
  return Math.max(Math.min(Math.sqrt(ax * ax + ay * ay + az * az), leg.length), (1 - SOFT_REACH) * leg.length);
}

/** The heading of world rotation q[o..]: its twist about +Y, 2·atan2(y, w) (same sense as quatFromYaw). */
export function twistYaw(q: Float64Array, o: number): number {
  return 2 * Math.atan2(q[o + 1], q[o + 3]);
}
