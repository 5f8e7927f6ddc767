// Scans over compact rows in frame order: brute force over the 8-bit and the half-precision copies,
// and box pruning with 16-bit boxes over the 8-bit copy.
//
// Every row gets a certified lower bound of its exact cost from its compact form (bounds.ts); a row
// whose bound proves that its float32 cost cannot beat the best so far is skipped, every other row
// is re-scored with sqDist on its float32 row, exactly as bruteSearch costs it. Rows are visited in
// frame order and only a strictly lower float32 cost is accepted, so index, cost and tie rule are
// bruteSearch's. Two tests per row: a vector test against the largest error bound of all rows
// (one compare per row in the hot loop), then, for the few rows that pass it, the row's own error
// bound.
//
// The state of the scan in progress lives in module globals (each WebAssembly instance, hence each
// pool worker, has its own): the hot loops keep the threshold in a local and reload it when a row
// improved the best.

import {
  CTX_FEAT, CTX_STRIDE, CTX_MASK, CTX_TAGS, CTX_U8, CTX_U8_PARAMS, CTX_U8_ROW_BYTES, CTX_F16, CTX_F16_ROW_BYTES,
  CTX_F16_EMAX, CTX_COARSE_BOX16, CTX_FINE_BOX16, CTX_COARSE_INFO, CTX_FINE_INFO,
  REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_MIN, REQ_QCODE, REQ_BIAS_COARSE, REQ_BIAS_FINE,
  REQ_STAT_BOUNDED, REQ_STAT_RESCORED, REQ_STAT_GROUPS,
  U8P_INV_U, U8P_EMAX, U8P_CHUNKS, U8P_W,
  COARSE_SHIFT, FINE_SHIFT, BLOCK_COUNT, BLOCK_TAG_OR, BLOCK_TAG_AND, BLOCK_INFO_SIZE,
} from './layout';
import { sqDist, noLane, SHORT_STRIDE } from './row';
import { rowAllowed, withBias, writeResult } from './scan';
import { costLimit, limitRadius, codeThreshold, sphereThreshold } from './bounds';
import { encodeQueryU8, codeDistance, codeDistances4, halfDistanceBounded, halfDistances4Short, box16Bound } from './compact';

// The scan in progress (set by beginScan).
let gFeat: usize = 0;
let gStride: i32 = 0;
let gRowBytes: usize = 0;
let gMask: usize = 0;
let gTags: usize = 0;
let gRequire: u32 = 0;
let gExclude: u32 = 0;
let gBias: usize = 0;
let gMinBias: f32 = 0;
let gQuery: usize = 0;
let gBest: f32 = 0;
let gBestIdx: i32 = -1;
let gRescored: i32 = 0;
/** limitRadius of the current best (Euclidean units), and in code units for 8-bit rows. */
let gRadius: f64 = 0;
// 8-bit rows
let gRows8: usize = 0;
let gRowBytes8: usize = 0;
let gQcode: usize = 0;
let gW: usize = 0;
let gChunks: i32 = 0;
let gInvU: f64 = 0;
let gRho: f64 = 0;
let gEmax: f64 = 0;
let gT8: i32 = 0;
// half-precision rows
let gRows16: usize = 0;
let gRowBytes16: usize = 0;
let gT16: f32 = 0;

function beginScan(ctx: usize, req: usize, q: usize, best: f32): void {
  gFeat = load<usize>(ctx, CTX_FEAT);
  gStride = load<i32>(ctx, CTX_STRIDE);
  gRowBytes = <usize>gStride << 2;
  gMask = load<usize>(ctx, CTX_MASK);
  gTags = load<usize>(ctx, CTX_TAGS);
  gRequire = load<u32>(req, REQ_REQUIRE);
  gExclude = load<u32>(req, REQ_EXCLUDE);
  gBias = load<usize>(req, REQ_BIAS);
  gMinBias = gBias ? load<f32>(req, REQ_BIAS_MIN) : 0;
  gQuery = q;
  gBest = best;
  gBestIdx = -1;
  gRescored = 0;
  gRadius = limitRadius(costLimit(best, gMinBias, false), gStride);
}

function beginU8(ctx: usize, req: usize): void {
  const p = load<usize>(ctx, CTX_U8_PARAMS);
  gRows8 = load<usize>(ctx, CTX_U8);
  gRowBytes8 = <usize>load<i32>(ctx, CTX_U8_ROW_BYTES);
  gQcode = load<usize>(req, REQ_QCODE);
  gW = load<usize>(p, U8P_W);
  gChunks = load<i32>(p, U8P_CHUNKS);
  gInvU = load<f64>(p, U8P_INV_U);
  gEmax = load<f64>(p, U8P_EMAX);
  gRho = encodeQueryU8(ctx, gQuery, gQcode);
  gT8 = codeThreshold(gRho + gEmax, gRadius * gInvU);
}

function endScan(req: usize, bounded: i32, groups: i32, out: usize): i32 {
  store<f64>(req, load<f64>(req, REQ_STAT_BOUNDED) + <f64>bounded, REQ_STAT_BOUNDED);
  store<f64>(req, load<f64>(req, REQ_STAT_RESCORED) + <f64>gRescored, REQ_STAT_RESCORED);
  store<f64>(req, load<f64>(req, REQ_STAT_GROUPS) + <f64>groups, REQ_STAT_GROUPS);
  return writeResult(out, gBestIdx, gBest);
}

/** Re-scores frame i in float32 (it is allowed); true when it became the best. */
// @ts-ignore: decorator
@inline
function rescore(i: i32): bool {
  gRescored++;
  const c = withBias(sqDist(gQuery, gFeat + <usize>i * gRowBytes, gStride), gBias, i);
  if (c < gBest) {
    gBest = c;
    gBestIdx = i;
    gRadius = limitRadius(costLimit(c, gMinBias, false), gStride);
    return true;
  }
  return false;
}

/**
 * Frame i's 8-bit row passed the vector test (code distance k below gT8): checks its own error
 * bound and the filters, re-scores it. True when the best improved (gT8 changed).
 */
function u8Candidate(i: i32, k: i32): bool {
  const r = gRows8 + <usize>i * gRowBytes8;
  const e = <f64>load<f32>(r + <usize>gStride);
  if (k >= codeThreshold(gRho + e, gRadius * gInvU)) return false;
  if (!rowAllowed(i, gMask, gTags, gRequire, gExclude)) return false;
  if (!rescore(i)) return false;
  gT8 = codeThreshold(gRho + gEmax, gRadius * gInvU);
  return true;
}

/** Frames [s, e) over the 8-bit copy (frame order). */
function scanU8(s: i32, e: i32): void {
  let i = s;
  let t = gT8;
  if (ASC_FEATURE_SIMD) {
    // Rows of 2 chunks (up to 28 floats): query codes and multipliers stay in registers, four rows per step.
    if (gChunks == 2) {
    const q0 = v128.load(gQcode), q1 = v128.load(gQcode, 16), q2 = v128.load(gQcode, 32), q3 = v128.load(gQcode, 48);
    const w0 = v128.load(gW), w1 = v128.load(gW, 16);
    let r = gRows8 + <usize>i * gRowBytes8;
    for (; i + 3 < e; i += 4, r += 128) {
      const tv = i32x4.splat(t);
      const kv = codeDistances4(r, q0, q1, q2, q3, w0, w1, tv);
      if (noLane(i32x4.lt_s(kv, tv))) continue;
      // In frame order, re-testing each row against the threshold as it tightens.
      let k = i32x4.extract_lane(kv, 0);
      if (k < t && u8Candidate(i, k)) t = gT8;
      k = i32x4.extract_lane(kv, 1);
      if (k < t && u8Candidate(i + 1, k)) t = gT8;
      k = i32x4.extract_lane(kv, 2);
      if (k < t && u8Candidate(i + 2, k)) t = gT8;
      k = i32x4.extract_lane(kv, 3);
      if (k < t && u8Candidate(i + 3, k)) t = gT8;
    }
    }
  }
  for (; i < e; i++) {
    const k = codeDistance(gRows8 + <usize>i * gRowBytes8, gQcode, gW, gChunks);
    if (k < t && u8Candidate(i, k)) t = gT8;
  }
}

/** Brute force over the 8-bit copy: same result as bruteSearch. */
export function bruteU8Search(ctx: usize, req: usize, ranges: usize, rangeCount: i32, q: usize, best: f32, out: usize): i32 {
  beginScan(ctx, req, q, best);
  beginU8(ctx, req);
  let bounded = 0;
  for (let k = 0; k < rangeCount; k++) {
    const s = load<i32>(ranges + (<usize>k << 3));
    const e = load<i32>(ranges + (<usize>k << 3), 4);
    scanU8(s, e);
    bounded += e - s;
  }
  return endScan(req, bounded, 0, out);
}

/** Frame i's half-precision row passed the vector test: its own error bound, filters, re-scoring. */
function f16Candidate(i: i32, d: f32): bool {
  const e = <f64>load<f32>(gRows16 + <usize>i * gRowBytes16 + (<usize>gStride << 1));
  if (d >= sphereThreshold(e, gRadius, gStride)) return false;
  if (!rowAllowed(i, gMask, gTags, gRequire, gExclude)) return false;
  if (!rescore(i)) return false;
  return true;
}

/** Brute force over the half-precision copy: same result as bruteSearch. */
export function bruteF16Search(ctx: usize, req: usize, ranges: usize, rangeCount: i32, q: usize, best: f32, out: usize): i32 {
  beginScan(ctx, req, q, best);
  gRows16 = load<usize>(ctx, CTX_F16);
  gRowBytes16 = <usize>load<i32>(ctx, CTX_F16_ROW_BYTES);
  const eMax = <f64>load<f32>(ctx, CTX_F16_EMAX);
  let t = sphereThreshold(eMax, gRadius, gStride);
  let bounded = 0;
  for (let k = 0; k < rangeCount; k++) {
    const s = load<i32>(ranges + (<usize>k << 3));
    const e = load<i32>(ranges + (<usize>k << 3), 4);
    let i = s;
    let r = gRows16 + <usize>s * gRowBytes16;
    if (ASC_FEATURE_SIMD && gStride <= SHORT_STRIDE) {
      // Four rows per step, one vector test; the rows that pass go in frame order, each re-tested
      // against the threshold as it tightens (a NaN threshold fails every >= test: nothing skipped).
      const chunks = gStride >> 2;
      for (; i + 3 < e; i += 4, r += gRowBytes16 << 2) {
        const dv = halfDistances4Short(q, r, gRowBytes16, chunks);
        if (i32x4.bitmask(f32x4.ge(dv, f32x4.splat(t))) == 15) continue;
        let d = f32x4.extract_lane(dv, 0);
        if (!(d >= t) && f16Candidate(i, d)) t = sphereThreshold(eMax, gRadius, gStride);
        d = f32x4.extract_lane(dv, 1);
        if (!(d >= t) && f16Candidate(i + 1, d)) t = sphereThreshold(eMax, gRadius, gStride);
        d = f32x4.extract_lane(dv, 2);
        if (!(d >= t) && f16Candidate(i + 2, d)) t = sphereThreshold(eMax, gRadius, gStride);
        d = f32x4.extract_lane(dv, 3);
        if (!(d >= t) && f16Candidate(i + 3, d)) t = sphereThreshold(eMax, gRadius, gStride);
      }
    }
    for (; i < e; i++, r += gRowBytes16) {
      // A partial sum at or above t already decides; NaN threshold: nothing may be skipped (see sphereThreshold).
      const d = halfDistanceBounded(q, r, gStride, t);
      if (!(d >= t) && f16Candidate(i, d)) t = sphereThreshold(eMax, gRadius, gStride);
    }
    bounded += e - s;
  }
  return endScan(req, bounded, 0, out);
}

/** False when no candidate row of the block can pass the tag filter. */
// @ts-ignore: decorator
@inline
function blockMayMatch(info: usize, require: u32, exclude: u32): bool {
  if (load<i32>(info, BLOCK_COUNT) == 0) return false;
  return (load<u32>(info, BLOCK_TAG_OR) & require) == require && (load<u32>(info, BLOCK_TAG_AND) & exclude) == 0;
}

/**
 * Box pruning with 16-bit boxes (blocks of 64, then 16 frames) over the 8-bit copy: aabbSearch's
 * visit order and skip rule (a block whose bound plus minimum bias is >= the best), surviving rows
 * through the 8-bit scan.
 */
export function aabbU8Search(ctx: usize, req: usize, ranges: usize, rangeCount: i32, q: usize, best: f32, out: usize): i32 {
  beginScan(ctx, req, q, best);
  beginU8(ctx, req);
  const coarseBoxes = load<usize>(ctx, CTX_COARSE_BOX16);
  const fineBoxes = load<usize>(ctx, CTX_FINE_BOX16);
  const coarseInfo = load<usize>(ctx, CTX_COARSE_INFO);
  const fineInfo = load<usize>(ctx, CTX_FINE_INFO);
  const coarseBias = load<usize>(req, REQ_BIAS_COARSE);
  const fineBias = load<usize>(req, REQ_BIAS_FINE);
  const stride = gStride;
  const boxBytes = <usize>stride << 2;
  let bounded = 0;
  let blocks = 0;
  for (let k = 0; k < rangeCount; k++) {
    const s = load<i32>(ranges + (<usize>k << 3));
    const e = load<i32>(ranges + (<usize>k << 3), 4);
    if (s >= e) continue;
    const cLast = (e - 1) >> COARSE_SHIFT;
    for (let c = s >> COARSE_SHIFT; c <= cLast; c++) {
      if (!blockMayMatch(coarseInfo + <usize>c * BLOCK_INFO_SIZE, gRequire, gExclude)) continue;
      let cBound = box16Bound(ctx, q, coarseBoxes + <usize>c * boxBytes, stride);
      if (gBias) cBound += load<f32>(coarseBias + (<usize>c << 2));
      if (cBound >= gBest) continue;
      const cs = max(s, c << COARSE_SHIFT);
      const ce = min(e, (c + 1) << COARSE_SHIFT);
      const fLast = (ce - 1) >> FINE_SHIFT;
      for (let f = cs >> FINE_SHIFT; f <= fLast; f++) {
        if (!blockMayMatch(fineInfo + <usize>f * BLOCK_INFO_SIZE, gRequire, gExclude)) continue;
        let fBound = box16Bound(ctx, q, fineBoxes + <usize>f * boxBytes, stride);
        if (gBias) fBound += load<f32>(fineBias + (<usize>f << 2));
        if (fBound >= gBest) continue;
        const fs = max(cs, f << FINE_SHIFT);
        const fe = min(ce, (f + 1) << FINE_SHIFT);
        scanU8(fs, fe);
        bounded += fe - fs;
        blocks++;
      }
    }
  }
  return endScan(req, bounded, blocks, out);
}
