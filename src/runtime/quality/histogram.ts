/**
 * The histograms the quality figures are read from: fixed bins so that statistics from many
 * threads or shards merge by adding counts, and percentiles come out the same however they were
 * split.
 */

/** Foot skate: 0.1 cm/s bins up to 500 cm/s (a foot released from a lock moves about 2 m/s). */
export const SKATE_BINS = 5000;
export const SKATE_BIN = 0.1;

/** Foot-ground distances: 0.05 cm bins up to 50 cm. */
export const GROUND_BINS = 1000;
export const GROUND_BIN = 0.05;

/** The upper edge (in bins) of the bin below which `q` of the histogram's mass lies. */
export function percentile(hist: Float64Array, q: number): number {
  let total = 0;
  for (let i = 0; i < hist.length; i++) total += hist[i];
  if (total === 0) return 0;
  let acc = 0;
  for (let i = 0; i < hist.length; i++) {
    acc += hist[i];
    if (acc >= q * total) return i + 1;
  }
  return hist.length;
}
