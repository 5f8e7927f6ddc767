/**
 * Certified pruning thresholds of the compact and clustered methods: the JavaScript twins of
 * assembly/bounds.ts, with the same float64 operations in the same order (JavaScript numbers are
 * float64, Math.sqrt and Math.ceil are exact-rounded like their WebAssembly counterparts), so every
 * backend skips exactly the same rows. The proofs are in docs/search.md ("Compact storage").
 */

/** 2^-120: covers the absolute rounding error of a float32 cost whose terms underflow. */
export const UNDERFLOW = 2 ** -120;
/** 1 + 2^-40: covers the float64 rounding of these formulas themselves. */
export const MARGIN = 1 + 2 ** -40;
/** 1 - 2^-40. */
export const MARGIN_DOWN = 1 - 2 ** -40;
/** The largest finite float32. */
export const F32_MAX = 3.4028234663852886e38;
/** Relative margin of the stored float32 row-to-centre distances. */
export const ROW_RADIUS_SLACK = 2 ** -21;
/** Largest i32: a code threshold that skips nothing. */
export const I32_MAX = 2147483647;

const bits = new Float32Array(1);
const ints = new Int32Array(bits.buffer);

/** Relative slack covering the rounding of a float32 cost of `stride` floats (see bounds.ts). */
export function costSlack(stride: number): number {
  return (stride + 16) * 2 ** -24;
}

/** The next float32 above the float32 x (not NaN); +Infinity stays. */
export function nextUpF32(x: number): number {
  if (x === Infinity) return x;
  if (x === 0) return 2 ** -149;
  bits[0] = x;
  ints[0] += x > 0 ? 1 : -1;
  return bits[0];
}

/** The smallest float32 >= x (x <= F32_MAX, not NaN). */
export function roundUpF32(x: number): number {
  const f = Math.fround(x);
  return f < x ? nextUpF32(f) : f;
}

/** The largest float32 <= x (x > 0, not NaN); F32_MAX above it. */
export function roundDownF32(x: number): number {
  const f = Math.fround(x);
  if (f <= x) return f;
  bits[0] = f;
  ints[0] -= 1;
  return bits[0];
}

/** Fine-unit boxes: a certified float32 lower bound of the cost of every row inside (see bounds.ts). */
export function fineBoxCostLow(k: number, rho: number, u: number, stride: number): number {
  const a = Math.sqrt(k) * MARGIN_DOWN - rho;
  if (!(a > 0)) return 0;
  const d = a * u * MARGIN_DOWN;
  const c = (d * d * (1 - costSlack(stride) * 0.25) * MARGIN_DOWN - UNDERFLOW) * MARGIN_DOWN;
  return c > 0 ? roundDownF32(c) : 0;
}

/** The cost a row must stay below (strict: prove cost > best instead of >=); see bounds.ts. */
export function costLimit(best: number, minBias: number, strict: boolean): number {
  const b = strict ? nextUpF32(best) : best;
  return b - minBias;
}

/** The Euclidean distance beyond which a row's float32 cost reaches `lim` (-1: every cost does). */
export function limitRadius(lim: number, stride: number): number {
  if (!(lim > 0)) return -1;
  return Math.sqrt((lim + UNDERFLOW) * (1 + costSlack(stride)) * MARGIN);
}

/** 8-bit rows: the code distance at or above which a row is skipped. */
export function codeThreshold(a: number, radiusCodes: number): number {
  if (radiusCodes < 0) return 0;
  const t = a + radiusCodes;
  const k = Math.ceil(t * t * MARGIN);
  return k >= I32_MAX ? I32_MAX : k;
}

/** Float32 squared distance at or above which the rows within `e` of a point are skipped (NaN: none). */
export function sphereThreshold(e: number, radius: number, stride: number): number {
  if (radius < 0) return 0;
  const t = e + radius;
  const s = t * t * (1 + costSlack(stride)) * MARGIN + UNDERFLOW;
  if (!(s <= F32_MAX)) return NaN;
  return roundUpF32(s);
}

/** sphereThreshold as a float64 comparison of the float32 squared distance d. */
export function sphereSkips(d: number, e: number, radius: number, stride: number): boolean {
  if (radius < 0) return true;
  if (radius === Infinity) return false;
  const t = e + radius;
  // An overflowed distance certifies only F32_MAX (see distanceLow), not infinity.
  const v = d === Infinity ? F32_MAX : d;
  return v >= t * t * (1 + costSlack(stride)) * MARGIN + UNDERFLOW;
}

/** A certified lower bound of the exact distance whose float32 square is d. */
export function distanceLow(d: number, stride: number): number {
  const v = d === Infinity ? F32_MAX : d;
  const x = (v - UNDERFLOW) / (1 + costSlack(stride));
  return x > 0 ? Math.sqrt(x) * MARGIN_DOWN : 0;
}

/** A certified upper bound of the exact distance whose float32 square is d. */
export function distanceHigh(d: number, stride: number): number {
  if (d === Infinity) return Infinity;
  return Math.sqrt((d + UNDERFLOW) * (1 + 2 * costSlack(stride))) * MARGIN;
}
