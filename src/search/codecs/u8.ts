/**
 * The 8-bit codec of the compact rows (the kernels' side is assembly/compact.ts; the proofs are in
 * docs/search.md, "Compact storage").
 *
 * One fine unit u (a float64) serves every dimension; dimension j gets an offset lo[j] (its minimum)
 * and an integer multiplier w[j] in 1..W, so its 256 codes step by w[j] * u and span its range.
 * Code bytes are ordered widest dimension first (`dim`); the distance does not depend on the order.
 * A row value x is X = (x - lo[j]) / u fine units, coded as c = round(X / w[j]); the row stores the
 * Euclidean norm of (X - w c) over its dimensions, rounded up, as its error bound E. The query is
 * coded in fine units, clamped to [255 w[j] - M, M] (a box holding every row), as an i16. With
 * K = sum (Q - w c)^2 (exact in i32: |Q - w c| <= M and stride * M^2 < 2^31):
 *
 *   |q - x| = u |X_q - X| >= u |clamp(X_q) - X| >= u (sqrt(K) - rho - E)
 *
 * (clamping onto a box holding X never moves the query away from X; rho is the query's own rounding
 * residual). Everything here is float64 and deterministic, so every backend builds the same codes.
 */

/** Codes per dimension. */
export const CODE_LEVELS = 255;

/** The 8-bit codec of one database. */
export interface U8Codec {
  stride: number;
  /** Bytes per row: codes, error bound (f32), padding to 16-byte chunks. */
  rowBytes: number;
  /** The fine unit and its inverse. */
  u: number;
  invU: number;
  /** The clamp limit: |Q - w c| <= m. */
  m: number;
  /** Per-byte multipliers (0 for padding dimensions and for the bytes after the codes). */
  w: Uint8Array;
  /** Per code byte: its offset (a float32 value) and its dimension. */
  lo: Float64Array;
  dim: Int32Array;
  /** The largest row error bound, fine units (a float32 value, rounded up). */
  eMax: number;
}

/** The clamp limit M for rows of `stride` floats: stride * M^2 and every pair of i16 products fit an i32. */
export function codeLimit(stride: number): number {
  return Math.min(32767, Math.floor(Math.sqrt((2 ** 31 - 1) / stride)));
}

/** The largest stride the 8-bit codec supports (the clamp limit must hold 255 codes). */
export const MAX_U8_STRIDE = Math.floor((2 ** 31 - 1) / (CODE_LEVELS * CODE_LEVELS));

/**
 * The codec for rows [0, rows) of `features` (stride floats each, `dims` meaningful): offsets and
 * ranges over all rows, the widest range spread over 255 codes of the largest multiplier W, every
 * other dimension over a multiplier of its own.
 */
export function planU8Codec(features: Float32Array, rows: number, stride: number, dims: number): U8Codec {
  if (stride > MAX_U8_STRIDE) throw new RangeError(`compact 'u8' supports rows of at most ${MAX_U8_STRIDE} floats, the database has ${stride}`);
  const rowBytes = alignUp16(stride + 4);
  const m = codeLimit(stride);
  // The widest dimension leaves a third of the clamp limit free for queries outside the data.
  const wMax = Math.max(1, Math.floor(m / (1.5 * CODE_LEVELS)));
  const lo = new Float64Array(stride);
  const range = new Float64Array(stride);
  let widest = 0;
  for (let j = 0; j < dims; j++) {
    let a = Infinity;
    let b = -Infinity;
    for (let i = 0; i < rows; i++) {
      const v = features[i * stride + j];
      if (v < a) a = v;
      if (v > b) b = v;
    }
    if (rows === 0) a = b = 0;
    lo[j] = a;
    range[j] = b - a;
    if (range[j] > widest) widest = range[j];
  }
  const u = widest > 0 ? (widest / (CODE_LEVELS * wMax)) * (1 + 2 ** -30) : 1;
  // Code bytes hold the widest dimensions first: the SIMD scan sums the first 16 codes of four rows
  // and skips all four when that partial sum already reaches the threshold (K only grows).
  const dim = Int32Array.from({ length: stride }, (_, j) => j);
  dim.subarray(0, dims).sort((a, b) => range[b] - range[a] || a - b);
  const w = new Uint8Array(rowBytes);
  const byteLo = new Float64Array(stride);
  for (let k = 0; k < dims; k++) {
    w[k] = Math.min(wMax, Math.max(1, Math.ceil(range[dim[k]] / (CODE_LEVELS * u))));
    byteLo[k] = lo[dim[k]];
  }
  return { stride, rowBytes, u, invU: 1 / u, m, w, lo: byteLo, dim, eMax: 0 };
}

function alignUp16(n: number): number {
  return Math.ceil(n / 16) * 16;
}

/** Rounds a non-negative float64 up to a float32 (the stored error bounds). */
function roundUpToF32(x: number): number {
  const f = Math.fround(x);
  if (f >= x) return f;
  const b = new Float32Array([f]);
  new Int32Array(b.buffer)[0]++;
  return b[0];
}

/**
 * Writes row `src` of `features` as an 8-bit row at byte `at` of `out` (codes, then the error
 * bound as a float32 into `outF32` at the same byte) and returns the bound (fine units).
 */
export function encodeRowU8(codec: U8Codec, features: Float32Array, src: number, out: Uint8Array, outF32: Float32Array, at: number): number {
  const { stride, u, w, lo } = codec;
  let e2 = 0;
  for (let j = 0; j < stride; j++) {
    const wj = w[j];
    if (wj === 0) {
      out[at + j] = 0;
      continue;
    }
    const x = (features[src * stride + codec.dim[j]] - lo[j]) / u;
    const c = Math.min(CODE_LEVELS, Math.max(0, Math.round(x / wj)));
    const e = x - wj * c;
    e2 += e * e;
    out[at + j] = c;
  }
  for (let j = stride + 4; j < codec.rowBytes; j++) out[at + j] = 0;
  // Float64 rounding of x is below 2^-35 fine units per dimension: the margins cover it.
  const bound = roundUpToF32(Math.sqrt(e2) * (1 + 2 ** -30) + 2 ** -30);
  outF32[(at + stride) >> 2] = bound;
  return bound;
}

/** Fine units of margin on each side of a fine-unit box: far above the float64 error of X (below 2^-35). */
const BOX_MARGIN = 2 ** -20;

/**
 * Writes the fine-unit box of the float32 box at `src` of `boxes` (min[stride] then max[stride], by
 * dimension) as i16 at `dst` of `out`: per code byte j the integers lo <= X <= hi for every
 * X = (x - lo[j]) / u of a value x inside, low bounds then high bounds, in code order (0, 0 for
 * padding). Every row value is at least lo[j], so X >= 0 and lo is clamped at 0; hi is at most
 * 255 w[j] + 1 (the widest range spans 255 W fine units), so the kernels' i16 lanes never wrap.
 */
export function encodeFineBox(codec: U8Codec, boxes: Float32Array, src: number, out: Int16Array, dst: number): void {
  const { stride, u, w, lo, dim } = codec;
  for (let j = 0; j < stride; j++) {
    if (w[j] === 0) {
      out[dst + j] = 0;
      out[dst + stride + j] = 0;
      continue;
    }
    const a = (boxes[src + dim[j]] - lo[j]) / u;
    const b = (boxes[src + stride + dim[j]] - lo[j]) / u;
    out[dst + j] = Math.max(0, Math.floor(a - BOX_MARGIN));
    out[dst + stride + j] = Math.ceil(b + BOX_MARGIN);
  }
}

/**
 * The query (stride float32 values at f32[q]) in i16 code units into i16[qcode] (0 after the
 * stride), returning its certified rounding residual: the twin of encodeQueryU8 in compact.ts.
 */
export function encodeQueryU8(codec: U8Codec, f32: Float32Array, q: number, i16: Int16Array, qcode: number): number {
  const { stride, invU, m, w, lo, dim } = codec;
  let r2 = 0;
  for (let j = 0; j < stride; j++) {
    const x = (f32[q + dim[j]] - lo[j]) * invU;
    const a = 255 * w[j] - m;
    const c = x < a ? a : x > m ? m : x;
    const n = roundHalfUp(c);
    const e = c - n;
    r2 += e * e;
    i16[qcode + j] = n;
  }
  for (let j = stride; j < codec.rowBytes; j++) i16[qcode + j] = 0;
  return Math.sqrt(r2) * (1 + 2 ** -30) + 2 ** -20;
}

/** AssemblyScript's Math.round, operation for operation (ties towards +Infinity). */
function roundHalfUp(x: number): number {
  const up = Math.ceil(x);
  return up - 0.5 <= x ? up : up - 1;
}
