/**
 * KdRecords: the KD-tree as the 8-bit walk (kdtree-u8, assembly/kdtree-compact.ts) reads it.
 *
 * The walk is bound by memory latency: each node it enters costs one dependent cache miss, and on
 * real captures most of the nodes it enters lie in the last levels above the leaves (at σ 0.1 on
 * the real16x set, 216 inner nodes and 50 leaves a query, 162 of the inner nodes in the five levels
 * above the leaves). A record therefore answers two levels at once: it holds the fine-unit boxes
 * (codecs/u8.ts, encodeFineBox) of up to four subtrees of its node (each child, or both children of an inner child) in one block of
 * cache lines, which the walk reads in parallel (KD_RECORD_LEVELS = 2; three levels, eight
 * subtrees a record, measured no faster). Pruning loses nothing: a grandchild's box lies inside
 * its parent's, so its bound is never below the parent's.
 *
 * Record nodes are the root and, below each record node, its inner slot nodes; they are numbered
 * in depth-first order with the first slot next, so a walk that goes to the first slot reads the
 * next record in memory.
 */
import type { Heap } from '../wasm/memory-layout.js';
import {
  kdBoxBytes, kdRecordBytes,
  KD_SLOTS, KD_RECORD_LEVELS, SLOT_NODE, SLOT_MIN_ORIG, SLOT_START, SLOT_COUNT, SLOT_SIZE, SLOT_INNER, SLOT_EMPTY,
  NODE_INTS, NODE_DIM, NODE_RIGHT, NODE_START, NODE_COUNT, NODE_MIN_ORIG,
} from '../wasm/memory-layout.js';
import { encodeFineBox, type U8Codec } from '../codecs/u8.js';
import type { KdTree } from './kdtree.js';

/**
 * Records of a tree over `count` rows with `leafSize` (the tree's shape depends only on these: a
 * node of s rows has children of s >> 1 and s - (s >> 1) rows, and splits when s > leafSize).
 * Each level holds at most two sizes, so memoising on the size keeps this O(log count).
 */
export function kdRecordCount(count: number, leafSize: number): number {
  const memo = new Map<number, number>();
  // Record nodes below a node of s rows, `levels` levels down (stopping at leaves).
  const below = (s: number, levels: number): number => {
    if (s <= leafSize) return 0;
    if (levels === 0) return records(s);
    return below(s >> 1, levels - 1) + below(s - (s >> 1), levels - 1);
  };
  const records = (s: number): number => {
    if (s <= leafSize) return 0;
    const known = memo.get(s);
    if (known !== undefined) return known;
    const n = 1 + below(s, KD_RECORD_LEVELS);
    memo.set(s, n);
    return n;
  };
  return records(count);
}

/**
 * Stack entries the 8-bit walk can hold for a tree of `depth` (edges from the root to the deepest
 * leaf): record nodes sit every KD_RECORD_LEVELS levels above depth - 1; each record level leaves at
 * most KD_SLOTS - 1 pending siblings, and the deepest record pushes KD_SLOTS.
 */
export function kdRecordStackNeed(depth: number): number {
  return depth === 0 ? 1 : (KD_SLOTS - 1) * Math.floor((depth - 1) / KD_RECORD_LEVELS) + KD_SLOTS;
}

/** The subtrees a record of inner node `x` holds: its descendants KD_RECORD_LEVELS down, or the leaves above them. */
function slotNodes(nodes: Int32Array, x: number, out: number[]): number[] {
  out.length = 0;
  const gather = (node: number, levels: number): void => {
    if (levels === 0 || isLeaf(nodes, node)) out.push(node);
    else {
      gather(node + 1, levels - 1);
      gather(nodes[node * NODE_INTS + (NODE_RIGHT >> 2)], levels - 1);
    }
  };
  gather(x, KD_RECORD_LEVELS);
  return out;
}

function isLeaf(nodes: Int32Array, node: number): boolean {
  return nodes[node * NODE_INTS + (NODE_DIM >> 2)] < 0;
}

/**
 * Record index of every record node (-1 elsewhere), numbered depth-first with the first slot's
 * subtree next. Returns the map and the record count.
 */
export function numberKdRecords(tree: KdTree): { recordOf: Int32Array; count: number } {
  const recordOf = new Int32Array(tree.nodeCount).fill(-1);
  let count = 0;
  if (tree.nodeCount === 0 || isLeaf(tree.nodes, 0)) return { recordOf, count };
  const pending = [0];
  const slots: number[] = [];
  while (pending.length > 0) {
    const x = pending.pop()!;
    recordOf[x] = count++;
    slotNodes(tree.nodes, x, slots);
    for (let s = slots.length - 1; s >= 0; s--) if (!isLeaf(tree.nodes, slots[s])) pending.push(slots[s]);
  }
  return { recordOf, count };
}

/**
 * Writes the records at `at` (kdRecordCount records of kdRecordBytes each): per record the
 * fine-unit boxes of its slots (in the 8-bit codec's fine units and code order), then per slot its node, lowest frame, and rows (a leaf) or record (inner).
 * Unused slots are SLOT_EMPTY with zero boxes. Returns the map from node to record.
 */
export function writeKdRecords(v: Heap, at: number, tree: KdTree, codec: U8Codec, stride: number): Int32Array {
  const rb = kdRecordBytes(stride);
  const boxBytes = kdBoxBytes(stride);
  const n = tree.nodes;
  const { recordOf, count } = numberKdRecords(tree);
  v.u8.fill(0, at, at + count * rb);
  const slots: number[] = [];
  for (let x = 0; x < tree.nodeCount; x++) {
    const r = recordOf[x];
    if (r < 0) continue;
    const rec = at + r * rb;
    slotNodes(n, x, slots);
    for (let s = 0; s < KD_SLOTS; s++) {
      const e = (rec + KD_SLOTS * boxBytes + s * SLOT_SIZE) >> 2;
      if (s >= slots.length) {
        v.i32[e + (SLOT_NODE >> 2)] = -1;
        v.i32[e + (SLOT_COUNT >> 2)] = SLOT_EMPTY;
        continue;
      }
      const c = slots[s];
      const cp = c * NODE_INTS;
      encodeFineBox(codec, tree.boxes, c * 2 * stride, v.i16, (rec + s * boxBytes) >> 1);
      const leaf = isLeaf(n, c);
      v.i32[e + (SLOT_NODE >> 2)] = c;
      v.i32[e + (SLOT_MIN_ORIG >> 2)] = n[cp + (NODE_MIN_ORIG >> 2)];
      v.i32[e + (SLOT_START >> 2)] = leaf ? n[cp + (NODE_START >> 2)] : recordOf[c];
      v.i32[e + (SLOT_COUNT >> 2)] = leaf ? n[cp + (NODE_COUNT >> 2)] : SLOT_INNER;
    }
  }
  return recordOf;
}
