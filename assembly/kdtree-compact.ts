// The KD-tree over compact data: the tree of kdtree.ts (same nodes, same tie rule), walked through
// KdRecords (src/search/indexes/kd-records.ts): each record holds the fine-unit boxes (i16 bounds in the
// 8-bit codec's fine units: half the bytes of float32 boxes, and a distance in integer lanes) of up
// to four subtrees of a node, two levels at once, and leaves hold 8-bit rows whose certified bounds
// decide which rows are re-scored on their float32 row. The walk is bound by memory latency, so a record is one contiguous block read in parallel,
// stack entries (32 bytes) carry a subtree's bound, lowest frame and rows or record (a popped entry
// needs no further read before its test), and pushed subtrees are read ahead (touchLines).
//
// Rows are visited out of frame order, so a row is skipped only when its bound proves a float32
// cost strictly above the best (costLimit with strict = true): rows that could tie are re-scored
// and the (cost, frame) comparison of kdSearch decides.

import {
  CTX_STRIDE, CTX_ROWS, CTX_TAGS, CTX_KD_FEAT, CTX_KD_ORIG, CTX_KD_NODES, CTX_KD_NODE_COUNT, CTX_KD_U8, CTX_KD_REC, CTX_KD_REC_BYTES,
  CTX_U8_PARAMS, CTX_U8_ROW_BYTES,
  REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_NODE, REQ_BIAS_MIN, REQ_STACK, REQ_STACK_CAP, REQ_QCODE,
  REQ_STAT_BOUNDED, REQ_STAT_RESCORED, REQ_STAT_GROUPS, REQ_SINK, REQ_KDS,
  NODE_DIM, NODE_START, NODE_COUNT, NODE_MIN_ORIG, NODE_SIZE,
  KD_SLOTS, SLOT_NODE, SLOT_MIN_ORIG, SLOT_START, SLOT_COUNT, SLOT_SIZE, SLOT_INNER, SLOT_EMPTY,
  U8P_INV_U, U8P_U, U8P_EMAX, U8P_CHUNKS, U8P_W,
} from './layout';
import { sqDist, noLane } from './row';
import { withBias, writeResult } from './scan';
import { wins, leafRowAllowed, prunable, nodeMayMatch } from './kdtree';
import { costLimit, limitRadius, codeThreshold, fineBoxCostLow } from './bounds';
import { encodeQueryU8, codeDistance, codeDistances4, fineBoxDistances4, fineBoxDistance } from './compact';

/**
 * Starts reading the cache lines of a pushed subtree, so that its miss overlaps the walk until it
 * is popped (WebAssembly has no prefetch instruction): the words read only feed a sink the search
 * stores at the end, so no compiler drops them.
 */
// @ts-ignore: decorator
@inline
function touchLines(sink: u32, addr: usize, bytes: usize): u32 {
  for (let o: usize = 0; o < bytes; o += 64) sink ^= load<u32>(addr + o);
  return sink;
}

/**
 * Orders the `k` entries just pushed above `base` so the smallest bound is on top (popped first);
 * equal bounds keep their slot order below each other. Insertion sort: k <= KD_SLOTS.
 */
// @ts-ignore: decorator
@inline
function sortPushed(stack: usize, base: i32, k: i32): void {
  for (let i = base + 1; i < base + k; i++) {
    const e = stack + (<usize>i << 5);
    const a = load<u64>(e); // node, bound
    const c = load<u64>(e, 8); // start, count
    const m = load<i32>(e, 16); // lowest frame
    const b = load<f32>(e, 4);
    let j = i;
    while (j > base && load<f32>(stack + (<usize>(j - 1) << 5), 4) < b) {
      const d = stack + (<usize>j << 5);
      store<u64>(d, load<u64>(d - 32));
      store<u64>(d, load<u64>(d - 24), 8);
      store<i32>(d, load<i32>(d - 16), 16);
      j--;
    }
    const d = stack + (<usize>j << 5);
    store<u64>(d, a);
    store<u64>(d, c, 8);
    store<i32>(d, m, 16);
  }
}

/** Pushes a stack entry: node, bound, its rows when a leaf (else its record, count SLOT_INNER), its lowest frame. */
// @ts-ignore: decorator
@inline
function push(stack: usize, sp: i32, node: i32, bound: f32, start: i32, count: i32, minOrig: i32): void {
  const e = stack + (<usize>sp << 5);
  store<i32>(e, node);
  store<f32>(e, bound, 4);
  store<i32>(e, start, 8);
  store<i32>(e, count, 12);
  store<i32>(e, minOrig, 16);
}

export function kdSearchU8(ctx: usize, req: usize, ranges: usize, rangeCount: i32, q: usize, best: f32, out: usize): i32 {
  const nodeCount = load<i32>(ctx, CTX_KD_NODE_COUNT);
  if (nodeCount == 0 || rangeCount <= 0) return writeResult(out, -1, best);
  const stride = load<i32>(ctx, CTX_STRIDE);
  const rows = load<i32>(ctx, CTX_ROWS);
  const feat = load<usize>(ctx, CTX_KD_FEAT);
  const orig = load<usize>(ctx, CTX_KD_ORIG);
  const nodes = load<usize>(ctx, CTX_KD_NODES);
  const recs = load<usize>(ctx, CTX_KD_REC);
  const recBytes = <usize>load<i32>(ctx, CTX_KD_REC_BYTES);
  const rows8 = load<usize>(ctx, CTX_KD_U8);
  const rb8 = <usize>load<i32>(ctx, CTX_U8_ROW_BYTES);
  const p = load<usize>(ctx, CTX_U8_PARAMS);
  const w = load<usize>(p, U8P_W);
  const chunks = load<i32>(p, U8P_CHUNKS);
  const invU = load<f64>(p, U8P_INV_U);
  const u = load<f64>(p, U8P_U);
  const eMax = load<f64>(p, U8P_EMAX);
  const tags = load<usize>(ctx, CTX_TAGS);
  const require = load<u32>(req, REQ_REQUIRE);
  const exclude = load<u32>(req, REQ_EXCLUDE);
  const filterTags = (require | exclude) != 0;
  const bias = load<usize>(req, REQ_BIAS);
  const nodeBias = load<usize>(req, REQ_BIAS_NODE);
  const minBias: f32 = bias ? load<f32>(req, REQ_BIAS_MIN) : 0;
  const stack = load<usize>(req, REQ_STACK);
  const stackCap = load<i32>(req, REQ_STACK_CAP);
  const qcode = load<usize>(req, REQ_QCODE);
  const kds = req + <usize>REQ_KDS;
  const allFrames = rangeCount == 1 && load<i32>(ranges) <= 0 && load<i32>(ranges, 4) >= rows;
  const rowBytes = <usize>stride << 2;
  const boxBytes = <usize>stride << 2; // i16 low and high bounds
  const rho = encodeQueryU8(ctx, q, qcode);
  let radius = limitRadius(costLimit(best, minBias, true), stride) * invU;
  let t = codeThreshold(rho + eMax, radius);
  let bounded = 0;
  let rescored = 0;
  let leaves = 0;
  let sink: u32 = 0;

  let bestIdx = -1;
  let sp = 0;
  // The root; children are tag-checked before they are pushed (nodeMayMatch).
  if (!filterTags || nodeMayMatch(nodes, require, exclude)) {
    // An inner root is record 0.
    const leaf = load<i32>(nodes, NODE_DIM) < 0;
    push(stack, 0, 0, -Infinity, leaf ? load<i32>(nodes, NODE_START) : 0, leaf ? load<i32>(nodes, NODE_COUNT) : SLOT_INNER, load<i32>(nodes, NODE_MIN_ORIG));
    sp = 1;
  }
  while (sp > 0) {
    sp--;
    const e = stack + (<usize>sp << 5);
    const bound = load<f32>(e, 4);
    const count = load<i32>(e, 12);
    if (prunable(bound, load<i32>(e, 16), best, bestIdx)) continue;

    if (count >= 0) {
      const start = load<i32>(e, 8);
      const end = start + count;
      leaves++;
      bounded += count;
      // Four rows per step where the rows are 2 chunks (SIMD), else one; the rows whose code
      // distance is below the threshold go through kds, in order, to their own bound and re-scoring.
      let row = start;
      while (row < end) {
        let n = 1;
        if (ASC_FEATURE_SIMD && chunks == 2 && row + 3 < end) {
          const tv = i32x4.splat(t);
          const kv = codeDistances4(rows8 + <usize>row * rb8, v128.load(qcode), v128.load(qcode, 16), v128.load(qcode, 32), v128.load(qcode, 48), v128.load(w), v128.load(w, 16), tv);
          if (noLane(i32x4.lt_s(kv, tv))) {
            row += 4;
            continue;
          }
          v128.store(kds, kv);
          n = 4;
        } else {
          store<i32>(kds, codeDistance(rows8 + <usize>row * rb8, qcode, w, chunks));
        }
        for (let l = 0; l < n; l++) {
          const k = load<i32>(kds + (<usize>l << 2));
          if (k >= t) continue;
          const at = row + l;
          if (k >= codeThreshold(rho + <f64>load<f32>(rows8 + <usize>at * rb8 + <usize>stride), radius)) continue;
          const f = load<i32>(orig + (<usize>at << 2));
          if (!leafRowAllowed(f, tags, require, exclude, filterTags, ranges, rangeCount, allFrames)) continue;
          rescored++;
          const c = withBias(sqDist(q, feat + <usize>at * rowBytes, stride), bias, f);
          if (wins(c, f, best, bestIdx)) {
            best = c;
            bestIdx = f;
            radius = limitRadius(costLimit(best, minBias, true), stride) * invU;
            t = codeThreshold(rho + eMax, radius);
          }
        }
        row += n;
      }
      continue;
    }

    // One record: the boxes of up to four subtrees, then their slots. The four box distances go
    // through kds (free between leaves), so that the slot loop can read them by index.
    const rec = recs + <usize>load<i32>(e, 8) * recBytes;
    const slots = rec + <usize>KD_SLOTS * boxBytes;
    if (sp + KD_SLOTS > stackCap) unreachable();
    if (ASC_FEATURE_SIMD) v128.store(kds, fineBoxDistances4(rec, boxBytes, qcode, stride));
    const base = sp;
    for (let i = 0; i < KD_SLOTS; i++) {
      const slot = slots + <usize>i * SLOT_SIZE;
      const rowsOrInner = load<i32>(slot, SLOT_COUNT);
      if (rowsOrInner == SLOT_EMPTY) break;
      const child = load<i32>(slot, SLOT_NODE);
      const k = ASC_FEATURE_SIMD ? load<i32>(kds + (<usize>i << 2)) : fineBoxDistance(rec + <usize>i * boxBytes, qcode, stride);
      let cb = fineBoxCostLow(k, rho, u, stride);
      if (bias) cb += load<f32>(nodeBias + (<usize>child << 2));
      const minOrig = load<i32>(slot, SLOT_MIN_ORIG);
      if (prunable(cb, minOrig, best, bestIdx)) continue;
      if (filterTags && !nodeMayMatch(nodes + <usize>child * NODE_SIZE, require, exclude)) continue;
      push(stack, sp, child, cb, load<i32>(slot, SLOT_START), rowsOrInner, minOrig);
      sp++;
    }
    sortPushed(stack, base, sp - base);
    // Nearest first: it is popped next.
    for (let i = sp - 1; i >= base; i--) {
      const pushed = stack + (<usize>i << 5);
      const n = load<i32>(pushed, 12);
      const at = load<i32>(pushed, 8);
      sink = n == SLOT_INNER
        ? touchLines(sink, recs + <usize>at * recBytes, recBytes)
        : touchLines(sink, rows8 + <usize>at * rb8, <usize>n * rb8);
    }
  }
  store<f64>(req, load<f64>(req, REQ_STAT_BOUNDED) + <f64>bounded, REQ_STAT_BOUNDED);
  store<f64>(req, load<f64>(req, REQ_STAT_RESCORED) + <f64>rescored, REQ_STAT_RESCORED);
  store<f64>(req, load<f64>(req, REQ_STAT_GROUPS) + <f64>leaves, REQ_STAT_GROUPS);
  store<u32>(req, sink, REQ_SINK);
  return writeResult(out, bestIdx, best);
}
