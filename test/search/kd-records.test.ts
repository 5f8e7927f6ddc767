/**
 * The 8-bit KD walk's records (src/search/indexes/kd-records.ts): the planned count is the written count,
 * the records' leaf slots tile the tree's rows exactly once, every slot's fine-unit box contains its rows,
 * the traversal stack bound holds for a walk that prunes nothing, the default leaf size follows the
 * candidate count, and kdtree-u8 equals the oracle on trees with leaf children at every depth.
 */
import { describe, expect, it } from 'vitest';
import { buildKdTree, defaultKdLeafSize, kdNodeCount } from '../../src/search/indexes/kdtree.js';
import { kdRecordCount, kdRecordStackNeed, numberKdRecords, writeKdRecords } from '../../src/search/indexes/kd-records.js';
import { planU8Codec } from '../../src/search/codecs/u8.js';
import {
  Heap, kdBoxBytes, kdRecordBytes, KD_SLOTS, SLOT_NODE, SLOT_MIN_ORIG, SLOT_START, SLOT_COUNT, SLOT_SIZE, SLOT_INNER, SLOT_EMPTY,
  NODE_INTS, NODE_START, NODE_COUNT, NODE_MIN_ORIG, KD_STACK_CAPACITY,
} from '../../src/search/wasm/memory-layout.js';
import { Matcher, type Backend } from '../../src/search/matcher.js';
import { makeFakeDb, rng } from '../helpers/fake-db.js';
import { oracleSearch } from '../helpers/search-oracle.js';

function randomRows(rows: number, dims: number, seed: number): Float32Array {
  const r = rng(seed);
  return new Float32Array(rows * dims).map(() => r() * 4 - 2);
}

describe('KD records', () => {
  it('plans as many records as the tree has, for every size and leaf size', () => {
    for (const leaf of [1, 2, 3, 5, 16, 64]) {
      for (const n of [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100, 257, 1000, 1537]) {
        const db = makeFakeDb(randomRows(n, 2, n + leaf), 2);
        const tree = buildKdTree(db.features, n, db.stride, 2, db.candidates, db.tagBits, leaf);
        expect(tree.nodeCount).toBe(kdNodeCount(n, leaf));
        expect(numberKdRecords(tree).count, `n ${n} leaf ${leaf}`).toBe(kdRecordCount(n, leaf));
      }
    }
    // Shape only, no tree: a complete tree of 2^20 leaves has a record every two levels.
    expect(kdRecordCount(2 ** 20, 1)).toBe((4 ** 10 - 1) / 3);
  });

  it('tiles the rows exactly once, with fine-unit boxes that contain them and the lowest frames of their subtrees', () => {
    const dims = 5;
    for (const [n, leaf] of [[1, 1], [2, 1], [3, 1], [37, 2], [500, 3], [2048, 16]] as const) {
      const db = makeFakeDb(randomRows(n, dims, n), dims);
      const stride = db.stride;
      const tree = buildKdTree(db.features, n, stride, dims, db.candidates, db.tagBits, leaf);
      const codec = planU8Codec(db.features, n, stride, dims);
      const rb = kdRecordBytes(stride);
      const count = kdRecordCount(n, leaf);
      const heap = new Heap(new WebAssembly.Memory({ initial: Math.ceil((count * rb + 64) / 65536) + 1 }));
      const at = 64;
      writeKdRecords(heap, at, tree, codec, stride);
      const covered = new Uint8Array(n);
      const visit = (record: number): void => {
        const rec = at + record * rb;
        let slots = 0;
        for (let s = 0; s < KD_SLOTS; s++) {
          const e = (rec + KD_SLOTS * kdBoxBytes(stride) + s * SLOT_SIZE) >> 2;
          const c = heap.i32[e + (SLOT_COUNT >> 2)];
          if (c === SLOT_EMPTY) continue;
          slots++;
          const node = heap.i32[e + (SLOT_NODE >> 2)];
          const np = node * NODE_INTS;
          expect(heap.i32[e + (SLOT_MIN_ORIG >> 2)]).toBe(tree.nodes[np + (NODE_MIN_ORIG >> 2)]);
          const box = (rec + s * kdBoxBytes(stride)) >> 1;
          const first = tree.nodes[np + (NODE_START >> 2)];
          for (let j = 0; j < stride; j++) {
            // Code byte j holds dimension codec.dim[j] in fine units (padding: 0, 0).
            if (codec.w[j] === 0) {
              expect([heap.i16[box + j], heap.i16[box + stride + j]]).toEqual([0, 0]);
              continue;
            }
            for (let k = first; k < first + tree.nodes[np + (NODE_COUNT >> 2)]; k++) {
              const x = (db.features[tree.order[k] * stride + codec.dim[j]] - codec.lo[j]) / codec.u;
              expect(heap.i16[box + j] <= x && x <= heap.i16[box + stride + j], `code byte ${j} row ${k}`).toBe(true);
            }
            expect(heap.i16[box + j]).toBeGreaterThanOrEqual(0);
            expect(heap.i16[box + stride + j]).toBeLessThanOrEqual(255 * codec.w[j] + 1);
          }
          if (c === SLOT_INNER) {
            visit(heap.i32[e + (SLOT_START >> 2)]);
          } else {
            expect(heap.i32[e + (SLOT_START >> 2)]).toBe(first);
            expect(c).toBe(tree.nodes[np + (NODE_COUNT >> 2)]);
            for (let k = first; k < first + c; k++) covered[k]++;
          }
        }
        expect(slots).toBeGreaterThanOrEqual(2);
      };
      if (n <= leaf) {
        expect(count).toBe(0);
        continue;
      }
      visit(0);
      expect(Array.from(covered).every((x) => x === 1), `n ${n} leaf ${leaf}`).toBe(true);
    }
  });

  it('never needs more stack than kdRecordStackNeed, and that fits the slot stack at any 32-bit size', () => {
    for (const [n, leaf] of [[2, 1], [3, 1], [1000, 1], [4097, 1], [3000, 3], [65536, 16]] as const) {
      const db = makeFakeDb(randomRows(n, 1, n), 1);
      const tree = buildKdTree(db.features, n, db.stride, 1, db.candidates, db.tagBits, leaf);
      const { recordOf } = numberKdRecords(tree);
      // A walk that prunes nothing pushes every slot of every record.
      const rb = kdRecordBytes(db.stride);
      const heap = new Heap(new WebAssembly.Memory({ initial: Math.ceil((numberKdRecords(tree).count * rb) / 65536) + 1 }));
      writeKdRecords(heap, 0, tree, planU8Codec(db.features, n, db.stride, 1), db.stride);
      const stack = [0];
      let most = 1;
      while (stack.length > 0) {
        const r = stack.pop()!;
        for (let s = 0; s < KD_SLOTS; s++) {
          const e = (r * rb + KD_SLOTS * kdBoxBytes(db.stride) + s * SLOT_SIZE) >> 2;
          if (heap.i32[e + (SLOT_COUNT >> 2)] === SLOT_EMPTY) continue;
          // Leaves are pushed too (and popped at once): count them.
          stack.push(heap.i32[e + (SLOT_COUNT >> 2)] === SLOT_INNER ? heap.i32[e + (SLOT_START >> 2)] : -1);
        }
        most = Math.max(most, stack.length);
        while (stack.length > 0 && stack[stack.length - 1] === -1) stack.pop();
      }
      expect(recordOf[0]).toBe(0);
      expect(most, `n ${n} leaf ${leaf} depth ${tree.depth}`).toBeLessThanOrEqual(kdRecordStackNeed(tree.depth));
    }
    // Halving by count: depth <= 31 for any 32-bit count even with leaf size 1.
    expect(Math.max(31 + 2, kdRecordStackNeed(31))).toBeLessThanOrEqual(KD_STACK_CAPACITY);
  });

  it('chooses the default leaf size from the candidate count', () => {
    expect([0, 1, 65536, 65537, 262144, 262145, 1048576, 1048577, 2 ** 31].map(defaultKdLeafSize)).toEqual([16, 16, 16, 32, 32, 64, 64, 128, 256]);
  });

  it('kdtree-u8 equals the oracle on every backend for leaf sizes that leave leaf children at every depth', async () => {
    const dims = 7;
    const backends: Backend[] = ['wasm-simd', 'wasm-scalar', 'js'];
    for (const [n, leaf] of [[1, 1], [2, 1], [5, 1], [6, 2], [301, 3], [1000, 5]] as const) {
      const db = makeFakeDb(randomRows(n, dims, 7 * n), dims);
      const r = rng(n);
      const matchers = await Promise.all(backends.map((backend) => Matcher.create(db, { backend, compact: ['u8'], kdLeafSize: leaf })));
      for (let t = 0; t < 30; t++) {
        const q = new Float32Array(db.stride);
        const src = Math.floor(r() * n);
        for (let j = 0; j < dims; j++) q[j] = db.features[src * db.stride + j] + (r() - 0.5) * [0.01, 0.5, 3][t % 3];
        const want = oracleSearch(db, q);
        const stats = matchers.map((m) => {
          const got = m.search(q, { method: 'kdtree-u8', normalized: true });
          expect({ frame: got.frame, cost: got.cost }, `${m.backend} n ${n} leaf ${leaf}`).toEqual({ frame: want.frame, cost: want.cost });
          return JSON.stringify(m.lastStats);
        });
        expect(new Set(stats).size, stats.join(' ')).toBe(1);
      }
      expect(matchers[0].buildStats.kdLeafSize).toBe(leaf);
    }
    const auto = await Matcher.create(makeFakeDb(randomRows(100, 2, 1), 2), { backend: 'js' });
    expect(auto.buildStats.kdLeafSize).toBe(16);
  });
});
