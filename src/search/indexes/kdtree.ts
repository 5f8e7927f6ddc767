/**
 * Offline KD-tree build for the exact KD search (assembly/kdtree.ts).
 *
 * Only candidate rows enter the tree (a search can never return the others). Each node splits its
 * rows at the median of the dimension with the largest spread (estimated on a sample of its rows);
 * halving by count bounds the depth by ceil(log2(rows / leafSize)) even with duplicate rows. Nodes are stored in preorder (left child =
 * node + 1), each with the bounding box of its rows, the OR / AND of their tag bits and their lowest
 * original frame. Rows are reordered into leaf order (`order[k]` = original frame of leaf row k).
 */
import {
  NODE_INTS, NODE_DIM, NODE_SPLIT, NODE_RIGHT, NODE_START, NODE_COUNT, NODE_TAG_OR, NODE_TAG_AND, NODE_MIN_ORIG,
} from '../wasm/memory-layout.js';

export interface KdTree {
  /** Original frame of each leaf-order row (candidate rows only). */
  order: Int32Array;
  /** NODE_INTS i32 per node (see wasm/memory-layout.ts NODE_*), preorder. */
  nodes: Int32Array;
  /** Per node: min[stride] then max[stride]. */
  boxes: Float32Array;
  nodeCount: number;
  /** Edges from the root to the deepest leaf. */
  depth: number;
  leafSize: number;
}

/**
 * The leaf size used when none is given, from the candidate count: 16 rows up to 65,536 candidates,
 * doubled for every fourfold growth beyond (32 up to 262,144, 64 up to 1,048,576), at most 256.
 * A small tree stays in cache, where a leaf's rows cost more than a node; a large one does not, and
 * every node a search enters costs a cache miss, so fewer and shallower nodes with longer leaves
 * pay. docs/search.md has the measurements behind it.
 */
export function defaultKdLeafSize(candidates: number): number {
  let leaf = 16;
  for (let cover = 65536; candidates > cover && leaf < 256; cover *= 4) leaf *= 2;
  return leaf;
}

/**
 * Nodes a tree over `count` rows will have, in O(log count) without recursion. Halving by count
 * (a node of s rows has children of floor(s / 2) and s - floor(s / 2)) leaves at most two sizes per
 * level, h and h + 1, so each level is two sizes with a multiplicity each.
 */
export function kdNodeCount(count: number, leafSize: number): number {
  checkLeafSize(leafSize);
  if (count === 0) return 0;
  let total = 0;
  let size = count; // this level holds `small` nodes of `size` rows and `large` nodes of size + 1
  let small = 1;
  let large = 0;
  while (small + large > 0) {
    total += small + large;
    // Only nodes above the leaf size split; size + 1 may split while size does not.
    const splitSmall = size > leafSize ? small : 0;
    const splitLarge = size + 1 > leafSize ? large : 0;
    const h = size >> 1;
    if ((size & 1) === 0) {
      // 2h -> h, h; 2h + 1 -> h, h + 1
      small = 2 * splitSmall + splitLarge;
      large = splitLarge;
    } else {
      // 2h + 1 -> h, h + 1; 2h + 2 -> h + 1, h + 1
      small = splitSmall;
      large = splitSmall + 2 * splitLarge;
    }
    size = h;
  }
  return total;
}

function checkLeafSize(leafSize: number): void {
  if (!(Number.isInteger(leafSize) && leafSize >= 1)) throw new RangeError(`kd leafSize must be a positive integer, got ${leafSize}`);
}

/**
 * Builds the tree without recursion: nodes are numbered in preorder from an explicit stack (the
 * right child's index is known in advance from kdNodeCount of the left half), leaves are summarised
 * when created and inner nodes in one reverse sweep afterwards (children follow their parent in
 * preorder). The stack never holds more than depth + 1 entries.
 */
export function buildKdTree(
  features: Float32Array, rows: number, stride: number, dims: number,
  candidates: Uint8Array, tagBits: Uint32Array, leafSizeOption?: number,
): KdTree {
  let m = 0;
  for (let i = 0; i < rows; i++) if (candidates[i] !== 0) m++;
  const leafSize = leafSizeOption ?? defaultKdLeafSize(m);
  checkLeafSize(leafSize);
  const order = new Int32Array(m);
  for (let i = 0, k = 0; i < rows; i++) if (candidates[i] !== 0) order[k++] = i;

  const nodeCount = kdNodeCount(m, leafSize);
  const nodes = new Int32Array(nodeCount * NODE_INTS);
  const boxes = new Float32Array(nodeCount * 2 * stride);
  const splitBits = new Float32Array(1);
  const splitInt = new Int32Array(splitBits.buffer);
  let depth = 0;

  // Pending subtrees: (first row, row count, level, node index it must get).
  const pending: number[] = [];
  if (m > 0) pending.push(0, m, 0, 0);
  let next = 0;
  while (pending.length > 0) {
    const node = pending.pop()!;
    const level = pending.pop()!;
    const count = pending.pop()!;
    const start = pending.pop()!;
    if (node !== next) throw new Error(`internal: kd node numbered ${next}, expected ${node}`);
    next++;
    if (level > depth) depth = level;
    const np = node * NODE_INTS;
    nodes[np + (NODE_START >> 2)] = start;
    nodes[np + (NODE_COUNT >> 2)] = count;
    if (count <= leafSize) {
      nodes[np + (NODE_DIM >> 2)] = -1;
      nodes[np + (NODE_RIGHT >> 2)] = -1;
      summarizeLeaf(nodes, boxes, node, order, start, count, features, stride, tagBits);
      continue;
    }
    const dim = widestDim(order, start, count, features, stride, dims);
    const half = count >> 1;
    selectKth(order, start, start + count - 1, start + half, features, stride, dim);
    splitBits[0] = features[order[start + half] * stride + dim];
    const right = node + 1 + kdNodeCount(half, leafSize);
    nodes[np + (NODE_DIM >> 2)] = dim;
    nodes[np + (NODE_SPLIT >> 2)] = splitInt[0];
    nodes[np + (NODE_RIGHT >> 2)] = right;
    // Right first, so the left subtree is numbered next (preorder).
    pending.push(start + half, count - half, level + 1, right);
    pending.push(start, half, level + 1, node + 1);
  }
  if (next !== nodeCount) throw new Error(`internal: kd tree has ${next} nodes, expected ${nodeCount}`);
  for (let node = nodeCount - 1; node >= 0; node--) {
    const right = nodes[node * NODE_INTS + (NODE_RIGHT >> 2)];
    if (right >= 0) mergeSummaries(nodes, boxes, node, node + 1, right, stride);
  }
  return { order, nodes, boxes, nodeCount, depth, leafSize };
}

/** A leaf's bounding box over its rows, the OR / AND of their tag bits and their lowest frame. */
function summarizeLeaf(
  nodes: Int32Array, boxes: Float32Array, node: number, order: Int32Array, start: number, count: number,
  features: Float32Array, stride: number, tagBits: Uint32Array,
): void {
  const np = node * NODE_INTS;
  const lo = node * 2 * stride;
  const hi = lo + stride;
  let tagOr = 0;
  let tagAnd = -1;
  let minOrig = 0x7fffffff;
  boxes.fill(Infinity, lo, hi);
  boxes.fill(-Infinity, hi, hi + stride);
  for (let k = start; k < start + count; k++) {
    const f = order[k];
    tagOr |= tagBits[f];
    tagAnd &= tagBits[f];
    if (f < minOrig) minOrig = f;
    const r = f * stride;
    for (let j = 0; j < stride; j++) {
      const v = features[r + j];
      if (v < boxes[lo + j]) boxes[lo + j] = v;
      if (v > boxes[hi + j]) boxes[hi + j] = v;
    }
  }
  nodes[np + (NODE_TAG_OR >> 2)] = tagOr;
  nodes[np + (NODE_TAG_AND >> 2)] = tagAnd;
  nodes[np + (NODE_MIN_ORIG >> 2)] = minOrig;
}

/** An inner node's summary from its two children's. */
function mergeSummaries(nodes: Int32Array, boxes: Float32Array, node: number, a: number, b: number, stride: number): void {
  const np = node * NODE_INTS;
  const na = a * NODE_INTS;
  const nb = b * NODE_INTS;
  nodes[np + (NODE_TAG_OR >> 2)] = nodes[na + (NODE_TAG_OR >> 2)] | nodes[nb + (NODE_TAG_OR >> 2)];
  nodes[np + (NODE_TAG_AND >> 2)] = nodes[na + (NODE_TAG_AND >> 2)] & nodes[nb + (NODE_TAG_AND >> 2)];
  nodes[np + (NODE_MIN_ORIG >> 2)] = Math.min(nodes[na + (NODE_MIN_ORIG >> 2)], nodes[nb + (NODE_MIN_ORIG >> 2)]);
  const o = node * 2 * stride;
  const x = a * 2 * stride;
  const y = b * 2 * stride;
  for (let j = 0; j < stride; j++) {
    boxes[o + j] = Math.min(boxes[x + j], boxes[y + j]);
    boxes[o + stride + j] = Math.max(boxes[x + stride + j], boxes[y + stride + j]);
  }
}

/** Rows sampled per node to choose its split dimension. */
const SPLIT_SAMPLE = 64;
// Per-dimension sample min / max, reused across nodes and builds.
let scratchLo = new Float64Array(0);
let scratchHi = new Float64Array(0);

/**
 * The dimension with the largest spread (max - min) over an evenly spaced sample of the node's
 * rows: the split only affects speed, never exactness, and sampling keeps the build fast.
 */
function widestDim(order: Int32Array, start: number, count: number, f: Float32Array, stride: number, dims: number): number {
  if (scratchLo.length < dims) {
    scratchLo = new Float64Array(dims);
    scratchHi = new Float64Array(dims);
  }
  const lo = scratchLo.fill(Infinity, 0, dims);
  const hi = scratchHi.fill(-Infinity, 0, dims);
  const step = Math.max(1, Math.floor(count / SPLIT_SAMPLE));
  for (let k = start; k < start + count; k += step) {
    const r = order[k] * stride;
    for (let j = 0; j < dims; j++) {
      const v = f[r + j];
      if (v < lo[j]) lo[j] = v;
      if (v > hi[j]) hi[j] = v;
    }
  }
  let best = 0;
  for (let j = 1; j < dims; j++) if (hi[j] - lo[j] > hi[best] - lo[best]) best = j;
  return best;
}

/**
 * Reorders idx[lo..hi] so that idx[k] holds the row whose value on `dim` has rank k, smaller (or
 * equal) values before it and larger (or equal) after. Three-way partitioning keeps runs of
 * duplicate values linear.
 */
function selectKth(idx: Int32Array, lo: number, hi: number, k: number, f: Float32Array, stride: number, dim: number): void {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const pivot = median3(f[idx[lo] * stride + dim], f[idx[mid] * stride + dim], f[idx[hi] * stride + dim]);
    // Dutch flag: [lo, lt) < pivot, [lt, i) == pivot, (gt, hi] > pivot.
    let lt = lo;
    let gt = hi;
    let i = lo;
    while (i <= gt) {
      const v = f[idx[i] * stride + dim];
      if (v < pivot) swap(idx, lt++, i++);
      else if (v > pivot) swap(idx, i, gt--);
      else i++;
    }
    if (k < lt) hi = lt - 1;
    else if (k > gt) lo = gt + 1;
    else return;
  }
}

function median3(a: number, b: number, c: number): number {
  return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
}

function swap(a: Int32Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}
