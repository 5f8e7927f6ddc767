/**
 * Plain-JS twins of the WASM search kernels (assembly/): same ABI (byte addresses into the same
 * memory layout), same semantics, same float32 summation order, so every backend returns the same
 * frame and a bit-identical cost. This is the correctness oracle and the benchmark's baseline. The
 * compact and clustered methods' twins are in kernels-js/compact.ts and kernels-js/cluster.ts.
 *
 * Summation order (see assembly/row.ts and kernels-js/row-cost.ts): lane l accumulates dims l, l + 4, ... from +0;
 * lanes combine as (l0 + l2) + (l1 + l3); bias is added last.
 */
import { sqDist, sqDistBounded, boxBound } from './row-cost.js';
import {
  bruteU8Search, bruteF16Search, aabbU8Search, kdSearchU8, encodeQueryU8, codeDistance, halfDistance, fineBoxDistance,
} from './compact.js';
import { fineBoxCostLow } from '../indexes/compact-bounds.js';
import { clusterSearch } from './cluster.js';
import {
  Heap, SearchKernels,
  METHOD_BRUTE, METHOD_EARLY, METHOD_AABB, METHOD_KDTREE, METHOD_BRUTE_U8, METHOD_BRUTE_F16, METHOD_AABB_U8,
  METHOD_KDTREE_U8, METHOD_CLUSTER, CTX_U8_PARAMS, U8P_W, U8P_CHUNKS,
  CTX_FEAT, CTX_ROWS, CTX_STRIDE, CTX_MASK, CTX_TAGS, CTX_COARSE_BOUNDS, CTX_FINE_BOUNDS, CTX_COARSE_INFO,
  CTX_FINE_INFO, CTX_KD_FEAT, CTX_KD_ORIG, CTX_KD_NODES, CTX_KD_BOXES, CTX_KD_NODE_COUNT,
  REQ_RANGES, REQ_RANGE_COUNT, REQ_RANGE_TABLE, REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_COARSE,
  REQ_BIAS_FINE, REQ_BIAS_NODE, REQ_STACK, REQ_STACK_CAP,
  COARSE_SHIFT, FINE_SHIFT, BLOCK_COUNT, BLOCK_TAG_OR, BLOCK_TAG_AND, BLOCK_INFO_SIZE,
  NODE_DIM, NODE_RIGHT, NODE_START, NODE_COUNT, NODE_TAG_OR, NODE_TAG_AND, NODE_MIN_ORIG, NODE_SIZE,
  RESULT_SIZE,
} from '../wasm/memory-layout.js';

/** The row arithmetic lives in kernels-js/row-cost.ts; re-exported for the callers that import it from here. */
export { sqDist, sqDistBetween, sqDistBounded, boxBound } from './row-cost.js';

const fr = Math.fround;

function tagsPass(t: number, require: number, exclude: number): boolean {
  return ((t & require) >>> 0) === require && (t & exclude) === 0;
}

function writeResult(h: Heap, out: number, index: number, cost: number): number {
  h.i32[out >> 2] = index;
  h.f32[(out >> 2) + 1] = cost;
  return index;
}

/** Brute force (early = false) or early exit over ranges: the twins of scan.ts bruteSearch / earlySearch. */
function scanSearch(h: Heap, early: boolean, ctx: number, req: number, ranges: number, rangeCount: number, q: number, best: number, out: number): number {
  const { i32, u32, u8, f32 } = h;
  const feat = i32[(ctx + CTX_FEAT) >> 2] >> 2;
  const stride = i32[(ctx + CTX_STRIDE) >> 2];
  const mask = i32[(ctx + CTX_MASK) >> 2];
  const tags = i32[(ctx + CTX_TAGS) >> 2] >> 2;
  const require = u32[(req + REQ_REQUIRE) >> 2];
  const exclude = u32[(req + REQ_EXCLUDE) >> 2];
  const filterTags = (require | exclude) !== 0;
  const bias = i32[(req + REQ_BIAS) >> 2] >> 2;
  const qi = q >> 2;
  let bestIdx = -1;
  for (let k = 0; k < rangeCount; k++) {
    const s = i32[(ranges >> 2) + 2 * k];
    const e = i32[(ranges >> 2) + 2 * k + 1];
    for (let i = s; i < e; i++) {
      const r = feat + i * stride;
      if (early) {
        if (u8[mask + i] === 0) continue;
        if (filterTags && !tagsPass(u32[tags + i], require, exclude)) continue;
        const c = sqDistBounded(f32, qi, r, stride, bias ? f32[bias + i] : 0, best);
        if (c < best) {
          best = c;
          bestIdx = i;
        }
      } else {
        // Cost first, filters only for a winner (as scan.ts bruteSearch; the result is the same).
        const d = sqDist(f32, qi, r, stride);
        const c = bias ? fr(d + f32[bias + i]) : d;
        if (c < best && u8[mask + i] !== 0 && (!filterTags || tagsPass(u32[tags + i], require, exclude))) {
          best = c;
          bestIdx = i;
        }
      }
    }
  }
  return writeResult(h, out, bestIdx, best);
}

function blockMayMatch(h: Heap, info: number, require: number, exclude: number): boolean {
  if (h.i32[(info + BLOCK_COUNT) >> 2] === 0) return false;
  return ((h.u32[(info + BLOCK_TAG_OR) >> 2] & require) >>> 0) === require && (h.u32[(info + BLOCK_TAG_AND) >> 2] & exclude) === 0;
}

/** Box pruning over blocks of 64 then 16 frames: the twin of scan.ts aabbSearch. */
function aabbSearch(h: Heap, ctx: number, req: number, ranges: number, rangeCount: number, q: number, best: number, out: number): number {
  const { i32, u32, u8, f32 } = h;
  const feat = i32[(ctx + CTX_FEAT) >> 2] >> 2;
  const stride = i32[(ctx + CTX_STRIDE) >> 2];
  const mask = i32[(ctx + CTX_MASK) >> 2];
  const tags = i32[(ctx + CTX_TAGS) >> 2] >> 2;
  const coarseBounds = i32[(ctx + CTX_COARSE_BOUNDS) >> 2] >> 2;
  const fineBounds = i32[(ctx + CTX_FINE_BOUNDS) >> 2] >> 2;
  const coarseInfo = i32[(ctx + CTX_COARSE_INFO) >> 2];
  const fineInfo = i32[(ctx + CTX_FINE_INFO) >> 2];
  const require = u32[(req + REQ_REQUIRE) >> 2];
  const exclude = u32[(req + REQ_EXCLUDE) >> 2];
  const filterTags = (require | exclude) !== 0;
  const bias = i32[(req + REQ_BIAS) >> 2] >> 2;
  const coarseBias = i32[(req + REQ_BIAS_COARSE) >> 2] >> 2;
  const fineBias = i32[(req + REQ_BIAS_FINE) >> 2] >> 2;
  const qi = q >> 2;
  let bestIdx = -1;
  for (let k = 0; k < rangeCount; k++) {
    const s = i32[(ranges >> 2) + 2 * k];
    const e = i32[(ranges >> 2) + 2 * k + 1];
    if (s >= e) continue;
    const cLast = (e - 1) >> COARSE_SHIFT;
    for (let c = s >> COARSE_SHIFT; c <= cLast; c++) {
      if (!blockMayMatch(h, coarseInfo + c * BLOCK_INFO_SIZE, require, exclude)) continue;
      const cBox = coarseBounds + c * 2 * stride;
      let cBound = boxBound(f32, qi, cBox, cBox + stride, stride);
      if (bias) cBound = fr(cBound + f32[coarseBias + c]);
      if (cBound >= best) continue;
      const cs = Math.max(s, c << COARSE_SHIFT);
      const ce = Math.min(e, (c + 1) << COARSE_SHIFT);
      const fLast = (ce - 1) >> FINE_SHIFT;
      for (let f = cs >> FINE_SHIFT; f <= fLast; f++) {
        if (!blockMayMatch(h, fineInfo + f * BLOCK_INFO_SIZE, require, exclude)) continue;
        const fBox = fineBounds + f * 2 * stride;
        let fBound = boxBound(f32, qi, fBox, fBox + stride, stride);
        if (bias) fBound = fr(fBound + f32[fineBias + f]);
        if (fBound >= best) continue;
        const fe = Math.min(ce, (f + 1) << FINE_SHIFT);
        for (let i = Math.max(cs, f << FINE_SHIFT); i < fe; i++) {
          const d = sqDist(f32, qi, feat + i * stride, stride);
          const cost = bias ? fr(d + f32[bias + i]) : d;
          if (cost < best && u8[mask + i] !== 0 && (!filterTags || tagsPass(u32[tags + i], require, exclude))) {
            best = cost;
            bestIdx = i;
          }
        }
      }
    }
  }
  return writeResult(h, out, bestIdx, best);
}

function inRanges(i32: Int32Array, f: number, ranges: number, rangeCount: number): boolean {
  const base = ranges >> 2;
  let lo = 0;
  let hi = rangeCount;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (i32[base + 2 * mid] <= f) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && f < i32[base + 2 * (lo - 1) + 1];
}

function prunable(bound: number, minOrig: number, best: number, bestIdx: number): boolean {
  return bound > best || (bound === best && minOrig > bestIdx);
}

/** Exact KD-tree search: the twin of kdtree.ts kdSearch. */
function kdSearch(h: Heap, ctx: number, req: number, ranges: number, rangeCount: number, q: number, best: number, out: number): number {
  const { i32, u32, f32 } = h;
  const nodeCount = i32[(ctx + CTX_KD_NODE_COUNT) >> 2];
  if (nodeCount === 0 || rangeCount <= 0) return writeResult(h, out, -1, best);
  const stride = i32[(ctx + CTX_STRIDE) >> 2];
  const rows = i32[(ctx + CTX_ROWS) >> 2];
  const feat = i32[(ctx + CTX_KD_FEAT) >> 2] >> 2;
  const orig = i32[(ctx + CTX_KD_ORIG) >> 2] >> 2;
  const nodes = i32[(ctx + CTX_KD_NODES) >> 2] >> 2;
  const boxes = i32[(ctx + CTX_KD_BOXES) >> 2] >> 2;
  const tags = i32[(ctx + CTX_TAGS) >> 2] >> 2;
  const require = u32[(req + REQ_REQUIRE) >> 2];
  const exclude = u32[(req + REQ_EXCLUDE) >> 2];
  const filterTags = (require | exclude) !== 0;
  const bias = i32[(req + REQ_BIAS) >> 2] >> 2;
  const nodeBias = i32[(req + REQ_BIAS_NODE) >> 2] >> 2;
  const stack = i32[(req + REQ_STACK) >> 2] >> 2;
  const stackCap = i32[(req + REQ_STACK_CAP) >> 2];
  const allFrames = rangeCount === 1 && i32[ranges >> 2] <= 0 && i32[(ranges >> 2) + 1] >= rows;
  const nodeInts = NODE_SIZE >> 2;
  const qi = q >> 2;

  let bestIdx = -1;
  i32[stack] = 0;
  f32[stack + 1] = -Infinity;
  let sp = 1;
  while (sp > 0) {
    sp--;
    const node = i32[stack + 2 * sp];
    const bound = f32[stack + 2 * sp + 1];
    const np = nodes + node * nodeInts;
    if (prunable(bound, i32[np + (NODE_MIN_ORIG >> 2)], best, bestIdx)) continue;
    if (filterTags && !(((u32[np + (NODE_TAG_OR >> 2)] & require) >>> 0) === require && (u32[np + (NODE_TAG_AND >> 2)] & exclude) === 0)) continue;

    if (i32[np + (NODE_DIM >> 2)] < 0) {
      const start = i32[np + (NODE_START >> 2)];
      const end = start + i32[np + (NODE_COUNT >> 2)];
      for (let row = start; row < end; row++) {
        const f = i32[orig + row];
        if (filterTags && !tagsPass(u32[tags + f], require, exclude)) continue;
        if (!allFrames && !inRanges(i32, f, ranges, rangeCount)) continue;
        const d = sqDist(f32, qi, feat + row * stride, stride);
        const c = bias ? fr(d + f32[bias + f]) : d;
        if (c < best || (c === best && f < bestIdx)) {
          best = c;
          bestIdx = f;
        }
      }
      continue;
    }

    const left = node + 1;
    const right = i32[np + (NODE_RIGHT >> 2)];
    let lb = boxBound(f32, qi, boxes + left * 2 * stride, boxes + left * 2 * stride + stride, stride);
    let rb = boxBound(f32, qi, boxes + right * 2 * stride, boxes + right * 2 * stride + stride, stride);
    if (bias) {
      lb = fr(lb + f32[nodeBias + left]);
      rb = fr(rb + f32[nodeBias + right]);
    }
    const nearFirst = lb <= rb;
    const farNode = nearFirst ? right : left;
    const farBound = nearFirst ? rb : lb;
    const nearNode = nearFirst ? left : right;
    const nearBound = nearFirst ? lb : rb;
    if (sp + 2 > stackCap) throw new RangeError('kd stack overflow: stack capacity too small for the tree depth');
    if (!prunable(farBound, i32[nodes + farNode * nodeInts + (NODE_MIN_ORIG >> 2)], best, bestIdx)) {
      i32[stack + 2 * sp] = farNode;
      f32[stack + 2 * sp + 1] = farBound;
      sp++;
    }
    if (!prunable(nearBound, i32[nodes + nearNode * nodeInts + (NODE_MIN_ORIG >> 2)], best, bestIdx)) {
      i32[stack + 2 * sp] = nearNode;
      f32[stack + 2 * sp + 1] = nearBound;
      sp++;
    }
  }
  return writeResult(h, out, bestIdx, best);
}

function searchRanges(h: Heap, method: number, ctx: number, req: number, ranges: number, rangeCount: number, q: number, best: number, out: number): number {
  if (method === METHOD_BRUTE) return scanSearch(h, false, ctx, req, ranges, rangeCount, q, best, out);
  if (method === METHOD_EARLY) return scanSearch(h, true, ctx, req, ranges, rangeCount, q, best, out);
  if (method === METHOD_AABB) return aabbSearch(h, ctx, req, ranges, rangeCount, q, best, out);
  if (method === METHOD_KDTREE) return kdSearch(h, ctx, req, ranges, rangeCount, q, best, out);
  if (method === METHOD_BRUTE_U8) return bruteU8Search(h, ctx, req, ranges, rangeCount, q, best, out);
  if (method === METHOD_BRUTE_F16) return bruteF16Search(h, ctx, req, ranges, rangeCount, q, best, out);
  if (method === METHOD_AABB_U8) return aabbU8Search(h, ctx, req, ranges, rangeCount, q, best, out);
  if (method === METHOD_KDTREE_U8) return kdSearchU8(h, ctx, req, ranges, rangeCount, q, best, out);
  return clusterSearch(h, ctx, req, ranges, rangeCount, q, best, out, method !== METHOD_CLUSTER);
}

/** The JS backend over `memory`, with the WASM module's ABI. */
export function createJsKernels(memory: WebAssembly.Memory, heapBase = 1024): SearchKernels {
  const h = new Heap(memory);
  return {
    heapBase: () => heapBase,

    search(method, ctx, req, query, bestCost, out) {
      h.refresh();
      return searchRanges(h, method, ctx, req, h.i32[(req + REQ_RANGES) >> 2], h.i32[(req + REQ_RANGE_COUNT) >> 2], query, fr(bestCost), out);
    },

    searchBatch(method, ctx, req, queries, count, bestCosts, out) {
      h.refresh();
      const { i32, f32 } = h;
      const rowBytes = i32[(ctx + CTX_STRIDE) >> 2] * 4;
      const ranges = i32[(req + REQ_RANGES) >> 2];
      const rangeCount = i32[(req + REQ_RANGE_COUNT) >> 2];
      const table = i32[(req + REQ_RANGE_TABLE) >> 2];
      for (let i = 0; i < count; i++) {
        const best = bestCosts ? f32[(bestCosts >> 2) + i] : Infinity;
        const q = queries + i * rowBytes;
        const o = out + i * RESULT_SIZE;
        if (table) {
          const first = i32[(table >> 2) + 2 * i];
          const n = i32[(table >> 2) + 2 * i + 1];
          searchRanges(h, method, ctx, req, ranges + first * 8, n, q, best, o);
        } else {
          searchRanges(h, method, ctx, req, ranges, rangeCount, q, best, o);
        }
      }
    },

    firstAllowed(ctx, req, ranges, rangeCount) {
      h.refresh();
      const { i32, u32, u8 } = h;
      const mask = i32[(ctx + CTX_MASK) >> 2];
      const tags = i32[(ctx + CTX_TAGS) >> 2] >> 2;
      const require = u32[(req + REQ_REQUIRE) >> 2];
      const exclude = u32[(req + REQ_EXCLUDE) >> 2];
      for (let k = 0; k < rangeCount; k++) {
        const e = i32[(ranges >> 2) + 2 * k + 1];
        for (let i = i32[(ranges >> 2) + 2 * k]; i < e; i++) {
          if (u8[mask + i] !== 0 && tagsPass(u32[tags + i], require, exclude)) return i;
        }
      }
      return -1;
    },

    blockMinBias(bias, rows, shift, out) {
      h.refresh();
      const f32 = h.f32;
      const size = 1 << shift;
      const blocks = (rows + size - 1) >> shift;
      for (let b = 0; b < blocks; b++) {
        const s = b << shift;
        const e = Math.min(rows, s + size);
        let m = Infinity;
        for (let i = s; i < e; i++) m = Math.min(m, f32[(bias >> 2) + i]);
        f32[(out >> 2) + b] = m;
      }
    },

    kdNodeMinBias(ctx, bias, out) {
      h.refresh();
      const { i32, f32 } = h;
      const nodeCount = i32[(ctx + CTX_KD_NODE_COUNT) >> 2];
      const nodes = i32[(ctx + CTX_KD_NODES) >> 2] >> 2;
      const orig = i32[(ctx + CTX_KD_ORIG) >> 2] >> 2;
      const nodeInts = NODE_SIZE >> 2;
      for (let node = nodeCount - 1; node >= 0; node--) {
        const np = nodes + node * nodeInts;
        let m = Infinity;
        if (i32[np + (NODE_DIM >> 2)] < 0) {
          const start = i32[np + (NODE_START >> 2)];
          const end = start + i32[np + (NODE_COUNT >> 2)];
          for (let row = start; row < end; row++) m = Math.min(m, f32[(bias >> 2) + i32[orig + row]]);
        } else {
          m = Math.min(f32[(out >> 2) + node + 1], f32[(out >> 2) + i32[np + (NODE_RIGHT >> 2)]]);
        }
        f32[(out >> 2) + node] = m;
      }
    },

    rowCost(a, b, stride) {
      h.refresh();
      return sqDist(h.f32, a >> 2, b >> 2, stride);
    },

    rowBoxBound(q, lo, hi, stride) {
      h.refresh();
      return boxBound(h.f32, q >> 2, lo >> 2, hi >> 2, stride);
    },

    encodeQueryU8(ctx, q, qcode) {
      h.refresh();
      return encodeQueryU8(h, ctx, q, qcode);
    },

    rowCodeDistance(ctx, qcode, row) {
      h.refresh();
      const p = h.i32[(ctx + CTX_U8_PARAMS) >> 2];
      return codeDistance(h, row, qcode, h.i32[(p + U8P_W) >> 2], h.i32[(p + U8P_CHUNKS) >> 2]);
    },

    rowHalfDistance(q, row, stride) {
      h.refresh();
      return halfDistance(h, q, row, stride);
    },

    recordBoxDistances(rec, qcode, stride, out) {
      h.refresh();
      for (let i = 0; i < 4; i++) h.i32[(out >> 2) + i] = fineBoxDistance(h, rec + i * 4 * stride, qcode, stride);
    },

    boxCostLow(k, rho, u, stride) {
      return fineBoxCostLow(k, rho, u, stride);
    },
  };
}
