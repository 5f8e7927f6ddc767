/**
 * The objectives of a tuning sweep, the Pareto front over them, and the recommendation.
 *
 * Responsiveness is the 1 s trajectory error; quality is what `motionmatch quality` measures from
 * the output joints: foot skate (near-ground mean), feet below the ground (99th percentile of the
 * depth), pops (99.9th percentile of a joint's per-step velocity change) and transitions per
 * second — all lower is better, each the mean over the scenarios. A point is on the front when no
 * other point is at least as good in all five and better in one. For a plot and for choosing, the
 * four quality measures are also folded into one quality index: the mean of their ratios to the
 * defaults' (1 = as the defaults, 0.8 = 20% better).
 */
import type { ScenarioQuality } from '../quality/run.js';

export interface TuneObjectives {
  trajectoryErrorCm: number;
  footSkateCmPerSec: number;
  belowGroundP99Cm: number;
  popP999: number;
  transitionsPerSec: number;
}

export const QUALITY_KEYS = ['footSkateCmPerSec', 'belowGroundP99Cm', 'popP999', 'transitionsPerSec'] as const;
export const OBJECTIVE_KEYS = ['trajectoryErrorCm', ...QUALITY_KEYS] as const;

/** A measure with nothing to measure (NaN: no foot near the ground, no step) counts as none. */
const finiteOr0 = (v: number): number => (Number.isFinite(v) ? v : 0);

/** Means over the scenarios. */
export function objectivesOf(rows: readonly ScenarioQuality[]): TuneObjectives {
  const mean = (f: (r: ScenarioQuality) => number): number => rows.reduce((s, r) => s + f(r), 0) / Math.max(1, rows.length);
  return {
    trajectoryErrorCm: mean((r) => r.quality.trajectoryError1Cm),
    footSkateCmPerSec: mean((r) => finiteOr0(r.quality.skateCmPerSec)),
    belowGroundP99Cm: mean((r) => finiteOr0(r.quality.belowGroundP99Cm)),
    popP999: mean((r) => finiteOr0(r.quality.popP999)),
    transitionsPerSec: mean((r) => r.quality.transitionsPerSec),
  };
}

/** Mean ratio of the quality measures to the reference's (a measure the reference has at 0 counts as 1 when also 0). */
export function qualityIndex(o: TuneObjectives, reference: TuneObjectives): number {
  let s = 0;
  for (const k of QUALITY_KEYS) s += reference[k] > 0 ? o[k] / reference[k] : o[k] > 0 ? 2 : 1;
  return s / QUALITY_KEYS.length;
}

/** a dominates b: no worse in every objective and better in one. */
export function dominates(a: TuneObjectives, b: TuneObjectives): boolean {
  let better = false;
  for (const k of OBJECTIVE_KEYS) {
    if (a[k] > b[k]) return false;
    if (a[k] < b[k]) better = true;
  }
  return better;
}

/** Indices of the non-dominated points (in input order); duplicates of a front point are kept once. */
export function paretoFront(points: readonly TuneObjectives[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < points.length; i++) {
    let dominated = false;
    for (let j = 0; j < points.length && !dominated; j++) {
      if (j === i) continue;
      if (dominates(points[j], points[i])) dominated = true;
      // Identical points: the first one stands for both.
      else if (j < i && OBJECTIVE_KEYS.every((k) => points[j][k] === points[i][k])) dominated = true;
    }
    if (!dominated) out.push(i);
  }
  return out;
}

/** The 2-D front of (x, y), both lower-better: indices sorted by x, each better in y than every one before it. */
export function front2d(xs: readonly number[], ys: readonly number[]): number[] {
  const order = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b] || ys[a] - ys[b] || a - b);
  const out: number[] = [];
  let best = Infinity;
  for (const i of order) if (ys[i] < best) { out.push(i); best = ys[i]; }
  return out;
}

/**
 * Trajectory error a recommendation may have, as a fraction of the defaults': a little below 1,
 * so that the settings keep their responsiveness on captures and inputs the sweep never saw.
 */
export const TRAJECTORY_ERROR_ALLOWANCE = 0.98;

/**
 * Below this share of a measure's value, two measurements count as equal whatever the seeds said:
 * the measures are means over a few thousand samples, and a spread estimated from three seeds can
 * come out near zero by chance.
 */
export const NOISE_FLOOR_FRACTION = 0.02;

/**
 * How far a measure moves when only the scenarios' random inputs change (the same settings measured
 * with other seeds): the range of each objective over the samples, at least NOISE_FLOOR_FRACTION of
 * the first sample's value. A difference smaller than this is not evidence of anything.
 */
export function seedSpread(samples: readonly TuneObjectives[]): TuneObjectives {
  if (samples.length === 0) throw new RangeError('seedSpread: no samples');
  const out = {} as TuneObjectives;
  for (const k of OBJECTIVE_KEYS) {
    let lo = Infinity, hi = -Infinity;
    for (const s of samples) { lo = Math.min(lo, s[k]); hi = Math.max(hi, s[k]); }
    out[k] = Math.max(hi - lo, NOISE_FLOOR_FRACTION * Math.abs(samples[0][k]), 1e-9);
  }
  return out;
}

/**
 * Quality gained over the reference in units of seed noise: the mean over the quality measures
 * of (reference - point) / spread. Positive is better. Ratios to the reference (the quality index)
 * would let a measure that sits near zero dominate the choice — 0.29 -> 0.38 cm/s of skate is +31%
 * and invisible — while a measure's own seed-to-seed spread says what a difference is worth.
 */
export function noiseScaledGain(p: TuneObjectives, reference: TuneObjectives, spread: TuneObjectives): number {
  let s = 0;
  for (const k of QUALITY_KEYS) s += (reference[k] - p[k]) / spread[k];
  return s / QUALITY_KEYS.length;
}

/**
 * Whether a point may replace the reference: a trajectory error at most `allowance` × the
 * reference's, no quality measure worse by more than its seed spread, at least one better, and a
 * positive noise-scaled gain.
 */
export function beatsReference(p: TuneObjectives, reference: TuneObjectives, spread: TuneObjectives, allowance = TRAJECTORY_ERROR_ALLOWANCE): boolean {
  if (!(p.trajectoryErrorCm <= allowance * reference.trajectoryErrorCm)) return false;
  if (QUALITY_KEYS.some((k) => p[k] > reference[k] + spread[k])) return false;
  if (!QUALITY_KEYS.some((k) => p[k] < reference[k])) return false;
  return noiseScaledGain(p, reference, spread) > 0;
}

/**
 * The candidates for the recommendation, best first: the points that beat the defaults
 * (beatsReference), ordered by noise-scaled gain (ties: lower index). `excluded` points (e.g. ones
 * that failed a check on another seed) are left out.
 */
export function rankCandidates(points: readonly TuneObjectives[], defaults: TuneObjectives, spread: TuneObjectives, excluded: ReadonlySet<number> = new Set(), allowance = TRAJECTORY_ERROR_ALLOWANCE): number[] {
  const ok: number[] = [];
  points.forEach((p, i) => { if (!excluded.has(i) && beatsReference(p, defaults, spread, allowance)) ok.push(i); });
  const gain = ok.map((i) => noiseScaledGain(points[i], defaults, spread));
  return ok.map((i, j) => [i, gain[j]] as const).sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([i]) => i);
}

/** The best candidate (rankCandidates), or null when no point beats the defaults. */
export function recommend(points: readonly TuneObjectives[], defaults: TuneObjectives, spread: TuneObjectives, excluded: ReadonlySet<number> = new Set(), allowance = TRAJECTORY_ERROR_ALLOWANCE): number | null {
  return rankCandidates(points, defaults, spread, excluded, allowance)[0] ?? null;
}
