/**
 * One root coordinate at a time: blending two tracks' displacements over an interval, the
 * wrong-order position blend kept as a reference, and accumulating a looping clip across its wrap.
 */
import { requireFinite, requireWeight, requireFiniteResult, spanDisplacement, lerpDisplacement, requireWraps, sampleFinite } from './checks.js';

/** A root coordinate sampled at the start and the end of one playback interval. */
export interface RootSpan {
  start: number;
  end: number;
}

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

