// Compact rows and boxes: the 8-bit code distance, the half-precision row distance and the 16-bit
// box bound (SIMD and scalar), and the per-query encoding of the 8-bit codec. The formats are
// written by src/search/indexes/compact.ts; docs/search.md ("Compact storage") has the layouts and
// the proofs.
//
// 8-bit rows: code c[j] (u8) per float of the row, widest dimension first (U8P_DIM maps code
// bytes to dimensions), then the row's error bound (f32), padded to 16-byte chunks. In "fine units" u (a float64 per database) dimension j of a row is
// X[j] = (x[j] - lo[j]) / u and is approximated by w[j] * c[j] (w[j] in 1..W, 0 for padding and for
// the bytes after the codes). The query is encoded once as Q[j] = round(clamp(X_q[j], 255 w[j] - M, M))
// in i16, so the code distance K = sum (Q[j] - w[j] c[j])^2 is an exact i32 (|Q - w c| <= M and
// stride * M^2 < 2^31).
//
// Half-precision rows: `stride` IEEE binary16 bit patterns, then the row's error bound (f32),
// padded. They are decoded with four integer operations and no float arithmetic: a half h becomes
// the float32 whose bits are ((sign-extended h << 13) & 0x8fffffff) + 0x38000000. The shift puts
// mantissa and exponent in place (and copies of the sign in bits 28..31), the mask keeps the sign
// in bit 31 only, the add rebiases the exponent by 112 = 127 - 15. That is the binary16 value for
// every normal half. The two reserved exponents decode differently from IEEE: 0 reads as
// 2^-15 (1 + m / 1024) instead of a subnormal (so zero is not representable; it is stored as
// +-2^-15) and 31 as the finite 2^16 (1 + m / 1024). No subnormal float ever appears (they are slow
// on some CPUs), the encoder only uses what this decodes to, and the row's error bound covers the
// difference.
//
// 16-bit boxes: per dimension a low and a high code; a code c decodes to (f32(c) * step[j]) + lo[j]
// in float32 (no fused multiply-add), and the build picks codes whose decoded values contain the
// exact box, so the box bound of the decoded box is a valid lower bound with the proof of row.ts.
//
// Fine-unit boxes (kdtree-u8's records): per code byte j an i16 low and high bound, in fine units,
// of X[j] over the rows inside; the squared distance from the query's codes Q to the box is an
// exact i32 (every gap is at most M), and bounds.ts (fineBoxCostLow) turns it into a certified
// lower bound of the rows' float32 costs. Integer lanes, eight dimensions an operation, and no
// decoding: a quarter of the work of a 16-bit box bound.

import { CTX_U8_PARAMS, CTX_STRIDE, CTX_BOX16, U8P_INV_U, U8P_M, U8P_CHUNKS, U8P_W, U8P_LO, U8P_DIM, BOX16_STEP, BOX16_LO } from './layout';
import { hsum, transposeSum4, noLane } from './row';

/**
 * Encodes the query row at q (stride f32) into i16 codes at qcode (one per byte of an 8-bit row,
 * 0 after the stride) and returns the certified residual: an upper bound of the Euclidean distance,
 * in fine units, between the clamped exact query and its codes.
 */
export function encodeQueryU8(ctx: usize, q: usize, qcode: usize): f64 {
  const p = load<usize>(ctx, CTX_U8_PARAMS);
  const stride = load<i32>(ctx, CTX_STRIDE);
  const invU = load<f64>(p, U8P_INV_U);
  const m = <f64>load<i32>(p, U8P_M);
  const chunks = load<i32>(p, U8P_CHUNKS);
  const w = load<usize>(p, U8P_W);
  const lo = load<usize>(p, U8P_LO);
  const dim = load<usize>(p, U8P_DIM);
  let r2: f64 = 0;
  for (let j = 0; j < stride; j++) {
    const d = load<i32>(dim + (<usize>j << 2));
    const x = (<f64>load<f32>(q + (<usize>d << 2)) - load<f64>(lo + (<usize>j << 3))) * invU;
    const a = <f64>(255 * <i32>load<u8>(w + <usize>j)) - m;
    const c = x < a ? a : x > m ? m : x;
    const n = Math.round(c);
    const e = c - n;
    r2 += e * e;
    store<i16>(qcode + (<usize>j << 1), <i16><i32>n);
  }
  const end = chunks << 4;
  for (let j = stride; j < end; j++) store<i16>(qcode + (<usize>j << 1), 0);
  return Math.sqrt(r2) * MARGIN_RESIDUAL + RESIDUAL_FLOOR;
}

/** Margins of the query residual: its float64 rounding (|x| < 2^15 units) is far below 2^-20. */
const MARGIN_RESIDUAL: f64 = 1.0000000009313226; // 1 + 2^-30
const RESIDUAL_FLOOR: f64 = 9.5367431640625e-7; // 2^-20

/** The i16 query codes and u8 multipliers of chunk pair `k` (16 bytes of a row), kept in registers. */
// @ts-ignore: decorator
@inline
export function chunkK(r: usize, qLo: v128, qHi: v128, w: v128): v128 {
  const c = v128.load(r);
  const k0 = i16x8.sub(qLo, i16x8.extmul_low_i8x16_u(c, w));
  const k1 = i16x8.sub(qHi, i16x8.extmul_high_i8x16_u(c, w));
  return i32x4.add(i32x4.dot_i16x8_s(k0, k0), i32x4.dot_i16x8_s(k1, k1));
}

/** Code distance of one 8-bit row as four i32 partial sums (SIMD) for rows of 2 chunks (stride <= 28). */
// @ts-ignore: decorator
@inline
export function codeDistance2(r: usize, q0: v128, q1: v128, q2: v128, q3: v128, w0: v128, w1: v128): v128 {
  return i32x4.add(chunkK(r, q0, q1, w0), chunkK(r + 16, q2, q3, w1));
}

/**
 * Code distances of four consecutive 8-bit rows of 2 chunks (32 bytes apart), query codes and
 * multipliers in registers. Codes are widest dimension first, so the first 8 codes' partial sums
 * often settle all four rows: when none of them is below `tv` those partial sums are returned
 * (each <= its row's distance, every term being >= 0). Either way a lane below `tv` is its row's
 * exact distance, and a lane at or above it proves its row's distance is too.
 */
// @ts-ignore: decorator
@inline
export function codeDistances4(r: usize, q0: v128, q1: v128, q2: v128, q3: v128, w0: v128, w1: v128, tv: v128): v128 {
  const a0 = v128.load(r), a1 = v128.load(r, 32), a2 = v128.load(r, 64), a3 = v128.load(r, 96);
  const k0 = i16x8.sub(q0, i16x8.extmul_low_i8x16_u(a0, w0)), k1 = i16x8.sub(q0, i16x8.extmul_low_i8x16_u(a1, w0));
  const k2 = i16x8.sub(q0, i16x8.extmul_low_i8x16_u(a2, w0)), k3 = i16x8.sub(q0, i16x8.extmul_low_i8x16_u(a3, w0));
  const p0 = i32x4.dot_i16x8_s(k0, k0), p1 = i32x4.dot_i16x8_s(k1, k1), p2 = i32x4.dot_i16x8_s(k2, k2), p3 = i32x4.dot_i16x8_s(k3, k3);
  const partial = transposeSum4<i32>(p0, p1, p2, p3);
  if (noLane(i32x4.lt_s(partial, tv))) return partial;
  const h0 = i16x8.sub(q1, i16x8.extmul_high_i8x16_u(a0, w0)), h1 = i16x8.sub(q1, i16x8.extmul_high_i8x16_u(a1, w0));
  const h2 = i16x8.sub(q1, i16x8.extmul_high_i8x16_u(a2, w0)), h3 = i16x8.sub(q1, i16x8.extmul_high_i8x16_u(a3, w0));
  return transposeSum4<i32>(
    i32x4.add(i32x4.add(p0, i32x4.dot_i16x8_s(h0, h0)), chunkK(r + 16, q2, q3, w1)),
    i32x4.add(i32x4.add(p1, i32x4.dot_i16x8_s(h1, h1)), chunkK(r + 48, q2, q3, w1)),
    i32x4.add(i32x4.add(p2, i32x4.dot_i16x8_s(h2, h2)), chunkK(r + 80, q2, q3, w1)),
    i32x4.add(i32x4.add(p3, i32x4.dot_i16x8_s(h3, h3)), chunkK(r + 112, q2, q3, w1)));
}

/** Code distance of one 8-bit row as four i32 partial sums (SIMD), any number of chunks. */
// @ts-ignore: decorator
@inline
export function codeDistanceN(r: usize, qcode: usize, w: usize, chunks: i32): v128 {
  let acc = i32x4.splat(0);
  for (let k = 0; k < chunks; k++) {
    const o = <usize>k << 4;
    acc = i32x4.add(acc, chunkK(r + o, v128.load(qcode + (o << 1)), v128.load(qcode + (o << 1), 16), v128.load(w + o)));
  }
  return acc;
}

/** acc + pairwise sums of g², g = max(lo − q, q − hi, 0) lane by lane (i16): one chunk of a fine box distance. */
// @ts-ignore: decorator
@inline
function fineGapStep(acc: v128, qv: v128, lo: v128, hi: v128): v128 {
  const g = i16x8.max_s(i16x8.max_s(i16x8.sub(lo, qv), i16x8.sub(qv, hi)), i16x8.splat(0));
  return i32x4.add(acc, i32x4.dot_i16x8_s(g, g));
}

/**
 * Squared distances from the query's i16 codes to four fine-unit boxes `boxBytes` apart (each
 * `stride` low bounds, then `stride` high bounds, i16 in code order), as lanes 0..3 (SIMD build).
 * Exact: |lo − Q| and |Q − hi| are at most M + 1 and every gap at most M (docs/search.md), so the
 * i16 lanes never wrap and the i32 sums are the integers. A stride of 4 mod 8 ends with half a
 * chunk, read with load64_zero so that no lane of the next box enters.
 */
// @ts-ignore: decorator
@inline
export function fineBoxDistances4(box: usize, boxBytes: usize, qcode: usize, stride: i32): v128 {
  const side = <usize>stride << 1;
  const b1 = box + boxBytes, b2 = b1 + boxBytes, b3 = b2 + boxBytes;
  let a0 = i32x4.splat(0), a1 = i32x4.splat(0), a2 = i32x4.splat(0), a3 = i32x4.splat(0);
  let o: usize = 0;
  for (; o + 16 <= side; o += 16) {
    const qv = v128.load(qcode + o);
    a0 = fineGapStep(a0, qv, v128.load(box + o), v128.load(box + side + o));
    a1 = fineGapStep(a1, qv, v128.load(b1 + o), v128.load(b1 + side + o));
    a2 = fineGapStep(a2, qv, v128.load(b2 + o), v128.load(b2 + side + o));
    a3 = fineGapStep(a3, qv, v128.load(b3 + o), v128.load(b3 + side + o));
  }
  if (o < side) {
    const qv = v128.load64_zero(qcode + o);
    a0 = fineGapStep(a0, qv, v128.load64_zero(box + o), v128.load64_zero(box + side + o));
    a1 = fineGapStep(a1, qv, v128.load64_zero(b1 + o), v128.load64_zero(b1 + side + o));
    a2 = fineGapStep(a2, qv, v128.load64_zero(b2 + o), v128.load64_zero(b2 + side + o));
    a3 = fineGapStep(a3, qv, v128.load64_zero(b3 + o), v128.load64_zero(b3 + side + o));
  }
  return transposeSum4<i32>(a0, a1, a2, a3);
}

/** Squared distance from the query's i16 codes to the fine-unit box at `box` (any build): the exact integer. */
export function fineBoxDistance(box: usize, qcode: usize, stride: i32): i32 {
  const hi = box + (<usize>stride << 1);
  let k: i32 = 0;
  for (let j = 0; j < stride; j++) {
    const o = <usize>j << 1;
    const q = <i32>load<i16>(qcode + o);
    const a = <i32>load<i16>(box + o) - q;
    const b = q - <i32>load<i16>(hi + o);
    const g = a > b ? a : b;
    if (g > 0) k += g * g;
  }
  return k;
}

/** Sum of an i32x4. */
// @ts-ignore: decorator
@inline
export function isum(v: v128): i32 {
  const t = i32x4.add(v, v128.shuffle<i32>(v, v, 2, 3, 0, 1));
  return i32x4.extract_lane(t, 0) + i32x4.extract_lane(t, 1);
}

/** Code distance of the 8-bit row at r (any build): the exact integer sum. */
export function codeDistance(r: usize, qcode: usize, w: usize, chunks: i32): i32 {
  if (ASC_FEATURE_SIMD) {
    return isum(codeDistanceN(r, qcode, w, chunks));
  } else {
    const end = chunks << 4;
    let k: i32 = 0;
    for (let j = 0; j < end; j++) {
      const d = <i32>load<i16>(qcode + (<usize>j << 1)) - <i32>load<u8>(w + <usize>j) * <i32>load<u8>(r + <usize>j);
      k += d * d;
    }
    return k;
  }
}

/** A half's float32 by the integer decoding of the module comment (scalar). */
// @ts-ignore: decorator
@inline
export function decodeHalf(h: i32): f32 {
  return reinterpret<f32>(((((h << 16) >> 16) << 13) & 0x8fffffff) + 0x38000000);
}

/** Four halves (sign-extended into i32 lanes) decoded to f32 lanes. */
// @ts-ignore: decorator
@inline
function decodeHalves(v: v128): v128 {
  return i32x4.add(v128.and(i32x4.shl(v, 13), i32x4.splat(0x8fffffff)), i32x4.splat(0x38000000));
}

/**
 * Float32 squared distance of the query at q and the half-precision row at r, in the lanes and
 * order of sqDist (lane l sums dims l, l + 4, ...; (l0 + l2) + (l1 + l3)).
 */
export function halfDistance(q: usize, r: usize, stride: i32): f32 {
  const end = q + (<usize>stride << 2);
  if (ASC_FEATURE_SIMD) {
    let acc = f32x4.splat(0);
    while (q + 16 < end) {
      const h = v128.load(r);
      const d0 = f32x4.sub(v128.load(q), decodeHalves(i32x4.extend_low_i16x8_s(h)));
      acc = f32x4.add(acc, f32x4.mul(d0, d0));
      const d1 = f32x4.sub(v128.load(q, 16), decodeHalves(i32x4.extend_high_i16x8_s(h)));
      acc = f32x4.add(acc, f32x4.mul(d1, d1));
      q += 32;
      r += 16;
    }
    if (q < end) {
      const d = f32x4.sub(v128.load(q), decodeHalves(i32x4.extend_low_i16x8_s(v128.load64_zero(r))));
      acc = f32x4.add(acc, f32x4.mul(d, d));
    }
    return hsum(acc);
  } else {
    let l0: f32 = 0, l1: f32 = 0, l2: f32 = 0, l3: f32 = 0;
    while (q < end) {
      const d0 = load<f32>(q) - decodeHalf(<i32>load<u16>(r));
      const d1 = load<f32>(q, 4) - decodeHalf(<i32>load<u16>(r, 2));
      const d2 = load<f32>(q, 8) - decodeHalf(<i32>load<u16>(r, 4));
      const d3 = load<f32>(q, 12) - decodeHalf(<i32>load<u16>(r, 6));
      l0 += d0 * d0;
      l1 += d1 * d1;
      l2 += d2 * d2;
      l3 += d3 * d3;
      q += 16;
      r += 8;
    }
    return (l0 + l2) + (l1 + l3);
  }
}

/** Four halves at r, sign-extended to i32 lanes and decoded (load16x4_s: one vpmovsxwd from memory). */
// @ts-ignore: decorator
@inline
function halvesAt(r: usize, offset: usize): v128 {
  return decodeHalves(v128.load16x4_s(r + offset));
}

/** acc + (qv − the four halves at r + offset, decoded)², lane by lane: one chunk of a half row's distance. */
// @ts-ignore: decorator
@inline
function halfAdd(acc: v128, qv: v128, r: usize, offset: usize): v128 {
  const d = f32x4.sub(qv, halvesAt(r, offset));
  return f32x4.add(acc, f32x4.mul(d, d));
}

/** (qv − the four halves at r, decoded)²: the first chunk of a sum (+0 + x is x, so the same bits). */
// @ts-ignore: decorator
@inline
function halfFirst(qv: v128, r: usize): v128 {
  const d = f32x4.sub(qv, halvesAt(r, 0));
  return f32x4.mul(d, d);
}

/**
 * halfDistance of four half rows `rowBytes` apart, as lanes 0..3 (SIMD build, rows of up to
 * SHORT_STRIDE floats), bit-identical to halfDistance: each row keeps its own accumulator in the
 * same lane order and transposeSum4 combines them as hsum. Readable form: a_k = Σ_j (q[j] −
 * decode(row_k[j]))² over chunks j of 4 floats, then transposeSum4.
 *
 * The one-row loop spent a horizontal sum, a compare and a branch per row and reloaded the query
 * for every row: 2.2x the float32 brute force's time on real16x although it reads half the bytes.
 * Here the query chunk is loaded once for four rows and one vector compare tests them; each chunk
 * is a step behind a `chunks > j` test, as in sqDist4Short, so that V8 keeps its arithmetic with
 * its loads.
 */
// @ts-ignore: decorator
@inline
export function halfDistances4Short(q: usize, r0: usize, rowBytes: usize, chunks: i32): v128 {
  const r1 = r0 + rowBytes, r2 = r1 + rowBytes, r3 = r2 + rowBytes;
  let v = v128.load(q);
  let a0 = halfFirst(v, r0), a1 = halfFirst(v, r1), a2 = halfFirst(v, r2), a3 = halfFirst(v, r3);
  if (chunks > 1) { v = v128.load(q, 16); a0 = halfAdd(a0, v, r0, 8); a1 = halfAdd(a1, v, r1, 8); a2 = halfAdd(a2, v, r2, 8); a3 = halfAdd(a3, v, r3, 8); }
  if (chunks > 2) { v = v128.load(q, 32); a0 = halfAdd(a0, v, r0, 16); a1 = halfAdd(a1, v, r1, 16); a2 = halfAdd(a2, v, r2, 16); a3 = halfAdd(a3, v, r3, 16); }
  if (chunks > 3) { v = v128.load(q, 48); a0 = halfAdd(a0, v, r0, 24); a1 = halfAdd(a1, v, r1, 24); a2 = halfAdd(a2, v, r2, 24); a3 = halfAdd(a3, v, r3, 24); }
  if (chunks > 4) { v = v128.load(q, 64); a0 = halfAdd(a0, v, r0, 32); a1 = halfAdd(a1, v, r1, 32); a2 = halfAdd(a2, v, r2, 32); a3 = halfAdd(a3, v, r3, 32); }
  if (chunks > 5) { v = v128.load(q, 80); a0 = halfAdd(a0, v, r0, 40); a1 = halfAdd(a1, v, r1, 40); a2 = halfAdd(a2, v, r2, 40); a3 = halfAdd(a3, v, r3, 40); }
  if (chunks > 6) { v = v128.load(q, 96); a0 = halfAdd(a0, v, r0, 48); a1 = halfAdd(a1, v, r1, 48); a2 = halfAdd(a2, v, r2, 48); a3 = halfAdd(a3, v, r3, 48); }
  if (chunks > 7) { v = v128.load(q, 112); a0 = halfAdd(a0, v, r0, 56); a1 = halfAdd(a1, v, r1, 56); a2 = halfAdd(a2, v, r2, 56); a3 = halfAdd(a3, v, r3, 56); }
  return transposeSum4<f32>(a0, a1, a2, a3);
}

/**
 * halfDistance with one early check: once half of the row's groups of 8 floats are summed, a partial
 * sum (lanes combined as hsum: <= the full sum, every term being >= 0 and rounding monotone) at or
 * above `limit` is returned as is. Used where only "D >= limit" matters (NaN limit: never early).
 */
export function halfDistanceBounded(q: usize, r: usize, stride: i32, limit: f32): f32 {
  if (ASC_FEATURE_SIMD) {
    const end = q + (<usize>stride << 2);
    const mid = q + (<usize>(stride >> 3) << 4); // after floor(groups of 4 / 2) groups
    let acc = f32x4.splat(0);
    let checked = false;
    while (q + 16 < end) {
      if (!checked && q >= mid) {
        checked = true;
        const p = hsum(acc);
        if (p >= limit) return p;
      }
      const h = v128.load(r);
      const d0 = f32x4.sub(v128.load(q), decodeHalves(i32x4.extend_low_i16x8_s(h)));
      acc = f32x4.add(acc, f32x4.mul(d0, d0));
      const d1 = f32x4.sub(v128.load(q, 16), decodeHalves(i32x4.extend_high_i16x8_s(h)));
      acc = f32x4.add(acc, f32x4.mul(d1, d1));
      q += 32;
      r += 16;
    }
    if (q < end) {
      const d = f32x4.sub(v128.load(q), decodeHalves(i32x4.extend_low_i16x8_s(v128.load64_zero(r))));
      acc = f32x4.add(acc, f32x4.mul(d, d));
    }
    return hsum(acc);
  } else {
    return halfDistance(q, r, stride);
  }
}

/** One 16-bit box code decoded to its float32 value (scalar). */
// @ts-ignore: decorator
@inline
function decodeBox(c: u16, step: f32, lo: f32): f32 {
  return <f32><i32>c * step + lo;
}

/** Four 16-bit codes (zero-extended into i32 lanes) decoded to f32 lanes. */
// @ts-ignore: decorator
@inline
function decodeBoxes(c: v128, step: v128, lo: v128): v128 {
  return f32x4.add(f32x4.mul(f32x4.convert_i32x4_s(c), step), lo);
}

// @ts-ignore: decorator
@inline
function gap4(qv: v128, lo: v128, hi: v128, acc: v128): v128 {
  const d = f32x4.sub(qv, f32x4.pmin(f32x4.pmax(qv, lo), hi));
  return f32x4.add(acc, f32x4.mul(d, d));
}

// @ts-ignore: decorator
@inline
function clampGap(q: f32, lo: f32, hi: f32): f32 {
  const c = q < lo ? lo : q;
  return q - (hi < c ? hi : c);
}

/**
 * Box bound of the 16-bit box at `box` (stride low codes, then stride high codes): boxBound (row.ts)
 * of the decoded box, same lanes and order.
 */
export function box16Bound(ctx: usize, q: usize, box: usize, stride: i32): f32 {
  const p = load<usize>(ctx, CTX_BOX16);
  let step = load<usize>(p, BOX16_STEP);
  let lo = load<usize>(p, BOX16_LO);
  let hiCodes = box + (<usize>stride << 1);
  const end = q + (<usize>stride << 2);
  if (ASC_FEATURE_SIMD) {
    let acc = f32x4.splat(0);
    while (q + 16 < end) {
      const a = v128.load(box);
      const b = v128.load(hiCodes);
      const s0 = v128.load(step);
      const o0 = v128.load(lo);
      acc = gap4(v128.load(q), decodeBoxes(i32x4.extend_low_i16x8_u(a), s0, o0), decodeBoxes(i32x4.extend_low_i16x8_u(b), s0, o0), acc);
      const s1 = v128.load(step, 16);
      const o1 = v128.load(lo, 16);
      acc = gap4(v128.load(q, 16), decodeBoxes(i32x4.extend_high_i16x8_u(a), s1, o1), decodeBoxes(i32x4.extend_high_i16x8_u(b), s1, o1), acc);
      q += 32;
      box += 16;
      hiCodes += 16;
      step += 32;
      lo += 32;
    }
    if (q < end) {
      const s0 = v128.load(step);
      const o0 = v128.load(lo);
      const a = i32x4.extend_low_i16x8_u(v128.load64_zero(box));
      const b = i32x4.extend_low_i16x8_u(v128.load64_zero(hiCodes));
      acc = gap4(v128.load(q), decodeBoxes(a, s0, o0), decodeBoxes(b, s0, o0), acc);
    }
    return hsum(acc);
  } else {
    let l0: f32 = 0, l1: f32 = 0, l2: f32 = 0, l3: f32 = 0;
    while (q < end) {
      const d0 = clampGap(load<f32>(q), decodeBox(load<u16>(box), load<f32>(step), load<f32>(lo)), decodeBox(load<u16>(hiCodes), load<f32>(step), load<f32>(lo)));
      const d1 = clampGap(load<f32>(q, 4), decodeBox(load<u16>(box, 2), load<f32>(step, 4), load<f32>(lo, 4)), decodeBox(load<u16>(hiCodes, 2), load<f32>(step, 4), load<f32>(lo, 4)));
      const d2 = clampGap(load<f32>(q, 8), decodeBox(load<u16>(box, 4), load<f32>(step, 8), load<f32>(lo, 8)), decodeBox(load<u16>(hiCodes, 4), load<f32>(step, 8), load<f32>(lo, 8)));
      const d3 = clampGap(load<f32>(q, 12), decodeBox(load<u16>(box, 6), load<f32>(step, 12), load<f32>(lo, 12)), decodeBox(load<u16>(hiCodes, 6), load<f32>(step, 12), load<f32>(lo, 12)));
      l0 += d0 * d0;
      l1 += d1 * d1;
      l2 += d2 * d2;
      l3 += d3 * d3;
      q += 16;
      box += 8;
      hiCodes += 8;
      step += 16;
      lo += 16;
    }
    return (l0 + l2) + (l1 + l3);
  }
}
