// motionmatch search kernels: the module's exports.
//
// Every kernel is a pure function of pointers and counts into host-owned linear memory (see
// docs/search.md and src/search/wasm/memory-layout.ts). Nothing allocates (--runtime stub, no managed
// objects), so one shared WebAssembly.Memory can be searched by several threads at once as long as
// each uses its own request, query and result regions.
//
// Result contract: `search` returns the lowest-cost allowed frame whose cost is strictly below
// `bestCost` (ties to the lowest frame) and writes (i32 frame, f32 cost) to `out`; when no allowed
// frame beats `bestCost` it returns -1 and writes (-1, bestCost).

import {
  METHOD_BRUTE, METHOD_EARLY, METHOD_AABB, METHOD_KDTREE, METHOD_BRUTE_U8, METHOD_BRUTE_F16, METHOD_AABB_U8, METHOD_KDTREE_U8,
  METHOD_CLUSTER, CTX_STRIDE, CTX_U8_PARAMS, U8P_W, U8P_CHUNKS, REQ_RANGES, REQ_RANGE_COUNT, REQ_RANGE_TABLE, RESULT_SIZE,
} from './layout';
import { bruteSearch, earlySearch, aabbSearch } from './scan';
import { kdSearch } from './kdtree';
import { kdSearchU8 } from './kdtree-compact';
import { bruteU8Search, bruteF16Search, aabbU8Search } from './compact-scan';
import { clusterSearch } from './cluster';
import { encodeQueryU8 as encodeQuery, codeDistance, halfDistance, fineBoxDistances4, fineBoxDistance } from './compact';
import { fineBoxCostLow } from './bounds';
import { sqDist, boxBound } from './row';

export { firstAllowed, blockMinBias } from './scan';
export { kdNodeMinBias } from './kdtree';

/** First byte the host may use: everything below belongs to the module's static data. */
export function heapBase(): usize {
  return __heap_base;
}

/** 1 when this build uses f32x4 SIMD. */
export function simdBuild(): i32 {
  return ASC_FEATURE_SIMD ? 1 : 0;
}

function searchRanges(method: i32, ctx: usize, req: usize, ranges: usize, rangeCount: i32, query: usize, bestCost: f32, out: usize): i32 {
  if (method == METHOD_BRUTE) return bruteSearch(ctx, req, ranges, rangeCount, query, bestCost, out);
  if (method == METHOD_EARLY) return earlySearch(ctx, req, ranges, rangeCount, query, bestCost, out);
  if (method == METHOD_AABB) return aabbSearch(ctx, req, ranges, rangeCount, query, bestCost, out);
  if (method == METHOD_KDTREE) return kdSearch(ctx, req, ranges, rangeCount, query, bestCost, out);
  if (method == METHOD_BRUTE_U8) return bruteU8Search(ctx, req, ranges, rangeCount, query, bestCost, out);
  if (method == METHOD_BRUTE_F16) return bruteF16Search(ctx, req, ranges, rangeCount, query, bestCost, out);
  if (method == METHOD_AABB_U8) return aabbU8Search(ctx, req, ranges, rangeCount, query, bestCost, out);
  if (method == METHOD_KDTREE_U8) return kdSearchU8(ctx, req, ranges, rangeCount, query, bestCost, out);
  return clusterSearch(ctx, req, ranges, rangeCount, query, bestCost, out, method != METHOD_CLUSTER);
}

/** One query over the request's ranges. */
export function search(method: i32, ctx: usize, req: usize, query: usize, bestCost: f32, out: usize): i32 {
  return searchRanges(method, ctx, req, load<usize>(req, REQ_RANGES), load<i32>(req, REQ_RANGE_COUNT), query, bestCost, out);
}

/**
 * `count` queries (consecutive padded rows at `queries`); result i goes to out + 8 i. bestCosts is an
 * f32 per query, or 0 for +Infinity. When the request has a range table, query i searches its own
 * slice of the range list; otherwise every query uses the request's ranges.
 */
export function searchBatch(method: i32, ctx: usize, req: usize, queries: usize, count: i32, bestCosts: usize, out: usize): void {
  const rowBytes = <usize>load<i32>(ctx, CTX_STRIDE) << 2;
  const ranges = load<usize>(req, REQ_RANGES);
  const rangeCount = load<i32>(req, REQ_RANGE_COUNT);
  const table = load<usize>(req, REQ_RANGE_TABLE);
  for (let i = 0; i < count; i++) {
    const best: f32 = bestCosts ? load<f32>(bestCosts + (<usize>i << 2)) : Infinity;
    const q = queries + <usize>i * rowBytes;
    const o = out + <usize>i * RESULT_SIZE;
    if (table) {
      const first = load<i32>(table + (<usize>i << 3));
      const n = load<i32>(table + (<usize>i << 3), 4);
      searchRanges(method, ctx, req, ranges + (<usize>first << 3), n, q, best, o);
    } else {
      searchRanges(method, ctx, req, ranges, rangeCount, q, best, o);
    }
  }
}

/** Squared distance of two padded rows, exported so tests can check bit-identity across backends. */
export function rowCost(a: usize, b: usize, stride: i32): f32 {
  return sqDist(a, b, stride);
}

/** Box lower bound, exported for tests. */
export function rowBoxBound(q: usize, lo: usize, hi: usize, stride: i32): f32 {
  return boxBound(q, lo, hi, stride);
}

/** The 8-bit encoding of the query at q into qcode; returns its certified residual (exported for tests). */
export function encodeQueryU8(ctx: usize, q: usize, qcode: usize): f64 {
  return encodeQuery(ctx, q, qcode);
}

/** Code distance of the coded query at qcode and the 8-bit row at `row` (exported for tests). */
export function rowCodeDistance(ctx: usize, qcode: usize, row: usize): i32 {
  const p = load<usize>(ctx, CTX_U8_PARAMS);
  return codeDistance(row, qcode, load<usize>(p, U8P_W), load<i32>(p, U8P_CHUNKS));
}

/** Float32 squared distance of the query at q and the half-precision row at `row` (exported for tests). */
export function rowHalfDistance(q: usize, row: usize, stride: i32): f32 {
  return halfDistance(q, row, stride);
}

/**
 * The squared distances from the coded query at qcode to the four fine-unit boxes of the KD record
 * at `rec`, into four i32 at `out`, as the 8-bit walk computes them (exported for tests).
 */
export function recordBoxDistances(rec: usize, qcode: usize, stride: i32, out: usize): void {
  const boxBytes = <usize>stride << 2;
  if (ASC_FEATURE_SIMD) {
    v128.store(out, fineBoxDistances4(rec, boxBytes, qcode, stride));
  } else {
    for (let i = 0; i < 4; i++) store<i32>(out + (<usize>i << 2), fineBoxDistance(rec + <usize>i * boxBytes, qcode, stride));
  }
}

/** The certified float32 cost lower bound of a fine-unit box at squared code distance k (exported for tests). */
export function boxCostLow(k: i32, rho: f64, u: f64, stride: i32): f32 {
  return fineBoxCostLow(k, rho, u, stride);
}
