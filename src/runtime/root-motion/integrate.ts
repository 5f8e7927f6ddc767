/**
 * Sub-stepped integration of a blended root displacement when the blend weight varies over the
 * interval and the tracks' velocities change inside it (one mean-weight blend is then wrong).
 */
import { requireFinite, requireFiniteResult, lerpDisplacement, sampleFinite, sampleWeight } from './checks.js';

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

const DEFAULT_MAX_ERROR = 1e-6;
const DEFAULT_MAX_STEPS = 1024;

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

