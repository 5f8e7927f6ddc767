/**
 * Query rows as the kernels read them, and what to say when a query cannot be answered.
 *
 * A query row is `dims` values, each (raw − mean[j]) / scale[j] (or the caller's own normalised
 * value with `normalized: true`), rounded to float32, followed by zero padding up to `stride`.
 *
 * Float32 range (docs/search.md, "Robustness"): costs are float32 sums of squares, so a query far
 * enough from the data overflows to +Infinity. A value that is itself outside float32 once
 * normalised is refused here, before any search; a query whose cost to *every* allowed frame
 * overflows is refused after the search found nothing (costQueryOverflowError), because no frame can
 * be ranked. Rows that overflow while others do not simply never win: the best finite row is the
 * exact answer.
 */

/** The largest finite float32. */
export const FLOAT32_MAX = 3.4028234663852886e38;

/** Normalisation constants and row shape of the loaded database. */
export interface QueryShape {
  dims: number;
  stride: number;
  mean: ArrayLike<number>;
  scale: ArrayLike<number>;
}

/** "query[3]" for a single search, "query 7 [3]" for query 7 of a batch (index < 0: single). */
export function queryValueLabel(index: number, dim: number): string {
  return index < 0 ? `query[${dim}]` : `query ${index} [${dim}]`;
}

/**
 * Writes queries [from, from + n) of `src` (width floats each) as padded, normalised float32 rows
 * at f32[dst], f32[dst + stride], ... Throws RangeError for a value that is not finite or that
 * normalises outside the float32 range. `src` may be the destination itself (queryView): each
 * value is read before it is overwritten.
 */
export function writeQueryRows(
  src: ArrayLike<number>, width: number, from: number, n: number,
  f32: Float32Array, dst: number, shape: QueryShape, normalized: boolean, single: boolean,
): void {
  const { dims, stride, mean, scale } = shape;
  for (let i = 0; i < n; i++) {
    const s = (from + i) * width;
    const d = dst + i * stride;
    for (let j = 0; j < dims; j++) {
      const v = src[s + j];
      const x = Math.fround(normalized ? v : (v - mean[j]) / scale[j]);
      // x - x is 0 for every finite float and NaN for NaN and ±Infinity.
      if (x - x !== 0) throw queryValueError(v, normalized ? v : (v - mean[j]) / scale[j], single ? -1 : from + i, j);
      f32[d + j] = x;
    }
    for (let j = dims; j < stride; j++) f32[d + j] = 0;
  }
}

function queryValueError(raw: number, normalised: number, index: number, dim: number): RangeError {
  const label = queryValueLabel(index, dim);
  if (!Number.isFinite(raw)) return new RangeError(`${label} is ${raw}: queries must be finite`);
  return new RangeError(
    `${label} is ${short(raw)}${normalised === raw ? '' : `, which normalises to ${short(normalised)}`}: outside the float32 range ` +
    `(±${short(FLOAT32_MAX)}); normalised query values must be float32 numbers`,
  );
}

/** A value in a message: 7 significant digits (a float32 1e38 reads 1e+38, not 9.999999680285692e+37). */
function short(v: number): string {
  const r = Number(v.toPrecision(7));
  return Math.abs(r) >= 1e7 ? r.toExponential() : String(r);
}

/**
 * The error for a query whose float32 cost to every allowed frame overflows (found nothing with
 * bestCost = +Infinity although frames are allowed). Names the dimension that contributes most to
 * the cost of `frame`, one of the allowed frames, in float64.
 *
 * f32[q..] is the query's normalised row, f32[row..] the frame's row; `raw` is the caller's value
 * for a dimension (undefined when the caller passed normalised values); `bias` is the frame's bias.
 */
export function costOverflowError(
  f32: Float32Array, q: number, row: number, dims: number, frame: number, bias: number,
  index: number, raw: ((dim: number) => number) | undefined,
): RangeError {
  let worst = 0;
  let worstTerm = -1;
  let sum = 0;
  for (let j = 0; j < dims; j++) {
    const d = f32[q + j] - f32[row + j];
    const term = d * d;
    sum += term;
    if (term > worstTerm) {
      worst = j;
      worstTerm = term;
    }
  }
  const label = queryValueLabel(index, worst);
  if (bias !== 0 && sum <= FLOAT32_MAX) {
    return new RangeError(
      `${index < 0 ? 'query' : `query ${index}`}: its cost plus bias overflows float32 at every allowed frame ` +
      `(frame ${frame}: distance ${short(sum)} + bias ${short(bias)}); costs must stay below ${short(FLOAT32_MAX)}`,
    );
  }
  const normalised = f32[q + worst];
  const value = raw === undefined ? short(normalised) : `${short(raw(worst))} (normalised ${short(normalised)})`;
  return new RangeError(
    `${label} is ${value}: the query is too far from every allowed frame for a float32 cost ` +
    `(at frame ${frame} this dimension alone adds ${short(worstTerm)}; costs must stay below ${short(FLOAT32_MAX)}, ` +
    'so normalised values must stay within about 1.8e19 of the data)',
  );
}
