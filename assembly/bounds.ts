// Certified pruning thresholds of the compact and clustered methods (the proofs are in
// docs/search.md, "Compact storage": read them before changing a constant here).
//
// A compact row (or a cluster) is skipped only when a lower bound of its exact cost proves that its
// float32 cost, as the brute force computes it, cannot be accepted. Everything here is float64
// arithmetic with explicit margins, identical in src/search/indexes/compact-bounds.ts, so every backend
// skips exactly the same rows.
//
// Names: `lim` is the cost a row must stay below to be accepted (best cost minus the smallest bias;
// for out-of-order visits the next float32 above the best, so that equal costs are re-scored and
// the lowest frame wins). `radius` is sqrt(limitBound(lim)): a row farther than `radius` (exact
// Euclidean distance) from the query has a float32 cost >= lim.

/** 2^-120: covers the absolute rounding error of a float32 cost whose terms underflow. */
export const UNDERFLOW: f64 = 7.52316384526264e-37;
/** 1 + 2^-40: covers the float64 rounding of these formulas themselves. */
export const MARGIN: f64 = 1.0000000000009095;
/** 1 - 2^-40. */
export const MARGIN_DOWN: f64 = 0.9999999999990905;
/** The largest finite float32. */
export const F32_MAX: f64 = 3.4028234663852886e38;
/** Relative margin of the stored float32 row-to-centre distances (2^-21). */
export const ROW_RADIUS_SLACK: f64 = 4.76837158203125e-7;

/**
 * Relative slack covering the rounding of a float32 cost of `stride` floats (at most stride / 4 + 4
 * roundings of 2^-24 on every term, four times over): cost_f32 >= exact * (1 - slack / 4) - 2^-120.
 */
// @ts-ignore: decorator
@inline
export function costSlack(stride: i32): f64 {
  return <f64>(stride + 16) * 5.960464477539063e-8;
}

/** The next float32 above x (x not NaN); +Infinity stays. */
export function nextUpF32(x: f32): f32 {
  if (x == Infinity) return x;
  if (x == 0) return reinterpret<f32>(1);
  const b = reinterpret<i32>(x);
  return reinterpret<f32>(x > 0 ? b + 1 : b - 1);
}

/** The smallest float32 >= x (x <= F32_MAX, not NaN). */
export function roundUpF32(x: f64): f32 {
  const f = <f32>x;
  return <f64>f < x ? nextUpF32(f) : f;
}

/** The largest float32 <= x (x > 0, not NaN); F32_MAX above it. */
export function roundDownF32(x: f64): f32 {
  const f = <f32>x;
  return <f64>f <= x ? f : reinterpret<f32>(reinterpret<i32>(f) - 1);
}

/**
 * Fine-unit boxes (kdtree-u8's records): a certified lower bound, as a float32, of the float32 cost
 * of every row inside a box whose squared distance from the query's codes is `k` fine units²
 * (exact), `rho` the query's rounding residual and `u` the fine unit. Every such row x has
 * ‖q − x‖ >= u·(√k − rho) (docs/search.md, "Why skipping is exact", 8.), and its float32 cost is
 * at least that squared, times 1 − slack/4, minus 2^-120.
 */
export function fineBoxCostLow(k: i32, rho: f64, u: f64, stride: i32): f32 {
  const a = Math.sqrt(<f64>k) * MARGIN_DOWN - rho;
  if (!(a > 0)) return 0;
  const d = a * u * MARGIN_DOWN;
  const c = (d * d * (1 - costSlack(stride) * 0.25) * MARGIN_DOWN - UNDERFLOW) * MARGIN_DOWN;
  return c > 0 ? roundDownF32(c) : 0;
}

/**
 * The cost limit for a best cost: a row is accepted only when cost + bias < best (index-order
 * scans) or cost + bias <= best with a lower frame (out-of-order visits: strict = true asks for a
 * proof of cost + bias > best instead). minBias is the smallest bias of the call (0 without one).
 */
export function costLimit(best: f32, minBias: f32, strict: bool): f64 {
  const b: f64 = strict ? <f64>nextUpF32(best) : <f64>best;
  return b - <f64>minBias;
}

/**
 * The Euclidean distance beyond which a row's float32 cost reaches `lim`: sqrt((lim + 2^-120) *
 * (1 + slack) * MARGIN). -1 when lim <= 0 (every cost reaches it); +Infinity when lim is.
 */
export function limitRadius(lim: f64, stride: i32): f64 {
  if (!(lim > 0)) return -1;
  return Math.sqrt((lim + UNDERFLOW) * (1 + costSlack(stride)) * MARGIN);
}

/**
 * 8-bit rows: the code distance K at or above which a row is skipped. `a` is the query's rounding
 * residual plus the row's (or every row's) error bound, `radiusCodes` the limit radius in code units
 * (limitRadius / u). 0 skips everything; 2^31 - 1 skips nothing (K never reaches it).
 */
export function codeThreshold(a: f64, radiusCodes: f64): i32 {
  if (radiusCodes < 0) return 0;
  const t = a + radiusCodes;
  const k = Math.ceil(t * t * MARGIN);
  return k >= 2147483647.0 ? 2147483647 : <i32>k;
}

/**
 * Float32 squared distances to a point within `e` of every row it stands for (a half-precision row
 * and its error bound, a cluster centre and its radius): the value at or above which the rows are
 * skipped. 0 skips everything; NaN skips nothing (no comparison with NaN is true).
 */
export function sphereThreshold(e: f64, radius: f64, stride: i32): f32 {
  if (radius < 0) return 0;
  const t = e + radius;
  const s = t * t * (1 + costSlack(stride)) * MARGIN + UNDERFLOW;
  if (!(s <= F32_MAX)) return NaN;
  return roundUpF32(s);
}

/** A certified lower bound of the exact distance whose float32 square (as the row cost computes it) is d. */
export function distanceLow(d: f32, stride: i32): f64 {
  // An overflowed sum still certifies an exact square of at least F32_MAX / (1 + slack).
  const v: f64 = d == Infinity ? F32_MAX : <f64>d;
  const x = (v - UNDERFLOW) / (1 + costSlack(stride));
  return x > 0 ? Math.sqrt(x) * MARGIN_DOWN : 0;
}

/** A certified upper bound of the exact distance whose float32 square is d. */
export function distanceHigh(d: f32, stride: i32): f64 {
  if (d == Infinity) return Infinity;
  return Math.sqrt((<f64>d + UNDERFLOW) * (1 + 2 * costSlack(stride))) * MARGIN;
}

/**
 * sphereThreshold as a float64 comparison: true when a float32 squared distance d to a point
 * within `e` of every row proves them all beyond `radius` (no float32 rounding of the threshold,
 * one comparison fewer to prove).
 */
// @ts-ignore: decorator
@inline
export function sphereSkips(d: f32, e: f64, radius: f64, stride: i32): bool {
  if (radius < 0) return true;
  if (radius == Infinity) return false;
  const t = e + radius;
  // An overflowed distance certifies only F32_MAX (see distanceLow), not infinity.
  const v: f64 = d == Infinity ? F32_MAX : <f64>d;
  return v >= t * t * (1 + costSlack(stride)) * MARGIN + UNDERFLOW;
}
