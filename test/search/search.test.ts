/**
 * Search correctness: every backend (SIMD WASM, scalar WASM, JS) and every method (brute, early,
 * window, aabb, kdtree, and over compact data brute-u8, brute-f16, aabb-u8, kdtree-u8, cluster,
 * cluster-u8) returns exactly the oracle's frame and bit-identical float32 cost, on random databases
 * with duplicate rows, exact ties, sparse candidates, tags, bias, ranges and best costs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Matcher, EmptyCandidateSetError, type SearchMethod, type Backend, type SearchOptions } from '../../src/search/matcher.js';
import type { Database } from '../../src/database/database.js';
import { makeFakeDb, rng, gauss } from '../helpers/fake-db.js';
import { oracleSearch, laneCost, allowedFrame, type OracleOptions } from '../helpers/search-oracle.js';

const BACKENDS: Backend[] = ['wasm-simd', 'wasm-scalar', 'js'];
const METHODS: SearchMethod[] = ['brute', 'early', 'aabb', 'kdtree', 'brute-u8', 'brute-f16', 'aabb-u8', 'kdtree-u8', 'cluster', 'cluster-u8'];
/** Every compact copy and the clustered index, so that every method can run. */
const ALL = { compact: ['u8', 'f16'] as const, clusters: true };
const TAGS = ['idle', 'run', 'jump'];

interface DbCase {
  rows: number;
  dims: number;
  seed: number;
  /** Small integer values: many exact ties. */
  quantized: boolean;
  /** Fraction of rows that copy an earlier row. */
  dupRate: number;
  /** Fraction of non-candidate frames. */
  holeRate: number;
  /** Smooth sequences (box pruning has something to prune). */
  smooth: boolean;
}

const dbCase = fc.record({
  rows: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 5000 })),
  dims: fc.integer({ min: 1, max: 64 }),
  seed: fc.integer(),
  quantized: fc.boolean(),
  dupRate: fc.constantFrom(0, 0.1, 0.5),
  holeRate: fc.constantFrom(0, 0.2, 0.9),
  smooth: fc.boolean(),
});

function makeCaseDb(c: DbCase): Database {
  const r = rng(c.seed);
  const raw = new Float32Array(c.rows * c.dims);
  const walk = new Float64Array(c.dims).map(() => gauss(r));
  for (let i = 0; i < c.rows; i++) {
    if (i > 0 && r() < c.dupRate) {
      const src = Math.floor(r() * i);
      raw.copyWithin(i * c.dims, src * c.dims, (src + 1) * c.dims);
      continue;
    }
    for (let j = 0; j < c.dims; j++) {
      let v: number;
      if (c.smooth) v = walk[j] += 0.1 * gauss(r);
      else v = gauss(r);
      raw[i * c.dims + j] = c.quantized ? Math.round(v) : v;
    }
  }
  const candidates = new Uint8Array(c.rows).map(() => (r() < c.holeRate ? 0 : 1));
  const tagBits = new Uint32Array(c.rows).map(() => Math.floor(r() * 8));
  // Clips of random length cover the frames (for clip / clipTime).
  const clipLengths: number[] = [];
  for (let left = c.rows; left > 0;) {
    const n = Math.min(left, 1 + Math.floor(r() * 300));
    clipLengths.push(n);
    left -= n;
  }
  return makeFakeDb(raw, c.dims, { candidates, tagBits, tagNames: TAGS, clipLengths, fps: 30 });
}

/** A normalised, padded query near a random row (or exactly on it). */
function makeQuery(db: Database, r: () => number, sigma: number, quantized: boolean): Float32Array {
  const q = new Float32Array(db.stride);
  const src = Math.floor(r() * db.frameCount);
  for (let j = 0; j < db.dims; j++) {
    const v = db.features[src * db.stride + j] + sigma * gauss(r);
    q[j] = quantized ? Math.round(v) : v;
  }
  return q;
}

function randomRanges(r: () => number, rows: number, max: number): [number, number][] {
  const n = 1 + Math.floor(r() * max);
  const out: [number, number][] = [];
  for (let k = 0; k < n; k++) {
    const s = Math.floor(r() * (rows + 10)) - 5;
    out.push([s, s + Math.floor(r() * Math.max(2, rows / 3))]);
  }
  return out;
}

interface QueryCase {
  opts: SearchOptions;
  oracle: OracleOptions;
  staticBias: Float32Array | null;
}

function bits(names: readonly string[]): number {
  return names.reduce((m, n) => m | (1 << TAGS.indexOf(n)), 0);
}

/** Random filters for one query; oracle options mirror them. */
function makeQueryCase(db: Database, q: Float32Array, r: () => number): QueryCase {
  const opts: SearchOptions = { normalized: true };
  const oracle: OracleOptions = {};
  if (r() < 0.3) opts.ranges = oracle.ranges = randomRanges(r, db.frameCount, 3);
  if (r() < 0.3) opts.excludeRanges = oracle.excludeRanges = randomRanges(r, db.frameCount, 2);
  if (r() < 0.3) {
    opts.requireTags = TAGS.filter(() => r() < 0.4);
    oracle.requireBits = bits(opts.requireTags);
  }
  if (r() < 0.3) {
    opts.excludeTags = TAGS.filter(() => r() < 0.3);
    oracle.excludeBits = bits(opts.excludeTags);
  }
  let staticBias: Float32Array | null = null;
  if (r() < 0.4) {
    const quantized = r() < 0.5;
    const bias = new Float32Array(db.frameCount).map(() => (quantized ? Math.round(gauss(r)) : gauss(r) * 0.5));
    oracle.bias = bias;
    if (r() < 0.5) opts.bias = bias;
    else staticBias = bias;
  }
  const pick = r();
  if (pick < 0.2) opts.bestCost = oracle.bestCost = 0;
  else if (pick < 0.5) {
    // The cost of a random row: sometimes beaten, sometimes not, sometimes tied.
    const f = Math.floor(r() * db.frameCount);
    let c = laneCost(q, db.features, f, db.stride);
    if (oracle.bias) c = Math.fround(c + oracle.bias[f]);
    opts.bestCost = oracle.bestCost = c;
  }
  return { opts, oracle, staticBias };
}

describe('search: every backend and method equals the oracle', () => {
  const matchers = new Map<Backend, Matcher>();

  beforeAll(async () => {
    const seedDb = makeCaseDb({ rows: 10, dims: 3, seed: 1, quantized: false, dupRate: 0, holeRate: 0, smooth: false });
    for (const b of BACKENDS) matchers.set(b, await Matcher.create(seedDb, { backend: b, ...ALL }));
  });

  it('picks the backends it was asked for', () => {
    expect(matchers.get('wasm-simd')!.backend).toBe('wasm-simd');
    expect(matchers.get('wasm-scalar')!.backend).toBe('wasm-scalar');
    expect(matchers.get('js')!.backend).toBe('js');
  });

  it('same frame and bit-identical cost as the oracle (random data, ties, filters)', async () => {
    await fc.assert(
      fc.asyncProperty(dbCase, fc.integer(), fc.constantFrom(0, 0.01, 0.1, 0.5, 2), async (c, qseed, sigma) => {
        const db = makeCaseDb(c);
        for (const m of matchers.values()) m.load(db);
        const r = rng(qseed);
        for (let t = 0; t < 4; t++) {
          const q = makeQuery(db, r, sigma, c.quantized);
          const qc = makeQueryCase(db, q, r);
          const want = oracleSearch(db, q, qc.oracle);
          const methods: SearchMethod[] = qc.opts.ranges ? [...METHODS, 'window'] : METHODS;
          for (const [backend, m] of matchers) {
            m.setBias(qc.staticBias);
            for (const method of methods) {
              const opts = { ...qc.opts, method };
              const label = `${backend} ${method} rows=${c.rows} dims=${c.dims}`;
              if (want.allowed === 0) {
                expect(() => m.search(q, opts), label).toThrow(EmptyCandidateSetError);
                continue;
              }
              const got = m.search(q, opts);
              expect({ frame: got.frame, cost: got.cost }, label).toEqual({ frame: want.frame, cost: want.cost });
            }
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it('costs are within 1e-5 relative of the float64 distance, and the frame is a float64 near-minimum', async () => {
    // Only the KD-tree is searched here: a matcher without the compact copies and clusters (whose
    // building took most of this test's time) loads each database faster.
    const m = await Matcher.create(makeCaseDb({ rows: 10, dims: 3, seed: 1, quantized: false, dupRate: 0, holeRate: 0, smooth: false }), { backend: 'wasm-simd' });
    await fc.assert(
      fc.asyncProperty(dbCase, fc.integer(), async (c, qseed) => {
        const db = makeCaseDb({ ...c, holeRate: 0 });
        m.load(db);
        m.setBias(null);
        const r = rng(qseed);
        const q = makeQuery(db, r, 0.3, false);
        const got = m.search(q, { method: 'kdtree', normalized: true });
        let min64 = Infinity;
        const d64 = (i: number): number => {
          let s = 0;
          for (let j = 0; j < db.stride; j++) s += (q[j] - db.features[i * db.stride + j]) ** 2;
          return s;
        };
        for (let i = 0; i < db.frameCount; i++) min64 = Math.min(min64, d64(i));
        const tol = 1e-5 * Math.max(min64, 1e-30) + 1e-30;
        expect(Math.abs(got.cost - d64(got.frame))).toBeLessThanOrEqual(1e-5 * d64(got.frame) + 1e-30);
        expect(d64(got.frame) - min64).toBeLessThanOrEqual(2 * tol);
      }),
      { numRuns: 30 },
    );
  });

  it('batch equals single searches (per-query best costs and excluded ranges, chunked)', async () => {
    const chunked = await Matcher.create(makeCaseDb({ rows: 5, dims: 2, seed: 3, quantized: false, dupRate: 0, holeRate: 0, smooth: false }), { backend: 'wasm-simd', batchCapacity: 5, ...ALL });
    const all = [...matchers.values(), chunked];
    await fc.assert(
      fc.asyncProperty(dbCase, fc.integer(), fc.integer({ min: 1, max: 40 }), fc.constantFrom(...METHODS), async (c, qseed, k, method) => {
        const db = makeCaseDb({ ...c, holeRate: Math.min(c.holeRate, 0.2) });
        const r = rng(qseed);
        const queries = new Float32Array(k * db.dims);
        const bestCost = new Float32Array(k);
        const perQuery: ([number, number][] | undefined)[] = [];
        for (let i = 0; i < k; i++) {
          const q = makeQuery(db, r, 0.2, c.quantized);
          queries.set(q.subarray(0, db.dims), i * db.dims);
          bestCost[i] = r() < 0.3 ? laneCost(q, db.features, Math.floor(r() * db.frameCount), db.stride) : Infinity;
          const f = Math.floor(r() * db.frameCount);
          perQuery.push(r() < 0.5 ? [[f - 3, f + 3]] : undefined);
        }
        const allowedAny = (ex?: [number, number][]): boolean => {
          for (let f = 0; f < db.frameCount; f++) if (allowedFrame(db, f, { excludeRanges: ex })) return true;
          return false;
        };
        const anyEmpty = perQuery.some((ex) => !allowedAny(ex));
        for (const m of all) {
          m.load(db);
          const opts = { method, normalized: true, bestCost, excludeRangesPerQuery: perQuery };
          if (anyEmpty) {
            expect(() => m.searchBatch(queries, k, opts)).toThrow(EmptyCandidateSetError);
            continue;
          }
          const batch = m.searchBatch(queries, k, opts);
          for (let i = 0; i < k; i++) {
            const single = m.search(queries.subarray(i * db.dims, (i + 1) * db.dims), {
              method, normalized: true, bestCost: bestCost[i], excludeRanges: perQuery[i],
            });
            expect([batch.frames[i], batch.costs[i]], `${m.backend} query ${i}`).toEqual([single.frame, single.cost]);
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it('a batch with shared options equals single searches', async () => {
    const m = matchers.get('wasm-scalar')!;
    const db = makeCaseDb({ rows: 3000, dims: 27, seed: 9, quantized: false, dupRate: 0.1, holeRate: 0.1, smooth: true });
    m.load(db);
    const r = rng(5);
    const k = 600; // > the default batch capacity: several kernel calls
    const queries = new Float32Array(k * db.stride);
    for (let i = 0; i < k; i++) queries.set(makeQuery(db, r, 0.1, false), i * db.stride);
    const opts = { method: 'aabb' as const, normalized: true, requireTags: ['run'], excludeRanges: [[100, 900]] as [number, number][], bestCost: 2 };
    const out = { frames: new Int32Array(k), costs: new Float32Array(k) };
    expect(m.searchBatch(queries, k, opts, out)).toBe(out);
    for (let i = 0; i < k; i++) {
      const s = m.search(queries.subarray(i * db.stride, (i + 1) * db.stride), opts);
      expect([out.frames[i], out.costs[i]]).toEqual([s.frame, s.cost]);
    }
  });

  it('raw queries are normalised with the database mean and scale', async () => {
    const r = rng(11);
    const dims = 7;
    const raw = new Float32Array(500 * dims).map(() => 10 + 3 * gauss(r));
    const db = makeFakeDb(raw, dims, { normalize: true });
    const m = await Matcher.create(db, { backend: 'js' });
    const rawQ = Array.from({ length: dims }, () => 10 + 3 * gauss(r));
    const nq = m.normalizeQuery(rawQ);
    expect(nq.length).toBe(8);
    for (let j = 0; j < dims; j++) expect(nq[j]).toBeCloseTo((rawQ[j] - db.mean[j]) / db.scale[j], 5);
    expect(nq[7]).toBe(0);
    const a = m.search(rawQ);
    const b = m.search(nq, { normalized: true });
    expect(a).toEqual(b);
    expect(a).toEqual(oracleResult(db, nq));
  });

  it('reports clip and clip time', async () => {
    const db = makeFakeDb(Float32Array.from({ length: 10 }, (_, i) => i), 1, { clipLengths: [4, 6], fps: 2 });
    const m = await Matcher.create(db, { backend: 'wasm-simd' });
    expect(m.search([6.1], { normalized: true, method: 'brute' })).toEqual({ frame: 6, clip: 1, clipTime: 1, cost: Math.fround(Math.fround(Math.fround(6.1) - 6) ** 2) });
    expect(m.search([6.1], { normalized: true, bestCost: 0 })).toEqual({ frame: -1, clip: -1, clipTime: 0, cost: 0 });
    const out = { frame: 0, clip: 0, clipTime: 0, cost: 0 };
    expect(m.search([2], { normalized: true }, out)).toBe(out);
    expect(out).toMatchObject({ frame: 2, clip: 0, clipTime: 1 });
  });

  it('ties go to the lowest frame, also across kd leaves and with bias', async () => {
    // 300 identical rows: every method must return the first allowed one.
    const db = makeFakeDb(new Float32Array(300 * 5).fill(1), 5, { candidates: new Uint8Array(300).map((_, i) => (i < 7 ? 0 : 1)) });
    for (const backend of BACKENDS) {
      const m = await Matcher.create(db, { backend, kdLeafSize: 4, ...ALL });
      for (const method of METHODS) {
        expect(m.search([1, 1, 1, 1, 1], { method, normalized: true }).frame).toBe(7);
        expect(m.search([1, 1, 1, 1, 1], { method, normalized: true, excludeRanges: [[0, 150]] }).frame).toBe(150);
        const bias = new Float32Array(300).fill(1);
        bias[250] = bias[200] = 0;
        expect(m.search([1, 1, 1, 1, 1], { method, normalized: true, bias }).frame).toBe(200);
        // Strictly below bestCost: an equal cost is not an improvement.
        expect(m.search([1, 1, 1, 1, 1], { method, normalized: true, bias, bestCost: 0 }).frame).toBe(-1);
      }
    }
  });

  it('persistent bias, per-call bias and bias: null', async () => {
    const db = makeCaseDb({ rows: 2000, dims: 9, seed: 21, quantized: false, dupRate: 0, holeRate: 0, smooth: true });
    const r = rng(2);
    const bias = new Float32Array(db.frameCount).map(() => gauss(r) - 1);
    const q = makeQuery(db, r, 0.2, false);
    for (const backend of BACKENDS) {
      const m = await Matcher.create(db, { backend, ...ALL });
      for (const method of METHODS) {
        const plain = m.search(q, { method, normalized: true });
        const perCall = m.search(q, { method, normalized: true, bias });
        expect({ frame: perCall.frame, cost: perCall.cost }).toEqual(oracleSearch(db, q, { bias }) && pick(oracleSearch(db, q, { bias })));
        m.setBias(bias);
        expect(m.search(q, { method, normalized: true })).toEqual(perCall);
        expect(m.search(q, { method, normalized: true, bias: null })).toEqual(plain);
        m.setBias(null);
        expect(m.search(q, { method, normalized: true })).toEqual(plain);
      }
    }
  });
});

function pick(o: { frame: number; cost: number }): { frame: number; cost: number } {
  return { frame: o.frame, cost: o.cost };
}

function oracleResult(db: Database, q: Float32Array): { frame: number; clip: number; clipTime: number; cost: number } {
  const o = oracleSearch(db, q);
  const clip = db.clips.findIndex((c) => o.frame >= c.start && o.frame < c.start + c.count);
  return { frame: o.frame, clip, clipTime: (o.frame - db.clips[clip].start) / db.fps, cost: o.cost };
}
