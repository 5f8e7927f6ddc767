/**
 * The histograms the quality figures are read from: fixed bins so that statistics from many
 * threads or shards merge by adding counts, and percentiles come out the same however they were
 * split. Each kind of figure has its bin width and count; the last bin takes everything above.
 */

/** Foot skate: 0.1 cm/s bins up to 500 cm/s (a foot released from a lock moves about 2 m/s). */
export const SKATE_BINS = 5000;
export const SKATE_BIN = 0.1;

/** Foot-ground distances: 0.05 cm bins up to 50 cm. */
export const GROUND_BINS = 1000;
export const GROUND_BIN = 0.05;

/** Depth below the ground, hover over it, hips height: 0.01 cm bins up to 30 cm (the data's own depths are hundredths of a cm). */
export const DEPTH_BINS = 3000;
export const DEPTH_BIN = 0.01;

/** Hips height over the ground: 0.1 cm bins up to 4 m. */
export const HEIGHT_BINS = 4000;
export const HEIGHT_BIN = 0.1;

/** A signed height difference (the hips against the captured pose): 0.01 cm bins from −OFFSET_RANGE to +OFFSET_RANGE cm. */
export const OFFSET_RANGE = 30;
export const OFFSET_BIN = 0.01;
export const OFFSET_BINS = Math.round((2 * OFFSET_RANGE) / OFFSET_BIN);

/** Per-step velocity change of a joint (pops): 0.01 m/s bins up to 40 m/s. */
export const POP_BINS = 4000;
export const POP_BIN = 0.01;

/** Speeds after a stop request: 0.1 cm/s bins up to 300 cm/s. */
export const STOP_BINS = 3000;
export const STOP_BIN = 0.1;

/** Facing error: 0.1 degree bins up to 180 degrees. */
export const FACING_BINS = 1800;
export const FACING_BIN = 0.1;

/** Adds one sample of `value` (in the bin's unit, >= 0) to `hist`, whose bins are `bin` wide. */
export function addSample(hist: Float64Array, value: number, bin: number): void {
  hist[Math.min(hist.length - 1, Math.max(0, Math.floor(value / bin)))]++;
}

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

/**
 * The q-quantile of `zeros` samples of exactly 0 (kept out of the histogram: a bin interpolated
 * from its lower edge would report them as half a bin) and the samples in `hist`; NaN when there
 * are none at all.
 */
export function quantileWithZeros(hist: Float64Array, zeros: number, q: number, bin: number): number {
  let rest = 0;
  for (let i = 0; i < hist.length; i++) rest += hist[i];
  const total = zeros + rest;
  if (total === 0) return Number.NaN;
  if (q * total <= zeros) return 0;
  return quantileOf(hist, (q * total - zeros) / rest, bin);
}

/**
 * The q-quantile of the histogram in its unit, interpolated within the bin it falls in (so that a
 * median of values all in one bin is not its upper edge); NaN when the histogram is empty.
 */
export function quantileOf(hist: Float64Array, q: number, bin: number): number {
  let total = 0;
  for (let i = 0; i < hist.length; i++) total += hist[i];
  if (total === 0) return Number.NaN;
  const want = q * total;
  let acc = 0;
  for (let i = 0; i < hist.length; i++) {
    if (hist[i] > 0 && acc + hist[i] >= want) return (i + Math.min(1, Math.max(0, (want - acc) / hist[i]))) * bin;
    acc += hist[i];
  }
  return hist.length * bin;
}
