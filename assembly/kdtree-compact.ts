// The KD-tree over compact data: the tree of kdtree.ts (same nodes, same visit order rule), with
// 16-bit node boxes (half the bytes of float32 boxes, decoded boxes contain the exact ones) and
// 8-bit leaf rows whose certified bounds decide which rows are re-scored on their float32 row.
// Each inner node's record holds both children's boxes and what the walk needs of them (lowest
// frame, rows of a leaf) in one contiguous block of cache lines: the walk is bound by memory
// latency, and this halves the scattered reads per node. Stack entries (32 bytes) carry a child's
// bound, lowest frame and rows, so a popped node needs no further read before its test.
//
// Rows are visited out of frame order, so a row is skipped only when its bound proves a float32
// cost strictly above the best (costLimit with strict = true): rows that could tie are re-scored
// and the (cost, frame) comparison of kdSearch decides.

import {
  CTX_STRIDE, CTX_ROWS, CTX_TAGS, CTX_KD_FEAT, CTX_KD_ORIG, CTX_KD_NODES, CTX_KD_NODE_COUNT, CTX_KD_U8, CTX_KD_REC, CTX_KD_REC_BYTES,
  CTX_U8_PARAMS, CTX_U8_ROW_BYTES,
  REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_NODE, REQ_BIAS_MIN, REQ_STACK, REQ_STACK_CAP, REQ_QCODE,
  REQ_STAT_BOUNDED, REQ_STAT_RESCORED, REQ_STAT_GROUPS,
  NODE_DIM, NODE_START, NODE_COUNT, NODE_MIN_ORIG, NODE_SIZE,
  REC_RIGHT, REC_LEFT_MIN_ORIG, REC_RIGHT_MIN_ORIG, REC_LEFT_START, REC_LEFT_COUNT, REC_RIGHT_START, REC_RIGHT_COUNT,
  U8P_INV_U, U8P_EMAX, U8P_CHUNKS, U8P_W,
} from './layout';
import { sqDist } from './row';
import { withBias, writeResult } from './scan';
import { wins, leafRowAllowed, prunable, nodeMayMatch } from './kdtree';
import { costLimit, limitRadius, codeThreshold } from './bounds';
import { encodeQueryU8, codeDistance, box16Bound } from './compact';

/** Pushes a stack entry: node, bound, its rows when a leaf (count -1: inner), its lowest frame. */
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
  const allFrames = rangeCount == 1 && load<i32>(ranges) <= 0 && load<i32>(ranges, 4) >= rows;
  const rowBytes = <usize>stride << 2;
  const boxBytes = <usize>stride << 2;
  const rho = encodeQueryU8(ctx, q, qcode);
  let radius = limitRadius(costLimit(best, minBias, true), stride) * invU;
  let t = codeThreshold(rho + eMax, radius);
  let bounded = 0;
  let rescored = 0;
  let leaves = 0;

  let bestIdx = -1;
  let sp = 0;
  // The root; children are tag-checked before they are pushed (nodeMayMatch).
  if (!filterTags || nodeMayMatch(nodes, require, exclude)) {
    const leaf = load<i32>(nodes, NODE_DIM) < 0;
    push(stack, 0, 0, -Infinity, load<i32>(nodes, NODE_START), leaf ? load<i32>(nodes, NODE_COUNT) : -1, load<i32>(nodes, NODE_MIN_ORIG));
    sp = 1;
  }
  while (sp > 0) {
    sp--;
    const e = stack + (<usize>sp << 5);
    const node = load<i32>(e);
    const bound = load<f32>(e, 4);
    const count = load<i32>(e, 12);
    if (prunable(bound, load<i32>(e, 16), best, bestIdx)) continue;

    if (count >= 0) {
      const start = load<i32>(e, 8);
      const end = start + count;
      leaves++;
      bounded += count;
      let r = rows8 + <usize>start * rb8;
      for (let row = start; row < end; row++, r += rb8) {
        const k = codeDistance(r, qcode, w, chunks);
        if (k >= t) continue;
        if (k >= codeThreshold(rho + <f64>load<f32>(r + <usize>stride), radius)) continue;
        const f = load<i32>(orig + (<usize>row << 2));
        if (!leafRowAllowed(f, tags, require, exclude, filterTags, ranges, rangeCount, allFrames)) continue;
        rescored++;
        const c = withBias(sqDist(q, feat + <usize>row * rowBytes, stride), bias, f);
        if (wins(c, f, best, bestIdx)) {
          best = c;
          bestIdx = f;
          radius = limitRadius(costLimit(best, minBias, true), stride) * invU;
          t = codeThreshold(rho + eMax, radius);
        }
      }
      continue;
    }

    // One contiguous record: both children's boxes, then their summaries.
    const rec = recs + <usize>node * recBytes;
    const h = rec + (boxBytes << 1);
    const left = node + 1;
    const right = load<i32>(h, REC_RIGHT);
    let lb = box16Bound(ctx, q, rec, stride);
    let rb = box16Bound(ctx, q, rec + boxBytes, stride);
    if (bias) {
      lb += load<f32>(nodeBias + (<usize>left << 2));
      rb += load<f32>(nodeBias + (<usize>right << 2));
    }
    const nearFirst = lb <= rb;
    if (sp + 2 > stackCap) unreachable();
    for (let side = 0; side < 2; side++) {
      // Farther child first, so the nearer one is searched first.
      const isLeft = (side == 0) != nearFirst;
      const child = isLeft ? left : right;
      const cb = isLeft ? lb : rb;
      const minOrig = load<i32>(h + <usize>(isLeft ? REC_LEFT_MIN_ORIG : REC_RIGHT_MIN_ORIG));
      if (prunable(cb, minOrig, best, bestIdx)) continue;
      if (filterTags && !nodeMayMatch(nodes + <usize>child * NODE_SIZE, require, exclude)) continue;
      push(stack, sp, child, cb, load<i32>(h + <usize>(isLeft ? REC_LEFT_START : REC_RIGHT_START)), load<i32>(h + <usize>(isLeft ? REC_LEFT_COUNT : REC_RIGHT_COUNT)), minOrig);
      sp++;
    }
  }
  store<f64>(req, load<f64>(req, REQ_STAT_BOUNDED) + <f64>bounded, REQ_STAT_BOUNDED);
  store<f64>(req, load<f64>(req, REQ_STAT_RESCORED) + <f64>rescored, REQ_STAT_RESCORED);
  store<f64>(req, load<f64>(req, REQ_STAT_GROUPS) + <f64>leaves, REQ_STAT_GROUPS);
  return writeResult(out, bestIdx, best);
}
