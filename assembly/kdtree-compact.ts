// The KD-tree over compact data: the tree of kdtree.ts (same nodes, same visit order rule), with
// 16-bit node boxes (half the bytes of float32 boxes, decoded boxes contain the exact ones) and
// 8-bit leaf rows whose certified bounds decide which rows are re-scored on their float32 row.
//
// Rows are visited out of frame order, so a row is skipped only when its bound proves a float32
// cost strictly above the best (costLimit with strict = true): rows that could tie are re-scored
// and the (cost, frame) comparison of kdSearch decides.

import {
  CTX_STRIDE, CTX_ROWS, CTX_TAGS, CTX_KD_FEAT, CTX_KD_ORIG, CTX_KD_NODES, CTX_KD_NODE_COUNT, CTX_KD_U8, CTX_KD_BOX16,
  CTX_U8_PARAMS, CTX_U8_ROW_BYTES,
  REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_NODE, REQ_BIAS_MIN, REQ_STACK, REQ_STACK_CAP, REQ_QCODE,
  REQ_STAT_BOUNDED, REQ_STAT_RESCORED, REQ_STAT_GROUPS,
  NODE_DIM, NODE_RIGHT, NODE_START, NODE_COUNT, NODE_MIN_ORIG, NODE_SIZE,
  U8P_INV_U, U8P_EMAX, U8P_CHUNKS, U8P_W,
} from './layout';
import { sqDist } from './row';
import { withBias, writeResult } from './scan';
import { wins, leafRowAllowed, prunable, nodeMayMatch } from './kdtree';
import { costLimit, limitRadius, codeThreshold } from './bounds';
import { encodeQueryU8, codeDistance, box16Bound } from './compact';

export function kdSearchU8(ctx: usize, req: usize, ranges: usize, rangeCount: i32, q: usize, best: f32, out: usize): i32 {
  const nodeCount = load<i32>(ctx, CTX_KD_NODE_COUNT);
  if (nodeCount == 0 || rangeCount <= 0) return writeResult(out, -1, best);
  const stride = load<i32>(ctx, CTX_STRIDE);
  const rows = load<i32>(ctx, CTX_ROWS);
  const feat = load<usize>(ctx, CTX_KD_FEAT);
  const orig = load<usize>(ctx, CTX_KD_ORIG);
  const nodes = load<usize>(ctx, CTX_KD_NODES);
  const boxes = load<usize>(ctx, CTX_KD_BOX16);
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
  store<i32>(stack, 0);
  store<f32>(stack, -Infinity, 4);
  let sp = 1;
  while (sp > 0) {
    sp--;
    const node = load<i32>(stack + (<usize>sp << 3));
    const bound = load<f32>(stack + (<usize>sp << 3), 4);
    const np = nodes + <usize>node * NODE_SIZE;
    if (prunable(bound, load<i32>(np, NODE_MIN_ORIG), best, bestIdx)) continue;
    if (filterTags && !nodeMayMatch(np, require, exclude)) continue;

    if (load<i32>(np, NODE_DIM) < 0) {
      const start = load<i32>(np, NODE_START);
      const end = start + load<i32>(np, NODE_COUNT);
      leaves++;
      bounded += end - start;
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

    const left = node + 1;
    const right = load<i32>(np, NODE_RIGHT);
    let lb = box16Bound(ctx, q, boxes + <usize>left * boxBytes, stride);
    let rb = box16Bound(ctx, q, boxes + <usize>right * boxBytes, stride);
    if (bias) {
      lb += load<f32>(nodeBias + (<usize>left << 2));
      rb += load<f32>(nodeBias + (<usize>right << 2));
    }
    const nearFirst = lb <= rb;
    const farNode = nearFirst ? right : left;
    const farBound = nearFirst ? rb : lb;
    const nearNode = nearFirst ? left : right;
    const nearBound = nearFirst ? lb : rb;
    if (sp + 2 > stackCap) unreachable();
    if (!prunable(farBound, load<i32>(nodes + <usize>farNode * NODE_SIZE, NODE_MIN_ORIG), best, bestIdx)) {
      store<i32>(stack + (<usize>sp << 3), farNode);
      store<f32>(stack + (<usize>sp << 3), farBound, 4);
      sp++;
    }
    if (!prunable(nearBound, load<i32>(nodes + <usize>nearNode * NODE_SIZE, NODE_MIN_ORIG), best, bestIdx)) {
      store<i32>(stack + (<usize>sp << 3), nearNode);
      store<f32>(stack + (<usize>sp << 3), nearBound, 4);
      sp++;
    }
  }
  store<f64>(req, load<f64>(req, REQ_STAT_BOUNDED) + <f64>bounded, REQ_STAT_BOUNDED);
  store<f64>(req, load<f64>(req, REQ_STAT_RESCORED) + <f64>rescored, REQ_STAT_RESCORED);
  store<f64>(req, load<f64>(req, REQ_STAT_GROUPS) + <f64>leaves, REQ_STAT_GROUPS);
  return writeResult(out, bestIdx, best);
}
