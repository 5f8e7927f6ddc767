/**
 * The objectives of a tuning sweep, the Pareto front over them, and the recommendation.
 *
 * Responsiveness is the 1 s trajectory error; quality is foot skate, transitions per second and
 * the largest velocity jump at a transition — all lower is better, each the mean over the
 * scenarios. A point is on the front when no other point is at least as good in all four and
 * better in one. For a plot and for choosing, the three quality measures are also folded into one
 * quality index: the mean of their ratios to the defaults' (1 = as the defaults, 0.8 = 20% better).
 */
import type { ScenarioQuality } from './quality-run.js';

export interface TuneObjectives {
  trajectoryErrorCm: number;
  footSkateCmPerSec: number;
  transitionsPerSec: number;
  maxTransitionJump: number;
}

export const QUALITY_KEYS = ['footSkateCmPerSec', 'transitionsPerSec', 'maxTransitionJump'] as const;
export const OBJECTIVE_KEYS = ['trajectoryErrorCm', ...QUALITY_KEYS] as const;

/** Means over the scenarios. */
export function objectivesOf(rows: readonly ScenarioQuality[]): TuneObjectives {
  const mean = (f: (r: ScenarioQuality) => number): number => rows.reduce((s, r) => s + f(r), 0) / Math.max(1, rows.length);
  return {
    trajectoryErrorCm: mean((r) => r.quality.trajectoryError1Cm),
    footSkateCmPerSec: mean((r) => r.quality.footSkateCmPerSec),
    transitionsPerSec: mean((r) => r.quality.transitionsPerSec),
    maxTransitionJump: mean((r) => r.quality.maxTransitionJump),
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
 * The recommended point: the best quality index among the points whose trajectory error is at most
 * TRAJECTORY_ERROR_ALLOWANCE × the defaults' and that improve at least one quality measure; null
 * when no point does (then the defaults stand).
 */
export function recommend(points: readonly TuneObjectives[], defaults: TuneObjectives, allowance = TRAJECTORY_ERROR_ALLOWANCE): number | null {
  let best: number | null = null, bestIndex = Infinity;
  points.forEach((p, i) => {
    if (!(p.trajectoryErrorCm <= allowance * defaults.trajectoryErrorCm)) return;
    if (!QUALITY_KEYS.some((k) => p[k] < defaults[k])) return;
    const q = qualityIndex(p, defaults);
    if (q < 1 && q < bestIndex) { best = i; bestIndex = q; }
  });
  return best;
}
