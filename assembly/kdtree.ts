// Exact KD-tree search over the database's candidate rows (built by src/search/indexes/kdtree.ts).
//
// Rows are stored in leaf order, so ties are broken on (cost, original frame) rather than on visit
// order. Each node carries the bounding box of its rows; the box bound uses the same arithmetic as
// the row cost (see row.ts), so it never exceeds the float32 cost of a row inside and pruning is
// exact. Children are visited nearest box first; a subtree is skipped when its bound is above the
// best cost, or equal to it and none of its frames is lower than the best frame.

import {
  CTX_STRIDE, CTX_ROWS, CTX_TAGS, CTX_KD_FEAT, CTX_KD_ORIG, CTX_KD_NODES, CTX_KD_BOXES, CTX_KD_NODE_COUNT,
  REQ_REQUIRE, REQ_EXCLUDE, REQ_BIAS, REQ_BIAS_NODE, REQ_STACK, REQ_STACK_CAP,
  NODE_DIM, NODE_RIGHT, NODE_START, NODE_COUNT, NODE_TAG_OR, NODE_TAG_AND, NODE_MIN_ORIG, NODE_SIZE,
} from './layout';
import { sqDist, sqDistPair, boxBound } from './row';
import { tagsPass, withBias, writeResult } from './scan';

/** True when frame `f` lies in one of the sorted, disjoint ranges. */
// @ts-ignore: decorator
@inline
export function inRanges(f: i32, ranges: usize, rangeCount: i32): bool {
  let lo = 0;
  let hi = rangeCount;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (load<i32>(ranges + (<usize>mid << 3)) <= f) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && f < load<i32>(ranges + (<usize>(lo - 1) << 3), 4);
}

/** (cost, frame) beats (best, bestIdx) lexicographically; bestIdx = -1 accepts only cost < best. */
// @ts-ignore: decorator
@inline
export function wins(c: f32, f: i32, best: f32, bestIdx: i32): bool {
  return c < best || (c == best && f < bestIdx);
}

/** Tag filter and range membership of a leaf row (checked only for rows that would win). */
// @ts-ignore: decorator
@inline
export function leafRowAllowed(f: i32, tags: usize, require: u32, exclude: u32, filterTags: bool, ranges: usize, rangeCount: i32, allFrames: bool): bool {
  if (filterTags && !tagsPass(load<u32>(tags + (<usize>f << 2)), require, exclude)) return false;
  return allFrames || inRanges(f, ranges, rangeCount);
}

/** A subtree cannot improve on (best, bestIdx). bestIdx = -1 means "must be strictly below best". */
// @ts-ignore: decorator
@inline
export function prunable(bound: f32, minOrig: i32, best: f32, bestIdx: i32): bool {
  return bound > best || (bound == best && minOrig > bestIdx);
}

export function kdSearch(ctx: usize, req: usize, ranges: usize, rangeCount: i32, q: usize, best: f32, out: usize): i32 {
  const nodeCount = load<i32>(ctx, CTX_KD_NODE_COUNT);
  if (nodeCount == 0 || rangeCount <= 0) return writeResult(out, -1, best);
  const stride = load<i32>(ctx, CTX_STRIDE);
  const rows = load<i32>(ctx, CTX_ROWS);
  const feat = load<usize>(ctx, CTX_KD_FEAT);
  const orig = load<usize>(ctx, CTX_KD_ORIG);
  const nodes = load<usize>(ctx, CTX_KD_NODES);
  const boxes = load<usize>(ctx, CTX_KD_BOXES);
  const tags = load<usize>(ctx, CTX_TAGS);
  const require = load<u32>(req, REQ_REQUIRE);
  const exclude = load<u32>(req, REQ_EXCLUDE);
  const filterTags = (require | exclude) != 0;
  const bias = load<usize>(req, REQ_BIAS);
  const nodeBias = load<usize>(req, REQ_BIAS_NODE);
  const stack = load<usize>(req, REQ_STACK);
  const stackCap = load<i32>(req, REQ_STACK_CAP);
  const allFrames = rangeCount == 1 && load<i32>(ranges) <= 0 && load<i32>(ranges, 4) >= rows;
  const rowBytes = <usize>stride << 2;
  const boxBytes = rowBytes << 1;

  let bestIdx = -1;
  let sp = 0;
  // The root's bound is not worth computing: it is checked again only against the initial best.
  store<i32>(stack, 0);
  store<f32>(stack, -Infinity, 4);
  sp = 1;
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
      let row = start;
      let r = feat + <usize>start * rowBytes;
      if (ASC_FEATURE_SIMD) {
        for (; row + 1 < end; row += 2, r += rowBytes << 1) {
          const pair = sqDistPair(q, r, r + rowBytes, stride);
          const f0 = load<i32>(orig + (<usize>row << 2));
          const f1 = load<i32>(orig + (<usize>row << 2), 4);
          const c0 = withBias(f32x4.extract_lane(pair, 0), bias, f0);
          const c1 = withBias(f32x4.extract_lane(pair, 1), bias, f1);
          if (wins(c0, f0, best, bestIdx) && leafRowAllowed(f0, tags, require, exclude, filterTags, ranges, rangeCount, allFrames)) {
            best = c0;
            bestIdx = f0;
          }
          if (wins(c1, f1, best, bestIdx) && leafRowAllowed(f1, tags, require, exclude, filterTags, ranges, rangeCount, allFrames)) {
            best = c1;
            bestIdx = f1;
          }
        }
      }
      for (; row < end; row++, r += rowBytes) {
        const f = load<i32>(orig + (<usize>row << 2));
        const c = withBias(sqDist(q, r, stride), bias, f);
        if (wins(c, f, best, bestIdx) && leafRowAllowed(f, tags, require, exclude, filterTags, ranges, rangeCount, allFrames)) {
          best = c;
          bestIdx = f;
        }
      }
      continue;
    }

    const left = node + 1;
    const right = load<i32>(np, NODE_RIGHT);
    let lb = boxBound(q, boxes + <usize>left * boxBytes, boxes + <usize>left * boxBytes + rowBytes, stride);
    let rb = boxBound(q, boxes + <usize>right * boxBytes, boxes + <usize>right * boxBytes + rowBytes, stride);
    if (bias) {
      lb += load<f32>(nodeBias + (<usize>left << 2));
      rb += load<f32>(nodeBias + (<usize>right << 2));
    }
    // Push the farther child first so the nearer one is searched first.
    const nearFirst = lb <= rb;
    const farNode = nearFirst ? right : left;
    const farBound = nearFirst ? rb : lb;
    const nearNode = nearFirst ? left : right;
    const nearBound = nearFirst ? lb : rb;
    if (sp + 2 > stackCap) unreachable(); // the host sizes the stack from the tree depth
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
  return writeResult(out, bestIdx, best);
}

// @ts-ignore: decorator
@inline
export function nodeMayMatch(np: usize, require: u32, exclude: u32): bool {
  return (load<u32>(np, NODE_TAG_OR) & require) == require && (load<u32>(np, NODE_TAG_AND) & exclude) == 0;
}

/** out[node] = min over the node's rows of bias[original frame]; nodes are in preorder. */
export function kdNodeMinBias(ctx: usize, bias: usize, out: usize): void {
  const nodeCount = load<i32>(ctx, CTX_KD_NODE_COUNT);
  const nodes = load<usize>(ctx, CTX_KD_NODES);
  const orig = load<usize>(ctx, CTX_KD_ORIG);
  // Children follow their parent in preorder, so a reverse sweep sees them first.
  for (let node = nodeCount - 1; node >= 0; node--) {
    const np = nodes + <usize>node * NODE_SIZE;
    let m: f32 = Infinity;
    if (load<i32>(np, NODE_DIM) < 0) {
      const start = load<i32>(np, NODE_START);
      const end = start + load<i32>(np, NODE_COUNT);
      for (let row = start; row < end; row++) {
        m = min(m, load<f32>(bias + (<usize>load<i32>(orig + (<usize>row << 2)) << 2)));
      }
    } else {
      m = min(load<f32>(out + (<usize>(node + 1) << 2)), load<f32>(out + (<usize>load<i32>(np, NODE_RIGHT) << 2)));
    }
    store<f32>(out + (<usize>node << 2), m);
  }
}
