/**
 * Two-bone IK (hip -> knee -> ankle, shoulder -> elbow -> wrist) by the law of cosines, on flat
 * pose arrays. Allocation-free: all temporaries live in a scratch object made once.
 *
 * The solve, in world space:
 *   1. clamp the hip-target distance to [|a - b| + eps, a + b - eps] so the chain never fully
 *      straightens (no knee snap) nor folds onto itself;
 *   2. bend the knee about the current bend-plane normal until the hip-ankle distance is the
 *      clamped distance (law of cosines);
 *   3. swing the whole chain about the hip so the ankle points at the target;
 *   4. with a pole direction, twist the chain about the hip-target axis so the knee points
 *      towards the pole (without one, the current bend plane is kept: what foot locking wants).
 * The new hip and knee rotations are written back as local rotations.
 */
import { type Buf, quatMultiply, quatInvMultiply, quatRotateVec3, quatInvRotateVec3, quatFromAxisAngle } from './quat.js';

/**
 * The bend (rad) of the chain hip → knee → end in world positions `wp` (3 per joint): the angle
 * between its two bones, 0 when straight. What the solve sets from the hip-to-end distance (the
 * interior angle at the knee is π minus it).
 */
export function chainBendAngle(wp: ArrayLike<number>, hip: number, knee: number, end: number): number {
  const h = 3 * hip, k = 3 * knee, f = 3 * end;
  const tx = wp[k] - wp[h], ty = wp[k + 1] - wp[h + 1], tz = wp[k + 2] - wp[h + 2];
  const sx = wp[f] - wp[k], sy = wp[f + 1] - wp[k + 1], sz = wp[f + 2] - wp[k + 2];
  const l = Math.sqrt((tx * tx + ty * ty + tz * tz) * (sx * sx + sy * sy + sz * sz));
  if (!(l > 0)) return 0;
  const c = (tx * sx + ty * sy + tz * sz) / l;
  return Math.acos(c < -1 ? -1 : c > 1 ? 1 : c);
}

/** Default reach margin (m): the chain stays this far from fully straight or fully folded. */
export const TWO_BONE_IK_EPS = 1e-4;

export interface TwoBoneIkScratch {
  /** Vectors, 3 floats each (see the V_* slots in the solver). */
  readonly v: Float64Array;
  /** Quaternions, 4 floats each. */
  readonly q: Float64Array;
}

export function createTwoBoneIkScratch(): TwoBoneIkScratch {
  return { v: new Float64Array(3 * 16 + 1 + 6), q: new Float64Array(4 * 12) };
}

const DEFAULT_SCRATCH = createTwoBoneIkScratch();

// Vector slots (x3) and quaternion slots (x4) in the scratch buffers.
const A = 0, B = 3, C = 6, T = 9, AB = 12, CB = 15, AT = 18, M = 21, C1 = 24, AC1 = 27, U = 30, KP = 33, PP = 36, TMP = 39, TMP2 = 42, POLE = 45;
/** Slot of the last solve's residual. */
const RESIDUAL = 48;
const QP = 0, QA = 4, QB = 8, RK = 12, RAIM = 16, RPOLE = 20, R = 24, QA2 = 28, QB2 = 32, QTMP = 36;
/** Split chains (solveSplitChain): the knee's old position and a temporary vector; the product of the locals between hip and knee, and a temporary. */
const KOLD = 49, TMP3 = 52;
const QMID = 40, QTMP2 = 44;

/**
 * Solves a two-bone chain on a posed skeleton.
 *
 * Reads: the world positions of `hip`, `knee`, `end` (worldPos, J*3), the world rotation of the
 * hip's parent (worldRot, J*4; identity when the hip is the root) and the local rotations of hip and
 * knee (localRot, J*4). The knee must hang below the hip and the end below the knee; joints between
 * them (a thigh or shin split into segments) turn rigidly with the joint above them, keeping their
 * local rotations, and their world entries are updated too.
 *
 * Writes: new local rotations of hip and knee into `localRot`, and keeps the chain's entries of the
 * world arrays consistent (world rotations of hip, knee and end, world positions of knee and end;
 * the end's local rotation is unchanged, so its world rotation follows the knee). Joints below
 * `end` (toes) are not updated: re-run forward kinematics if you need them.
 *
 * `target` (3 floats at offset 0) is where the end should go. `pole` (3 floats, optional) is a
 * world direction the knee should point towards, e.g. the character's or foot's forward; without
 * it the current bend plane is kept (a straight chain then bends towards world +Z, else +X).
 *
 * Returns the distance left between the solved end and the target: 0 (to rounding) when the target
 * is reachable, > 0 when it was clamped.
 */
export function solveTwoBoneIk(
  localRot: Buf, worldPos: Buf, worldRot: Buf, parents: Int32Array,
  hip: number, knee: number, end: number, target: Buf,
  scratch: TwoBoneIkScratch = DEFAULT_SCRATCH, pole: Buf | null = null, eps = TWO_BONE_IK_EPS,
): number {
  solveTwoBoneIkInto(localRot, worldPos, worldRot, parents, hip, knee, end, target, scratch, pole, eps);
  return scratch.v[RESIDUAL];
}

/**
 * {@link solveTwoBoneIk} leaving the residual in the scratch instead of returning it: for callers
 * in a per-frame loop, where a returned number from a call that is not inlined is a heap box.
 */
export function solveTwoBoneIkInto(
  localRot: Buf, worldPos: Buf, worldRot: Buf, parents: Int32Array,
  hip: number, knee: number, end: number, target: Buf,
  scratch: TwoBoneIkScratch = DEFAULT_SCRATCH, pole: Buf | null = null, eps = TWO_BONE_IK_EPS,
): void {
  if (parents[knee] !== hip || parents[end] !== knee) {
    solveSplitChain(localRot, worldPos, worldRot, parents, hip, knee, end, target, scratch, pole, eps);
    return;
  }
  const v = scratch.v, q = scratch.q;
  for (let k = 0; k < 3; k++) {
    v[A + k] = worldPos[3 * hip + k]; v[B + k] = worldPos[3 * knee + k]; v[C + k] = worldPos[3 * end + k];
    v[T + k] = target[k];
  }
  const parent = parents[hip];
  if (parent >= 0) copy4(q, QP, worldRot, 4 * parent); else { q[QP] = 0; q[QP + 1] = 0; q[QP + 2] = 0; q[QP + 3] = 1; }
  // World rotations of hip and knee from the locals (so stale world entries do not matter).
  quatMultiply(q, QA, q, QP, localRot, 4 * hip);
  quatMultiply(q, QB, q, QA, localRot, 4 * knee);
  if (pole) { v[POLE] = pole[0]; v[POLE + 1] = pole[1]; v[POLE + 2] = pole[2]; }
  solveCore(v, q, pole !== null, eps);
  // Locals: hip = inv(parent) * hipWorld, knee = inv(hipWorld) * kneeWorld.
  quatInvMultiply(localRot, 4 * hip, q, QP, q, QA2);
  normalize4(localRot, 4 * hip);
  quatInvMultiply(localRot, 4 * knee, q, QA2, q, QB2);
  normalize4(localRot, 4 * knee);
  // Keep the chain's world entries consistent with the new locals.
  copy4(worldRot, 4 * hip, q, QA2);
  copy4(worldRot, 4 * knee, q, QB2);
  copy4(q, QTMP, localRot, 4 * end);
  quatMultiply(worldRot, 4 * end, q, QB2, q, QTMP);
  for (let k = 0; k < 3; k++) { worldPos[3 * knee + k] = v[B + k]; worldPos[3 * end + k] = v[C + k]; }
}

/** True when `j` hangs below `ancestor` (within the joint count: a cyclic parents table ends the walk). */
function hangsBelow(parents: Int32Array, j: number, ancestor: number): boolean {
  for (let p = parents[j], n = 0; p >= 0 && n < parents.length; p = parents[p], n++) if (p === ancestor) return true;
  return false;
}

/** q[o] = the product of the local rotations of the joints from `from` down to `to` (both included, `to` below `from`), top first. */
function localsBetween(localRot: Buf, parents: Int32Array, from: number, to: number, q: Float64Array, o: number): void {
  q[o] = 0; q[o + 1] = 0; q[o + 2] = 0; q[o + 3] = 1;
  for (let j = to; ; j = parents[j]) {
    quatMultiply(q, o, localRot, 4 * j, q, o);
    if (j === from) return;
  }
}

/**
 * solveTwoBoneIkInto for a chain whose thigh or shin is split into segments (Daz's lThighBend ->
 * lThighTwist -> lShin, Rigify's shin -> shin.001 -> foot): the joints between hip and knee turn
 * rigidly with the hip, those between knee and end with the knee, each keeping its local rotation
 * (a twist segment keeps its twist). The bend is at `hip` and `knee`, whatever hangs between.
 */
function solveSplitChain(
  localRot: Buf, worldPos: Buf, worldRot: Buf, parents: Int32Array,
  hip: number, knee: number, end: number, target: Buf, scratch: TwoBoneIkScratch, pole: Buf | null, eps: number,
): void {
  if (!hangsBelow(parents, knee, hip) || !hangsBelow(parents, end, knee)) {
    throw new RangeError(`two-bone IK needs a chain: joint ${knee} must hang below ${hip} and joint ${end} below ${knee}`);
  }
  const v = scratch.v, q = scratch.q;
  for (let k = 0; k < 3; k++) {
    v[A + k] = worldPos[3 * hip + k]; v[B + k] = worldPos[3 * knee + k]; v[C + k] = worldPos[3 * end + k];
    v[T + k] = target[k]; v[KOLD + k] = v[B + k];
  }
  const parent = parents[hip];
  if (parent >= 0) copy4(q, QP, worldRot, 4 * parent); else { q[QP] = 0; q[QP + 1] = 0; q[QP + 2] = 0; q[QP + 3] = 1; }
  quatMultiply(q, QA, q, QP, localRot, 4 * hip);
  // The segments between hip and knee (QMID), then the knee: world rotations from the locals.
  if (parents[knee] !== hip) localsBetween(localRot, parents, firstBelow(parents, hip, knee), parents[knee], q, QMID);
  else { q[QMID] = 0; q[QMID + 1] = 0; q[QMID + 2] = 0; q[QMID + 3] = 1; }
  quatMultiply(q, QTMP, q, QA, q, QMID);
  quatMultiply(q, QB, q, QTMP, localRot, 4 * knee);
  if (pole) { v[POLE] = pole[0]; v[POLE + 1] = pole[1]; v[POLE + 2] = pole[2]; }
  solveCore(v, q, pole !== null, eps);
  // Locals: hip = inv(parent) * hip', knee = inv(hip' * segments) * knee'.
  quatInvMultiply(localRot, 4 * hip, q, QP, q, QA2);
  normalize4(localRot, 4 * hip);
  quatMultiply(q, QTMP, q, QA2, q, QMID);
  quatInvMultiply(localRot, 4 * knee, q, QTMP, q, QB2);
  normalize4(localRot, 4 * knee);
  // World entries: the hip's segments turned with it about the hip, the knee's with it about the knee.
  copy4(worldRot, 4 * hip, q, QA2);
  for (let j = parents[knee]; j !== hip; j = parents[j]) turnSegment(localRot, worldPos, worldRot, parents, hip, j, q, QA, QA2, v, A, A);
  copy4(worldRot, 4 * knee, q, QB2);
  for (let j = parents[end]; j !== knee; j = parents[j]) turnSegment(localRot, worldPos, worldRot, parents, knee, j, q, QB, QB2, v, KOLD, B);
  for (let k = 0; k < 3; k++) { worldPos[3 * knee + k] = v[B + k]; worldPos[3 * end + k] = v[C + k]; }
  quatMultiply(worldRot, 4 * end, worldRot, 4 * parents[end], localRot, 4 * end);
}

/** The joint just below `top` on the way down to `j`. */
function firstBelow(parents: Int32Array, top: number, j: number): number {
  let c = j;
  while (parents[c] !== top) c = parents[c];
  return c;
}

/**
 * Segment `j` hanging below `top` (the hip or the knee), after `top`'s world rotation went from
 * q[was] to q[now] and its position from v[from] to v[to]: its world rotation from the locals below
 * `top`, its position turned rigidly about `top`.
 */
function turnSegment(localRot: Buf, worldPos: Buf, worldRot: Buf, parents: Int32Array, top: number, j: number, q: Float64Array, was: number, now: number, v: Float64Array, from: number, to: number): void {
  localsBetween(localRot, parents, firstBelow(parents, top, j), j, q, QTMP2);
  quatMultiply(worldRot, 4 * j, q, now, q, QTMP2);
  for (let k = 0; k < 3; k++) v[TMP3 + k] = worldPos[3 * j + k] - v[from + k];
  quatInvRotateVec3(v, TMP3, q, was, v, TMP3);
  quatRotateVec3(v, TMP3, q, now, v, TMP3);
  for (let k = 0; k < 3; k++) worldPos[3 * j + k] = v[to + k] + v[TMP3 + k];
}

/**
 * The solve on scratch slots: A, B, C, T (and POLE when usePole) in; QA, QB (world rotations of
 * hip and knee) in; QA2, QB2 (new world rotations), B, C (new knee and end positions) and RESIDUAL out.
 */
function solveCore(v: Float64Array, q: Float64Array, usePole: boolean, eps: number): void {
  if (solveCoreCommon(v, q, usePole, eps)) return;
  solveCoreGeneral(v, q, usePole, eps);
}

/**
 * {@link solveTwoBoneIkInto} on the general path alone (helpers, acos, axis-angle quaternions):
 * what the scalar path foot IK takes every step must agree with, to rounding (tested).
 */
export function solveTwoBoneIkGeneral(
  localRot: Buf, worldPos: Buf, worldRot: Buf, parents: Int32Array,
  hip: number, knee: number, end: number, target: Buf,
  scratch: TwoBoneIkScratch = DEFAULT_SCRATCH, pole: Buf | null = null, eps = TWO_BONE_IK_EPS,
): void {
  GENERAL_ONLY.on = true;
  try {
    solveTwoBoneIkInto(localRot, worldPos, worldRot, parents, hip, knee, end, target, scratch, pole, eps);
  } finally {
    GENERAL_ONLY.on = false;
  }
}

const GENERAL_ONLY = { on: false };

function solveCoreGeneral(v: Float64Array, q: Float64Array, usePole: boolean, eps: number): void {
  sub(v, AB, v, B, v, A);
  sub(v, CB, v, C, v, B);
  sub(v, AT, v, T, v, A);
  const lab = len(v, AB), lcb = len(v, CB);
  const dt = len(v, AT);
  if (!(lab > 1e-12 && lcb > 1e-12)) {
    // Zero-length bone: nothing to bend. Keep the pose.
    copy4(q, QA2, q, QA); copy4(q, QB2, q, QB);
    v[RESIDUAL] = Number.isFinite(dt) ? Math.abs(dt - len3(v[C] - v[A], v[C + 1] - v[A + 1], v[C + 2] - v[A + 2])) : 0;
    return;
  }
  let lo = Math.abs(lab - lcb) + eps, hi = lab + lcb - eps;
  if (lo > hi) { const mid = 0.5 * (lo + hi); lo = mid; hi = mid; }
  const lat = Math.min(hi, Math.max(lo, Number.isFinite(dt) ? dt : hi));

  // 1. Knee interior angle: current (between a - b and c - b) and wanted.
  const cos0 = -dot(v, AB, v, CB) / (lab * lcb);
  const ang0 = Math.acos(clamp1(cos0));
  const ang1 = Math.acos(clamp1((lab * lab + lcb * lcb - lat * lat) / (2 * lab * lcb)));
  // Bend axis m: a positive rotation of (c - b) about m opens the knee. (a - b) x (c - b) = cb x ab.
  cross(v, M, v, CB, v, AB);
  let ml = len(v, M);
  if (ml <= 1e-9 * lab * lcb) {
    // Straight (or folded) chain: pick the plane from the pole (else +Z, else +X) so that bending
    // moves the knee towards it. With d = unit(c - b) and p the pole's part perpendicular to d,
    // m = d x p makes a negative rotation swing (c - b) towards -p, i.e. the knee towards +p.
    scale(v, TMP, v, CB, 1 / lcb);
    pickPerpendicular(v, TMP2, v, TMP, usePole ? v : null, POLE);
    cross(v, M, v, TMP, v, TMP2);
    ml = len(v, M);
  }
  scale(v, M, v, M, 1 / ml);
  quatFromAxisAngle(q, RK, v[M], v[M + 1], v[M + 2], ang1 - ang0);
  // New end position after the knee bend: c1 = b + Rk (c - b).
  quatRotateVec3(v, TMP, q, RK, v, CB);
  add(v, C1, v, B, v, TMP);
  sub(v, AC1, v, C1, v, A);

  // 2. Aim: swing the chain about the hip so the end points at the target.
  if (dt > 1e-9 * (lab + lcb)) {
    scale(v, U, v, AT, 1 / dt);
    fromTo(q, RAIM, v, AC1, U, M);
  } else {
    // Target on the hip: no direction to aim at; keep the current one.
    const l1 = len(v, AC1);
    if (l1 > 1e-12) scale(v, U, v, AC1, 1 / l1); else { v[U] = 0; v[U + 1] = -1; v[U + 2] = 0; }
    q[RAIM] = 0; q[RAIM + 1] = 0; q[RAIM + 2] = 0; q[RAIM + 3] = 1;
  }

  // 3. Pole: twist about the hip-target axis u so the knee's offset from that axis points along
  // the pole's offset from it. Skipped when either is (nearly) parallel to u.
  q[RPOLE] = 0; q[RPOLE + 1] = 0; q[RPOLE + 2] = 0; q[RPOLE + 3] = 1;
  if (usePole) {
    quatRotateVec3(v, KP, q, RAIM, v, AB); // knee offset from the hip after aiming
    rejectFrom(v, KP, v, U);
    copy3(v, PP, v, POLE);
    rejectFrom(v, PP, v, U);
    const kl = len(v, KP), pl = len(v, PP), polel = len(v, POLE);
    if (kl > 1e-9 * lab && pl > 1e-6 * polel) {
      cross(v, TMP, v, KP, v, PP);
      const angle = Math.atan2(dot(v, U, v, TMP), dot(v, KP, v, PP));
      quatFromAxisAngle(q, RPOLE, v[U], v[U + 1], v[U + 2], angle);
    }
  }

  // World results: R = Rpole * Raim; hip' = R * hip; knee' = R * Rk * knee.
  quatMultiply(q, R, q, RPOLE, q, RAIM);
  quatMultiply(q, QA2, q, R, q, QA);
  normalize4(q, QA2);
  quatMultiply(q, QTMP, q, RK, q, QB);
  quatMultiply(q, QB2, q, R, q, QTMP);
  normalize4(q, QB2);
  // New knee and end positions.
  quatRotateVec3(v, TMP, q, R, v, AB);
  add(v, B, v, A, v, TMP);
  quatRotateVec3(v, TMP, q, R, v, AC1);
  add(v, C, v, A, v, TMP);
  v[RESIDUAL] = Number.isFinite(dt) ? Math.abs(dt - lat) : 0;
}

/**
 * solveCore for the case foot IK hits every step (bones of non-zero length, a bent chain, a target
 * away from the hip, with or without a pole), in scalars: no helper calls, so nothing is boxed (the
 * general path's helpers, past V8's inlining budget, return heap numbers: 180 MB of garbage over
 * 300,000 agent-steps). Returns false for any other case (solveCoreGeneral then takes it). Same
 * steps, same formulas; angles by half-angle identities instead of acos, sin and cos.
 */
function solveCoreCommon(v: Float64Array, q: Float64Array, usePole: boolean, eps: number): boolean {
  if (GENERAL_ONLY.on) return false;
  const ax = v[A], ay = v[A + 1], az = v[A + 2];
  const bx = v[B], by = v[B + 1], bz = v[B + 2];
  const abx = bx - ax, aby = by - ay, abz = bz - az;
  const cbx = v[C] - bx, cby = v[C + 1] - by, cbz = v[C + 2] - bz;
  const atx = v[T] - ax, aty = v[T + 1] - ay, atz = v[T + 2] - az;
  const lab = Math.sqrt(abx * abx + aby * aby + abz * abz), lcb = Math.sqrt(cbx * cbx + cby * cby + cbz * cbz);
  const dt = Math.sqrt(atx * atx + aty * aty + atz * atz);
  if (!(lab > 1e-12 && lcb > 1e-12) || !Number.isFinite(dt) || !(dt > 1e-9 * (lab + lcb))) return false;
  let lo = Math.abs(lab - lcb) + eps, hi = lab + lcb - eps;
  if (lo > hi) { const mid = 0.5 * (lo + hi); lo = mid; hi = mid; }
  const lat = Math.min(hi, Math.max(lo, dt));
  // Bend axis m = cb x ab; a straight chain goes to the general path.
  let mx = cby * abz - cbz * aby, my = cbz * abx - cbx * abz, mz = cbx * aby - cby * abx;
  const ml = Math.sqrt(mx * mx + my * my + mz * mz);
  if (ml <= 1e-9 * lab * lcb) return false;
  mx /= ml; my /= ml; mz /= ml;
  // 1. Knee: rotate (c - b) about m by the change of interior angle, ang1 - ang0. Its half-angle
  // sine and cosine come from the two cosines by identities (no acos, sin, cos): with
  // d = ang1 - ang0 in (-pi, pi), cos(d/2) = sqrt((1 + cos d) / 2) and sin(d/2) = sin d / (2 cos(d/2)).
  // (clamp1 written out: a number returned from a call V8 does not inline is a heap box)
  let c0 = -(abx * cbx + aby * cby + abz * cbz) / (lab * lcb);
  c0 = c0 < -1 ? -1 : c0 > 1 ? 1 : c0;
  let c1 = (lab * lab + lcb * lcb - lat * lat) / (2 * lab * lcb);
  c1 = c1 < -1 ? -1 : c1 > 1 ? 1 : c1;
  const s0 = Math.sqrt(Math.max(0, 1 - c0 * c0)), s1 = Math.sqrt(Math.max(0, 1 - c1 * c1));
  const cosD = c1 * c0 + s1 * s0, sinD = s1 * c0 - c1 * s0;
  const kw = Math.sqrt(Math.max(0, 0.5 * (1 + cosD)));
  if (!(kw > 1e-6)) return false; // a half turn of the knee: left to the general path
  const sk = sinD / (2 * kw);
  const kx = mx * sk, ky = my * sk, kz = mz * sk;
  // c1 - a = (b - a) + Rk (c - b)   (= quatRotateVec3(Rk, c - b) + (b - a))
  let tx = 2 * (ky * cbz - kz * cby), ty = 2 * (kz * cbx - kx * cbz), tz = 2 * (kx * cby - ky * cbx);
  const ac1x = abx + cbx + kw * tx + (ky * tz - kz * ty);
  const ac1y = aby + cby + kw * ty + (kz * tx - kx * tz);
  const ac1z = abz + cbz + kw * tz + (kx * ty - ky * tx);
  // 2. Aim: the shortest rotation taking (c1 - a) onto the target direction u.
  const fl = Math.sqrt(ac1x * ac1x + ac1y * ac1y + ac1z * ac1z);
  if (!(fl > 1e-12)) return false;
  const fx = ac1x / fl, fy = ac1y / fl, fz = ac1z / fl;
  const ux = atx / dt, uy = aty / dt, uz = atz / dt;
  const d = fx * ux + fy * uy + fz * uz;
  if (d < -1 + 1e-12) return false;
  const cx = fy * uz - fz * uy, cy = fz * ux - fx * uz, cz = fx * uy - fy * ux, cw = 1 + d;
  const cl = Math.sqrt(cx * cx + cy * cy + cz * cz + cw * cw);
  let rx = cx / cl, ry = cy / cl, rz = cz / cl, rw = cw / cl;
  if (usePole) {
    // 3. Pole: twist about u by the signed angle from the knee's offset (after aiming) to the pole's,
    // both without their parts along u: angle = atan2(u · (kp × pp), kp · pp).
    // kp = quatRotateVec3(R, b - a), rejected from u.
    tx = 2 * (ry * abz - rz * aby); ty = 2 * (rz * abx - rx * abz); tz = 2 * (rx * aby - ry * abx);
    let kpx = abx + rw * tx + (ry * tz - rz * ty), kpy = aby + rw * ty + (rz * tx - rx * tz), kpz = abz + rw * tz + (rx * ty - ry * tx);
    const kd = kpx * ux + kpy * uy + kpz * uz;
    kpx -= kd * ux; kpy -= kd * uy; kpz -= kd * uz;
    const polex = v[POLE], poley = v[POLE + 1], polez = v[POLE + 2];
    const pd = polex * ux + poley * uy + polez * uz;
    const ppx = polex - pd * ux, ppy = poley - pd * uy, ppz = polez - pd * uz;
    const kl = Math.sqrt(kpx * kpx + kpy * kpy + kpz * kpz), pl = Math.sqrt(ppx * ppx + ppy * ppy + ppz * ppz);
    const polel = Math.sqrt(polex * polex + poley * poley + polez * polez);
    if (kl > 1e-9 * lab && pl > 1e-6 * polel) {
      const sn = ux * (kpy * ppz - kpz * ppy) + uy * (kpz * ppx - kpx * ppz) + uz * (kpx * ppy - kpy * ppx);
      const cs = kpx * ppx + kpy * ppy + kpz * ppz, r = Math.sqrt(sn * sn + cs * cs);
      if (!(r > 0)) return false;
      // Half angle: cos(a/2) = sqrt((1 + cos a) / 2), sin(a/2) = sin a / (2 cos(a/2)); a half turn to the general path.
      const pw = Math.sqrt(Math.max(0, 0.5 * (1 + cs / r)));
      if (!(pw > 1e-6)) return false;
      const ps = sn / r / (2 * pw), px = ux * ps, py = uy * ps, pz = uz * ps;
      // R = Rpole * Raim   (= quatMultiply(R, Rpole, Raim))
      const nx = pw * rx + px * rw + py * rz - pz * ry;
      const ny = pw * ry - px * rz + py * rw + pz * rx;
      const nz = pw * rz + px * ry - py * rx + pz * rw;
      const nw = pw * rw - px * rx - py * ry - pz * rz;
      rx = nx; ry = ny; rz = nz; rw = nw;
    }
  }
  // World results: hip' = R * hip, knee' = R * Rk * knee (R = Rpole * Raim), each normalised:
  // = quatMultiply then normalize4 (QA2 = R·QA, QB2 = R·(Rk·QB)), written out because eight numbers passed to a call V8 does not inline are eight heap boxes (450 bytes of
  // garbage per agent-step in a crowd).
  const qax = q[QA], qay = q[QA + 1], qaz = q[QA + 2], qaw = q[QA + 3];
  let hx = rw * qax + rx * qaw + ry * qaz - rz * qay;
  let hy = rw * qay - rx * qaz + ry * qaw + rz * qax;
  let hz = rw * qaz + rx * qay - ry * qax + rz * qaw;
  let hw = rw * qaw - rx * qax - ry * qay - rz * qaz;
  let hl = Math.sqrt(hx * hx + hy * hy + hz * hz + hw * hw);
  if (!(hl > 0) || !Number.isFinite(hl)) { hx = 0; hy = 0; hz = 0; hw = 1; hl = 1; }
  q[QA2] = hx / hl; q[QA2 + 1] = hy / hl; q[QA2 + 2] = hz / hl; q[QA2 + 3] = hw / hl;
  const qbx = q[QB], qby = q[QB + 1], qbz = q[QB + 2], qbw = q[QB + 3];
  // p = quatMultiply(p, Rk, knee world rotation)
  const px = kw * qbx + kx * qbw + ky * qbz - kz * qby;
  const py = kw * qby - kx * qbz + ky * qbw + kz * qbx;
  const pz = kw * qbz + kx * qby - ky * qbx + kz * qbw;
  const pw = kw * qbw - kx * qbx - ky * qby - kz * qbz;
  hx = rw * px + rx * pw + ry * pz - rz * py;
  hy = rw * py - rx * pz + ry * pw + rz * px;
  hz = rw * pz + rx * py - ry * px + rz * pw;
  hw = rw * pw - rx * px - ry * py - rz * pz;
  hl = Math.sqrt(hx * hx + hy * hy + hz * hz + hw * hw);
  if (!(hl > 0) || !Number.isFinite(hl)) { hx = 0; hy = 0; hz = 0; hw = 1; hl = 1; }
  q[QB2] = hx / hl; q[QB2 + 1] = hy / hl; q[QB2 + 2] = hz / hl; q[QB2 + 3] = hw / hl;
  // New knee and end positions: knee' = a + quatRotateVec3(R, b - a), foot' = a + quatRotateVec3(R, c1 - a).
  tx = 2 * (ry * abz - rz * aby); ty = 2 * (rz * abx - rx * abz); tz = 2 * (rx * aby - ry * abx);
  v[B] = ax + abx + rw * tx + (ry * tz - rz * ty);
  v[B + 1] = ay + aby + rw * ty + (rz * tx - rx * tz);
  v[B + 2] = az + abz + rw * tz + (rx * ty - ry * tx);
  tx = 2 * (ry * ac1z - rz * ac1y); ty = 2 * (rz * ac1x - rx * ac1z); tz = 2 * (rx * ac1y - ry * ac1x);
  v[C] = ax + ac1x + rw * tx + (ry * tz - rz * ty);
  v[C + 1] = ay + ac1y + rw * ty + (rz * tx - rx * tz);
  v[C + 2] = az + ac1z + rw * tz + (rx * ty - ry * tx);
  v[RESIDUAL] = Math.abs(dt - lat);
  return true;
}

// ---- small vector/quaternion helpers on (buffer, offset) pairs --------------------------------

function clamp1(x: number): number {
  return x < -1 ? -1 : x > 1 ? 1 : x;
}
function len3(x: number, y: number, z: number): number {
  return Math.sqrt(x * x + y * y + z * z);
}
function len(v: Float64Array, o: number): number {
  return Math.sqrt(v[o] * v[o] + v[o + 1] * v[o + 1] + v[o + 2] * v[o + 2]);
}
function dot(a: Float64Array, ao: number, b: Float64Array, bo: number): number {
  return a[ao] * b[bo] + a[ao + 1] * b[bo + 1] + a[ao + 2] * b[bo + 2];
}
function sub(out: Float64Array, oo: number, a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  out[oo] = a[ao] - b[bo]; out[oo + 1] = a[ao + 1] - b[bo + 1]; out[oo + 2] = a[ao + 2] - b[bo + 2];
}
function add(out: Float64Array, oo: number, a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  out[oo] = a[ao] + b[bo]; out[oo + 1] = a[ao + 1] + b[bo + 1]; out[oo + 2] = a[ao + 2] + b[bo + 2];
}
function scale(out: Float64Array, oo: number, a: Float64Array, ao: number, s: number): void {
  out[oo] = a[ao] * s; out[oo + 1] = a[ao + 1] * s; out[oo + 2] = a[ao + 2] * s;
}
function copy3(out: Float64Array, oo: number, a: Float64Array, ao: number): void {
  out[oo] = a[ao]; out[oo + 1] = a[ao + 1]; out[oo + 2] = a[ao + 2];
}
function cross(out: Float64Array, oo: number, a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], bx = b[bo], by = b[bo + 1], bz = b[bo + 2];
  out[oo] = ay * bz - az * by; out[oo + 1] = az * bx - ax * bz; out[oo + 2] = ax * by - ay * bx;
}
/** v -= (v . u) u, for unit u. */
function rejectFrom(v: Float64Array, vo: number, u: Float64Array, uo: number): void {
  const d = dot(v, vo, u, uo);
  v[vo] -= d * u[uo]; v[vo + 1] -= d * u[uo + 1]; v[vo + 2] -= d * u[uo + 2];
}
/**
 * Unit vector perpendicular to unit `d`: the preferred direction's perpendicular part when
 * usable, else world +Z's, else world +X's.
 */
function pickPerpendicular(out: Float64Array, oo: number, d: Float64Array, dO: number, pref: Float64Array | null, po: number): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt === 0) {
      if (!pref) continue;
      out[oo] = pref[po]; out[oo + 1] = pref[po + 1]; out[oo + 2] = pref[po + 2];
    } else if (attempt === 1) {
      out[oo] = 0; out[oo + 1] = 0; out[oo + 2] = 1;
    } else {
      out[oo] = 1; out[oo + 1] = 0; out[oo + 2] = 0;
    }
    const l0 = len(out, oo);
    rejectFrom(out, oo, d, dO);
    const l = len(out, oo);
    if (l > 1e-6 * Math.max(l0, 1e-300) && l > 1e-12) { scale(out, oo, out, oo, 1 / l); return; }
  }
  // d is parallel to both +Z and +X: impossible for a unit vector; keep a valid answer anyway.
  out[oo] = 0; out[oo + 1] = 1; out[oo + 2] = 0;
}

function copy4(out: Buf, oo: number, a: Buf, ao: number): void {
  out[oo] = a[ao]; out[oo + 1] = a[ao + 1]; out[oo + 2] = a[ao + 2]; out[oo + 3] = a[ao + 3];
}
function normalize4(a: Buf, o: number): void {
  const l = Math.sqrt(a[o] * a[o] + a[o + 1] * a[o + 1] + a[o + 2] * a[o + 2] + a[o + 3] * a[o + 3]);
  if (!(l > 0) || !Number.isFinite(l)) { a[o] = 0; a[o + 1] = 0; a[o + 2] = 0; a[o + 3] = 1; return; }
  const s = 1 / l;
  a[o] *= s; a[o + 1] *= s; a[o + 2] *= s; a[o + 3] *= s;
}
/**
 * Shortest rotation taking direction v[from] (any length) onto the unit v[to]. Opposite directions
 * turn half-way round v[fallbackAxis] (made perpendicular to `from`).
 */
function fromTo(q: Float64Array, qo: number, v: Float64Array, from: number, to: number, fallbackAxis: number): void {
  const fl = len(v, from);
  if (!(fl > 1e-12)) { q[qo] = 0; q[qo + 1] = 0; q[qo + 2] = 0; q[qo + 3] = 1; return; }
  const fx = v[from] / fl, fy = v[from + 1] / fl, fz = v[from + 2] / fl;
  const tx = v[to], ty = v[to + 1], tz = v[to + 2];
  const d = fx * tx + fy * ty + fz * tz;
  if (d < -1 + 1e-12) {
    // Half turn about an axis perpendicular to `from`.
    let ax = v[fallbackAxis], ay = v[fallbackAxis + 1], az = v[fallbackAxis + 2];
    const p = ax * fx + ay * fy + az * fz;
    ax -= p * fx; ay -= p * fy; az -= p * fz;
    let al = len3(ax, ay, az);
    if (al < 1e-6) { ax = -fz; ay = 0; az = fx; al = len3(ax, ay, az); if (al < 1e-6) { ax = 0; ay = fz; az = -fy; al = len3(ax, ay, az); } }
    q[qo] = ax / al; q[qo + 1] = ay / al; q[qo + 2] = az / al; q[qo + 3] = 0;
    return;
  }
  const cx = fy * tz - fz * ty, cy = fz * tx - fx * tz, cz = fx * ty - fy * tx;
  const w = 1 + d;
  const l = Math.sqrt(cx * cx + cy * cy + cz * cz + w * w);
  q[qo] = cx / l; q[qo + 1] = cy / l; q[qo + 2] = cz / l; q[qo + 3] = w / l;
}
