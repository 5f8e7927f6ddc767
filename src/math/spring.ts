/**
 * Critically damped springs (docs/runtime.md, "Formulas"), in exact closed form: one update of length dt equals any
 * number of smaller updates summing to dt, so results do not depend on the frame rate.
 *
 * h is the half-life (seconds for the spring to cover half the remaining distance when starting at
 * rest, ignoring the velocity term) and y = 2·ln2 / h is the decay rate. Math.exp is used rather than
 * a polynomial approximation: it is deterministic on one engine and costs little next to the rest
 * of a frame.
 *
 * State lives in flat buffers with offsets (x, v, a each n components, n = 1 for scalars, 3 for
 * vec3), updated in place; nothing here allocates.
 */
import {
  type Buf,
  quatFromScaledAngleAxis,
  quatMultiply,
  quatMultiplyInv,
  quatToScaledAngleAxis,
} from './quat.js';

/** y = 2·ln2 / h: the decay rate of a critically damped spring with half-life h (seconds). */
export function dampingFromHalfLife(halfLife: number): number {
  requireHalfLife('dampingFromHalfLife', halfLife);
  return (2 * Math.LN2) / halfLife;
}

// The springs below check the half-life and compute y inline rather than call
// dampingFromHalfLife: a number returned by a call that is not inlined is a heap allocation, and
// crowds call these for every character every step.
function requireHalfLife(fn: string, halfLife: number): void {
  if (!(Number.isFinite(halfLife) && halfLife > 0)) {
    throw new RangeError(`${fn}: halfLife must be a finite number > 0 seconds, got ${String(halfLife)}`);
  }
}

/** Inverse of {@link dampingFromHalfLife}. */
export function halfLifeFromDamping(y: number): number {
  if (!(Number.isFinite(y) && y > 0)) {
    throw new RangeError(`halfLifeFromDamping: y must be a finite number > 0, got ${String(y)}`);
  }
  return (2 * Math.LN2) / y;
}

/**
 * e^(−x) for the last x each slot was asked about, recomputed only when x changes. A crowd steps
 * every character with the same half-lives and dt, so each call site asks for the same exponential
 * call after call; the result is exactly Math.exp(−x) either way. Slots: one per call site below,
 * then one per trajectory offset (up to MEMO_OFFSETS) for each of the two predictions.
 */
const MEMO_OFFSETS = 16;
const MEMO_CHARACTER = 0, MEMO_ROTATION = 1, MEMO_DECAY = 2, MEMO_PREDICT_X = 3, MEMO_PREDICT_ROT = MEMO_PREDICT_X + MEMO_OFFSETS;
const memoArgs = new Float64Array(MEMO_PREDICT_ROT + MEMO_OFFSETS).fill(Number.NaN);
const memoValues = new Float64Array(MEMO_PREDICT_ROT + MEMO_OFFSETS);
/** The public updates' half-life and dt, handed to their `With` forms. */
const SPRING_ARGS = new Float64Array(2);

function expNegMemo(slot: number, x: number): number {
  if (memoArgs[slot] !== x) { memoArgs[slot] = x; memoValues[slot] = Math.exp(-x); }
  return memoValues[slot];
}

/** expNegMemo for offset i of a prediction (offsets past the memo's slots are computed each time). */
function expNegOffset(base: number, i: number, x: number): number {
  return i < MEMO_OFFSETS ? expNegMemo(base + i, x) : Math.exp(-x);
}

function requireDt(fn: string, dt: number): void {
  if (!(Number.isFinite(dt) && dt >= 0)) {
    throw new RangeError(`${fn}: dt must be a finite number >= 0 seconds, got ${String(dt)}`);
  }
}

/**
 * Decay towards 0 (inertialization offsets), n components in place:
 *   j = v + x·y;  x' = e^(−y·dt)·(x + j·dt);  v' = e^(−y·dt)·(v − j·y·dt).
 */
export function decaySpringUpdate(
  x: Buf,
  xo: number,
  v: Buf,
  vo: number,
  halfLife: number,
  dt: number,
  n = 1,
): void {
  SPRING_ARGS[0] = halfLife; SPRING_ARGS[1] = dt;
  decaySpringUpdateWith(x, xo, v, vo, SPRING_ARGS, 0, n);
}

/**
 * {@link decaySpringUpdate} with the half-life and dt read from `p[po]` and `p[po + 1]`: for a
 * per-step caller, where two numbers passed to a call V8 does not inline are two heap boxes (32
 * bytes per agent-step of a crowd for the root velocity offset's decay alone).
 */
export function decaySpringUpdateWith(x: Buf, xo: number, v: Buf, vo: number, p: Float64Array, po: number, n = 1): void {
  const halfLife = p[po], dt = p[po + 1];
  // (checked inline first: the checks are calls, and their number arguments boxes)
  if (!(Number.isFinite(halfLife) && halfLife > 0)) requireHalfLife('dampingFromHalfLife', halfLife);
  const y = (2 * Math.LN2) / halfLife;
  if (!(Number.isFinite(dt) && dt >= 0)) requireDt('decaySpringUpdate', dt);
  const e = expNegMemo(MEMO_DECAY, y * dt);
  for (let i = 0; i < n; i++) {
    const xi = x[xo + i], vi = v[vo + i];
    const j = vi + xi * y;
    x[xo + i] = e * (xi + j * dt);
    v[vo + i] = e * (vi - j * y * dt);
  }
}

/**
 * Trajectory spring: position x, velocity v and acceleration a (n components each, in place) move
 * towards a desired velocity v_d, critically damped with half-life h. With j0 = v − v_d,
 * j1 = a + j0·y, e = e^(−y·dt):
 *   x' = e·(−j1/y² + (−j0 − j1·dt)/y) + j1/y² + j0/y + v_d·dt + x
 *   v' = e·(j0 + j1·dt) + v_d
 *   a' = e·(a − j1·y·dt)
 */
export function springCharacterUpdate(
  x: Buf,
  xo: number,
  v: Buf,
  vo: number,
  a: Buf,
  ao: number,
  desiredVelocity: Buf,
  dvo: number,
  halfLife: number,
  dt: number,
  n = 3,
): void {
  SPRING_ARGS[0] = halfLife; SPRING_ARGS[1] = dt;
  springCharacterUpdateWith(x, xo, v, vo, a, ao, desiredVelocity, dvo, SPRING_ARGS, 0, n);
}

/**
 * {@link springCharacterUpdate} with the half-life and dt read from `p[po]` and `p[po + 1]`: for
 * callers that step every character every frame. Numbers passed to (or returned from) a call V8
 * does not inline are heap boxes, so nothing here passes one on: the closed form and expNegMemo are
 * written out.
 */
export function springCharacterUpdateWith(x: Buf, xo: number, v: Buf, vo: number, a: Buf, ao: number, desiredVelocity: Buf, dvo: number, p: Float64Array, po: number, n = 3): void {
  const halfLife = p[po], dt = p[po + 1];
  if (!(Number.isFinite(halfLife) && halfLife > 0)) requireHalfLife('dampingFromHalfLife', halfLife);
  if (!(Number.isFinite(dt) && dt >= 0)) requireDt('springCharacterUpdate', dt);
  const y = (2 * Math.LN2) / halfLife, yd = y * dt;
  // = expNegMemo(MEMO_CHARACTER, y·dt)
  if (memoArgs[MEMO_CHARACTER] !== yd) { memoArgs[MEMO_CHARACTER] = yd; memoValues[MEMO_CHARACTER] = Math.exp(-yd); }
  const e = memoValues[MEMO_CHARACTER];
  for (let i = 0; i < n; i++) {
    const vd = desiredVelocity[dvo + i];
    const xi = x[xo + i], vi = v[vo + i], ai = a[ao + i];
    const j0 = vi - vd;
    const j1 = ai + j0 * y;
    x[xo + i] = e * (-j1 / (y * y) + (-j0 - j1 * dt) / y) + j1 / (y * y) + j0 / y + vd * dt + xi;
    v[vo + i] = e * (j0 + j1 * dt) + vd;
    a[ao + i] = e * (ai - j1 * y * dt);
  }
}

/**
 * Future states of {@link springCharacterUpdate} at `count` time offsets (seconds from now, each
 * ≥ 0) for a desired velocity held constant: outX/outV/outA[i·n + k] for offset i, component k.
 * Each offset is evaluated in closed form from the current state, so errors do not accumulate and
 * the offsets need not be sorted. Pass null for outputs you do not need. With `first`, only
 * offsets first .. first + count − 1 are evaluated (and written at their own indices).
 */
export function springCharacterPredict(
  outX: Buf | null,
  outV: Buf | null,
  outA: Buf | null,
  x: Buf,
  xo: number,
  v: Buf,
  vo: number,
  a: Buf,
  ao: number,
  desiredVelocity: Buf,
  dvo: number,
  halfLife: number,
  timeOffsets: Buf,
  count: number,
  n = 3,
  first = 0,
): void {
  requireHalfLife('dampingFromHalfLife', halfLife);
  const y = (2 * Math.LN2) / halfLife;
  for (let i = first; i < first + count; i++) requireDt('springCharacterPredict', timeOffsets[i]);
  // The same closed form as springCharacterUpdateWith, written out (a call per offset would box its numbers,
  // and this runs for every search of a crowd), with one exponential per offset.
  for (let i = first; i < first + count; i++) {
    const dt = timeOffsets[i], e = expNegOffset(MEMO_PREDICT_X, i, y * dt);
    for (let k = 0; k < n; k++) {
      const vd = desiredVelocity[dvo + k];
      const xk = x[xo + k], ak = a[ao + k];
      const j0 = v[vo + k] - vd;
      const j1 = ak + j0 * y;
      const o = i * n + k;
      if (outX !== null) outX[o] = e * (-j1 / (y * y) + (-j0 - j1 * dt) / y) + j1 / (y * y) + j0 / y + vd * dt + xk;
      if (outV !== null) outV[o] = e * (j0 + j1 * dt) + vd;
      if (outA !== null) outA[o] = e * (ak - j1 * y * dt);
    }
  }
}

const rotScratch = new Float64Array(4);
const logScratch = new Float64Array(3);

/**
 * Rotation spring (facing): rotation (x, y, z, w) and angular velocity (rad/s, scaled angle-axis
 * rate) move towards `goal`, critically damped with half-life h, in place. The offset from the
 * goal, log(rot · goal⁻¹) (short path), is a decay spring towards zero; angular velocity is its
 * rate, in the same (world, left-multiplied) frame:
 *   j = ω + log·y;  log' = e^(−y·dt)·(log + j·dt);  ω' = e^(−y·dt)·(ω − j·y·dt).
 */
export function springRotationUpdate(
  rot: Buf,
  ro: number,
  angVel: Buf,
  avo: number,
  goal: Buf,
  go: number,
  halfLife: number,
  dt: number,
): void {
  SPRING_ARGS[0] = halfLife; SPRING_ARGS[1] = dt;
  springRotationUpdateWith(rot, ro, angVel, avo, goal, go, SPRING_ARGS, 0);
}

/** {@link springRotationUpdate} with the half-life and dt read from `p[po]` and `p[po + 1]`, written out as springCharacterUpdateWith is. */
export function springRotationUpdateWith(rot: Buf, ro: number, angVel: Buf, avo: number, goal: Buf, go: number, p: Float64Array, po: number): void {
  const halfLife = p[po], dt = p[po + 1];
  if (!(Number.isFinite(halfLife) && halfLife > 0)) requireHalfLife('dampingFromHalfLife', halfLife);
  if (!(Number.isFinite(dt) && dt >= 0)) requireDt('springRotationUpdate', dt);
  const y = (2 * Math.LN2) / halfLife, yd = y * dt;
  quatMultiplyInv(rotScratch, 0, rot, ro, goal, go);
  quatToScaledAngleAxis(logScratch, 0, rotScratch, 0); // takes the short way round
  // = expNegMemo(MEMO_ROTATION, y·dt)
  if (memoArgs[MEMO_ROTATION] !== yd) { memoArgs[MEMO_ROTATION] = yd; memoValues[MEMO_ROTATION] = Math.exp(-yd); }
  const e = memoValues[MEMO_ROTATION];
  for (let k = 0; k < 3; k++) {
    const j0 = logScratch[k];
    const w = angVel[avo + k];
    const j1 = w + j0 * y;
    logScratch[k] = e * (j0 + j1 * dt);
    angVel[avo + k] = e * (w - j1 * y * dt);
  }
  quatFromScaledAngleAxis(rotScratch, 0, logScratch, 0);
  quatMultiply(rot, ro, rotScratch, 0, goal, go);
}

/**
 * Future rotations / angular velocities of {@link springRotationUpdate} at `count` time offsets
 * (closed form from the current state): outRot[i·4 ..], outAngVel[i·3 ..]. Pass null to skip one.
 * With `first`, only offsets first .. first + count − 1 are evaluated.
 */
export function springRotationPredict(
  outRot: Buf | null,
  outAngVel: Buf | null,
  rot: Buf,
  ro: number,
  angVel: Buf,
  avo: number,
  goal: Buf,
  go: number,
  halfLife: number,
  timeOffsets: Buf,
  count: number,
  first = 0,
): void {
  requireHalfLife('dampingFromHalfLife', halfLife);
  const y = (2 * Math.LN2) / halfLife;
  for (let i = first; i < first + count; i++) requireDt('springRotationPredict', timeOffsets[i]);
  // springRotationUpdateWith per offset, with the offset-independent part (the log of rot · goal⁻¹ and
  // the spring's j terms) computed once.
  quatMultiplyInv(rotScratch, 0, rot, ro, goal, go);
  quatToScaledAngleAxis(logScratch, 0, rotScratch, 0);
  const j0x = logScratch[0], j0y = logScratch[1], j0z = logScratch[2];
  const wx = angVel[avo], wy = angVel[avo + 1], wz = angVel[avo + 2];
  const j1x = wx + j0x * y, j1y = wy + j0y * y, j1z = wz + j0z * y;
  for (let i = first; i < first + count; i++) {
    const dt = timeOffsets[i], e = expNegOffset(MEMO_PREDICT_ROT, i, y * dt);
    if (outAngVel !== null) {
      outAngVel[3 * i] = e * (wx - j1x * y * dt);
      outAngVel[3 * i + 1] = e * (wy - j1y * y * dt);
      outAngVel[3 * i + 2] = e * (wz - j1z * y * dt);
    }
    if (outRot === null) continue;
    predictLog[0] = e * (j0x + j1x * dt); predictLog[1] = e * (j0y + j1y * dt); predictLog[2] = e * (j0z + j1z * dt);
    quatFromScaledAngleAxis(predictRot, 0, predictLog, 0);
    quatMultiply(outRot, 4 * i, predictRot, 0, goal, go);
  }
}

const predictRot = new Float64Array(4);
const predictLog = new Float64Array(3);
