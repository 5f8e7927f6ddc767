/**
 * MatcherPool: worker threads sharing one WebAssembly.Memory return exactly the single-threaded
 * results. Workers run the compiled dist/src/search/pool/worker.js (`npm run build:ts`, done by
 * `npm test`'s pretest).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MatcherPool } from '../../src/search/pool/pool.js';
import { Matcher, EmptyCandidateSetError } from '../../src/search/matcher.js';
import { makeFakeDb, rng, gauss } from '../helpers/fake-db.js';

function smoothDb(rows: number, dims: number, seed: number) {
  const r = rng(seed);
  const raw = new Float32Array(rows * dims);
  const w = new Float64Array(dims);
  for (let i = 0; i < rows; i++) for (let j = 0; j < dims; j++) raw[i * dims + j] = w[j] += 0.2 * gauss(r);
  const tagBits = new Uint32Array(rows).map((_, i) => (i % 1000 < 500 ? 1 : 2));
  return makeFakeDb(raw, dims, { tagBits, tagNames: ['a', 'b'], normalize: true });
}

describe('MatcherPool', () => {
  const db = smoothDb(20000, 27, 1);
  let pool: MatcherPool;
  let single: Matcher;

  beforeAll(async () => {
    pool = await MatcherPool.create(db, { threads: 2, workerBatchCapacity: 300, compact: ['u8', 'f16'], clusters: true });
    single = await Matcher.create(db, { backend: 'wasm-simd', compact: ['u8', 'f16'], clusters: true });
  });
  afterAll(async () => {
    await pool.close();
  });

  it('runs workers on a shared memory', () => {
    expect(pool.threads).toBe(2);
    expect(pool.matcher.memory.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('returns the single-threaded results for every method and per-query options', async () => {
    const r = rng(2);
    const k = 1500; // several chunks per worker
    const queries = new Float32Array(k * 27).map((_, i) => db.rawFeatures[(Math.floor(i / 27) * 7 % 20000) * 28 + (i % 27)] + 0.3 * gauss(r));
    const bestCost = new Float32Array(k).map(() => (r() < 0.3 ? 0.5 : Infinity));
    const excludeRangesPerQuery = Array.from({ length: k }, (_, i) => (i % 3 === 0 ? [[i * 7 % 20000 - 10, i * 7 % 20000 + 10] as [number, number]] : null));
    const bias = new Float32Array(20000).map(() => 0.1 * gauss(r));
    for (const method of ['brute', 'early', 'aabb', 'kdtree', 'brute-u8', 'brute-f16', 'aabb-u8', 'kdtree-u8', 'cluster', 'cluster-u8'] as const) {
      const opts = { method, bestCost, excludeRangesPerQuery, requireTags: ['a'], bias };
      const want = single.searchBatch(queries, k, opts);
      const got = await pool.searchBatch(queries, k, opts);
      expect(got.frames, method).toEqual(want.frames);
      expect(got.costs, method).toEqual(want.costs);
      // Each worker counts in its own request struct; the pool adds them up.
      expect(pool.lastStats, method).toEqual(single.lastStats);
    }
    const approx = { method: 'cluster-u8' as const, probes: 3 };
    expect((await pool.searchBatch(queries, k, approx)).frames).toEqual(single.searchBatch(queries, k, approx).frames);
  });

  it('gives the same results when the calling thread takes a share (callerShare)', async () => {
    const mixed = await MatcherPool.create(db, { threads: 1, callerShare: true, workerBatchCapacity: 200 });
    try {
      const r = rng(3);
      const k = 901;
      const queries = new Float32Array(k * 27).map((_, i) => db.rawFeatures[(Math.floor(i / 27) * 11 % 20000) * 28 + (i % 27)] + 0.2 * gauss(r));
      const excludeRangesPerQuery = Array.from({ length: k }, (_, i) => (i % 2 ? [[i * 11 % 20000 - 5, i * 11 % 20000 + 5] as [number, number]] : null));
      for (const method of ['brute', 'kdtree'] as const) {
        const want = single.searchBatch(queries, k, { method, excludeRangesPerQuery });
        const got = await mixed.searchBatch(queries, k, { method, excludeRangesPerQuery });
        expect(got.frames).toEqual(want.frames);
        expect(got.costs).toEqual(want.costs);
      }
    } finally {
      await mixed.close();
    }
  });

  it('propagates an empty candidate set and refuses overlapping batches', async () => {
    const q = new Float32Array(4 * 27);
    await expect(pool.searchBatch(q, 4, { requireTags: ['a', 'b'] })).rejects.toThrow(EmptyCandidateSetError);
    const a = pool.searchBatch(q, 4);
    await expect(pool.searchBatch(q, 4)).rejects.toThrow(/already running/);
    await a;
  });

  it('direct searches on pool.matcher while a batch awaits its workers do not disturb it', async () => {
    const r = rng(7);
    const k = 2000;
    const queries = new Float32Array(k * 27).map(() => gauss(r));
    const bias = new Float32Array(20000).map(() => gauss(r));
    const opts = { method: 'aabb' as const, bias, ranges: [[0, 15000]] as [number, number][], excludeRangesPerQuery: Array.from({ length: k }, (_, i) => [[i, i + 50]] as [number, number][]) };
    const want = single.searchBatch(queries, k, opts);
    const pending = pool.searchBatch(queries, k, opts);
    for (let i = 0; i < 20; i++) {
      await new Promise((res) => setTimeout(res, 0));
      pool.matcher.search(queries.subarray(0, 27), { method: 'kdtree', bias: new Float32Array(20000), ranges: [[100, 200]], requireTags: ['a'] });
    }
    const got = await pending;
    expect(got.frames).toEqual(want.frames);
    expect(got.costs).toEqual(want.costs);
  });

  it('a batch that fails in one share settles after every share, and the next batch is exact', async () => {
    const r = rng(9);
    const k = 1200;
    const queries = new Float32Array(k * 28).map((_, i) => (i % 28 < 27 ? gauss(r) : 0));
    queries[5 * 28 + 3] = 3e19; // query 5 (first share): its cost overflows at every frame
    await expect(pool.searchBatch(queries, k, { method: 'brute', normalized: true })).rejects.toThrow(/^query 5 \[3\] is 3e\+19: the query is too far/);
    queries[5 * 28 + 3] = 0;
    const want = single.searchBatch(queries, k, { method: 'brute', normalized: true });
    const got = await pool.searchBatch(queries, k, { method: 'brute', normalized: true });
    expect(got.frames).toEqual(want.frames);
    expect(got.costs).toEqual(want.costs);
  });

  it('reloads a database', async () => {
    const db2 = smoothDb(5000, 27, 3);
    await pool.load(db2);
    const m2 = await Matcher.create(db2, { backend: 'wasm-scalar' });
    const r = rng(4);
    const queries = new Float32Array(100 * 27).map(() => gauss(r));
    expect(await pool.searchBatch(queries, 100)).toEqual(m2.searchBatch(queries, 100));
  });

  it('falls back to the calling thread with threads: 0 or the JS backend', async () => {
    const r = rng(5);
    const queries = new Float32Array(50 * 27).map(() => gauss(r));
    const want = single.searchBatch(queries, 50, { method: 'kdtree' });
    for (const opts of [{ threads: 0 }, { backend: 'js' as const }]) {
      const p = await MatcherPool.create(db, opts);
      expect(p.threads).toBe(0);
      expect(await p.searchBatch(queries, 50, { method: 'kdtree' })).toEqual(want);
      await p.close();
    }
  });
});
