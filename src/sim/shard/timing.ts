/**
 * Search time samples of a shard, kept as a histogram with geometric bins: a partial report stays
 * the same size however long the run (a 24 h run has 2.6 million per-step samples), histograms of
 * shards add up, and a quantile read from the sum is within half a bin (0.5%) of the exact one.
 */

/** Bin i covers [LOW * RATIO^i, LOW * RATIO^(i+1)) microseconds; bin 0 also takes everything below. */
export const TIMING_LOW_US = 1e-3;
export const TIMING_RATIO = 1.01;
/** Up to 1e7 µs (10 s per query); slower samples land in the last bin. */
export const TIMING_BINS = Math.ceil(Math.log(1e7 / TIMING_LOW_US) / Math.log(TIMING_RATIO));

/** Sparse histogram: [bin, count] pairs in increasing bin order, counts > 0. */
export type TimingHistogram = Array<[number, number]>;

function binOf(us: number): number {
  if (!(us > TIMING_LOW_US)) return 0;
  return Math.min(TIMING_BINS - 1, Math.floor(Math.log(us / TIMING_LOW_US) / Math.log(TIMING_RATIO)));
}

/** The histogram of the finite samples (NaN marks a step without a search and is left out). */
export function timingHistogram(samples: Iterable<number>): TimingHistogram {
  const counts = new Map<number, number>();
  for (const us of samples) {
    if (!Number.isFinite(us)) continue;
    const b = binOf(us);
    counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}

/** The sum of several histograms. */
export function addTimingHistograms(parts: readonly TimingHistogram[]): TimingHistogram {
  const counts = new Map<number, number>();
  for (const h of parts) for (const [b, n] of h) counts.set(b, (counts.get(b) ?? 0) + n);
  return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}

/**
 * The p-quantile (nearest rank, as the unsharded report computes it: the sample at index
 * floor(p * n) of the sorted list) as the geometric centre of its bin; 0 when there are no samples.
 */
export function timingQuantile(h: TimingHistogram, p: number): number {
  let total = 0;
  for (const [, n] of h) total += n;
  if (total === 0) return 0;
  const rank = Math.min(total - 1, Math.floor(p * total));
  let seen = 0;
  for (const [b, n] of h) {
    seen += n;
    if (seen > rank) return TIMING_LOW_US * TIMING_RATIO ** (b + 0.5);
  }
  return TIMING_LOW_US * TIMING_RATIO ** (h[h.length - 1][0] + 0.5);
}

/** Throws unless `h` is a well-formed histogram (bins in range and increasing, positive integer counts). */
export function requireTimingHistogram(h: unknown, where: string): asserts h is TimingHistogram {
  if (!Array.isArray(h)) throw new Error(`${where}: the search timing histogram is not a list`);
  let last = -1;
  for (const e of h) {
    if (!Array.isArray(e) || e.length !== 2 || !Number.isInteger(e[0]) || !Number.isInteger(e[1]) || e[0] <= last || e[0] >= TIMING_BINS || e[1] < 1) {
      throw new Error(`${where}: the search timing histogram has a malformed entry ${JSON.stringify(e)}`);
    }
    last = e[0];
  }
}
