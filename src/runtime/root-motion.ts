/**
 * Root motion: root tracks supply motion INCREMENTS; the character accumulates them.
 *
 * An asset's translation origin never owns the character's world position, so nothing in this
 * module ever blends or returns a root *position*. Blending two root tracks blends their
 * displacements over the same interval; rotation is blended as a relative (local-frame) rotation;
 * looping clips accumulate across the wrap instead of subtracting wrapped coordinates.
 * See docs/root-motion.md for the contract and the worked figures.
 *
 * Layouts (flat buffers with offsets, like src/math/quat.ts):
 * - root transform, 3D:   [px, py, pz, qx, qy, qz, qw]   (ROOT_XFORM_SIZE = 7)
 * - root delta, 3D:       [tx, ty, tz, qx, qy, qz, qw]   translation and rotation in the START frame
 * - root transform, yaw:  [x, y, z, yaw]                  (YAW_XFORM_SIZE = 4)
 * - root delta, yaw:      [dx, dy, dz, dyaw]              translation in the start-facing frame
 *
 * Every function validates its inputs and throws RangeError naming the offending argument: NaN,
 * infinities, weights outside [0, 1], and differences that overflow double precision. The checks are
 * a handful of comparisons per call and allocate nothing (messages are built only when throwing).
 */
import {
  type Buf,
  quatInvMultiply,
  quatInvRotateVec3,
  quatMultiply,
  quatNormalize,
  quatRotateVec3,
  quatSetIdentity,
  quatSlerp,
} from '../math/quat.js';

/** A root coordinate sampled at the start and the end of one playback interval. */
export interface RootSpan {
  start: number;
  end: number;
}

/** Options for {@link integrateBlendedDelta}. */
export interface IntegrateBlendedDeltaOptions {
  /**
   * Times in ascending order where a track's velocity or the weight's slope changes (e.g. frame
   * boundaries of sampled data, the start of a turn). The interval is split there so no sub-step
   * straddles a kink. Entries outside (t0, t1) are ignored.
   */
  breakpoints?: readonly number[];
  /** Absolute error target in metres for the whole interval (default 1e-6). */
  maxError?: number;
  /** Largest number of sub-steps per piece between breakpoints (default 1024; the count doubles, so
   *  the most used is the largest power of two not above it). */
  maxSteps?: number;
  /**
   * When false, each piece between breakpoints is one sub-step (exact for piecewise-linear root
   * tracks with breakpoints at every kink and a weight that is linear between breakpoints).
   * Default true: halve sub-steps until two successive estimates agree to within maxError.
   */
  adaptive?: boolean;
  /** Optional preallocated object filled with how the integral was obtained. */
  report?: IntegrationReport;
}

/** Diagnostics written by {@link integrateBlendedDelta} when `options.report` is given. */
export interface IntegrationReport {
  /** Sub-steps in the returned estimate, summed over pieces. */
  steps: number;
  /**
   * Sum over pieces of |finest − previous estimate|. For smooth pieces the sum converges as O(h²),
   * so the returned estimate's error is about a third of this. Infinity if a piece could not be
   * refined even once (maxSteps 1); 0 when `adaptive` is false (no estimate is made).
   */
  errorEstimate: number;
  /** False if some piece hit maxSteps before meeting its share of maxError. */
  converged: boolean;
}

export const ROOT_XFORM_SIZE = 7;
export const YAW_XFORM_SIZE = 4;

// ---------------------------------------------------------------------------------------------
// Validation helpers: cheap comparisons; strings are only built on the failure path.

/** `name` + `suffix` (or `name[index]`) names the argument; joined only when throwing. */
function requireFinite(fn: string, name: string, x: number, suffix = '', index = -1): void {
  if (!Number.isFinite(x)) {
    const label = index >= 0 ? `${name}[${index}]` : name + suffix;
    throw new RangeError(`${fn}: ${label} must be a finite number, got ${String(x)}`);
  }
}

function requireWeight(fn: string, name: string, w: number): void {
  // Written as a negated range test so NaN (and non-numbers) fail too.
  if (!(typeof w === 'number' && w >= 0 && w <= 1)) {
    throw new RangeError(`${fn}: ${name} must be a number in [0, 1], got ${String(w)}`);
  }
}

function requireFiniteResult(fn: string, what: string, x: number): number {
  if (!Number.isFinite(x)) {
    throw new RangeError(`${fn}: ${what} overflows double precision (${String(x)})`);
  }
  return x;
}

/** end − start of one track, rejecting non-finite samples and a difference that overflows. */
function spanDisplacement(fn: string, label: string, span: RootSpan): number {
  requireFinite(fn, label, span.start, '.start');
  requireFinite(fn, label, span.end, '.end');
  const d = span.end - span.start;
  if (!Number.isFinite(d)) {
    throw new RangeError(
      `${fn}: ${label}.end - ${label}.start overflows double precision ` +
        `(${span.end} - ${span.start}); the samples are too far apart to difference`,
    );
  }
  return d;
}

/** (1 − w)·dA + w·dB. This form returns dA exactly at w = 0 and dB exactly at w = 1. */
function lerpDisplacement(dA: number, dB: number, w: number): number {
  return (1 - w) * dA + w * dB;
}

function requireFiniteRange(fn: string, name: string, buf: Buf, o: number, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = buf[o + i];
    if (!Number.isFinite(x)) {
      throw new RangeError(`${fn}: ${name}[${o + i}] must be a finite number, got ${String(x)}`);
    }
  }
}

/**
 * A root rotation must be finite and (close to) unit length: a wrong layout (e.g. a yaw transform
 * passed where a 3D one is expected) shows up here rather than as a silently scaled rotation.
 */
function requireUnitQuat(fn: string, name: string, buf: Buf, o: number): void {
  requireFiniteRange(fn, name, buf, o, 4);
  const x = buf[o], y = buf[o + 1], z = buf[o + 2], w = buf[o + 3];
  const n2 = x * x + y * y + z * z + w * w;
  if (!(Math.abs(n2 - 1) <= 1e-3)) {
    throw new RangeError(
      `${fn}: ${name}[${o}..${o + 3}] must be a unit quaternion (x, y, z, w), squared length is ${n2}`,
    );
  }
}

function requireXform(fn: string, name: string, buf: Buf, o: number): void {
  requireFiniteRange(fn, name, buf, o, 3);
  requireUnitQuat(fn, name, buf, o + 3);
}

function requireWraps(fn: string, wraps: number): void {
  if (!(Number.isSafeInteger(wraps) && wraps >= 0)) {
    throw new RangeError(`${fn}: wraps must be a non-negative integer, got ${String(wraps)}`);
  }
}

/** Angle in (−π, π]: the short way round, as a per-interval turn must be. */
function wrapAngle(a: number): number {
  const TWO_PI = 2 * Math.PI;
  let r = a - TWO_PI * Math.floor((a + Math.PI) / TWO_PI); // [−π, π)
  if (r <= -Math.PI) r += TWO_PI;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Scalar (one coordinate) blending.

/**
 * Blend two root tracks' displacements over the same interval: (1 − w)·(a.end − a.start) +
 * w·(b.end − b.start), where `weight` is B's weight representative of the interval (for a weight
 * that is linear over the interval and constant velocities, the mean of its end values; otherwise
 * use {@link integrateBlendedDelta}).
 *
 * Only the differences enter the result, so each track's translation origin drops out: shifting a
 * track by any finite offset leaves the delta unchanged (up to the rounding of the shifted samples).
 *
 * @throws RangeError for NaN or infinite samples, a weight outside [0, 1] or NaN, or a
 *   difference / result that overflows double precision.
 */
export function blendRootDelta(
  a: { start: number; end: number },
  b: { start: number; end: number },
  weight: number,
): number {
  const fn = 'blendRootDelta';
  const dA = spanDisplacement(fn, 'a', a);
  const dB = spanDisplacement(fn, 'b', b);
  requireWeight(fn, 'weight', weight);
  return requireFiniteResult(fn, 'the blended delta', lerpDisplacement(dA, dB, weight));
}

/**
 * WRONG-ORDER REFERENCE - do not use for playback. Blends root POSITIONS at each end of the interval
 * (with the weight in force at that end) and differences the blends:
 *   ((1 − w1)·a.end + w1·b.end) − ((1 − w0)·a.start + w0·b.start).
 * The result depends on where each asset's origin happens to be: with A 0 → 0.1 m, B 10 → 10.3 m,
 * B's weight 0.4 → 0.6 it gives 2.22 m (0.22 m after shifting B by −10 m) where the displacement
 * blend gives 0.20 m. Kept so tests and docs can demonstrate the failure.
 */
export function blendRootPositionsNaive(
  a: { start: number; end: number },
  b: { start: number; end: number },
  weightAtStart: number,
  weightAtEnd: number,
): number {
  const fn = 'blendRootPositionsNaive';
  requireFinite(fn, 'a.start', a.start);
  requireFinite(fn, 'a.end', a.end);
  requireFinite(fn, 'b.start', b.start);
  requireFinite(fn, 'b.end', b.end);
  requireWeight(fn, 'weightAtStart', weightAtStart);
  requireWeight(fn, 'weightAtEnd', weightAtEnd);
  const blendedEnd = (1 - weightAtEnd) * a.end + weightAtEnd * b.end;
  const blendedStart = (1 - weightAtStart) * a.start + weightAtStart * b.start;
  return requireFiniteResult(fn, 'the position difference', blendedEnd - blendedStart);
}

/**
 * The weight that represents an interval over which B's weight moves linearly from w0 to w1: their
 * mean. Exact for constant track velocities within the interval.
 */
export function intervalMeanWeight(w0: number, w1: number): number {
  requireWeight('intervalMeanWeight', 'w0', w0);
  requireWeight('intervalMeanWeight', 'w1', w1);
  return 0.5 * (w0 + w1);
}

// ---------------------------------------------------------------------------------------------
// Sub-stepped integration of a blended velocity with a time-varying weight.

const DEFAULT_MAX_ERROR = 1e-6;
const DEFAULT_MAX_STEPS = 1024;

function sampleFinite(fn: string, name: string, f: (t: number) => number, t: number): number {
  const x = f(t);
  if (!Number.isFinite(x)) {
    throw new RangeError(`${fn}: ${name}(${t}) must return a finite number, got ${String(x)}`);
  }
  return x;
}

function sampleWeight(fn: string, f: (t: number) => number, t: number): number {
  const w = f(t);
  if (!(typeof w === 'number' && w >= 0 && w <= 1)) {
    throw new RangeError(`${fn}: weight(${t}) must return a number in [0, 1], got ${String(w)}`);
  }
  return w;
}

/**
 * Σ over n equal sub-steps of blendRootDelta(A's step, B's step, mean of the weight at the step's
 * ends). Each sub-step is exact when both velocities are constant and the weight is linear in it.
 */
function blendedDeltaInSteps(
  sampleA: (t: number) => number,
  sampleB: (t: number) => number,
  weight: (t: number) => number,
  ta: number,
  tb: number,
  n: number,
): number {
  const fn = 'integrateBlendedDelta';
  let aPrev = sampleFinite(fn, 'sampleA', sampleA, ta);
  let bPrev = sampleFinite(fn, 'sampleB', sampleB, ta);
  let wPrev = sampleWeight(fn, weight, ta);
  let sum = 0;
  for (let i = 1; i <= n; i++) {
    const t = i === n ? tb : ta + ((tb - ta) * i) / n;
    const aCur = sampleFinite(fn, 'sampleA', sampleA, t);
    const bCur = sampleFinite(fn, 'sampleB', sampleB, t);
    const wCur = sampleWeight(fn, weight, t);
    const dA = aCur - aPrev, dB = bCur - bPrev;
    if (!Number.isFinite(dA) || !Number.isFinite(dB)) {
      const which = Number.isFinite(dA) ? 'sampleB' : 'sampleA';
      throw new RangeError(`${fn}: ${which}(${t}) - ${which}(previous sub-step) overflows double precision`);
    }
    sum += lerpDisplacement(dA, dB, 0.5 * (wPrev + wCur));
    aPrev = aCur; bPrev = bCur; wPrev = wCur;
  }
  return requireFiniteResult(fn, 'the integrated delta', sum);
}

/**
 * Side outputs of the last integratePiece call: [sub-steps used, |finest − previous estimate|].
 * A typed array rather than a returned object or module-level `let`s (boxed numbers), so
 * integration allocates nothing; read right after each call, which keeps it safe even if a
 * sampler itself integrates.
 */
const pieceInfo = new Float64Array(2);

/** Integrates one piece [ta, tb] (no known kink inside); returns the finest estimate. */
function integratePiece(
  sampleA: (t: number) => number,
  sampleB: (t: number) => number,
  weight: (t: number) => number,
  ta: number,
  tb: number,
  adaptive: boolean,
  maxSteps: number,
  tolerance: number,
): number {
  let n = 1;
  let estimate = blendedDeltaInSteps(sampleA, sampleB, weight, ta, tb, n);
  let diff = adaptive ? Infinity : 0;
  if (adaptive) {
    while (2 * n <= maxSteps) {
      n *= 2;
      const finer = blendedDeltaInSteps(sampleA, sampleB, weight, ta, tb, n);
      diff = Math.abs(finer - estimate);
      estimate = finer;
      if (diff <= tolerance) break;
    }
  }
  pieceInfo[0] = n;
  pieceInfo[1] = diff;
  return estimate;
}

/**
 * Displacement of the blend of two root tracks over [t0, t1] when B's weight varies with time:
 * ∫ (1 − w(t))·dA(t) + w(t)·dB(t). One blendRootDelta call with the interval's mean weight is only
 * exact when the velocities are constant; when they change inside the interval (A still, B still
 * for the first half then 0.40 m in the second, w 0 → 1) one call gives 0.20 m but the true blended
 * displacement is 0.30 m, because B moves while its weight is high.
 *
 * Method: split at `breakpoints` (known velocity changes); within each piece, take 1, 2, 4, ...
 * equal sub-steps until two successive estimates differ by at most the piece's share of `maxError`
 * (step doubling; the finest estimate is returned, without extrapolation, since kinks break the
 * smooth-error assumption Richardson extrapolation needs). Two estimates agreeing by coincidence
 * can stop the refinement early: pass breakpoints where velocities are known to change.
 *
 * `sampleA`/`sampleB` return a root coordinate (any origin) at time t; `weight` returns B's weight in
 * [0, 1]. Requires t0 ≤ t1 (for reverse playback integrate forwards and negate).
 *
 * @throws RangeError for non-finite times or samples, weights outside [0, 1], bad options, overflow.
 */
export function integrateBlendedDelta(
  sampleA: (t: number) => number,
  sampleB: (t: number) => number,
  weight: (t: number) => number,
  t0: number,
  t1: number,
  options?: IntegrateBlendedDeltaOptions,
): number {
  const fn = 'integrateBlendedDelta';
  requireFinite(fn, 't0', t0);
  requireFinite(fn, 't1', t1);
  if (!(t1 >= t0)) throw new RangeError(`${fn}: t1 (${t1}) must be >= t0 (${t0})`);
  const maxError = options?.maxError ?? DEFAULT_MAX_ERROR;
  if (!(Number.isFinite(maxError) && maxError > 0)) {
    throw new RangeError(`${fn}: options.maxError must be a finite number > 0, got ${String(maxError)}`);
  }
  const maxSteps = options?.maxSteps ?? DEFAULT_MAX_STEPS;
  if (!(Number.isSafeInteger(maxSteps) && maxSteps >= 1)) {
    throw new RangeError(`${fn}: options.maxSteps must be an integer >= 1, got ${String(maxSteps)}`);
  }
  const adaptive = options?.adaptive ?? true;
  const breakpoints = options?.breakpoints;
  const report = options?.report;
  const length = t1 - t0;
  requireFiniteResult(fn, 't1 - t0', length);

  let total = 0;
  let steps = 0;
  let errorEstimate = 0;
  let converged = true;
  let pieceStart = t0;
  let pieceEnd = t0;
  // Pieces end at each breakpoint inside (t0, t1), then at t1; the loop runs once past the list.
  const count = breakpoints === undefined ? 0 : breakpoints.length;
  let previous = -Infinity;
  for (let i = 0; i <= count; i++) {
    if (i < count) {
      const bp = (breakpoints as readonly number[])[i];
      requireFinite(fn, 'options.breakpoints', bp, '', i);
      if (bp < previous) {
        throw new RangeError(`${fn}: options.breakpoints must be ascending (index ${i}: ${bp} < ${previous})`);
      }
      previous = bp;
      if (bp <= pieceStart || bp >= t1) continue;
      pieceEnd = bp;
    } else {
      pieceEnd = t1;
      if (pieceEnd <= pieceStart && steps > 0) break;
    }
    const tolerance = length > 0 ? (maxError * (pieceEnd - pieceStart)) / length : maxError;
    total += integratePiece(sampleA, sampleB, weight, pieceStart, pieceEnd, adaptive, maxSteps, tolerance);
    steps += pieceInfo[0];
    errorEstimate += pieceInfo[1];
    if (!(pieceInfo[1] <= tolerance)) converged = false;
    pieceStart = pieceEnd;
  }

  if (report !== undefined) {
    report.steps = steps;
    report.errorEstimate = errorEstimate;
    report.converged = converged;
  }
  return requireFiniteResult(fn, 'the integrated delta', total);
}

// ---------------------------------------------------------------------------------------------
// Looping clips: accumulate across the wrap.

/**
 * Root displacement of a looping clip from clip time t0 to clip time t1 when playback passed the
 * loop point `wraps` times in between. Subtracting the wrapped coordinates (atT1 − atT0) would
 * jump back by a cycle at every wrap; instead accumulate
 *   (clipEnd − atT0) + (wraps − 1)·(clipEnd − clipStart) + (atT1 − clipStart)
 * where clipStart / clipEnd are the coordinate at the clip's first and last sample (the last flows
 * into the first), and atT0 / atT1 are the coordinate at t0 and at t1 (both inside the clip).
 */
export function loopRootDelta(
  clipStart: number,
  clipEnd: number,
  atT0: number,
  atT1: number,
  wraps: number,
): number {
  const fn = 'loopRootDelta';
  requireFinite(fn, 'clipStart', clipStart);
  requireFinite(fn, 'clipEnd', clipEnd);
  requireFinite(fn, 'atT0', atT0);
  requireFinite(fn, 'atT1', atT1);
  requireWraps(fn, wraps);
  if (wraps === 0) return requireFiniteResult(fn, 'atT1 - atT0', atT1 - atT0);
  const toEnd = requireFiniteResult(fn, 'clipEnd - atT0', clipEnd - atT0);
  const cycle = requireFiniteResult(fn, 'clipEnd - clipStart', clipEnd - clipStart);
  const fromStart = requireFiniteResult(fn, 'atT1 - clipStart', atT1 - clipStart);
  return requireFiniteResult(fn, 'the accumulated delta', toEnd + (wraps - 1) * cycle + fromStart);
}

/**
 * Splits unwrapped playback time t into (cycle index, clip time in [0, duration]).
 * Writes the clip time to out[0] and returns the cycle index.
 */
function splitLoopTime(t: number, duration: number, out: Float64Array): number {
  const k = Math.floor(t / duration);
  let local = t - k * duration;
  // k·duration can round past t (or short of it); keep the clip time inside the clip.
  if (local < 0) local = 0;
  else if (local > duration) local = duration;
  out[0] = local;
  return k;
}

const loopTimeScratch = new Float64Array(1);

/**
 * {@link loopRootDelta} from a sampler: `t0` and `t1` are unwrapped playback times (t1 ≥ t0, e.g.
 * t1 = t0 + elapsed); `sample(clipTime)` returns the root coordinate for clipTime in [0, duration].
 */
export function loopRootDeltaBetween(
  sample: (clipTime: number) => number,
  duration: number,
  t0: number,
  t1: number,
): number {
  const fn = 'loopRootDeltaBetween';
  requireFinite(fn, 'duration', duration);
  if (!(duration > 0)) throw new RangeError(`${fn}: duration must be > 0, got ${duration}`);
  requireFinite(fn, 't0', t0);
  requireFinite(fn, 't1', t1);
  if (!(t1 >= t0)) throw new RangeError(`${fn}: t1 (${t1}) must be >= t0 (${t0})`);
  const k0 = splitLoopTime(t0, duration, loopTimeScratch);
  const local0 = loopTimeScratch[0];
  const k1 = splitLoopTime(t1, duration, loopTimeScratch);
  const local1 = loopTimeScratch[0];
  const wraps = k1 - k0;
  const atT0 = sampleFinite(fn, 'sample', sample, local0);
  const atT1 = sampleFinite(fn, 'sample', sample, local1);
  if (wraps === 0) return requireFiniteResult(fn, 'atT1 - atT0', atT1 - atT0);
  return loopRootDelta(
    sampleFinite(fn, 'sample', sample, 0),
    sampleFinite(fn, 'sample', sample, duration),
    atT0,
    atT1,
    wraps,
  );
}

// ---------------------------------------------------------------------------------------------
// 3D: translation + quaternion, blended as deltas in each track's own start frame.

/**
 * Local delta of one root track over an interval: translation (end − start) expressed in the start
 * frame, inverse(startRot)·(endPos − startPos), and relative rotation inverse(startRot)·endRot.
 * Expressing both in the start frame removes the track's absolute heading as well as its origin.
 * out: [tx, ty, tz, qx, qy, qz, qw]. out may alias start or end.
 */
export function rootDeltaLocal(out: Buf, oo: number, start: Buf, so: number, end: Buf, eo: number): Buf {
  const fn = 'rootDeltaLocal';
  requireXform(fn, 'start', start, so);
  requireXform(fn, 'end', end, eo);
  // Built in scratch so that out may alias an input.
  const d = deltaScratch;
  d[0] = requireFiniteResult(fn, 'end.x - start.x', end[eo] - start[so]);
  d[1] = requireFiniteResult(fn, 'end.y - start.y', end[eo + 1] - start[so + 1]);
  d[2] = requireFiniteResult(fn, 'end.z - start.z', end[eo + 2] - start[so + 2]);
  quatInvRotateVec3(d, 0, start, so + 3, d, 0);
  quatInvMultiply(d, 3, start, so + 3, end, eo + 3);
  quatNormalize(d, 3, d, 3);
  for (let i = 0; i < 7; i++) out[oo + i] = d[i];
  return out;
}

const deltaScratch = new Float64Array(7);

const trackScratchStart = new Float64Array(7);
const trackScratchEnd = new Float64Array(7);

/**
 * {@link rootDeltaLocal} between two frames of a root track stored as separate flat arrays
 * (positions frames*3, rotations frames*4, as src/features/root.ts writes them).
 */
export function rootDeltaLocalFromTrack(
  out: Buf,
  oo: number,
  positions: Buf,
  rotations: Buf,
  frame0: number,
  frame1: number,
): Buf {
  const fn = 'rootDeltaLocalFromTrack';
  const frames = Math.min(Math.floor(positions.length / 3), Math.floor(rotations.length / 4));
  requireFrame(fn, 'frame0', frame0, frames);
  requireFrame(fn, 'frame1', frame1, frames);
  copyTrackSample(trackScratchStart, positions, rotations, frame0);
  copyTrackSample(trackScratchEnd, positions, rotations, frame1);
  return rootDeltaLocal(out, oo, trackScratchStart, 0, trackScratchEnd, 0);
}

function requireFrame(fn: string, name: string, f: number, frames: number): void {
  if (!(Number.isInteger(f) && f >= 0 && f < frames)) {
    throw new RangeError(`${fn}: ${name} must be an integer frame in [0, ${frames - 1}], got ${String(f)}`);
  }
}

function copyTrackSample(out: Float64Array, positions: Buf, rotations: Buf, f: number): void {
  out[0] = positions[3 * f]; out[1] = positions[3 * f + 1]; out[2] = positions[3 * f + 2];
  out[3] = rotations[4 * f]; out[4] = rotations[4 * f + 1]; out[5] = rotations[4 * f + 2]; out[6] = rotations[4 * f + 3];
}

/**
 * Blend two local deltas: translation lerp, rotation slerp along the short path, with B's weight.
 * out may alias a or b.
 */
export function blendRootDeltaLocal(out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number, weight: number): Buf {
  const fn = 'blendRootDeltaLocal';
  requireXform(fn, 'a', a, ao);
  requireXform(fn, 'b', b, bo);
  requireWeight(fn, 'weight', weight);
  const w = weight;
  const tx = lerpDisplacement(a[ao], b[bo], w);
  const ty = lerpDisplacement(a[ao + 1], b[bo + 1], w);
  const tz = lerpDisplacement(a[ao + 2], b[bo + 2], w);
  quatSlerp(out, oo + 3, a, ao + 3, b, bo + 3, w);
  out[oo] = tx; out[oo + 1] = ty; out[oo + 2] = tz;
  return out;
}

/** Delta of doing `first` then `second` (second is expressed in the frame first ends in). */
export function composeRootDeltaLocal(out: Buf, oo: number, first: Buf, fo: number, second: Buf, so: number): Buf {
  const fn = 'composeRootDeltaLocal';
  requireXform(fn, 'first', first, fo);
  requireXform(fn, 'second', second, so);
  composeUnchecked(out, oo, first, fo, second, so);
  requireFiniteRange(fn, 'the composed delta', out, oo, 3);
  return out;
}

const composeScratch = new Float64Array(7);

function composeUnchecked(out: Buf, oo: number, first: Buf, fo: number, second: Buf, so: number): void {
  // Work in scratch so out may alias either input.
  quatRotateVec3(composeScratch, 0, first, fo + 3, second, so);
  composeScratch[0] += first[fo];
  composeScratch[1] += first[fo + 1];
  composeScratch[2] += first[fo + 2];
  quatMultiply(composeScratch, 3, first, fo + 3, second, so + 3);
  quatNormalize(composeScratch, 3, composeScratch, 3);
  for (let i = 0; i < 7; i++) out[oo + i] = composeScratch[i];
}

/**
 * Apply a local delta to the character's transform: position += rotation·delta.t (in the frame the
 * character faces at the START of the interval, matching how the delta was measured), then
 * rotation = rotation·delta.q. out may alias xform (in-place update).
 */
export function applyRootDeltaLocal(out: Buf, oo: number, xform: Buf, xo: number, delta: Buf, dOff: number): Buf {
  const fn = 'applyRootDeltaLocal';
  requireXform(fn, 'xform', xform, xo);
  requireXform(fn, 'delta', delta, dOff);
  composeUnchecked(out, oo, xform, xo, delta, dOff);
  requireFiniteRange(fn, 'the new position', out, oo, 3);
  return out;
}

const blendScratchA = new Float64Array(7);
const blendScratchB = new Float64Array(7);

/**
 * One playback step of a two-track blend, in place on the character transform:
 * local delta of A over [aStart, aEnd], of B over [bStart, bEnd], blended with B's weight, applied
 * to `character` ([px, py, pz, qx, qy, qz, qw]). Neither track's origin nor absolute heading
 * reaches the character.
 */
export function blendRootMotionLocal(
  character: Buf,
  co: number,
  aStart: Buf,
  aso: number,
  aEnd: Buf,
  aeo: number,
  bStart: Buf,
  bso: number,
  bEnd: Buf,
  beo: number,
  weight: number,
): Buf {
  requireWeight('blendRootMotionLocal', 'weight', weight);
  rootDeltaLocal(blendScratchA, 0, aStart, aso, aEnd, aeo);
  rootDeltaLocal(blendScratchB, 0, bStart, bso, bEnd, beo);
  blendRootDeltaLocal(blendScratchA, 0, blendScratchA, 0, blendScratchB, 0, weight);
  return applyRootDeltaLocal(character, co, character, co, blendScratchA, 0);
}

const loopScratchFirst = new Float64Array(7);
const loopScratchCycle = new Float64Array(7);
const loopScratchPower = new Float64Array(7);

/**
 * 3D version of {@link loopRootDelta}: the local delta from the transform at t0 to the transform at
 * t1 when playback wrapped `wraps` times, composed in the local frame as
 *   delta(atT0 → clipEnd) ∘ cycle^(wraps − 1) ∘ delta(clipStart → atT1),  cycle = delta(clipStart → clipEnd),
 * so a clip that turns while it walks keeps turning across the wrap. out: a local delta.
 */
export function loopRootDeltaLocal(
  out: Buf,
  oo: number,
  clipStart: Buf,
  cso: number,
  clipEnd: Buf,
  ceo: number,
  atT0: Buf,
  a0o: number,
  atT1: Buf,
  a1o: number,
  wraps: number,
): Buf {
  requireWraps('loopRootDeltaLocal', wraps);
  if (wraps === 0) return rootDeltaLocal(out, oo, atT0, a0o, atT1, a1o);
  rootDeltaLocal(loopScratchFirst, 0, atT0, a0o, clipEnd, ceo);
  rootDeltaLocal(loopScratchCycle, 0, clipStart, cso, clipEnd, ceo);
  // cycle^(wraps − 1) by repeated squaring: powers of one transform commute, so order is free.
  loopScratchPower.fill(0);
  quatSetIdentity(loopScratchPower, 3);
  let e = wraps - 1;
  while (e > 0) {
    if (e % 2 === 1) composeUnchecked(loopScratchPower, 0, loopScratchPower, 0, loopScratchCycle, 0);
    e = Math.floor(e / 2);
    if (e > 0) composeUnchecked(loopScratchCycle, 0, loopScratchCycle, 0, loopScratchCycle, 0);
  }
  composeUnchecked(loopScratchFirst, 0, loopScratchFirst, 0, loopScratchPower, 0);
  rootDeltaLocal(loopScratchPower, 0, clipStart, cso, atT1, a1o);
  composeUnchecked(out, oo, loopScratchFirst, 0, loopScratchPower, 0);
  requireFiniteRange('loopRootDeltaLocal', 'the accumulated delta', out, oo, 3);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Yaw-only root ([x, y, z, yaw]): the common ground-projected root with a facing angle.
// A positive yaw turns +Z towards +X (quatFromYaw): world = (x·cos + z·sin, y, −x·sin + z·cos).

/**
 * Local delta of a yaw root track: the displacement rotated into the start-facing frame, and the
 * turn wrapped to (−π, π] (one interval turns less than half a revolution).
 * out: [dx, dy, dz, dyaw]. out may alias start or end.
 */
export function yawRootDeltaLocal(out: Buf, oo: number, start: Buf, so: number, end: Buf, eo: number): Buf {
  const fn = 'yawRootDeltaLocal';
  requireFiniteRange(fn, 'start', start, so, 4);
  requireFiniteRange(fn, 'end', end, eo, 4);
  const dx = requireFiniteResult(fn, 'end.x - start.x', end[eo] - start[so]);
  const dy = requireFiniteResult(fn, 'end.y - start.y', end[eo + 1] - start[so + 1]);
  const dz = requireFiniteResult(fn, 'end.z - start.z', end[eo + 2] - start[so + 2]);
  const dyaw = wrapAngle(requireFiniteResult(fn, 'end.yaw - start.yaw', end[eo + 3] - start[so + 3]));
  const c = Math.cos(start[so + 3]), s = Math.sin(start[so + 3]);
  out[oo] = dx * c - dz * s;
  out[oo + 1] = dy;
  out[oo + 2] = dx * s + dz * c;
  out[oo + 3] = dyaw;
  return out;
}

/** Blend two yaw deltas with B's weight: every component linearly (turns are short-path). */
export function blendYawRootDeltaLocal(out: Buf, oo: number, a: Buf, ao: number, b: Buf, bo: number, weight: number): Buf {
  const fn = 'blendYawRootDeltaLocal';
  requireFiniteRange(fn, 'a', a, ao, 4);
  requireFiniteRange(fn, 'b', b, bo, 4);
  requireWeight(fn, 'weight', weight);
  for (let i = 0; i < 4; i++) {
    out[oo + i] = requireFiniteResult(fn, 'the blended delta', lerpDisplacement(a[ao + i], b[bo + i], weight));
  }
  return out;
}

/** Yaw delta of doing `first` then `second`. out may alias either input. */
export function composeYawRootDeltaLocal(out: Buf, oo: number, first: Buf, fo: number, second: Buf, so: number): Buf {
  const fn = 'composeYawRootDeltaLocal';
  requireFiniteRange(fn, 'first', first, fo, 4);
  requireFiniteRange(fn, 'second', second, so, 4);
  composeYawUnchecked(out, oo, first, fo, second, so);
  requireFiniteRange(fn, 'the composed delta', out, oo, 4);
  return out;
}

function composeYawUnchecked(out: Buf, oo: number, first: Buf, fo: number, second: Buf, so: number): void {
  const yaw = first[fo + 3];
  const c = Math.cos(yaw), s = Math.sin(yaw);
  const sx = second[so], sy = second[so + 1], sz = second[so + 2];
  const x = first[fo] + sx * c + sz * s;
  const y = first[fo + 1] + sy;
  const z = first[fo + 2] - sx * s + sz * c;
  const turn = wrapAngle(yaw + second[so + 3]);
  out[oo] = x; out[oo + 1] = y; out[oo + 2] = z; out[oo + 3] = turn;
}

/**
 * Apply a yaw delta to the character ([x, y, z, yaw]): position += rotY(yaw)·delta.t, yaw += dyaw
 * (kept in (−π, π]). out may alias xform.
 */
export function applyYawRootDeltaLocal(out: Buf, oo: number, xform: Buf, xo: number, delta: Buf, dOff: number): Buf {
  const fn = 'applyYawRootDeltaLocal';
  requireFiniteRange(fn, 'xform', xform, xo, 4);
  requireFiniteRange(fn, 'delta', delta, dOff, 4);
  composeYawUnchecked(out, oo, xform, xo, delta, dOff);
  requireFiniteRange(fn, 'the new transform', out, oo, 4);
  return out;
}

const yawScratchA = new Float64Array(4);
const yawScratchB = new Float64Array(4);

/** Yaw version of {@link blendRootMotionLocal}: one blended step applied in place to `character`. */
export function blendYawRootMotionLocal(
  character: Buf,
  co: number,
  aStart: Buf,
  aso: number,
  aEnd: Buf,
  aeo: number,
  bStart: Buf,
  bso: number,
  bEnd: Buf,
  beo: number,
  weight: number,
): Buf {
  requireWeight('blendYawRootMotionLocal', 'weight', weight);
  yawRootDeltaLocal(yawScratchA, 0, aStart, aso, aEnd, aeo);
  yawRootDeltaLocal(yawScratchB, 0, bStart, bso, bEnd, beo);
  blendYawRootDeltaLocal(yawScratchA, 0, yawScratchA, 0, yawScratchB, 0, weight);
  return applyYawRootDeltaLocal(character, co, character, co, yawScratchA, 0);
}

const yawLoopFirst = new Float64Array(4);
const yawLoopCycle = new Float64Array(4);
const yawLoopPower = new Float64Array(4);

/** Yaw version of {@link loopRootDeltaLocal}. out: [dx, dy, dz, dyaw] in the frame at t0. */
export function loopYawRootDeltaLocal(
  out: Buf,
  oo: number,
  clipStart: Buf,
  cso: number,
  clipEnd: Buf,
  ceo: number,
  atT0: Buf,
  a0o: number,
  atT1: Buf,
  a1o: number,
  wraps: number,
): Buf {
  requireWraps('loopYawRootDeltaLocal', wraps);
  if (wraps === 0) return yawRootDeltaLocal(out, oo, atT0, a0o, atT1, a1o);
  yawRootDeltaLocal(yawLoopFirst, 0, atT0, a0o, clipEnd, ceo);
  yawRootDeltaLocal(yawLoopCycle, 0, clipStart, cso, clipEnd, ceo);
  yawLoopPower.fill(0);
  let e = wraps - 1;
  while (e > 0) {
    if (e % 2 === 1) composeYawUnchecked(yawLoopPower, 0, yawLoopPower, 0, yawLoopCycle, 0);
    e = Math.floor(e / 2);
    if (e > 0) composeYawUnchecked(yawLoopCycle, 0, yawLoopCycle, 0, yawLoopCycle, 0);
  }
  composeYawUnchecked(yawLoopFirst, 0, yawLoopFirst, 0, yawLoopPower, 0);
  yawRootDeltaLocal(yawLoopPower, 0, clipStart, cso, atT1, a1o);
  composeYawUnchecked(out, oo, yawLoopFirst, 0, yawLoopPower, 0);
  requireFiniteRange('loopYawRootDeltaLocal', 'the accumulated delta', out, oo, 4);
  return out;
}
