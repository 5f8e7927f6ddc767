/**
 * 16-bit box codes (assembly/compact.ts box16Bound): code c of dimension j decodes, in float32, to
 * fround(fround(c * step[j]) + lo[j]) — a multiply then an add, each rounded, as the kernels compute
 * it. A box is stored as the largest code whose decoded value is <= its low corner and the smallest
 * whose decoded value is >= its high corner, checked with that very arithmetic, so the decoded box
 * contains the exact one and the box bound keeps the proof of the float32 boxes (docs/search.md).
 */

const fr = Math.fround;
export const BOX_CODES = 65535;

export interface Box16Codec {
  stride: number;
  /** Per-dimension step and offset (float32 values). */
  step: Float32Array;
  lo: Float32Array;
}

const bits = new Float32Array(1);
const ints = new Int32Array(bits.buffer);

/** The next float32 above a non-negative float32. */
function nextUp(x: number): number {
  bits[0] = x;
  ints[0]++;
  return bits[0];
}

/** The decoded value of code c of dimension j. */
export function decodeBox16(codec: Box16Codec, j: number, c: number): number {
  return fr(fr(c * codec.step[j]) + codec.lo[j]);
}

/**
 * The codec for rows [0, rows): per dimension the minimum as offset and a step whose top code
 * decodes at or above the maximum (checked, nudged up when float32 rounding falls short).
 */
export function planBox16Codec(features: Float32Array, rows: number, stride: number, dims: number): Box16Codec {
  const step = new Float32Array(stride);
  const lo = new Float32Array(stride);
  const codec = { stride, step, lo };
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
    if (b > a) {
      step[j] = fr(((b - a) / BOX_CODES) * (1 + 2 ** -20));
      // Nudged up by at least one float32 step (a tiny range can round the step down to 0).
      while (decodeBox16(codec, j, BOX_CODES) < b) step[j] = Math.max(nextUp(step[j]), fr(step[j] * (1 + 2 ** -20)));
    }
  }
  return codec;
}

/** The largest code of dimension j decoding to a value <= x (x >= the offset). */
export function floorCode16(codec: Box16Codec, j: number, x: number): number {
  const s = codec.step[j];
  if (s === 0) return 0;
  let c = Math.min(BOX_CODES, Math.max(0, Math.floor((x - codec.lo[j]) / s)));
  while (c > 0 && decodeBox16(codec, j, c) > x) c--;
  while (c < BOX_CODES && decodeBox16(codec, j, c + 1) <= x) c++;
  return c;
}

/** The smallest code of dimension j decoding to a value >= x (x <= the top code's value). */
export function ceilCode16(codec: Box16Codec, j: number, x: number): number {
  const s = codec.step[j];
  if (s === 0) return 0;
  let c = Math.min(BOX_CODES, Math.max(0, Math.ceil((x - codec.lo[j]) / s)));
  while (c < BOX_CODES && decodeBox16(codec, j, c) < x) c++;
  while (c > 0 && decodeBox16(codec, j, c - 1) >= x) c--;
  return c;
}

/**
 * Encodes the float32 box (lo[stride] at boxes[src], hi[stride] after it) as 16-bit codes at
 * out[dst] (stride low codes, then stride high codes). Padding dimensions get code 0 (value 0).
 */
export function encodeBox16(codec: Box16Codec, boxes: Float32Array, src: number, out: Uint16Array, dst: number): void {
  const S = codec.stride;
  for (let j = 0; j < S; j++) {
    out[dst + j] = floorCode16(codec, j, boxes[src + j]);
    out[dst + S + j] = ceilCode16(codec, j, boxes[src + S + j]);
  }
}
