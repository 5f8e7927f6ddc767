/**
 * Fuzzing queries with every kind of float (huge, tiny, denormal, negative zero, values near the
 * float32 overflow boundary): every backend and method either returns the same frame, in range and
 * equal to the naive oracle's, with a bit-identical cost, or throws the same documented RangeError.
 * Never frame -1 under bestCost = +Infinity, never a non-finite cost.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Matcher, type Backend, type SearchMethod } from '../../src/search/matcher.js';
import type { Database } from '../../src/database/database.js';
import { makeFakeDb, rng, gauss } from '../helpers/fake-db.js';
import { oracleSearch } from '../helpers/search-oracle.js';

const BACKENDS: Backend[] = ['wasm-simd', 'wasm-scalar', 'js'];
const METHODS: SearchMethod[] = ['brute', 'early', 'window', 'aabb', 'kdtree', 'brute-u8', 'brute-f16', 'aabb-u8', 'kdtree-u8', 'cluster', 'cluster-u8'];
/** The errors docs/search.md promises for query values (and nothing else). */
const DOCUMENTED = /^query( \d+ )?\[\d+\] is .*(: queries must be finite|outside the float32 range|the query is too far from every allowed frame for a float32 cost)/;

type Outcome = { frame: number; cost: number } | { error: string; type: string };

const special = fc.constantFrom(
  0, -0, 1, -1, 1e38, -1e38, 3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45, -1.401298464324817e-45,
  1.1754942106924411e-38, 1e-40, 1.8e19, -1.8e19, 1.9e19, 2e19, 1e19, 4e18, 1e30,
);
/** Any finite float32 (fc.float covers denormals and extremes), a special value, or an ordinary one. */
const value = fc.oneof(
  { arbitrary: fc.float({ noNaN: true, noDefaultInfinity: true }), weight: 1 },
  { arbitrary: special, weight: 1 },
  { arbitrary: fc.double({ min: -4, max: 4, noNaN: true }), weight: 8 },
);

function outcome(fn: () => { frame: number; cost: number }): Outcome {
  try {
    const r = fn();
    return { frame: r.frame, cost: r.cost };
  } catch (e) {
    return { error: (e as Error).message, type: (e as Error).name };
  }
}

function databases(): Array<{ name: string; db: Database }> {
  const r = rng(11);
  const rows = 300;
  // Ordinary normalised features, with duplicates.
  const plain = new Float32Array(rows * 7).map(() => gauss(r));
  plain.copyWithin(7 * 50, 0, 7 * 20);
  // Features so large that ordinary-looking queries overflow some rows but not others.
  const huge = new Float32Array(rows * 5).map(() => gauss(r) * 1e18 * (r() < 0.5 ? 1 : 8));
  return [
    { name: 'normalised', db: makeFakeDb(plain, 7, { normalize: true, candidates: new Uint8Array(rows).map((_, i) => (i % 9 === 4 ? 0 : 1)) }) },
    { name: 'huge rows', db: makeFakeDb(huge, 5) },
  ];
}

describe.each(databases())('fuzzed queries ($name)', ({ db }) => {
  const matchers = new Map<Backend, Matcher>();
  beforeAll(async () => {
    for (const backend of BACKENDS) matchers.set(backend, await Matcher.create(db, { backend, kdLeafSize: 4, compact: ['u8', 'f16'], clusters: 7 }));
  });

  it('every backend and method agrees, with a frame in range or the documented error', { timeout: 60_000 }, () => {
    const query = fc.array(value, { minLength: db.dims, maxLength: db.dims });
    fc.assert(
      fc.property(query, fc.boolean(), fc.oneof({ arbitrary: fc.constant(Infinity), weight: 3 }, { arbitrary: fc.float({ min: 0, max: Math.fround(1e38), noNaN: true }), weight: 1 }), (q, normalized, bestCost) => {
        const results: Outcome[] = [];
        for (const backend of BACKENDS) {
          const m = matchers.get(backend)!;
          for (const method of METHODS) {
            const opts = { method, normalized, bestCost, ranges: method === 'window' ? [[0, db.frameCount] as const] : undefined };
            results.push(outcome(() => m.search(q, opts)));
          }
        }
        for (const r of results) expect(r).toEqual(results[0]);
        const first = results[0];
        if ('error' in first) {
          expect(first.type).toBe('RangeError');
          expect(first.error).toMatch(DOCUMENTED);
          return;
        }
        // The oracle sees the same normalised float32 row.
        const row = new Float32Array(db.stride);
        if (normalized) row.set(q);
        else matchers.get('js')!.normalizeQuery(q, row);
        const want = oracleSearch(db, row, { bestCost });
        expect(first.frame).toBe(want.frame);
        if (bestCost === Infinity) {
          expect(first.frame).toBeGreaterThanOrEqual(0);
          expect(first.frame).toBeLessThan(db.frameCount);
        }
        if (first.frame >= 0) {
          expect(Number.isFinite(first.cost)).toBe(true);
          expect(first.cost).toBe(want.cost);
        } else {
          expect(first.cost).toBe(Math.fround(bestCost));
        }
      }),
      { numRuns: 300, seed: 20261201 },
    );
  });

  it('a batch answers like its single searches, or throws the error of one of its failing queries', { timeout: 60_000 }, () => {
    const batch = fc.array(fc.array(value, { minLength: db.dims, maxLength: db.dims }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(batch, fc.constantFrom<SearchMethod>('brute', 'kdtree', 'aabb', 'brute-u8', 'kdtree-u8', 'cluster-u8'), (qs, method) => {
        for (const backend of BACKENDS) {
          const m = matchers.get(backend)!;
          const rows = qs.map((q) => Float32Array.from(q));
          const singles = rows.map((q) => outcome(() => m.search(q, { method })));
          const flat = new Float32Array(rows.length * db.dims);
          rows.forEach((q, i) => flat.set(q, i * db.dims));
          let got: Outcome[];
          try {
            const res = m.searchBatch(flat, rows.length, { method });
            got = Array.from(res.frames, (frame, i) => ({ frame, cost: res.costs[i] }));
          } catch (e) {
            // Value errors are found while staging, overflow after the kernel: the batch reports one
            // of its failing queries, by index, with that query's own message.
            const m = /^query (\d+) \[(\d+)\] (.*)$/.exec((e as Error).message);
            expect(m, (e as Error).message).not.toBeNull();
            const single = singles[Number(m![1])];
            expect(single).toEqual({ type: 'RangeError', error: `query[${m![2]}] ${m![3]}` });
            return;
          }
          expect(got).toEqual(singles);
          for (const r of got) expect('frame' in r && r.frame >= 0).toBe(true);
        }
      }),
      { numRuns: 100, seed: 7 },
    );
  });
});
