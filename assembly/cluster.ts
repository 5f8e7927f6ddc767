// Clustered coarse-to-fine search (the index is built by src/search/indexes/cluster.ts): k-means
// clusters of the candidate rows, each with its centre, a certified radius (>= the exact distance
// of every member to the centre) and its rows sorted by their distance to the centre.
//
// Exact mode: the float32 distance of the query to every centre; the nearest cluster is searched
// first, then the others in order of centre distance (a binary heap in the slot's scratch), each
// skipped when (centre distance - radius) proves every member beyond the best, and the walk stops
// once that holds for the largest radius. Inside a cluster only the rows whose distance to the
// centre lies within the best distance of the query's (the annulus |d(q,c) - d(x,c)| < radius, from
// the triangle inequality) are looked at; they are costed in float32 (method 'cluster') or bounded
// through their 8-bit rows and re-scored (method 'cluster-u8'). Every skip rests on bounds.ts, so the
// result is the brute force's, with kdSearch's (cost, frame) tie rule.
//
// Approximate mode (probes > 0): the `probes` clusters nearest to the query, searched exactly; when
// none of them holds an allowed frame that beats the best cost, the walk goes on in the same order
// (with pruning) until one does, so "nothing found" is never an approximation.

import {
  CTX_STRIDE, CTX_ROWS, CTX_TAGS, CTX_FEAT, CTX_CLUSTERS, CTX_U8_PARAMS, CTX_U8_ROW_BYTES, CTX_F16_ROW_BYTES,
  REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_MIN, REQ_PROBES, REQ_QCODE, REQ_SCRATCH,
  REQ_STAT_BOUNDED, REQ_STAT_RESCORED, REQ_STAT_GROUPS,
  CL_COUNT, CL_CENTRES, CL_RADIUS, CL_RADIUS_MAX, CL_INFO, CL_ORIG, CL_ROW_RADIUS, CL_U8, CL_F32, CL_BOX16,
  CL_SUB_CENTRES, CL_SUB_RADIUS, CL_SUB_INFO,
  CLUSTER_START, CLUSTER_COUNT, CLUSTER_TAG_OR, CLUSTER_TAG_AND, CLUSTER_INFO_SIZE,
  U8P_INV_U, U8P_EMAX, U8P_CHUNKS, U8P_W,
} from './layout';
import { sqDist, sqDistPair, transposeSum4, noLane } from './row';
import { withBias, writeResult } from './scan';
import { wins, leafRowAllowed } from './kdtree';
import { costLimit, limitRadius, codeThreshold, sphereSkips, distanceLow, distanceHigh, MARGIN_DOWN, ROW_RADIUS_SLACK } from './bounds';
import { encodeQueryU8, codeDistance, chunkK, box16Bound, halfDistance } from './compact';

// The search in progress (module globals: each instance, hence each pool worker, has its own).
let gCtx: usize = 0;
let gBoxes: usize = 0;
let gStride: i32 = 0;
let gRowBytes: usize = 0;
let gQuery: usize = 0;
let gFeat: usize = 0;
let gInfo: usize = 0;
let gRadii: usize = 0;
let gSubCentres: usize = 0;
let gRowBytes16: usize = 0;
let gSubRadii: usize = 0;
let gSubInfo: usize = 0;
/** The sub-cluster list of the cluster being visited (after the cluster heap in the scratch). */
let gSubList: usize = 0;
let gOrig: usize = 0;
let gRowR: usize = 0;
let gRowsU8: usize = 0;
let gRowsF32: usize = 0;
let gTags: usize = 0;
let gRequire: u32 = 0;
let gExclude: u32 = 0;
let gFilterTags: bool = false;
let gRanges: usize = 0;
let gRangeCount: i32 = 0;
let gAllFrames: bool = true;
let gBias: usize = 0;
let gMinBias: f32 = 0;
let gBest: f32 = 0;
let gBestIdx: i32 = -1;
/** limitRadius of the best (strict), Euclidean units; -1: nothing can beat it any more. */
let gRadius: f64 = 0;
// 8-bit rows
let gQcode: usize = 0;
let gW: usize = 0;
let gChunks: i32 = 0;
let gRowBytes8: usize = 0;
let gInvU: f64 = 0;
let gRho: f64 = 0;
let gEmax: f64 = 0;
let gT8: i32 = 0;
/** SIMD build with 8-bit rows of two chunks: code distances four rows at a time. */
let gFast: bool = false;
// statistics
let gBounded: i32 = 0;
let gRescored: i32 = 0;
let gGroups: i32 = 0;

// @ts-ignore: decorator
@inline
function keyOf(scratch: usize, i: i32): f32 {
  return load<f32>(scratch + (<usize>i << 3));
}

// @ts-ignore: decorator
@inline
function idOf(scratch: usize, i: i32): i32 {
  return load<i32>(scratch + (<usize>i << 3), 4);
}

/** Entry a comes before entry b: smaller centre distance, then lower cluster index. */
// @ts-ignore: decorator
@inline
function before(ka: f32, ia: i32, kb: f32, ib: i32): bool {
  return ka < kb || (ka == kb && ia < ib);
}

/** Restores the min-heap property below position i of the n entries at scratch. */
function siftDown(scratch: usize, n: i32, i: i32): void {
  const k = keyOf(scratch, i);
  const id = idOf(scratch, i);
  for (;;) {
    let c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && before(keyOf(scratch, c + 1), idOf(scratch, c + 1), keyOf(scratch, c), idOf(scratch, c))) c++;
    if (!before(keyOf(scratch, c), idOf(scratch, c), k, id)) break;
    store<f32>(scratch + (<usize>i << 3), keyOf(scratch, c));
    store<i32>(scratch + (<usize>i << 3), idOf(scratch, c), 4);
    i = c;
  }
  store<f32>(scratch + (<usize>i << 3), k);
  store<i32>(scratch + (<usize>i << 3), id, 4);
}

function heapify(scratch: usize, n: i32): void {
  for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(scratch, n, i);
}

/** Removes the first entry of the heap of n (n > 0) into position n - 1 and restores the heap. */
function popTo(scratch: usize, n: i32): void {
  const last = n - 1;
  const k = keyOf(scratch, 0);
  const id = idOf(scratch, 0);
  store<f32>(scratch, keyOf(scratch, last));
  store<i32>(scratch, idOf(scratch, last), 4);
  store<f32>(scratch + (<usize>last << 3), k);
  store<i32>(scratch + (<usize>last << 3), id, 4);
  if (last > 1) siftDown(scratch, last, 0);
}

/** The best improved to (c, f): the limits follow. */
function improve(c: f32, f: i32): void {
  gBest = c;
  gBestIdx = f;
  gRadius = limitRadius(costLimit(c, gMinBias, true), gStride);
  if (gRowsU8) gT8 = codeThreshold(gRho + gEmax, gRadius * gInvU);
}

/** True when cluster c (float32 centre distance d) cannot hold a row that beats the best. */
// @ts-ignore: decorator
@inline
function clusterSkips(c: i32, d: f32): bool {
  return sphereSkips(d, <f64>load<f32>(gRadii + (<usize>c << 2)), gRadius, gStride);
}

/** The first row of [start, end) whose stored distance to its centre is >= key (rows are sorted by it). */
function firstRowFrom(start: i32, end: i32, key: f64): i32 {
  let lo = start;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (<f64>load<f32>(gRowR + (<usize>mid << 2)) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A row whose 8-bit code distance k passed the vector test: its own bound, filters, re-scoring. */
function u8Row(j: i32, k: i32): void {
  const r = gRowsU8 + <usize>j * gRowBytes8;
  if (k >= codeThreshold(gRho + <f64>load<f32>(r + <usize>gStride), gRadius * gInvU)) return;
  const f = load<i32>(gOrig + (<usize>j << 2));
  if (!leafRowAllowed(f, gTags, gRequire, gExclude, gFilterTags, gRanges, gRangeCount, gAllFrames)) return;
  gRescored++;
  const cost = withBias(sqDist(gQuery, gFeat + <usize>f * gRowBytes, gStride), gBias, f);
  if (wins(cost, f, gBest, gBestIdx)) improve(cost, f);
}

/** A row of the float32 copy. */
function f32Row(j: i32): void {
  let cost = sqDist(gQuery, gRowsF32 + <usize>j * gRowBytes, gStride);
  // The frame is needed only for a bias or a cost that may win.
  if (!gBias && cost > gBest) return;
  const f = load<i32>(gOrig + (<usize>j << 2));
  cost = withBias(cost, gBias, f);
  if (!wins(cost, f, gBest, gBestIdx)) return;
  if (!leafRowAllowed(f, gTags, gRequire, gExclude, gFilterTags, gRanges, gRangeCount, gAllFrames)) return;
  improve(cost, f);
}

/** One row through the copy in use; false once nothing can beat the best any more. */
// @ts-ignore: decorator
@inline
function oneRow(j: i32): bool {
  if (gRowsU8) {
    const k = codeDistance(gRowsU8 + <usize>j * gRowBytes8, gQcode, gW, gChunks);
    if (k < gT8) u8Row(j, k);
  } else {
    f32Row(j);
  }
  return gRadius >= 0;
}

/**
 * Rows a, a + step, a + 2 step, a + 3 step (step +-1) of the 8-bit copy, their code distances four at
 * a time (SIMD build, rows of two chunks). False once nothing can beat the best.
 */
function fourRowsU8(a: i32, step: i32): bool {
  const lo = step > 0 ? a : a - 3;
  const r = gRowsU8 + <usize>lo * gRowBytes8;
  const rb = gRowBytes8;
  const q0 = v128.load(gQcode), q1 = v128.load(gQcode, 16), q2 = v128.load(gQcode, 32), q3 = v128.load(gQcode, 48);
  const w0 = v128.load(gW), w1 = v128.load(gW, 16);
  // The first chunk holds the widest dimensions: its partial sums (<= K) often settle all four rows.
  const tv = i32x4.splat(gT8);
  const c0 = chunkK(r, q0, q1, w0), c1 = chunkK(r + rb, q0, q1, w0), c2 = chunkK(r + 2 * rb, q0, q1, w0), c3 = chunkK(r + 3 * rb, q0, q1, w0);
  if (noLane(i32x4.lt_s(transposeSum4<i32>(c0, c1, c2, c3), tv))) return true;
  const kv = transposeSum4<i32>(
    i32x4.add(c0, chunkK(r + 16, q2, q3, w1)), i32x4.add(c1, chunkK(r + rb + 16, q2, q3, w1)),
    i32x4.add(c2, chunkK(r + 2 * rb + 16, q2, q3, w1)), i32x4.add(c3, chunkK(r + 3 * rb + 16, q2, q3, w1)));
  if (noLane(i32x4.lt_s(kv, tv))) return true;
  // Lanes in visiting order (rows lo .. lo + 3 going up, lo + 3 .. lo going down).
  const k0 = i32x4.extract_lane(kv, 0), k1 = i32x4.extract_lane(kv, 1), k2 = i32x4.extract_lane(kv, 2), k3 = i32x4.extract_lane(kv, 3);
  if (step > 0) {
    if (k0 < gT8) u8Row(lo, k0);
    if (gRadius >= 0 && k1 < gT8) u8Row(lo + 1, k1);
    if (gRadius >= 0 && k2 < gT8) u8Row(lo + 2, k2);
    if (gRadius >= 0 && k3 < gT8) u8Row(lo + 3, k3);
  } else {
    if (k3 < gT8) u8Row(lo + 3, k3);
    if (gRadius >= 0 && k2 < gT8) u8Row(lo + 2, k2);
    if (gRadius >= 0 && k1 < gT8) u8Row(lo + 1, k1);
    if (gRadius >= 0 && k0 < gT8) u8Row(lo, k0);
  }
  return gRadius >= 0;
}

/**
 * A group of up to four rows from j in direction step (+1: up to `limit` exclusive, -1: down to
 * `limit` inclusive). Returns how many rows it took, or -1 once nothing can beat the best.
 */
function group(j: i32, step: i32, limit: i32): i32 {
  const n = step > 0 ? min(4, limit - j) : min(4, j - limit + 1);
  gBounded += n;
  if (ASC_FEATURE_SIMD) {
    if (n == 4 && gFast) return fourRowsU8(j, step) ? 4 : -1;
  }
  for (let i = 0; i < n; i++) if (!oneRow(j + i * step)) return -1;
  return n;
}

// @ts-ignore: decorator
@inline
function tagsMayMatch(info: usize): bool {
  return !gFilterTags || ((load<u32>(info, CLUSTER_TAG_OR) & gRequire) == gRequire && (load<u32>(info, CLUSTER_TAG_AND) & gExclude) == 0);
}

/**
 * Searches sub-cluster s whose centre is at float32 squared distance d from the query: from the rows
 * whose distance to the centre is nearest the query's, outwards in both directions a group of four
 * rows at a time, each direction stopping at the edge of the annulus (which narrows as the best
 * improves). False once nothing can beat the best.
 */
function visitSub(s: i32, d: f32): bool {
  const info = gSubInfo + <usize>s * CLUSTER_INFO_SIZE;
  if (!tagsMayMatch(info)) return true;
  if (sphereSkips(d, <f64>load<f32>(gSubRadii + (<usize>s << 2)), gRadius, gStride)) return true;
  gGroups++;
  const start = load<i32>(info, CLUSTER_START);
  const end = start + load<i32>(info, CLUSTER_COUNT);
  const dLow = distanceLow(d, gStride);
  const dHigh = distanceHigh(d, gStride);
  let up = firstRowFrom(start, end, Math.sqrt(<f64>d));
  let down = up - 1;
  while (up < end || down >= start) {
    // Rows above (dHigh + radius) or below (dLow - radius) from the centre are farther than the radius.
    if (up < end) {
      if (<f64>load<f32>(gRowR + (<usize>up << 2)) > (dHigh + gRadius) * (1 + ROW_RADIUS_SLACK)) {
        up = end;
      } else {
        const n = group(up, 1, end);
        if (n < 0) return false;
        up += n;
      }
    }
    if (down >= start) {
      if (<f64>load<f32>(gRowR + (<usize>down << 2)) < (dLow - gRadius) * (1 - ROW_RADIUS_SLACK)) {
        down = start - 1;
      } else {
        const n = group(down, -1, start);
        if (n < 0) return false;
        down -= n;
      }
    }
  }
  return true;
}

/**
 * Searches cluster c whose centre is at float32 squared distance d from the query: unless its sphere
 * or its box proves every row beyond the best, its sub-clusters in order of centre distance.
 */
function visit(c: i32, d: f32): void {
  const info = gInfo + <usize>c * CLUSTER_INFO_SIZE;
  if (!tagsMayMatch(info)) return;
  if (clusterSkips(c, d)) return;
  // The cluster's box: its bound plus the smallest bias must not prove every row above the best.
  let bound = box16Bound(gCtx, gQuery, gBoxes + <usize>c * (<usize>gStride << 2), gStride);
  if (gBias) bound += gMinBias;
  if (bound > gBest) return;
  const first = load<i32>(info, CLUSTER_START);
  const count = load<i32>(info, CLUSTER_COUNT);
  // (distance, sub-cluster) of the sub-clusters the sphere test keeps, by insertion in order.
  const list = gSubList;
  let n = 0;
  for (let s = first; s < first + count; s++) {
    const ds = halfDistance(gQuery, gSubCentres + <usize>s * gRowBytes16, gStride);
    if (sphereSkips(ds, <f64>load<f32>(gSubRadii + (<usize>s << 2)), gRadius, gStride)) continue;
    let i = n;
    while (i > 0 && before(ds, s, keyOf(list, i - 1), idOf(list, i - 1))) {
      store<f32>(list + (<usize>i << 3), keyOf(list, i - 1));
      store<i32>(list + (<usize>i << 3), idOf(list, i - 1), 4);
      i--;
    }
    store<f32>(list + (<usize>i << 3), ds);
    store<i32>(list + (<usize>i << 3), s, 4);
    n++;
  }
  for (let i = 0; i < n; i++) if (!visitSub(idOf(list, i), keyOf(list, i))) return;
}

/** Writes (float32 centre distance, cluster) for every cluster into scratch. */
function centreDistances(q: usize, centres: usize, k: i32, scratch: usize): void {
  let c = 0;
  if (ASC_FEATURE_SIMD) {
    for (; c + 1 < k; c += 2) {
      const pair = sqDistPair(q, centres + <usize>c * gRowBytes, centres + <usize>(c + 1) * gRowBytes, gStride);
      store<f32>(scratch + (<usize>c << 3), f32x4.extract_lane(pair, 0));
      store<i32>(scratch + (<usize>c << 3), c, 4);
      store<f32>(scratch + (<usize>(c + 1) << 3), f32x4.extract_lane(pair, 1));
      store<i32>(scratch + (<usize>(c + 1) << 3), c + 1, 4);
    }
  }
  for (; c < k; c++) {
    store<f32>(scratch + (<usize>c << 3), sqDist(q, centres + <usize>c * gRowBytes, gStride));
    store<i32>(scratch + (<usize>c << 3), c, 4);
  }
}

/**
 * Visits the clusters of the heap of n entries at scratch in order, until the heap is empty or,
 * when `all` is false, `limit` clusters were taken. Returns the entries left.
 */
function walk(scratch: usize, n: i32, limit: i32, rMax: f64): i32 {
  let taken = 0;
  while (n > 0 && taken < limit) {
    const d = keyOf(scratch, 0);
    const c = idOf(scratch, 0);
    // Every cluster left is at least this far: once even the largest radius cannot reach, stop.
    if (sphereSkips(d, rMax, gRadius, gStride)) return 0;
    popTo(scratch, n);
    n--;
    taken++;
    visit(c, d);
  }
  return n;
}

export function clusterSearch(ctx: usize, req: usize, ranges: usize, rangeCount: i32, q: usize, best: f32, out: usize, u8: bool): i32 {
  const cl = load<usize>(ctx, CTX_CLUSTERS);
  if (cl == 0) return writeResult(out, -1, best);
  const k = load<i32>(cl, CL_COUNT);
  if (k == 0 || rangeCount <= 0) return writeResult(out, -1, best);
  gCtx = ctx;
  gBoxes = load<usize>(cl, CL_BOX16);
  gStride = load<i32>(ctx, CTX_STRIDE);
  gRowBytes = <usize>gStride << 2;
  gQuery = q;
  gFeat = load<usize>(ctx, CTX_FEAT);
  gInfo = load<usize>(cl, CL_INFO);
  gRadii = load<usize>(cl, CL_RADIUS);
  gSubCentres = load<usize>(cl, CL_SUB_CENTRES);
  gRowBytes16 = <usize>load<i32>(ctx, CTX_F16_ROW_BYTES);
  gSubRadii = load<usize>(cl, CL_SUB_RADIUS);
  gSubInfo = load<usize>(cl, CL_SUB_INFO);
  gOrig = load<usize>(cl, CL_ORIG);
  gRowR = load<usize>(cl, CL_ROW_RADIUS);
  gRowsU8 = u8 ? load<usize>(cl, CL_U8) : 0;
  gRowsF32 = u8 ? 0 : load<usize>(cl, CL_F32);
  gTags = load<usize>(ctx, CTX_TAGS);
  gRequire = load<u32>(req, REQ_REQUIRE);
  gExclude = load<u32>(req, REQ_EXCLUDE);
  gFilterTags = (gRequire | gExclude) != 0;
  gRanges = ranges;
  gRangeCount = rangeCount;
  gAllFrames = rangeCount == 1 && load<i32>(ranges) <= 0 && load<i32>(ranges, 4) >= load<i32>(ctx, CTX_ROWS);
  gBias = load<usize>(req, REQ_BIAS);
  gMinBias = gBias ? load<f32>(req, REQ_BIAS_MIN) : 0;
  gBest = best;
  gBestIdx = -1;
  gRadius = limitRadius(costLimit(best, gMinBias, true), gStride);
  gBounded = 0;
  gRescored = 0;
  gGroups = 0;
  if (u8) {
    const p = load<usize>(ctx, CTX_U8_PARAMS);
    gQcode = load<usize>(req, REQ_QCODE);
    gW = load<usize>(p, U8P_W);
    gChunks = load<i32>(p, U8P_CHUNKS);
    gRowBytes8 = <usize>load<i32>(ctx, CTX_U8_ROW_BYTES);
    gInvU = load<f64>(p, U8P_INV_U);
    gEmax = load<f64>(p, U8P_EMAX);
    gRho = encodeQueryU8(ctx, q, gQcode);
    gT8 = codeThreshold(gRho + gEmax, gRadius * gInvU);
    gFast = ASC_FEATURE_SIMD && gChunks == 2;
  } else {
    gFast = false;
  }
  const scratch = load<usize>(req, REQ_SCRATCH);
  gSubList = scratch + (<usize>k << 3);
  const rMax = <f64>load<f32>(cl, CL_RADIUS_MAX);
  centreDistances(q, load<usize>(cl, CL_CENTRES), k, scratch);

  const probes = load<i32>(req, REQ_PROBES);
  if (probes > 0) {
    heapify(scratch, k);
    let n = walk(scratch, k, probes, rMax);
    if (gBestIdx < 0) walk(scratch, n, k, rMax);
  } else {
    // The nearest cluster first: it sets a best that prunes most of the others before they are ordered.
    let first = 0;
    for (let c = 1; c < k; c++) if (before(keyOf(scratch, c), c, keyOf(scratch, first), first)) first = c;
    visit(first, keyOf(scratch, first));
    let n = 0;
    for (let c = 0; c < k; c++) {
      const d = keyOf(scratch, c);
      if (c == first || clusterSkips(c, d)) continue;
      store<f32>(scratch + (<usize>n << 3), d);
      store<i32>(scratch + (<usize>n << 3), c, 4);
      n++;
    }
    heapify(scratch, n);
    walk(scratch, n, n, rMax);
  }
  store<f64>(req, load<f64>(req, REQ_STAT_BOUNDED) + <f64>gBounded, REQ_STAT_BOUNDED);
  store<f64>(req, load<f64>(req, REQ_STAT_RESCORED) + <f64>gRescored, REQ_STAT_RESCORED);
  store<f64>(req, load<f64>(req, REQ_STAT_GROUPS) + <f64>gGroups, REQ_STAT_GROUPS);
  return writeResult(out, gBestIdx, gBest);
}
