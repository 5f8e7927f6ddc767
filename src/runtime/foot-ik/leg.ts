/**
 * A leg's solve, besides the target: which way its knee points (the pole), how a free leg's reach
 * is softened near full stretch, and a foot's heading. Shared by foot IK on flat and on uneven
 * ground (foot-ik/foot-ik.ts).
 */
import type { LegJoints } from './rig.js';
import type { CapturedData } from '../captured-data.js';
import { HOLD, IK_TARGET, LOCKED, OFFSET, SHOWN_REACH, SOFT_WIDEN, STEP_DT, UNSOFT, UNSOFT_CAP, UNSOFT_GAP } from './state.js';

/** The pole kneePole computes (world direction), shared by every character of a thread. */
export const KNEE_POLE = new Float64Array(3);
/** Share of a free leg's length over which its reach is softened (see softenReach). */
export const SOFT_REACH = 0.05;
/** The furthest share of its soft range (to full stretch) unsoftenOffset undoes. */
const UNSOFTEN_MAX = 0.9;
/** How fast a solved knee may turn about its leg (rad/s): far above a walk's, below a flip's. */
export const KNEE_TURN_SPEED = 10;
/** A solve may stop once the knee's side is within this of the animated one (radians)... */
const KNEE_SETTLED = 0.05;
/** ...or the animated knee is this close to the hip-ankle line (leg lengths): its side does not show. */
const KNEE_SIDE_SHOWS = 0.002;
/**
 * The shortest time (s) over which the ground's hold on a free foot (reachHold) lets go: the foot's
 * velocity turns from the capture's to the animation's over several steps, not in one. Let go at
 * once as the target left the leg's reach (10 cm a step after a transition), a landing foot held
 * still jumped into the animation's 5 m/s (a 4.6 m/s velocity step at the knee on the shared real
 * captures' wander); over 0.1 s (an inertialization half-life), the largest was 6.2 m/s on the
 * same run, within the data's own 1.5 times.
 */
export const HOLD_RELEASE_SECONDS = 0.1;
/** How much (in leg lengths) the foot's direction adds to the animated knee offset in the pole. */
const POLE_FOOT_SHARE = 0.05;

/**
 * The direction a leg's knee points while it is solved (KNEE_POLE, world), kept from step to step in
 * the leg's state (S[o..o+3], a unit vector, KNEE_PLANE): it turns about the hip-to-target axis
 * towards the knee's wanted side by at most KNEE_TURN_SPEED radians per second, so the knee never
 * changes sides within a step, whatever the wanted side does.
 *
 * The wanted side: a knee bends to the front of the leg within the body's sagittal plane, the front
 * being right × (hip to ankle) with the character's right (forward for a leg hanging down, up for
 * one swung forward level). A leg bent that way by at least POLE_FOOT_SHARE of its length wants its
 * own bend; a straighter one the animated knee's offset from the hip-ankle line without its part to
 * the back, plus the front for the rest of the share (on uneven ground, which bends legs the
 * animation has straight, every leg: the whole share). Mocap knees overextend slightly, and a leg
 * solved for a target near its animated ankle wants its animated bend back, so that the solve
 * stopping changes nothing: the wanted side is the animated bend when the target is the animated
 * ankle and the cleaned one from a share away. The two point opposite ways for an overextended
 * knee; turning, the knee goes round by the side instead of through the leg (which flipped it
 * within a step: 7-13 m/s on real captures).
 */
export function kneePole(leg: LegJoints, wp: Float64Array, rootRotation: Float64Array, ground: boolean, S: Float64Array, o: number): void {
  // The step's dt, from the same block (a number argument of a call that is not inlined is boxed).
  const dt = S[STEP_DT];
  const h = 3 * leg.hip, f = 3 * leg.foot;
  const { x: ox, y: oy, z: oz } = kneeOffset(leg, wp);
  const share = POLE_FOOT_SHARE * leg.length;
  // The character's right (−X turned by the root's yaw rotation: = quatRotateVec3(rootRotation, (−1, 0, 0))),
  // then the leg's front, right × (hip to ankle), as a unit vector.
  const ax = wp[f] - wp[h], ay = wp[f + 1] - wp[h + 1], az = wp[f + 2] - wp[h + 2];
  const qx = rootRotation[0], qy = rootRotation[1], qz = rootRotation[2], qw = rootRotation[3];
  const rx = -(1 - 2 * (qy * qy + qz * qz)), ry = -2 * (qx * qy + qw * qz), rz = -2 * (qx * qz - qw * qy);
  let px = ry * az - rz * ay, py = rz * ax - rx * az, pz = rx * ay - ry * ax;
  const pl = Math.sqrt(px * px + py * py + pz * pz);
  let wx = ox, wy = oy, wz = oz;
  if (pl > 1e-9) {
    px /= pl; py /= pl; pz /= pl;
    const ahead = ox * px + oy * py + oz * pz;
    const back = ahead < 0 ? ahead : 0;
    const cx = ox - back * px, cy = oy - back * py, cz = oz - back * pz;
    const w = ground ? share : Math.max(0, share - Math.sqrt(cx * cx + cy * cy + cz * cz));
    wx = cx + w * px; wy = cy + w * py; wz = cz + w * pz;
  }
  // Turn the kept side towards the wanted one about the hip-to-target axis, by at most the step's share.
  let ux = IK_TARGET[0] - wp[h], uy = IK_TARGET[1] - wp[h + 1], uz = IK_TARGET[2] - wp[h + 2];
  const ul = Math.sqrt(ux * ux + uy * uy + uz * uz);
  if (!(ul > 1e-9)) { KNEE_POLE[0] = S[o]; KNEE_POLE[1] = S[o + 1]; KNEE_POLE[2] = S[o + 2]; return; }
  ux /= ul; uy /= ul; uz /= ul;
  const kept = perpendicularUnit(S[o], S[o + 1], S[o + 2], ux, uy, uz, KEPT);
  const wanted = perpendicularUnit(wx, wy, wz, ux, uy, uz, WANTED);
  if (!kept && !wanted) { KNEE_POLE[0] = S[o]; KNEE_POLE[1] = S[o + 1]; KNEE_POLE[2] = S[o + 2]; return; }
  if (!kept || !wanted) {
    const d = kept ? KEPT : WANTED;
    S[o] = d[0]; S[o + 1] = d[1]; S[o + 2] = d[2];
  } else {
    // The signed angle from kept to wanted about u, and a turn by at most the step's share of it.
    const c = KEPT[0] * WANTED[0] + KEPT[1] * WANTED[1] + KEPT[2] * WANTED[2];
    if (dt !== TURN_LIMIT[0]) { TURN_LIMIT[0] = dt; TURN_LIMIT[1] = Math.cos(KNEE_TURN_SPEED * dt); }
    if (c >= TURN_LIMIT[1] && KNEE_TURN_SPEED * dt < Math.PI) {
      // Within this step's turn (most steps: the side is settled): the turn ends on the wanted side,
      // without the angle, its cosine and sine.
      S[o] = WANTED[0]; S[o + 1] = WANTED[1]; S[o + 2] = WANTED[2];
      KNEE_POLE[0] = S[o]; KNEE_POLE[1] = S[o + 1]; KNEE_POLE[2] = S[o + 2];
      return;
    }
    const sx = KEPT[1] * WANTED[2] - KEPT[2] * WANTED[1], sy = KEPT[2] * WANTED[0] - KEPT[0] * WANTED[2], sz = KEPT[0] * WANTED[1] - KEPT[1] * WANTED[0];
    const angle = Math.atan2(sx * ux + sy * uy + sz * uz, c), most = KNEE_TURN_SPEED * dt;
    const turn = angle > most ? most : angle < -most ? -most : angle;
    // Rodrigues about u of a vector perpendicular to it: kept·cos + (u × kept)·sin.
    const cs = Math.cos(turn), sn = Math.sin(turn);
    S[o] = KEPT[0] * cs + (uy * KEPT[2] - uz * KEPT[1]) * sn;
    S[o + 1] = KEPT[1] * cs + (uz * KEPT[0] - ux * KEPT[2]) * sn;
    S[o + 2] = KEPT[2] * cs + (ux * KEPT[1] - uy * KEPT[0]) * sn;
  }
  KNEE_POLE[0] = S[o]; KNEE_POLE[1] = S[o + 1]; KNEE_POLE[2] = S[o + 2];
}

/**
 * Whether a leg's kept knee side (S[o..o+3]) is its animated bend's, to within KNEE_SETTLED radians
 * (or the leg is too straight for the side to show): only then may its solve stop, else the knee
 * would jump to the animated side the step the solve stops.
 */
export function kneeSettled(leg: LegJoints, wp: Float64Array, S: Float64Array, o: number): boolean {
  const { x, y, z } = kneeOffset(leg, wp), l = Math.sqrt(x * x + y * y + z * z);
  if (!(l > KNEE_SIDE_SHOWS * leg.length)) return true;
  return (x * S[o] + y * S[o + 1] + z * S[o + 2]) / l >= Math.cos(KNEE_SETTLED);
}

/** Where a leg not solved this step has its knee: its animated bend's side (kept in S[o..o+3] when the leg has a bend). */
export function keepAnimatedKnee(leg: LegJoints, wp: Float64Array, S: Float64Array, o: number): void {
  const { x, y, z } = kneeOffset(leg, wp), l = Math.sqrt(x * x + y * y + z * z);
  if (!(l > 1e-5)) return;
  S[o] = x / l; S[o + 1] = y / l; S[o + 2] = z / l;
}

const OFFSET_OUT = { x: 0, y: 0, z: 0 };
/** The dt kneePole last saw and cos(KNEE_TURN_SPEED · dt) for it. */
const TURN_LIMIT = new Float64Array([Number.NaN, 1]);
const KEPT = new Float64Array(3);
const WANTED = new Float64Array(3);

/** The animated knee's offset from the hip-ankle line (shared result object: read it at once). */
function kneeOffset(leg: LegJoints, wp: Float64Array): { x: number; y: number; z: number } {
  const h = 3 * leg.hip, k = 3 * leg.knee, f = 3 * leg.foot;
  const ax = wp[f] - wp[h], ay = wp[f + 1] - wp[h + 1], az = wp[f + 2] - wp[h + 2];
  const bx = wp[k] - wp[h], by = wp[k + 1] - wp[h + 1], bz = wp[k + 2] - wp[h + 2];
  const aa = ax * ax + ay * ay + az * az, s = aa > 1e-12 ? (ax * bx + ay * by + az * bz) / aa : 0;
  OFFSET_OUT.x = bx - s * ax; OFFSET_OUT.y = by - s * ay; OFFSET_OUT.z = bz - s * az;
  return OFFSET_OUT;
}

/** (x, y, z) without its part along unit u, as a unit vector into out; false when nothing is left. */
function perpendicularUnit(x: number, y: number, z: number, ux: number, uy: number, uz: number, out: Float64Array): boolean {
  const d = x * ux + y * uy + z * uz, px = x - d * ux, py = y - d * uy, pz = z - d * uz, l = Math.sqrt(px * px + py * py + pz * pz);
  if (!(l > 1e-9)) return false;
  out[0] = px / l; out[1] = py / l; out[2] = pz / l;
  return true;
}

/**
 * Pulls a free leg's target (IK_TARGET) in smoothly where it would stretch the leg further than the
 * animation does near its full length: a distance d from the hip beyond s0 (softStart) becomes
 * s0 + w·(1 − e^(−(d − s0)/w)), with w = length − s0 (continuous, with a continuous slope, and never
 * reaching full stretch). A target the animation reaches is left as it is, so a leg with
 * nothing to blend is the animation's and the solve stopping changes nothing; a swinging leg
 * blending out a released lock or a transition's offset no longer runs into full extension, where
 * the solver's clamp straightened it and its knee flipped within a step (8-12 m/s on real
 * captures). Where the animated leg is itself nearly straight, s0 is nearly the full length and
 * the curve has no room: a foot in the air carried far from the animated one gets the whole soft
 * range instead (S[SOFT_WIDEN], updateSoftWidening). Planted legs keep their targets: the heel
 * raise, and the same curve when it cannot rise fast enough, handle their reach (plantedReach).
 */
export function softenReach(leg: LegJoints, wp: Float64Array, S: Float64Array, at: number): void {
  const h = 3 * leg.hip;
  const x = IK_TARGET[0] - wp[h], y = IK_TARGET[1] - wp[h + 1], z = IK_TARGET[2] - wp[h + 2];
  const d = Math.sqrt(x * x + y * y + z * z);
  const s0 = softStart(leg, wp, S[at + SOFT_WIDEN]), w = leg.length - s0;
  if (d < 1e-9 || (d <= s0 && S[at + UNSOFT] === 0)) return;
  // (within s0 the curve is the target's own distance: a held release still starts where it was shown)
  let soft = softDistance(d, s0, w);
  // A leg just let go of (unsoftenOffset): at its solve in the release's step, the target starts at
  // the distance the leg was shown at (or its own, if nearer) and goes onto the curve over
  // HOLD_RELEASE_SECONDS. Shown further out than the curve (a nearly straight leg, whose knee moves
  // fastest there), that distance itself is held and let go: the curve moves with the animated
  // leg's own reach (its start), 3 mm in a step at a release in a strafe. Shown nearer, the gap is
  // added back and blends out, so that the target moves on with the body: holding the distance
  // there dragged a released foot still on the floor along with the hips (built-in skate +0.1-0.3).
  // Decided here, on the target as solved: the hips drop and a free leg's share of it come after
  // the release, and moved the soft range by as much as the offset had made up (6 mm, a knee jump
  // of 6 m/s at 144 Hz on the shared captures).
  if (S[at + UNSOFT] < 0) {
    const shown = d < S[at + SHOWN_REACH] ? d : S[at + SHOWN_REACH];
    if (Math.abs(shown - soft) > 1e-6) { S[at + UNSOFT] = 1; S[at + UNSOFT_GAP] = shown - soft; S[at + UNSOFT_CAP] = shown; } else S[at + UNSOFT] = 0;
  }
  if (S[at + UNSOFT] > 0) {
    if (S[at + UNSOFT_GAP] > 0) {
      const held = d < S[at + UNSOFT_CAP] ? d : S[at + UNSOFT_CAP];
      soft += S[at + UNSOFT] * (held - soft);
    } else {
      soft += S[at + UNSOFT] * S[at + UNSOFT_GAP];
    }
  }
  const k = soft / d;
  IK_TARGET[0] = wp[h] + x * k; IK_TARGET[1] = wp[h + 1] + y * k; IK_TARGET[2] = wp[h + 2] + z * k;
}

/**
 * The inverse of softenReach for a leg being released (`at`: its block in S): moves the ankle's
 * offset (added to the animated ankle) so that softenReach brings the target back to where the
 * planted leg had it. Held near full stretch by its heel raise, a released leg was otherwise pulled
 * in by a centimetre or two in one step, and its nearly straight knee jumped 6 m/s; now the pull-in
 * happens as the offset blends out. softenReach maps d > s0 to s0 + w·(1 − e^(−(d − s0)/w)), so the
 * distance that maps to x is s0 − w·ln(1 − (x − s0)/w). The inverse grows without bound towards full
 * stretch (a leg held there pushed its target half a metre out), so it goes at most UNSOFTEN_MAX of
 * the soft range, and none where the animated leg is itself straight (no soft range). What is left,
 * and what the step's hips drop and new pose move, softenReach holds off at the leg's solve in this
 * step (UNSOFT -1 until then; restoreSoftening drops a -1 the step left unsolved): a few millimetres
 * near full stretch, but the knee moves centimetres for them (5 cm in one step, 11 m/s at 144 Hz,
 * on the shared locomotion captures).
 */
export function unsoftenOffset(leg: LegJoints, wp: Float64Array, S: Float64Array, at: number): void {
  const o = at + OFFSET, h = 3 * leg.hip, f = 3 * leg.foot;
  const x = wp[f] + S[o] - wp[h], y = wp[f + 1] + S[o + 1] - wp[h + 1], z = wp[f + 2] + S[o + 2] - wp[h + 2];
  const d = Math.sqrt(x * x + y * y + z * z), s0 = softStart(leg, wp, S[at + SOFT_WIDEN]), w = leg.length - s0;
  S[at + UNSOFT] = -1;
  if (d <= s0 || !(w > 1e-9)) return;
  const u = Math.min((d - s0) / w, UNSOFTEN_MAX), raw = s0 - w * Math.log(1 - u);
  const k = raw / d - 1;
  S[o] += x * k; S[o + 1] += y * k; S[o + 2] += z * k;
}

/** One step of a released leg's held-off pull-in going (UNSOFT down to 0 over HOLD_RELEASE_SECONDS; S[STEP_DT]: the step's dt). */
export function restoreSoftening(S: Float64Array, at: number): void {
  const u = at + UNSOFT;
  // (-1: a release its step did not solve; the leg was shown as animated, nothing to hold)
  if (S[u] < 0) S[u] = 0;
  else if (S[u] > 0) { const left = S[u] - S[STEP_DT] / HOLD_RELEASE_SECONDS; S[u] = left > 0 ? left : 0; }
}

/**
 * How much of the ground's hold on a free foot's offset (offsets.ts followDataOnGround,
 * decayOffset) the leg's reach allows, into S[r] (S: the foot IK block, whose S[STEP_DT] is the
 * step's dt; S[r] holds the last step's hold): 1 while the target (the animated ankle plus the
 * offset S[o..o+3]) is within the soft reach (softReachStart: the animated ankle's own distance from
 * the hip, or 0.95 leg lengths, whichever is further), falling smoothly to 0 SOFT_REACH leg lengths
 * past it, as deep into the soft range as that range is wide. Beyond, the offset blends out as it
 * does in the air and the foot goes back towards the animation, lifted off the floor by as much as
 * the hold is missing (on-ground.ts updateLift: a step; before it, dragged along the floor). Held without
 * limit, the offset carried the foot past what the leg reaches, softenReach pulled the target in
 * towards the hip, which is above it, and the foot rose off the floor while the capture had it
 * planted (17.5 cm at p95 on the shared captures' strafe, 30 cm at p99), too high to be planted
 * again, and drifted on. Lifted feet and sliding feet trade against each other here: holding the
 * offset only within the soft reach (0 at its start) lifted fewer feet still (p95 2.6 cm) but slid
 * the rest at 1.8 times the data's own skate; holding it without limit slid least and lifted most.
 */
export function reachHold(leg: LegJoints, wp: Float64Array, S: Float64Array, o: number, r: number, data: CapturedData): void {
  const h = 3 * leg.hip, f = 3 * leg.foot;
  const x = wp[f] + S[o] - wp[h], y = wp[f + 1] + S[o + 1] - wp[h + 1], z = wp[f + 2] + S[o + 2] - wp[h + 2];
  const d = Math.sqrt(x * x + y * y + z * z), band = SOFT_REACH * leg.length;
  const u = (softReachStart(leg, wp) + band - d) / band;
  // smoothstep(0, 1, u): a continuous hold with a continuous slope; it takes hold as below, and lets
  // go no faster than over HOLD_RELEASE_SECONDS (S[STEP_DT]: the step's dt, in the same block).
  const c = u <= 0 ? 0 : u >= 1 ? 1 : u;
  const hold = c * c * (3 - 2 * c), slowest = S[r] - S[STEP_DT] / HOLD_RELEASE_SECONDS;
  const held = hold < slowest ? slowest : hold;
  // It takes hold no faster than changes the shown foot's velocity by the captures' own largest
  // change of a contact point's in a frame: the hold stops the offset's horizontal blend (decayOffset),
  // whose velocity is the spring's (S[o + 3..6] = OFFSET_VEL). Taken at once as the target came back
  // within reach, a released foot blending back 40 cm at 4 m/s stopped dead in a step (5.8 m/s at a
  // toe at 30 Hz on the shared real captures' strafe); a foot whose offset is still is held at once.
  const vx = S[o + 3], vz = S[o + 5];
  S[r] = holdRisen(S[r], held, data.contactVelocityChangeMax, Math.sqrt(vx * vx + vz * vz));
}

/**
 * A hold that stops a motion of `moved` (its share of it stopped), from `previous` towards
 * `wanted`: rising, it changes the motion's velocity by its rise times `moved`, so it rises by no
 * more than `allowed` / `moved` (in the units of the two); at once where nothing moves. Falling is
 * left to the caller. The reach hold (reachHold: the offset's blend speed) and the ground's hold on
 * a free foot (offsets.ts followDataOnGround: the gap between the captured and the animated step)
 * rise by it, `allowed` the captures' own largest change of a foot's velocity.
 */
export function holdRisen(previous: number, wanted: number, allowed: number, moved: number): number {
  return moved * (wanted - previous) > allowed ? previous + allowed / moved : wanted;
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

/** Where softenReach's curve starts (m from the hip): softReachStart lowered by the share `k` (0 to 1, the leg's S[SOFT_WIDEN]) of the way to (1 − SOFT_REACH)·length. */
export function softStart(leg: LegJoints, wp: Float64Array, k: number): number {
  const s0 = softReachStart(leg, wp);
  return s0 - k * (s0 - (1 - SOFT_REACH) * leg.length);
}

/**
 * How far from the hip a planted leg's ankle target (IK_TARGET) is kept (planted-turn.ts
 * pivotAboutContact): softenReach's curve for it, without a release's hold-off. The same curve as
 * the leg's before it was planted and after it is let go, so that neither changes its reach.
 */
export function plantedReach(leg: LegJoints, wp: Float64Array, S: Float64Array, at: number): number {
  const h = 3 * leg.hip;
  const x = IK_TARGET[0] - wp[h], y = IK_TARGET[1] - wp[h + 1], z = IK_TARGET[2] - wp[h + 2];
  const d = Math.sqrt(x * x + y * y + z * z), s0 = softStart(leg, wp, S[at + SOFT_WIDEN]), w = leg.length - s0;
  return softDistance(d, s0, w);
}

/** The soft curve: a distance d from the hip beyond s0 becomes s0 + w·(1 − e^(−(d − s0)/w)) (never beyond s0 + w, the leg's length). */
function softDistance(d: number, s0: number, w: number): number {
  return d <= s0 ? d : w > 1e-9 ? s0 + w * (1 - Math.exp(-(d - s0) / w)) : s0;
}

/** Moves IK_TARGET towards the hip to `reach` (m) from it when it is further. */
export function capReach(leg: LegJoints, wp: Float64Array, reach: number): void {
  const h = 3 * leg.hip;
  const x = IK_TARGET[0] - wp[h], y = IK_TARGET[1] - wp[h + 1], z = IK_TARGET[2] - wp[h + 2];
  const d = Math.sqrt(x * x + y * y + z * z);
  if (!(d > reach) || d < 1e-9) return;
  const k = reach / d;
  IK_TARGET[0] = wp[h] + x * k; IK_TARGET[1] = wp[h + 1] + y * k; IK_TARGET[2] = wp[h + 2] + z * k;
}

/**
 * Leg `at`'s widening of its soft reach this step (S[SOFT_WIDEN], 0 to 1): a free foot off the
 * ground (by 1 − S[HOLD]) that its offset carries away from the animated one is softened from
 * (1 − SOFT_REACH) leg lengths, wholly from an offset of SOFT_REACH leg lengths on; a locked foot,
 * or one on the ground, from the animated ankle's own distance (softReachStart), as before a foot
 * is planted. Softened from there, a released foot 25-40 cm from the animated one, whose animated
 * leg was 99.9% straight, was held at full stretch and let go within a step as its offset blended
 * out (the knee 5.5 m/s at 144 Hz on the shared real captures' strafe); widened while it was on
 * the ground, a standing leg's lock a few centimetres off pulled the foot up off the floor. The
 * widening changes no faster than over HOLD_RELEASE_SECONDS, so that a foot lifting off has its
 * target pulled in over several steps, and a foot landing is planted with the curve it was shown with.
 * `groundDy`: how far uneven ground moves the free foot's target up or down besides its offset (the
 * height it follows and its clearance over an edge; 0 on flat ground), which counts as the offset
 * does: a swinging foot carried 19 cm below a leg the animation held straight, as the slope under it
 * fell away, was held at full stretch and let go within a step (6.8 m/s at the knee, the built-in
 * stop-go on hills). `onGroundToo` (uneven ground): a free foot on the ground is widened as well, by
 * its offset alone: there the hips no longer come down for a lock the body has left on level
 * ground, and a released foot the ground carries below a straight leg was held at full stretch
 * until the animation lifted it (the knee 10.7 m/s, the real captures' strafe on the steps).
 */
export function updateSoftWidening(S: Float64Array, at: number, leg: LegJoints, groundDy: number, onGroundToo = false): void {
  const o = at + OFFSET, air = S[at + LOCKED] === 1 ? 0 : onGroundToo ? 1 : 1 - S[at + HOLD], dy = S[o + 1] + groundDy;
  const gap = air > 0 ? Math.sqrt(S[o] * S[o] + dy * dy + S[o + 2] * S[o + 2]) : 0;
  const full = SOFT_REACH * leg.length, want = air * (gap >= full ? 1 : gap / full);
  const k = S[at + SOFT_WIDEN], most = S[STEP_DT] / HOLD_RELEASE_SECONDS;
  S[at + SOFT_WIDEN] = want > k + most ? k + most : want < k - most ? k - most : want;
}
