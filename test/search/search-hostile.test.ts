/**
 * Hostile inputs: every one gets a clear error (or a real answer), never frame -1 with a null cost,
 * a stack overflow, an out-of-memory abort or a hang. Each test must finish well within 10 s.
 */
import { describe, expect, it } from 'vitest';
import { Matcher, EmptyCandidateSetError, type Backend, type SearchMethod } from '../../src/search/matcher.js';
import { MatcherPool } from '../../src/search/pool/pool.js';
import { kdNodeCount, buildKdTree } from '../../src/search/indexes/kdtree.js';
import { OPTION_RANGES } from '../../src/search/options.js';
import { estimatePoolMemory, WORKER_OVERHEAD_BYTES } from '../../src/search/pool/budget.js';
import { resolvePoolOptions } from '../../src/search/options.js';
import { makeFakeDb, rng, gauss } from '../helpers/fake-db.js';
import { laneCost } from '../helpers/search-oracle.js';

const BACKENDS: Backend[] = ['wasm-simd', 'wasm-scalar', 'js'];
const METHODS: SearchMethod[] = ['brute', 'early', 'aabb', 'kdtree'];
const FAST = { timeout: 10_000 };

function smallDb(rows = 300, dims = 6, seed = 4) {
  const r = rng(seed);
  return makeFakeDb(new Float32Array(rows * dims).map(() => gauss(r)), dims, { normalize: true });
}

describe.each(BACKENDS)('queries whose float32 cost overflows (%s)', (backend) => {
  it('rejects a value that normalises outside float32, naming the dimension', FAST, async () => {
    const m = await Matcher.create(smallDb(), { backend });
    const n = new Float32Array(8);
    n[4] = 3e38;
    for (const method of METHODS) {
      expect(() => m.search(n, { method, normalized: true })).toThrow(/query\[4\] is 3e\+38: the query is too far from every allowed frame/);
    }
    // A raw value that leaves float32 once normalised is refused before the search.
    const tiny = makeFakeDb(new Float32Array(40).map((_, i) => i % 7), 4);
    tiny.scale[3] = 0.5;
    const mt = await Matcher.create(tiny, { backend });
    expect(() => mt.search([0, 0, 0, 3e38])).toThrow(/query\[3\] is 3e\+38, which normalises to .*outside the float32 range/);
    expect(() => mt.searchBatch([0, 0, 0, 0, 0, 0, 0, 3e38], 2)).toThrow(/query 1 \[3\]/);
    expect(() => mt.normalizeQuery([0, 0, 0, 3e38])).toThrow(/outside the float32 range/);
  });

  it('every method throws the same RangeError when all costs overflow, and returns -1 under a finite bestCost', FAST, async () => {
    const db = smallDb();
    const m = await Matcher.create(db, { backend });
    const q = new Float32Array(8);
    q[3] = 2e19; // (2e19)^2 = 4e38 > float32 max for every frame
    const messages = METHODS.map((method) => {
      try {
        m.search(q, { method, normalized: true });
        return 'no error';
      } catch (e) {
        expect(e).toBeInstanceOf(RangeError);
        return (e as Error).message;
      }
    });
    expect(messages[0]).toMatch(/^query\[3\] is 2e\+19: the query is too far from every allowed frame for a float32 cost/);
    expect(new Set(messages).size).toBe(1);
    // With a finite bestCost, -1 is exact: the true cost is above float32 range, so above bestCost.
    for (const method of METHODS) expect(m.search(q, { method, normalized: true, bestCost: 1e30 })).toMatchObject({ frame: -1, cost: Math.fround(1e30) });
    // Batches name the query.
    const batch = new Float32Array(3 * 8);
    batch.set(q, 16);
    for (const method of METHODS) {
      expect(() => m.searchBatch(batch, 3, { method, normalized: true })).toThrow(/^query 2 \[3\] is 2e\+19/);
    }
    // Raw queries report the raw value and its normalised value.
    const raw = Array.from({ length: 6 }, (_, j) => db.mean[j]);
    raw[1] = db.mean[1] + 3e19 * db.scale[1];
    expect(() => m.search(raw)).toThrow(/query\[1\] is .* \(normalised 3e\+19\)/);
  });

  it('finds the best frame when only some frames overflow, and near the limit', FAST, async () => {
    const db = makeFakeDb([0, 0, 0, 0, 1e19, 0, 0, 0, -1e19, 0, 0, 0], 4); // rows at 0, +1e19, -1e19
    const m = await Matcher.create(db, { backend });
    for (const method of METHODS) {
      // From 1.5e19 the row at +1e19 costs 2.5e37, the row at 0 costs 2.25e38 and the one at -1e19 overflows.
      const q = new Float32Array([1.5e19, 0, 0, 0]);
      expect(m.search(q, { method })).toMatchObject({ frame: 1, cost: laneCost(q, db.features, 1, 4) });
      expect(m.search([-1.8e19, 0, 0, 0], { method }).frame).toBe(2);
      const r = m.search([1.8e19, 0, 0, 0], { method });
      expect(r.frame).toBe(1);
      expect(Number.isFinite(r.cost)).toBe(true);
    }
  });

  it('blames the bias when the distance alone fits float32', FAST, async () => {
    const db = makeFakeDb([0, 0, 0, 0, 1, 0, 0, 0], 4);
    const m = await Matcher.create(db, { backend });
    const bias = new Float32Array([3e38, 3e38]);
    expect(() => m.search([1.3e19, 0, 0, 0], { bias, method: 'brute' })).toThrow(/query: its cost plus bias overflows float32 at every allowed frame/);
  });
});

describe('option validation', () => {
  it('refuses every out-of-range construction option with its name and range', FAST, async () => {
    const db = smallDb(50);
    for (const kdLeafSize of [0, -1, 1.5, NaN, 70000, '8' as unknown as number]) {
      await expect(Matcher.create(db, { kdLeafSize })).rejects.toThrow(/kdLeafSize must be an integer in \[1, 65536\]/);
    }
    for (const batchCapacity of [0, 2.5, 1e9]) {
      await expect(Matcher.create(db, { batchCapacity })).rejects.toThrow(/batchCapacity must be an integer in \[1, 65536\]/);
    }
    await expect(Matcher.create(db, { memory: {} as WebAssembly.Memory })).rejects.toThrow(TypeError);
    for (const threads of [10000, 65, -1, 0.5]) {
      await expect(MatcherPool.create(db, { threads })).rejects.toThrow(/threads must be an integer in \[0, 64\]/);
    }
    await expect(MatcherPool.create(db, { threads: 1, workerBatchCapacity: 0 })).rejects.toThrow(/workerBatchCapacity must be an integer in \[1, 65536\]/);
    await expect(MatcherPool.create(db, { threads: 1, maximumPages: 65537 })).rejects.toThrow(/maximumPages must be an integer in \[1, 65536\]/);
    await expect(MatcherPool.create(db, { threads: 1, callerShare: 'yes' as unknown as boolean })).rejects.toThrow(/callerShare must be a boolean/);
    expect(OPTION_RANGES.threads).toEqual([0, 64]);
  });

  it('refuses bad per-search options', FAST, async () => {
    const m = await Matcher.create(smallDb(50), { backend: 'js' });
    const q = new Float32Array(6);
    expect(() => m.search(q, { normalized: 'yes' as unknown as boolean })).toThrow(/normalized must be a boolean/);
    expect(() => m.search(q, { bestCost: '1' as unknown as number })).toThrow(/bestCost must be a number/);
    for (const k of [-1, 1.5, NaN, Infinity]) expect(() => m.searchBatch(q, k)).toThrow(/k must be a non-negative integer/);
    const bc = new Float32Array([0, NaN]);
    expect(() => m.searchBatch(new Float32Array(12), 2, { bestCost: bc })).toThrow(/bestCost\[1\] is NaN/);
    expect(() => m.searchBatch(new Float32Array(12), 2, { bestCost: [1, 2] as unknown as Float32Array })).toThrow(/Float32Array/);
    expect(() => m.queryView(0)).toThrow(/count must be an integer in \[1, 256\]/);
    expect(() => m.queryView(1.5)).toThrow(RangeError);
  });
});

describe('KD-tree build cannot overflow the stack', () => {
  it('counts nodes in closed form exactly as the halving recursion does', () => {
    const recursive = (n: number, leaf: number): number => (n === 0 ? 0 : n <= leaf ? 1 : 1 + recursive(n >> 1, leaf) + recursive(n - (n >> 1), leaf));
    for (const leaf of [1, 2, 3, 4, 7, 16, 33]) {
      for (let n = 0; n < 600; n++) expect(kdNodeCount(n, leaf)).toBe(recursive(n, leaf));
      for (const n of [1023, 1024, 1025, 65535, 99991]) expect(kdNodeCount(n, leaf)).toBe(recursive(n, leaf));
    }
    expect(kdNodeCount(2 ** 31 - 1, 1)).toBe(2 ** 32 - 3); // a full tree: 2n - 1 nodes
    expect(() => kdNodeCount(10, 0)).toThrow(/leafSize must be a positive integer/);
  });

  it('builds leaf size 1 over many duplicate rows (deepest possible tree) and searches it', FAST, async () => {
    const rows = 100_000;
    const raw = new Float32Array(rows).map((_, i) => (i % 3 === 0 ? 1 : 0)); // 1 dim, massive ties
    const db = makeFakeDb(raw, 1);
    const tree = buildKdTree(db.features, rows, db.stride, 1, db.candidates, db.tagBits, 1);
    expect(tree.nodeCount).toBe(2 * rows - 1);
    expect(tree.depth).toBe(Math.ceil(Math.log2(rows)));
    const m = await Matcher.create(db, { backend: 'wasm-simd', kdLeafSize: 1 });
    const q = new Float32Array([0.9, 0, 0, 0]);
    expect(m.search(q, { method: 'kdtree', normalized: true })).toMatchObject({ frame: 0, cost: laneCost(q, db.features, 0, db.stride) });
    expect(m.search([0.1], { method: 'kdtree' }).frame).toBe(1);
  });
});

describe('memory bounds', () => {
  it('MatcherPool refuses, with the figure, a pool whose shared memory cannot hold its slots', FAST, async () => {
    const db = smallDb(20_000, 27, 2);
    const t0 = Date.now();
    const err = await MatcherPool.create(db, { threads: 64, maximumPages: 200 }).then(() => null, (e: Error) => e);
    expect(err).toBeInstanceOf(RangeError);
    expect(err!.message).toMatch(/^MatcherPool: 64 threads need about [\d.]+ MiB \(shared memory [\d.]+ MiB = database [\d.]+ MiB \+ 64 worker slots of [\d.]+ (KiB|MiB); workers 64 x 12.0 MiB\), but the shared memory may hold at most 12.5 MiB \(maximumPages 200\)/);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('estimates grow linearly with threads and count the workers themselves', () => {
    const db = smallDb(5000, 27, 3);
    const at = (threads: number) => estimatePoolMemory(db, resolvePoolOptions({ threads }, 1));
    const a = at(1);
    const b = at(9);
    expect(b.sharedBytes - a.sharedBytes).toBe(8 * a.slotBytes);
    expect(b.workerBytes).toBe(9 * WORKER_OVERHEAD_BYTES);
    expect(a.databaseBytes).toBeGreaterThan(5000 * 28 * 4 * 2); // features and their leaf-order copy
  });

  it('a memory that cannot grow gives a clear error instead of an engine message', FAST, async () => {
    const db = smallDb(20_000, 27, 5);
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 8 });
    await expect(Matcher.create(db, { backend: 'js', memory })).rejects.toThrow(/search memory cannot grow from 64.0 KiB to [\d.]+ MiB/);
  });
});

describe('database checks the search relies on', () => {
  it('refuses broken structure before allocating, and non-finite values', FAST, async () => {
    const db = smallDb(20);
    await expect(Matcher.create({ ...db, frameCount: -1 })).rejects.toThrow(/frameCount -1/);
    await expect(Matcher.create({ ...db, features: Array.from(db.features) as unknown as Float32Array })).rejects.toThrow(/features must be a Float32Array/);
    await expect(Matcher.create({ ...db, tagBits: new Uint32Array(3) })).rejects.toThrow(/tagBits has 3 entries, expected 20/);
    await expect(Matcher.create({ ...db, fps: 0 })).rejects.toThrow(/fps 0/);
    await expect(Matcher.create({ ...db, tagNames: Array.from({ length: 33 }, (_, i) => `t${i}`) })).rejects.toThrow(/at most 32/);
    const scale = db.scale.slice();
    scale[2] = 0;
    await expect(Matcher.create({ ...db, scale })).rejects.toThrow(/scale of column 2 is 0/);
  });

  it('an oracle check: a value near the overflow limit is costed like the documented lane order', FAST, async () => {
    const db = makeFakeDb([1e18, -1e18, 3, 4], 4);
    const q = new Float32Array([-1e19, 1e19, 0, 0]);
    for (const backend of BACKENDS) {
      const m = await Matcher.create(db, { backend });
      const r = m.search(q, { normalized: true, method: 'brute' });
      expect(r.frame).toBe(0);
      expect(r.cost).toBe(laneCost(q, db.features, 0, db.stride));
      expect(() => m.search(q, { normalized: true, requireTags: [] as string[], ranges: [[1, 1]] })).toThrow(EmptyCandidateSetError);
    }
  });
});
