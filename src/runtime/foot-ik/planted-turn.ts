/**
 * How a planted foot turns under foot IK (foot-ik.ts): its heading held against the body's turn
 * (heldTurn, holdFootHeading) and its heel raised where the leg cannot reach the toe otherwise
 * (pivotAboutContact). Functions on the foot IK state block and the step's shared temporaries
 * (IK_TARGET, FOOT_WORLD_ROT: state.ts); the heading's turn is left in HELD_TURN and YAW_TURN.
 */
import { quatFromScaledAngleAxis, quatFromTo, quatMultiply, quatRotateVec3, quatToScaledAngleAxis } from '../../math/quat.js';
import type { LegJoints } from './rig.js';
import { capReach, plantedReach } from './leg.js';
import { FOOT_WORLD_ROT, HEEL, HEEL_RAISE, IK_TARGET, LOCK, LOCK_YAW, MAX_HEEL_RAISE, OFFSET, STEP_DT, TARGET } from './state.js';

// Temporaries of one call, shared by every character of a thread.
const PIVOT_FROM = new Float64Array(3);
const PIVOT_TO = new Float64Array(3);
const PIVOT_TURN = new Float64Array(4);
/** The turn about +Y of a planted foot's heading (heldTurn, holdFootHeading): read by the solve. */
export const YAW_TURN = new Float64Array(4);
/** The most a planted foot's heading is held against the body's turn (radians). */
export const MAX_HELD_TURN = Math.PI / 6;
/** A heading within this of the planted one is left as animated (radians; 0.3 degrees): no solve for it. */
export const HEADING_TOLERANCE = 0.005;
/** heldTurn's result: the turn (radians) of a planted foot's heading back to its lock's. */
export const HELD_TURN = new Float64Array(1);
const TWO_PI = 2 * Math.PI;
/**
 * A foot whose contact-to-ankle line is steeper than this share of its length horizontally (about
 * 75 degrees: on tiptoe) has no heading to hold; from twice the share (60 degrees) on, the whole of it.
 */
const HEADING_SHOWS = 0.25;

/**
 * A foot's heading: the bearing of its ankle seen from its contact point, in the ground plane
 * (atan2(x, z), the sense of quatFromYaw: a turn by θ about +Y adds θ). What a viewer sees swing
 * round a planted toe is that line, so it is what the hold keeps. The twist of the foot's world
 * rotation about +Y is not it: a foot pitching (its heel rising) changes that twist, and holding it
 * swung the heel sideways about the toe, 8 cm/s on the locomotion captures against 0.7 in the data.
 */
export function footBearing(leg: LegJoints, wp: Float64Array): number {
  const f = 3 * leg.foot, c = 3 * leg.contact;
  return Math.atan2(wp[f] - wp[c], wp[f + 2] - wp[c + 2]);
}

const SHOWN_TURN = new Float64Array(4);
const ANKLE_FROM_CONTACT = new Float64Array(3);

/**
 * The heading (footBearing's sense) leg `leg`'s foot is shown with before its solve: the animated
 * foot turned about its contact point by what is left of a release's turn (S[at + HEEL], scaled
 * angle-axis, world). A foot is planted at this heading: planted at the animated one, a foot let go
 * of and planted again a step later (a transition onto a frame that has it down) swung its ankle
 * round the toe by what was left of its held turn in one step (7.3 m/s at 144 Hz, the real
 * captures' strafe on the steps).
 */
export function shownBearing(S: Float64Array, at: number, leg: LegJoints, wp: Float64Array): number {
  const hx = S[at + HEEL], hy = S[at + HEEL + 1], hz = S[at + HEEL + 2];
  if (hx * hx + hy * hy + hz * hz < 1e-12) return footBearing(leg, wp);
  const f = 3 * leg.foot, c = 3 * leg.contact;
  ANKLE_FROM_CONTACT[0] = wp[f] - wp[c]; ANKLE_FROM_CONTACT[1] = wp[f + 1] - wp[c + 1]; ANKLE_FROM_CONTACT[2] = wp[f + 2] - wp[c + 2];
  quatFromScaledAngleAxis(SHOWN_TURN, 0, S, at + HEEL);
  quatRotateVec3(ANKLE_FROM_CONTACT, 0, SHOWN_TURN, 0, ANKLE_FROM_CONTACT, 0);
  return Math.atan2(ANKLE_FROM_CONTACT[0], ANKLE_FROM_CONTACT[2]);
}

/**
 * The turn that brings foot `leg`'s heading (footBearing, from the positions `wp`) back to
 * S[at + LOCK_YAW], at most MAX_HELD_TURN either way, into HELD_TURN[0], and that turn about +Y into
 * YAW_TURN (= quatFromYaw). Where the foot is too steep for its heading to show (HEADING_SHOWS) the
 * hold fades out and the lock's heading follows the animation's, so that nothing jumps as the foot
 * flattens again. Written out, with nothing returned as a number (a heap box in a call V8 does not
 * inline), since it runs for every planted leg, every step.
 */
export function heldTurn(S: Float64Array, at: number, leg: LegJoints, wp: Float64Array): void {
  const f = 3 * leg.foot, c = 3 * leg.contact;
  const x = wp[f] - wp[c], y = wp[f + 1] - wp[c + 1], z = wp[f + 2] - wp[c + 2];
  const flat = x * x + z * z, length = Math.sqrt(flat + y * y);
  // = wrapAngle(S[LOCK_YAW] − footBearing(leg, wp))
  const bearing = Math.atan2(x, z), d = S[at + LOCK_YAW] - bearing;
  let w = d - TWO_PI * Math.round(d / TWO_PI);
  if (w === -Math.PI) w = Math.PI;
  // The share of the heading that shows: 0 up to HEADING_SHOWS of the length flat, 1 from twice that.
  const shows = length > 0 ? Math.min(1, Math.max(0, Math.sqrt(flat) / length / HEADING_SHOWS - 1)) : 0;
  if (shows < 1) { w *= shows; S[at + LOCK_YAW] = bearing + w; }
  const turn = Math.max(-MAX_HELD_TURN, Math.min(MAX_HELD_TURN, w));
  HELD_TURN[0] = turn;
  const h = 0.5 * turn;
  YAW_TURN[0] = 0; YAW_TURN[1] = Math.sin(h); YAW_TURN[2] = 0; YAW_TURN[3] = Math.cos(h);
}
/** The share of the leg's length it reaches to (the two-bone solve clamps at full extension). */
const REACH_FRACTION = 0.995;
/**
 * How fast a heel may rise to plant a foot (rad/s): as fast as a foot turns at a run's push-off
 * (10-15 rad/s), far below the one-step jump of a foot planted where only a near-vertical foot
 * reaches (30-60 rad/s at 60 Hz).
 */
export const HEEL_RAISE_SPEED = 12;

/**
 * The heel raise that lets leg `leg` reach an ankle target A = REACH_IN[0..3] on a toe target P =
 * REACH_IN[3..6]: the ankle moves on the sphere of foot length r around P, from where it is
 * towards the hip, until it is at the leg's reach ℓ (REACH_IN[7], at most REACH_FRACTION of its
 * length). With d = |hip − P| and φ the angle at the toe between ankle and hip, the turn is
 * θ = φ − acos((r² + d² − ℓ²) / (2 r d)) (φ when even a foot pointing at the hip is too short), at
 * most MAX_HEEL_RAISE. The hip is where `wp` has it, lowered
 * by REACH_IN[6] (m). Into PIVOT: θ, then the unit vectors u (P to ankle) and w (towards the hip,
 * normal to u), then r. θ is 0 when A is within reach already. In and out through arrays: numbers
 * passed to a call V8 does not inline are heap boxes, and the pivot runs for planted legs every step.
 */
export function heelRaiseToReach(leg: LegJoints, wp: Float64Array): void {
  const h = 3 * leg.hip, hipY = wp[h + 1] - REACH_IN[6];
  const ax = REACH_IN[0], ay = REACH_IN[1], az = REACH_IN[2], px = REACH_IN[3], py = REACH_IN[4], pz = REACH_IN[5];
  const reach = Math.min(leg.length * REACH_FRACTION, REACH_IN[7]);
  PIVOT[0] = 0;
  const tx = ax - wp[h], ty = ay - hipY, tz = az - wp[h + 2];
  if (tx * tx + ty * ty + tz * tz <= reach * reach) return;
  let ux = ax - px, uy = ay - py, uz = az - pz;
  const r = Math.sqrt(ux * ux + uy * uy + uz * uz);
  const hx = wp[h] - px, hy = hipY - py, hz = wp[h + 2] - pz, d = Math.sqrt(hx * hx + hy * hy + hz * hz);
  if (!(r > 1e-6 && d > 1e-6)) return;
  ux /= r; uy /= r; uz /= r;
  const a = hx * ux + hy * uy + hz * uz;
  let wx = hx - a * ux, wy = hy - a * uy, wz = hz - a * uz;
  const b = Math.sqrt(wx * wx + wy * wy + wz * wz);
  if (!(b > 1e-9)) return;
  wx /= b; wy /= b; wz /= b;
  const phi = Math.atan2(b, a), k = (r * r + d * d - reach * reach) / (2 * r * d);
  PIVOT[0] = Math.min(MAX_HEEL_RAISE, k >= 1 ? phi : Math.max(0, phi - Math.acos(Math.max(-1, k))));
  PIVOT[1] = ux; PIVOT[2] = uy; PIVOT[3] = uz;
  PIVOT[4] = wx; PIVOT[5] = wy; PIVOT[6] = wz;
  PIVOT[7] = r;
}
/** heelRaiseToReach's input: the ankle target (3), the toe target (3), how far the hip may be lowered, the distance from the hip to reach (m; at most REACH_FRACTION leg lengths). */
export const REACH_IN = new Float64Array(8);
/** heelRaiseToReach's result: θ, u (3), w (3), r. */
export const PIVOT = new Float64Array(8);

/**
 * A locked toe the leg cannot reach with the foot as animated is still reached by raising the heel
 * (heelRaiseToReach): the ankle target (IK_TARGET) moves towards the hip just far enough for the
 * leg to reach it, and the foot's world rotation (FOOT_WORLD_ROT) turns with it, so the toe stays on
 * its lock. Without it a stretched leg dragged its planted toe along (most of the remaining skate
 * on real captures).
 */
export function pivotAboutContact(S: Float64Array, leg: LegJoints, at: number, wp: Float64Array, yawHeld: boolean): void {
  // Toe target P = LOCK + OFFSET.
  const px = S[at + LOCK] + S[at + OFFSET], py = S[at + LOCK + 1] + S[at + OFFSET + 1], pz = S[at + LOCK + 2] + S[at + OFFSET + 2];
  REACH_IN[0] = IK_TARGET[0]; REACH_IN[1] = IK_TARGET[1]; REACH_IN[2] = IK_TARGET[2];
  REACH_IN[3] = px; REACH_IN[4] = py; REACH_IN[5] = pz; REACH_IN[6] = 0;
  // The heel rises to put the ankle where a free leg's softened reach would have it (plantedReach),
  // and the ankle is pulled in to there (capReach) when the raise cannot go that fast: clamped at
  // full stretch instead, the knee of a leg the body ran away from (a run's push-off, the lock
  // falling behind) snapped straight in one step, 4.9 m/s at 144 Hz on the shared real captures.
  const reach = plantedReach(leg, wp, S, at);
  REACH_IN[7] = reach;
  heelRaiseToReach(leg, wp);
  // No faster than a run's push-off turns a foot: the raise a stretched leg needs grows without
  // bound as the hip nears the foot's reach (30 rad/s in the last step before it saturates), a
  // kink the knee showed at 11 m/s at a 144 Hz display rate (5.7 at 60). What the limit leaves out
  // shows as the lock not reached, which lets it go (HELD_GAP_LEG_LENGTHS).
  const most = S[at + HEEL_RAISE] + HEEL_RAISE_SPEED * S[STEP_DT];
  const theta = PIVOT[0] < most ? PIVOT[0] : most;
  S[at + HEEL_RAISE] = theta;
  if (theta === 0) { capReach(leg, wp, reach); return; }
  const c = Math.cos(theta), sn = Math.sin(theta), r = PIVOT[7];
  PIVOT_FROM[0] = PIVOT[1]; PIVOT_FROM[1] = PIVOT[2]; PIVOT_FROM[2] = PIVOT[3];
  PIVOT_TO[0] = c * PIVOT[1] + sn * PIVOT[4]; PIVOT_TO[1] = c * PIVOT[2] + sn * PIVOT[5]; PIVOT_TO[2] = c * PIVOT[3] + sn * PIVOT[6];
  IK_TARGET[0] = px + r * PIVOT_TO[0]; IK_TARGET[1] = py + r * PIVOT_TO[1]; IK_TARGET[2] = pz + r * PIVOT_TO[2];
  // = quatMultiply(FOOT_WORLD_ROT, quatFromTo(u, new u), FOOT_WORLD_ROT): the foot turns about the toe.
  quatFromTo(PIVOT_TURN, 0, PIVOT_FROM, 0, PIVOT_TO, 0);
  quatMultiply(FOOT_WORLD_ROT, 0, PIVOT_TURN, 0, FOOT_WORLD_ROT, 0);
  // Remembered for a release: the whole turn of the foot (heading held, then heel raised), to blend out.
  if (yawHeld) quatMultiply(PIVOT_TURN, 0, PIVOT_TURN, 0, YAW_TURN, 0);
  quatToScaledAngleAxis(S, at + HEEL, PIVOT_TURN, 0);
  capReach(leg, wp, reach);
}

/**
 * Keeps a planted foot heading the way it was planted: the animated foot's heading (footBearing,
 * the bearing of its ankle from its toe) is turned back to the one it had at the lock, about the toe, so that
 * turning the body (root adjustment, inertialized transitions) does not swing the heel round the
 * planted toe. Pitch and roll stay animated: a heel rolling off still rolls. Rotates the ankle
 * target in S[TARGET] and leaves the turn in YAW_TURN; returns whether there was a turn to make.
 */
export function holdFootHeading(S: Float64Array, leg: LegJoints, at: number, wp: Float64Array): boolean {
  // At most MAX_HELD_TURN: a body turning further than a planted foot can twist under it takes the foot along.
  heldTurn(S, at, leg, wp);
  const turn = HELD_TURN[0];
  if (Math.abs(turn) < HEADING_TOLERANCE) return false;
  // Ankle target turned about the toe target P: P + Ry(turn)·(A − P).
  const px = S[at + LOCK] + S[at + OFFSET], pz = S[at + LOCK + 2] + S[at + OFFSET + 2];
  const c = Math.cos(turn), sn = Math.sin(turn), ax = S[at + TARGET] - px, az = S[at + TARGET + 2] - pz;
  S[at + TARGET] = px + c * ax + sn * az;
  S[at + TARGET + 2] = pz - sn * ax + c * az;
  return true;
}
