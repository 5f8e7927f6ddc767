// Row-level arithmetic shared by every search method.
//
// Summation order (identical in the SIMD build, the scalar build and src/search/kernels-js/kernels.ts, so
// that all backends produce bit-identical costs): lane l in 0..3 accumulates the squared
// differences of dims l, l + 4, l + 8, ... in increasing order, starting from +0; the lanes are then
// combined as (l0 + l2) + (l1 + l3); a bias, when present, is added last. Every operation rounds to
// float32 and no fused multiply-add is used.
//
// Because every term is >= 0 and float rounding is monotone, a lane's running sum never decreases
// and combining partial lanes gives a value <= the final row cost. That makes early exit exact.

/** (l0 + l2) + (l1 + l3) of an f32x4 accumulator. */
// @ts-ignore: decorator
@inline
export function hsum(acc: v128): f32 {
  // lanes [l0 + l2, l1 + l3, l2 + l0, l3 + l1]
  const t = f32x4.add(acc, v128.shuffle<f32>(acc, acc, 2, 3, 0, 1));
  return f32x4.extract_lane(t, 0) + f32x4.extract_lane(t, 1);
}

/**
 * True when no lane of a comparison's result (all ones or all zeros per 32-bit lane) is set. The
 * same as !v128.any_true(mask), which V8 lowers to vptest, setnz and a test of the boolean;
 * i32x4.bitmask is one vmovmskps and the test: 3% of the brute force's time.
 */
// @ts-ignore: decorator
@inline
export function noLane(mask: v128): bool {
  return i32x4.bitmask(mask) == 0;
}

/** acc + (qv − the 4 floats at r)², lane by lane: one chunk of a row's cost. */
// @ts-ignore: decorator
@inline
function sqStep(acc: v128, qv: v128, r: usize): v128 {
  const d = f32x4.sub(qv, v128.load(r));
  return f32x4.add(acc, f32x4.mul(d, d));
}

// Rows of up to SHORT_STRIDE floats (every default schema: 27 dims pad to 28) take the short forms
// of the SIMD kernels; wider rows take loops of two chunks of 4 floats an iteration, then the odd
// one (V8 puts an interrupt check in every loop iteration; halving them was worth 8% of the brute
// force).
//
// A short form has no loop: each chunk is a step of its own with constant load offsets, behind a
// `chunks > j` test. The tests are what makes it fast under V8. Plain straight-line code is worse
// than the loop: TurboFan keeps loads in program order but schedules arithmetic as late as it can,
// so a four-row pass would issue all its 28 loads first and spill most of them. A branch between
// chunks pins each chunk's arithmetic to its block: for four rows, five loads, twelve operations
// and one predictable compare per chunk, what a C compiler emits for a row width known at compile
// time (bench/native/rows.h). Both forms add the chunks in the same order from +0, so costs are the
// same bits. (A short form stores its first chunk instead of adding it to +0: +0 + x is x for every
// square x, including +∞.)

/** Widest row (floats) that takes the short forms. */
// @ts-ignore: decorator
@inline
export const SHORT_STRIDE: i32 = 32;

/** acc + (qv − rv)², lane by lane. */
// @ts-ignore: decorator
@inline
function sqAdd(acc: v128, qv: v128, rv: v128): v128 {
  const d = f32x4.sub(qv, rv);
  return f32x4.add(acc, f32x4.mul(d, d));
}

/** (qv − rv)², lane by lane: the first chunk of a sum. */
// @ts-ignore: decorator
@inline
function sqFirst(qv: v128, rv: v128): v128 {
  const d = f32x4.sub(qv, rv);
  return f32x4.mul(d, d);
}

/** Squared distance of two padded rows (stride floats, a multiple of 4). */
// @ts-ignore: decorator
@inline
export function sqDist(q: usize, r: usize, stride: i32): f32 {
  const end = q + (<usize>stride << 2);
  if (ASC_FEATURE_SIMD) {
    if (stride <= SHORT_STRIDE) return hsum(sqDistShort(q, r, stride >> 2));
    let acc = f32x4.splat(0);
    for (; q + 16 < end; q += 32, r += 32) acc = sqStep(sqStep(acc, v128.load(q), r), v128.load(q, 16), r + 16);
    if (q < end) acc = sqStep(acc, v128.load(q), r);
    return hsum(acc);
  } else {
    let l0: f32 = 0, l1: f32 = 0, l2: f32 = 0, l3: f32 = 0;
    while (q < end) {
      const d0 = load<f32>(q) - load<f32>(r);
      const d1 = load<f32>(q, 4) - load<f32>(r, 4);
      const d2 = load<f32>(q, 8) - load<f32>(r, 8);
      const d3 = load<f32>(q, 12) - load<f32>(r, 12);
      l0 += d0 * d0;
      l1 += d1 * d1;
      l2 += d2 * d2;
      l3 += d3 * d3;
      q += 16;
      r += 16;
    }
    return (l0 + l2) + (l1 + l3);
  }
}

/** sqDist's lane accumulator for a row of `chunks` (1..8) groups of 4 floats, short form. */
// @ts-ignore: decorator
@inline
function sqDistShort(q: usize, r: usize, chunks: i32): v128 {
  let a = sqFirst(v128.load(q), v128.load(r));
  if (chunks > 1) a = sqAdd(a, v128.load(q, 16), v128.load(r, 16));
  if (chunks > 2) a = sqAdd(a, v128.load(q, 32), v128.load(r, 32));
  if (chunks > 3) a = sqAdd(a, v128.load(q, 48), v128.load(r, 48));
  if (chunks > 4) a = sqAdd(a, v128.load(q, 64), v128.load(r, 64));
  if (chunks > 5) a = sqAdd(a, v128.load(q, 80), v128.load(r, 80));
  if (chunks > 6) a = sqAdd(a, v128.load(q, 96), v128.load(r, 96));
  if (chunks > 7) a = sqAdd(a, v128.load(q, 112), v128.load(r, 112));
  return a;
}

/**
 * Squared distances of two rows at once, sharing the query loads (SIMD build only). Lane 0 holds
 * sqDist(q, r0), lane 1 sqDist(q, r1), bit-identical: each lane pair is combined exactly as hsum.
 */
// @ts-ignore: decorator
@inline
export function sqDistPair(q: usize, r0: usize, r1: usize, stride: i32): v128 {
  if (stride <= SHORT_STRIDE) return sqDistPairShort(q, r0, r1, stride >> 2);
  const end = q + (<usize>stride << 2);
  let a0 = f32x4.splat(0);
  let a1 = f32x4.splat(0);
  for (; q + 16 < end; q += 32, r0 += 32, r1 += 32) {
    const qv = v128.load(q), qw = v128.load(q, 16);
    a0 = sqStep(sqStep(a0, qv, r0), qw, r0 + 16);
    a1 = sqStep(sqStep(a1, qv, r1), qw, r1 + 16);
  }
  if (q < end) {
    const qv = v128.load(q);
    a0 = sqStep(a0, qv, r0);
    a1 = sqStep(a1, qv, r1);
  }
  return pairSum(a0, a1);
}

/** sqDistPair for rows of `chunks` (1..8) groups of 4 floats, short form. */
// @ts-ignore: decorator
@inline
function sqDistPairShort(q: usize, r0: usize, r1: usize, chunks: i32): v128 {
  let v = v128.load(q);
  let a0 = sqFirst(v, v128.load(r0)), a1 = sqFirst(v, v128.load(r1));
  if (chunks > 1) { v = v128.load(q, 16); a0 = sqAdd(a0, v, v128.load(r0, 16)); a1 = sqAdd(a1, v, v128.load(r1, 16)); }
  if (chunks > 2) { v = v128.load(q, 32); a0 = sqAdd(a0, v, v128.load(r0, 32)); a1 = sqAdd(a1, v, v128.load(r1, 32)); }
  if (chunks > 3) { v = v128.load(q, 48); a0 = sqAdd(a0, v, v128.load(r0, 48)); a1 = sqAdd(a1, v, v128.load(r1, 48)); }
  if (chunks > 4) { v = v128.load(q, 64); a0 = sqAdd(a0, v, v128.load(r0, 64)); a1 = sqAdd(a1, v, v128.load(r1, 64)); }
  if (chunks > 5) { v = v128.load(q, 80); a0 = sqAdd(a0, v, v128.load(r0, 80)); a1 = sqAdd(a1, v, v128.load(r1, 80)); }
  if (chunks > 6) { v = v128.load(q, 96); a0 = sqAdd(a0, v, v128.load(r0, 96)); a1 = sqAdd(a1, v, v128.load(r1, 96)); }
  if (chunks > 7) { v = v128.load(q, 112); a0 = sqAdd(a0, v, v128.load(r0, 112)); a1 = sqAdd(a1, v, v128.load(r1, 112)); }
  return pairSum(a0, a1);
}

/** [hsum(a0), hsum(a1), ...]: two accumulators' lane sums, each in hsum's order. */
// @ts-ignore: decorator
@inline
function pairSum(a0: v128, a1: v128): v128 {
  const t0 = f32x4.add(a0, v128.shuffle<f32>(a0, a0, 2, 3, 0, 1)); // [l0+l2, l1+l3, ..]
  const t1 = f32x4.add(a1, v128.shuffle<f32>(a1, a1, 2, 3, 0, 1));
  const u = v128.shuffle<f32>(t0, t1, 0, 4, 1, 5); // [t0[0], t1[0], t0[1], t1[1]]
  return f32x4.add(u, v128.shuffle<f32>(u, u, 2, 3, 0, 1));
}

/**
 * The sums of four accumulators' lanes as one vector (T: f32 or i32 lanes): lane k =
 * (a_k[0] + a_k[2]) + (a_k[1] + a_k[3]), the order hsum uses, so for f32 each lane is
 * bit-identical to hsum(a_k).
 */
// @ts-ignore: decorator
@inline
export function transposeSum4<T>(a0: v128, a1: v128, a2: v128, a3: v128): v128 {
  // [a0 l0+l2, a1 l0+l2, a0 l1+l3, a1 l1+l3], and the same for a2, a3
  const v0 = v128.add<T>(v128.shuffle<T>(a0, a1, 0, 4, 1, 5), v128.shuffle<T>(a0, a1, 2, 6, 3, 7));
  const v1 = v128.add<T>(v128.shuffle<T>(a2, a3, 0, 4, 1, 5), v128.shuffle<T>(a2, a3, 2, 6, 3, 7));
  return v128.add<T>(v128.shuffle<T>(v0, v1, 0, 1, 4, 5), v128.shuffle<T>(v0, v1, 2, 3, 6, 7));
}

/**
 * Squared distances of four rows `rowBytes` apart (lane k: sqDist(q, r + k·rowBytes)), bit-identical
 * to sqDist: the query is loaded once for the four rows, each row keeps its own accumulator, and the
 * four are combined by transposeSum4. SIMD build only.
 */
// @ts-ignore: decorator
@inline
export function sqDist4(q: usize, r: usize, rowBytes: usize, stride: i32): v128 {
  if (stride <= SHORT_STRIDE) return sqDist4Short(q, r, rowBytes, stride >> 2);
  const end = q + (<usize>stride << 2);
  const r1 = r + rowBytes, r2 = r1 + rowBytes, r3 = r2 + rowBytes;
  let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
  let o: usize = 0;
  for (; q + 16 < end; q += 32, o += 32) {
    const qv = v128.load(q), qw = v128.load(q, 16);
    a0 = sqStep(sqStep(a0, qv, r + o), qw, r + o + 16);
    a1 = sqStep(sqStep(a1, qv, r1 + o), qw, r1 + o + 16);
    a2 = sqStep(sqStep(a2, qv, r2 + o), qw, r2 + o + 16);
    a3 = sqStep(sqStep(a3, qv, r3 + o), qw, r3 + o + 16);
  }
  if (q < end) {
    const qv = v128.load(q);
    a0 = sqStep(a0, qv, r + o);
    a1 = sqStep(a1, qv, r1 + o);
    a2 = sqStep(a2, qv, r2 + o);
    a3 = sqStep(a3, qv, r3 + o);
  }
  return transposeSum4<f32>(a0, a1, a2, a3);
}

/**
 * sqDist4 for rows of `chunks` (1..8) groups of 4 floats, short form. Readable form: a_k = Σ_j
 * (q[j] − row_k[j])² over chunks j = 0 .. chunks−1, then transposeSum4.
 */
// @ts-ignore: decorator
@inline
function sqDist4Short(q: usize, r0: usize, rowBytes: usize, chunks: i32): v128 {
  const r1 = r0 + rowBytes, r2 = r1 + rowBytes, r3 = r2 + rowBytes;
  let v = v128.load(q);
  let a0 = sqFirst(v, v128.load(r0)), a1 = sqFirst(v, v128.load(r1)), a2 = sqFirst(v, v128.load(r2)), a3 = sqFirst(v, v128.load(r3));
  if (chunks > 1) { v = v128.load(q, 16); a0 = sqAdd(a0, v, v128.load(r0, 16)); a1 = sqAdd(a1, v, v128.load(r1, 16)); a2 = sqAdd(a2, v, v128.load(r2, 16)); a3 = sqAdd(a3, v, v128.load(r3, 16)); }
  if (chunks > 2) { v = v128.load(q, 32); a0 = sqAdd(a0, v, v128.load(r0, 32)); a1 = sqAdd(a1, v, v128.load(r1, 32)); a2 = sqAdd(a2, v, v128.load(r2, 32)); a3 = sqAdd(a3, v, v128.load(r3, 32)); }
  if (chunks > 3) { v = v128.load(q, 48); a0 = sqAdd(a0, v, v128.load(r0, 48)); a1 = sqAdd(a1, v, v128.load(r1, 48)); a2 = sqAdd(a2, v, v128.load(r2, 48)); a3 = sqAdd(a3, v, v128.load(r3, 48)); }
  if (chunks > 4) { v = v128.load(q, 64); a0 = sqAdd(a0, v, v128.load(r0, 64)); a1 = sqAdd(a1, v, v128.load(r1, 64)); a2 = sqAdd(a2, v, v128.load(r2, 64)); a3 = sqAdd(a3, v, v128.load(r3, 64)); }
  if (chunks > 5) { v = v128.load(q, 80); a0 = sqAdd(a0, v, v128.load(r0, 80)); a1 = sqAdd(a1, v, v128.load(r1, 80)); a2 = sqAdd(a2, v, v128.load(r2, 80)); a3 = sqAdd(a3, v, v128.load(r3, 80)); }
  if (chunks > 6) { v = v128.load(q, 96); a0 = sqAdd(a0, v, v128.load(r0, 96)); a1 = sqAdd(a1, v, v128.load(r1, 96)); a2 = sqAdd(a2, v, v128.load(r2, 96)); a3 = sqAdd(a3, v, v128.load(r3, 96)); }
  if (chunks > 7) { v = v128.load(q, 112); a0 = sqAdd(a0, v, v128.load(r0, 112)); a1 = sqAdd(a1, v, v128.load(r1, 112)); a2 = sqAdd(a2, v, v128.load(r2, 112)); a3 = sqAdd(a3, v, v128.load(r3, 112)); }
  return transposeSum4<f32>(a0, a1, a2, a3);
}

/**
 * Row cost (sum + bias) with early exit. Returns the exact cost (bit-identical to sqDist + bias)
 * unless the partial cost after the first half of the row already reaches `limit` (the caller
 * accepts only a cost strictly below it); such a row returns +Infinity.
 *
 * One check per row, at the midpoint: checking more often costs more in unpredictable branches
 * than the skipped arithmetic saves. Measured on 27-dim rows (7 f32x4 steps), even one check loses
 * to the two-rows-per-step brute force, so only the 'early' method uses this; the pruning methods
 * cost surviving rows in full.
 */
// @ts-ignore: decorator
@inline
export function sqDistBounded(q: usize, r: usize, stride: i32, bias: f32, limit: f32): f32 {
  const end = q + (<usize>stride << 2);
  const mid = q + (<usize>(stride >> 3) << 4); // after floor(vectors / 2) f32x4 steps
  if (ASC_FEATURE_SIMD) {
    let acc = f32x4.splat(0);
    while (q < mid) {
      const d = f32x4.sub(v128.load(q), v128.load(r));
      acc = f32x4.add(acc, f32x4.mul(d, d));
      q += 16;
      r += 16;
    }
    const p = hsum(acc) + bias;
    if (p >= limit) return Infinity;
    while (q < end) {
      const d = f32x4.sub(v128.load(q), v128.load(r));
      acc = f32x4.add(acc, f32x4.mul(d, d));
      q += 16;
      r += 16;
    }
    return hsum(acc) + bias;
  } else {
    let l0: f32 = 0, l1: f32 = 0, l2: f32 = 0, l3: f32 = 0;
    let stop = mid;
    for (let pass = 0; pass < 2; pass++) {
      while (q < stop) {
        const d0 = load<f32>(q) - load<f32>(r);
        const d1 = load<f32>(q, 4) - load<f32>(r, 4);
        const d2 = load<f32>(q, 8) - load<f32>(r, 8);
        const d3 = load<f32>(q, 12) - load<f32>(r, 12);
        l0 += d0 * d0;
        l1 += d1 * d1;
        l2 += d2 * d2;
        l3 += d3 * d3;
        q += 16;
        r += 16;
      }
      if (pass == 0) {
        const p = ((l0 + l2) + (l1 + l3)) + bias;
        if (p >= limit) return Infinity;
        stop = end;
      }
    }
    return ((l0 + l2) + (l1 + l3)) + bias;
  }
}

/**
 * Lower bound of sqDist(q, r) over every row r inside the box [lo, hi]: the same lanes and order
 * as sqDist with each difference replaced by q - clamp(q, lo, hi). Per dim |q - clamp| <= |q - r|,
 * rounding is monotone, so the bound never exceeds any row's float32 cost: pruning needs no epsilon.
 */
// @ts-ignore: decorator
@inline
export function boxBound(q: usize, lo: usize, hi: usize, stride: i32): f32 {
  const end = q + (<usize>stride << 2);
  if (ASC_FEATURE_SIMD) {
    if (stride <= SHORT_STRIDE) return hsum(boxBoundShort(q, lo, hi, stride >> 2));
    let acc = f32x4.splat(0);
    for (; q + 16 < end; q += 32, lo += 32, hi += 32) acc = gapStep(gapStep(acc, v128.load(q), lo, hi), v128.load(q, 16), lo + 16, hi + 16);
    if (q < end) acc = gapStep(acc, v128.load(q), lo, hi);
    return hsum(acc);
  } else {
    let l0: f32 = 0, l1: f32 = 0, l2: f32 = 0, l3: f32 = 0;
    while (q < end) {
      const d0 = clampGap(load<f32>(q), load<f32>(lo), load<f32>(hi));
      const d1 = clampGap(load<f32>(q, 4), load<f32>(lo, 4), load<f32>(hi, 4));
      const d2 = clampGap(load<f32>(q, 8), load<f32>(lo, 8), load<f32>(hi, 8));
      const d3 = clampGap(load<f32>(q, 12), load<f32>(lo, 12), load<f32>(hi, 12));
      l0 += d0 * d0;
      l1 += d1 * d1;
      l2 += d2 * d2;
      l3 += d3 * d3;
      q += 16;
      lo += 16;
      hi += 16;
    }
    return (l0 + l2) + (l1 + l3);
  }
}

/** boxBound's lane accumulator for rows of `chunks` (1..8) groups of 4 floats, short form. */
// @ts-ignore: decorator
@inline
function boxBoundShort(q: usize, lo: usize, hi: usize, chunks: i32): v128 {
  const v0 = v128.load(q);
  let a = sqFirst(v0, clampV(v0, v128.load(lo), v128.load(hi)));
  if (chunks > 1) { const v = v128.load(q, 16); a = sqAdd(a, v, clampV(v, v128.load(lo, 16), v128.load(hi, 16))); }
  if (chunks > 2) { const v = v128.load(q, 32); a = sqAdd(a, v, clampV(v, v128.load(lo, 32), v128.load(hi, 32))); }
  if (chunks > 3) { const v = v128.load(q, 48); a = sqAdd(a, v, clampV(v, v128.load(lo, 48), v128.load(hi, 48))); }
  if (chunks > 4) { const v = v128.load(q, 64); a = sqAdd(a, v, clampV(v, v128.load(lo, 64), v128.load(hi, 64))); }
  if (chunks > 5) { const v = v128.load(q, 80); a = sqAdd(a, v, clampV(v, v128.load(lo, 80), v128.load(hi, 80))); }
  if (chunks > 6) { const v = v128.load(q, 96); a = sqAdd(a, v, clampV(v, v128.load(lo, 96), v128.load(hi, 96))); }
  if (chunks > 7) { const v = v128.load(q, 112); a = sqAdd(a, v, clampV(v, v128.load(lo, 112), v128.load(hi, 112))); }
  return a;
}

/** clamp(qv, lo, hi), lane by lane (pmax then pmin, as gapStep). */
// @ts-ignore: decorator
@inline
function clampV(qv: v128, lo: v128, hi: v128): v128 {
  return f32x4.pmin(f32x4.pmax(qv, lo), hi);
}

/** acc + (qv − clamp(qv, lo, hi))², lane by lane: one chunk of a box bound. */
// @ts-ignore: decorator
@inline
function gapStep(acc: v128, qv: v128, lo: usize, hi: usize): v128 {
  return sqAdd(acc, qv, clampV(qv, v128.load(lo), v128.load(hi)));
}

// @ts-ignore: decorator
@inline
function clampGap(q: f32, lo: f32, hi: f32): f32 {
  const c = q < lo ? lo : q;
  return q - (hi < c ? hi : c);
}
