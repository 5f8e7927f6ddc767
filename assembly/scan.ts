// Linear scans: brute force, early exit and box pruning, all over a list of frame ranges.
//
// Visiting rows in increasing frame order and accepting only a strictly lower cost gives the
// tie-break rule (lowest frame wins) for free, and lets "initial best" be a plain bestCost:
// nothing is returned unless it beats it.

import {
  CTX_FEAT, CTX_STRIDE, CTX_MASK, CTX_TAGS,
  CTX_COARSE_BOUNDS, CTX_FINE_BOUNDS, CTX_COARSE_INFO, CTX_FINE_INFO,
  REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_COARSE, REQ_BIAS_FINE,
  COARSE_SHIFT, FINE_SHIFT, BLOCK_COUNT, BLOCK_TAG_OR, BLOCK_TAG_AND, BLOCK_INFO_SIZE,
} from './layout';
import { sqDist, sqDistPair, sqDist4, sqDistBounded, boxBound, noLane } from './row';

/** True when a frame with tag bits `t` passes the request's tag filter. */
// @ts-ignore: decorator
@inline
export function tagsPass(t: u32, require: u32, exclude: u32): bool {
  return (t & require) == require && (t & exclude) == 0;
}

/** True when frame i is a candidate and passes the tag filter. */
// @ts-ignore: decorator
@inline
export function rowAllowed(i: i32, mask: usize, tags: usize, require: u32, exclude: u32): bool {
  if (load<u8>(mask + <usize>i) == 0) return false;
  return (require | exclude) == 0 || tagsPass(load<u32>(tags + (<usize>i << 2)), require, exclude);
}

/** Writes a result record. */
// @ts-ignore: decorator
@inline
export function writeResult(out: usize, index: i32, cost: f32): i32 {
  store<i32>(out, index);
  store<f32>(out, cost, 4);
  return index;
}

/** Cost of frame i given its squared distance: adds the bias when there is one. */
// @ts-ignore: decorator
@inline
export function withBias(d: f32, bias: usize, i: i32): f32 {
  return bias ? d + load<f32>(bias + (<usize>i << 2)) : d;
}

// The row scan's running best (module globals: each WebAssembly instance, hence each pool worker,
// has its own), shared by the brute force and the box pruning's surviving blocks.
let scanBest: f32 = 0;
let scanBestIdx: i32 = -1;

/**
 * Rows [i, e) in frame order into (scanBest, scanBestIdx): a row replaces the best only with a
 * strictly lower cost, so the lowest frame wins ties. The SIMD build costs four rows per pass
 * (sharing the query loads; their four costs compared with the best in one instruction, and the
 * rare pass where one may win goes through its rows in order), then two, then one; each row's cost
 * is summed exactly as sqDist does. The cheap "beats best" test runs before the candidate / tag
 * test, which only matters for the rare winners.
 *
 * Not inlined: the brute force and the box pruning's surviving blocks share one copy (a call per
 * block of 16 rows costs the box pruning nothing measurable).
 */
function scanRows(q: usize, feat: usize, i: i32, e: i32, stride: i32, bias: usize, mask: usize, tags: usize, require: u32, exclude: u32): void {
  const rowBytes = <usize>stride << 2;
  let r = feat + <usize>i * rowBytes;
  let best = scanBest;
  if (ASC_FEATURE_SIMD) {
    let bestV = f32x4.splat(best);
    for (; i + 3 < e; i += 4, r += rowBytes << 2) {
      let c4 = sqDist4(q, r, rowBytes, stride);
      if (bias) c4 = f32x4.add(c4, v128.load(bias + (<usize>i << 2))); // = withBias, lane by lane
      if (noLane(f32x4.lt(c4, bestV))) continue;
      let c = f32x4.extract_lane(c4, 0);
      if (c < best && rowAllowed(i, mask, tags, require, exclude)) {
        best = c;
        scanBestIdx = i;
      }
      c = f32x4.extract_lane(c4, 1);
      if (c < best && rowAllowed(i + 1, mask, tags, require, exclude)) {
        best = c;
        scanBestIdx = i + 1;
      }
      c = f32x4.extract_lane(c4, 2);
      if (c < best && rowAllowed(i + 2, mask, tags, require, exclude)) {
        best = c;
        scanBestIdx = i + 2;
      }
      c = f32x4.extract_lane(c4, 3);
      if (c < best && rowAllowed(i + 3, mask, tags, require, exclude)) {
        best = c;
        scanBestIdx = i + 3;
      }
      bestV = f32x4.splat(best);
    }
    for (; i + 1 < e; i += 2, r += rowBytes << 1) {
      const pair = sqDistPair(q, r, r + rowBytes, stride);
      const c0 = withBias(f32x4.extract_lane(pair, 0), bias, i);
      const c1 = withBias(f32x4.extract_lane(pair, 1), bias, i + 1);
      if (c0 < best && rowAllowed(i, mask, tags, require, exclude)) {
        best = c0;
        scanBestIdx = i;
      }
      if (c1 < best && rowAllowed(i + 1, mask, tags, require, exclude)) {
        best = c1;
        scanBestIdx = i + 1;
      }
    }
  }
  for (; i < e; i++, r += rowBytes) {
    const c = withBias(sqDist(q, r, stride), bias, i);
    if (c < best && rowAllowed(i, mask, tags, require, exclude)) {
      best = c;
      scanBestIdx = i;
    }
  }
  scanBest = best;
}

/** Brute force over `ranges`: every row, in frame order (scanRows). */
export function bruteSearch(ctx: usize, req: usize, ranges: usize, rangeCount: i32, q: usize, best: f32, out: usize): i32 {
  const feat = load<usize>(ctx, CTX_FEAT);
  const stride = load<i32>(ctx, CTX_STRIDE);
  const mask = load<usize>(ctx, CTX_MASK);
  const tags = load<usize>(ctx, CTX_TAGS);
  const require = load<u32>(req, REQ_REQUIRE);
  const exclude = load<u32>(req, REQ_EXCLUDE);
  const bias = load<usize>(req, REQ_BIAS);
  scanBest = best;
  scanBestIdx = -1;
  for (let k = 0; k < rangeCount; k++) {
    scanRows(q, feat, load<i32>(ranges + (<usize>k << 3)), load<i32>(ranges + (<usize>k << 3), 4), stride, bias, mask, tags, require, exclude);
  }
  return writeResult(out, scanBestIdx, scanBest);
}

/** Early exit over `ranges`: same index and cost as bruteSearch, abandoning rows half-way when they cannot win. */
export function earlySearch(ctx: usize, req: usize, ranges: usize, rangeCount: i32, q: usize, best: f32, out: usize): i32 {
  const feat = load<usize>(ctx, CTX_FEAT);
  const stride = load<i32>(ctx, CTX_STRIDE);
  const mask = load<usize>(ctx, CTX_MASK);
  const tags = load<usize>(ctx, CTX_TAGS);
  const require = load<u32>(req, REQ_REQUIRE);
  const exclude = load<u32>(req, REQ_EXCLUDE);
  const bias = load<usize>(req, REQ_BIAS);
  const rowBytes = <usize>stride << 2;
  let bestIdx = -1;
  for (let k = 0; k < rangeCount; k++) {
    const e = load<i32>(ranges + (<usize>k << 3), 4);
    let i = load<i32>(ranges + (<usize>k << 3));
    let r = feat + <usize>i * rowBytes;
    for (; i < e; i++, r += rowBytes) {
      if (!rowAllowed(i, mask, tags, require, exclude)) continue;
      const b: f32 = bias ? load<f32>(bias + (<usize>i << 2)) : 0;
      const c = sqDistBounded(q, r, stride, b, best);
      if (c < best) {
        best = c;
        bestIdx = i;
      }
    }
  }
  return writeResult(out, bestIdx, best);
}

/**
 * Box pruning: blocks of 64 frames, then blocks of 16, are skipped when their lower bound
 * (boxBound + the block's minimum bias) is >= the best cost so far; surviving rows are costed in full
 * (early exit does not pay for short rows: see row.ts).
 * Bounds cover a block's candidate rows only, which is all a search may return.
 */
export function aabbSearch(ctx: usize, req: usize, ranges: usize, rangeCount: i32, q: usize, best: f32, out: usize): i32 {
  const feat = load<usize>(ctx, CTX_FEAT);
  const stride = load<i32>(ctx, CTX_STRIDE);
  const mask = load<usize>(ctx, CTX_MASK);
  const tags = load<usize>(ctx, CTX_TAGS);
  const coarseBounds = load<usize>(ctx, CTX_COARSE_BOUNDS);
  const fineBounds = load<usize>(ctx, CTX_FINE_BOUNDS);
  const coarseInfo = load<usize>(ctx, CTX_COARSE_INFO);
  const fineInfo = load<usize>(ctx, CTX_FINE_INFO);
  const require = load<u32>(req, REQ_REQUIRE);
  const exclude = load<u32>(req, REQ_EXCLUDE);
  const bias = load<usize>(req, REQ_BIAS);
  const coarseBias = load<usize>(req, REQ_BIAS_COARSE);
  const fineBias = load<usize>(req, REQ_BIAS_FINE);
  const rowBytes = <usize>stride << 2;
  const boxBytes = rowBytes << 1;
  scanBestIdx = -1;
  for (let k = 0; k < rangeCount; k++) {
    const s = load<i32>(ranges + (<usize>k << 3));
    const e = load<i32>(ranges + (<usize>k << 3), 4);
    if (s >= e) continue;
    const cLast = (e - 1) >> COARSE_SHIFT;
    for (let c = s >> COARSE_SHIFT; c <= cLast; c++) {
      if (!blockMayMatch(coarseInfo + <usize>c * BLOCK_INFO_SIZE, require, exclude)) continue;
      const cBox = coarseBounds + <usize>c * boxBytes;
      let cBound = boxBound(q, cBox, cBox + rowBytes, stride);
      if (bias) cBound += load<f32>(coarseBias + (<usize>c << 2));
      if (cBound >= best) continue;
      const cs = max(s, c << COARSE_SHIFT);
      const ce = min(e, (c + 1) << COARSE_SHIFT);
      const fLast = (ce - 1) >> FINE_SHIFT;
      for (let f = cs >> FINE_SHIFT; f <= fLast; f++) {
        if (!blockMayMatch(fineInfo + <usize>f * BLOCK_INFO_SIZE, require, exclude)) continue;
        const fBox = fineBounds + <usize>f * boxBytes;
        let fBound = boxBound(q, fBox, fBox + rowBytes, stride);
        if (bias) fBound += load<f32>(fineBias + (<usize>f << 2));
        if (fBound >= best) continue;
        scanBest = best;
        scanRows(q, feat, max(cs, f << FINE_SHIFT), min(ce, (f + 1) << FINE_SHIFT), stride, bias, mask, tags, require, exclude);
        best = scanBest;
      }
    }
  }
  return writeResult(out, scanBestIdx, best);
}

/** False when no candidate row of the block can pass the tag filter. */
// @ts-ignore: decorator
@inline
function blockMayMatch(info: usize, require: u32, exclude: u32): bool {
  if (load<i32>(info, BLOCK_COUNT) == 0) return false;
  // A row carries every required bit only if the block's OR does; every row carries the AND.
  return (load<u32>(info, BLOCK_TAG_OR) & require) == require && (load<u32>(info, BLOCK_TAG_AND) & exclude) == 0;
}

/** The first allowed frame (candidate, passes the tag filter) inside `ranges`, or -1. */
export function firstAllowed(ctx: usize, req: usize, ranges: usize, rangeCount: i32): i32 {
  const mask = load<usize>(ctx, CTX_MASK);
  const tags = load<usize>(ctx, CTX_TAGS);
  const require = load<u32>(req, REQ_REQUIRE);
  const exclude = load<u32>(req, REQ_EXCLUDE);
  for (let k = 0; k < rangeCount; k++) {
    const e = load<i32>(ranges + (<usize>k << 3), 4);
    for (let i = load<i32>(ranges + (<usize>k << 3)); i < e; i++) {
      if (rowAllowed(i, mask, tags, require, exclude)) return i;
    }
  }
  return -1;
}

/** out[b] = min of bias over frames [b << shift, (b + 1) << shift) ∩ [0, rows). */
export function blockMinBias(bias: usize, rows: i32, shift: i32, out: usize): void {
  const blocks = (rows + (1 << shift) - 1) >> shift;
  for (let b = 0; b < blocks; b++) {
    const s = b << shift;
    const e = min(rows, s + (1 << shift));
    let m: f32 = Infinity;
    for (let i = s; i < e; i++) m = min(m, load<f32>(bias + (<usize>i << 2)));
    store<f32>(out + (<usize>b << 2), m);
  }
}
