/**
 * How a planted foot turns under foot IK (foot-ik.ts): its heading held against the body's turn
 * (heldTurn, holdFootHeading) and its heel raised where the leg cannot reach the toe otherwise
 * (pivotAboutContact). Functions on the foot IK state block and the step's shared temporaries
 * (IK_TARGET, FOOT_WORLD_ROT: state.ts); the heading's turn is left in HELD_TURN and YAW_TURN.
 */
import { quatFromTo, quatMultiply, quatToScaledAngleAxis } from '../../math/quat.js';
import type { LegJoints } from './rig.js';
import { FOOT_WORLD_ROT, HEEL, IK_TARGET, LOCK, LOCK_YAW, MAX_HEEL_RAISE, OFFSET, TARGET } from './state.js';

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
 * The turn that brings the heading of world rotation q[o..] (twistYaw) back to S[at + LOCK_YAW], at
 * most MAX_HELD_TURN either way, into HELD_TURN[0], and that turn about +Y into YAW_TURN
 * (= quatFromYaw). Written out, with nothing passed or returned as a number: those are heap boxes
 * in a call V8 does not inline, and this runs for every planted leg, every step.
 */
export function heldTurn(S: Float64Array, at: number, q: Float64Array, o: number): void {
  // = wrapAngle(S[LOCK_YAW] − twistYaw(q, o))
  const d = S[at + LOCK_YAW] - 2 * Math.atan2(q[o + 1], q[o + 3]);
  let w = d - TWO_PI * Math.round(d / TWO_PI);
  if (w === -Math.PI) w = Math.PI;
  const turn = Math.max(-MAX_HELD_TURN, Math.min(MAX_HELD_TURN, w));
  HELD_TURN[0] = turn;
  const h = 0.5 * turn;
  YAW_TURN[0] = 0; YAW_TURN[1] = Math.sin(h); YAW_TURN[2] = 0; YAW_TURN[3] = Math.cos(h);
}
/** The share of the leg's length it reaches to (the two-bone solve clamps at full extension). */
const REACH_FRACTION = 0.995;

/**
 * A locked toe the leg cannot reach with the foot as animated is still reached by raising the heel:
 * the ankle target (IK_TARGET) moves on the sphere of foot length around the toe target, from
 * where the animation has it towards the hip, just far enough for the leg to reach it (at most
 * MAX_HEEL_RAISE), and the foot's world rotation (FOOT_WORLD_ROT) turns with it, so the toe stays
 * on its lock. Without it a stretched leg dragged its planted toe along (most of the remaining
 * skate on real captures). With d = |hip − toe|, r = foot length and φ the angle at the toe
 * between ankle and hip, the ankle is at the leg's reach ℓ after turning by θ = φ − acos((r² + d² − ℓ²) / (2 r d)).
 */
export function pivotAboutContact(S: Float64Array, leg: LegJoints, at: number, wp: Float64Array, yawHeld: boolean): void {
  const h = 3 * leg.hip;
  const reach = leg.length * REACH_FRACTION;
  const tx = IK_TARGET[0] - wp[h], ty = IK_TARGET[1] - wp[h + 1], tz = IK_TARGET[2] - wp[h + 2];
  if (tx * tx + ty * ty + tz * tz <= reach * reach) return;
  // Toe target P, and from it the ankle target (u, length r) and the hip (dH, length d).
  const px = S[at + LOCK] + S[at + OFFSET], py = S[at + LOCK + 1] + S[at + OFFSET + 1], pz = S[at + LOCK + 2] + S[at + OFFSET + 2];
  let ux = IK_TARGET[0] - px, uy = IK_TARGET[1] - py, uz = IK_TARGET[2] - pz;
  const r = Math.sqrt(ux * ux + uy * uy + uz * uz);
  const hx = wp[h] - px, hy = wp[h + 1] - py, hz = wp[h + 2] - pz, d = Math.sqrt(hx * hx + hy * hy + hz * hz);
  if (!(r > 1e-6 && d > 1e-6)) return;
  ux /= r; uy /= r; uz /= r;
  const a = hx * ux + hy * uy + hz * uz;
  let wx = hx - a * ux, wy = hy - a * uy, wz = hz - a * uz;
  const b = Math.sqrt(wx * wx + wy * wy + wz * wz);
  if (!(b > 1e-9)) return;
  wx /= b; wy /= b; wz /= b;
  const phi = Math.atan2(b, a), k = (r * r + d * d - reach * reach) / (2 * r * d);
  const theta = Math.min(MAX_HEEL_RAISE, k >= 1 ? phi : Math.max(0, phi - Math.acos(Math.max(-1, k))));
  const c = Math.cos(theta), sn = Math.sin(theta);
  PIVOT_FROM[0] = ux; PIVOT_FROM[1] = uy; PIVOT_FROM[2] = uz;
  PIVOT_TO[0] = c * ux + sn * wx; PIVOT_TO[1] = c * uy + sn * wy; PIVOT_TO[2] = c * uz + sn * wz;
  IK_TARGET[0] = px + r * PIVOT_TO[0]; IK_TARGET[1] = py + r * PIVOT_TO[1]; IK_TARGET[2] = pz + r * PIVOT_TO[2];
  // = quatMultiply(FOOT_WORLD_ROT, quatFromTo(u, new u), FOOT_WORLD_ROT): the foot turns about the toe.
  quatFromTo(PIVOT_TURN, 0, PIVOT_FROM, 0, PIVOT_TO, 0);
  quatMultiply(FOOT_WORLD_ROT, 0, PIVOT_TURN, 0, FOOT_WORLD_ROT, 0);
  // Remembered for a release: the whole turn of the foot (heading held, then heel raised), to blend out.
  if (yawHeld) quatMultiply(PIVOT_TURN, 0, PIVOT_TURN, 0, YAW_TURN, 0);
  quatToScaledAngleAxis(S, at + HEEL, PIVOT_TURN, 0);
}

/**
 * Keeps a planted foot heading the way it was planted: the animated foot's heading (its world
 * rotation's twist about +Y) is turned back to the one it had at the lock, about the toe, so that
 * turning the body (root adjustment, inertialized transitions) does not swing the heel round the
 * planted toe. Pitch and roll stay animated: a heel rolling off still rolls. Rotates the ankle
 * target in S[TARGET] and leaves the turn in YAW_TURN; returns whether there was a turn to make.
 */
export function holdFootHeading(S: Float64Array, leg: LegJoints, at: number, worldRotations: Float64Array): boolean {
  // At most MAX_HELD_TURN: a body turning further than a planted foot can twist under it takes the foot along.
  heldTurn(S, at, worldRotations, 4 * leg.foot);
  const turn = HELD_TURN[0];
  if (Math.abs(turn) < HEADING_TOLERANCE) return false;
  // Ankle target turned about the toe target P: P + Ry(turn)·(A − P).
  const px = S[at + LOCK] + S[at + OFFSET], pz = S[at + LOCK + 2] + S[at + OFFSET + 2];
  const c = Math.cos(turn), sn = Math.sin(turn), ax = S[at + TARGET] - px, az = S[at + TARGET + 2] - pz;
  S[at + TARGET] = px + c * ax + sn * az;
  S[at + TARGET + 2] = pz - sn * ax + c * az;
  return true;
}
