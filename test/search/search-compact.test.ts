/**
 * Compact storage and the clustered index: the formats decode the same on every backend, every
 * certified bound really is a lower bound of the float32 cost (also at the edges of the float32
 * range), the statistics agree across backends, the approximate mode behaves as documented, the
 * options are checked, and on real motion capture every compact and clustered method returns the
 * brute force's frames and costs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { join } from 'node:path';
import { Matcher, EmptyCandidateSetError, type Backend, type SearchMethod } from '../../src/search/matcher.js';
import { decodeHalf, encodeHalf, halfValue, HALF_MAX, HALF_MIN } from '../../src/search/codecs/half.js';
import { planBox16Codec, encodeBox16, decodeBox16 } from '../../src/search/codecs/box16.js';
import { buildClusters } from '../../src/search/indexes/cluster.js';
import { sqDist } from '../../src/search/kernels-js/row-cost.js';
import {
  costLimit, limitRadius, codeThreshold, sphereThreshold, sphereSkips, distanceLow, distanceHigh, nextUpF32, F32_MAX,
} from '../../src/search/indexes/compact-bounds.js';
import { U8P_INV_U, U8P_U, U8P_EMAX, f16RowBytes, u8RowBytes, kdBoxBytes } from '../../src/search/wasm/memory-layout.js';
import { planU8Codec, encodeFineBox } from '../../src/search/codecs/u8.js';
import type { Database } from '../../src/database/database.js';
import { buildDatabase } from '../../src/database/build.js';
import { loadBvhSources } from '../../src/database/sources-node.js';
import { makeFakeDb, rng, gauss } from '../helpers/fake-db.js';
import { oracleSearch } from '../helpers/search-oracle.js';
import { HAS_MOCAP, MOCAP_DIR, MOCAP_SKIP_REASON } from '../helpers/cli.js';

const BACKENDS: Backend[] = ['wasm-simd', 'wasm-scalar', 'js'];
const COMPACT_METHODS: SearchMethod[] = ['brute-u8', 'brute-f16', 'aabb-u8', 'kdtree-u8', 'cluster', 'cluster-u8'];
const ALL = { compact: ['u8', 'f16'] as const, clusters: true };
const fr = Math.fround;

/** A smooth random walk (what box and cluster pruning see in motion data), with duplicates. */
function walkDb(rows: number, dims: number, seed: number, scale = 1): Database {
  const raw = walkRows(rows, dims, seed, scale);
  const tagBits = new Uint32Array(rows).map((_, i) => (i % 500 < 250 ? 1 : 2) | (i % 7 === 0 ? 4 : 0));
  const candidates = new Uint8Array(rows).map((_, i) => (i % 97 < 90 ? 1 : 0));
  return makeFakeDb(raw, dims, { tagBits, tagNames: ['a', 'b', 'c'], candidates });
}

/** walkDb's rows, unpadded (rows x dims). */
function walkRows(rows: number, dims: number, seed: number, scale = 1): Float32Array {
  const r = rng(seed);
  const raw = new Float32Array(rows * dims);
  const w = new Float64Array(dims).map(() => gauss(r));
  for (let i = 0; i < rows; i++) {
    if (i > 0 && r() < 0.05) {
      raw.copyWithin(i * dims, (i - 1) * dims, i * dims);
      continue;
    }
    for (let j = 0; j < dims; j++) raw[i * dims + j] = (w[j] += 0.15 * gauss(r)) * scale;
  }
  return raw;
}

function queryNear(db: Database, r: () => number, sigma: number): Float32Array {
  const q = new Float32Array(db.stride);
  const src = Math.floor(r() * db.frameCount);
  for (let j = 0; j < db.dims; j++) q[j] = db.features[src * db.stride + j] + sigma * gauss(r);
  return q;
}

describe('half precision', () => {
  it('the kernels\' integer decoding is the documented value for all 65536 patterns', () => {
    const f = new Float32Array(1);
    const i = new Int32Array(f.buffer);
    for (let h = 0; h < 65536; h++) {
      // ((sign-extended h << 13) & 0x8fffffff) + 0x38000000, as assembly/compact.ts computes it.
      i[0] = ((((h << 16) >> 16) << 13) & 0x8fffffff) + 0x38000000;
      expect(f[0], `pattern ${h.toString(16)}`).toBe(halfValue(h));
      expect(decodeHalf(h)).toBe(halfValue(h));
    }
    // IEEE binary16 for normal values; the reserved exponents are finite and never subnormal.
    expect(halfValue(0x3c00)).toBe(1);
    expect(halfValue(0xc000)).toBe(-2);
    expect(halfValue(0x7bff)).toBe(65504);
    expect(halfValue(0x0000)).toBe(HALF_MIN);
    expect(halfValue(0x7fff)).toBe(HALF_MAX);
  });

  it('encodes every float32 to the nearest decodable value', () => {
    fc.assert(fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (x) => {
      const h = encodeHalf(x);
      const e = Math.abs(x - decodeHalf(h));
      for (let g = Math.max(0, (h & 0x7fff) - 2); g <= Math.min(0x7fff, (h & 0x7fff) + 2); g++) {
        for (const sign of [0, 0x8000]) expect(Math.abs(x - decodeHalf(g | sign))).toBeGreaterThanOrEqual(e);
      }
    }), { numRuns: 3000 });
  });
});

describe('16-bit boxes', () => {
  it('decoded boxes contain the exact ones (float32 decoding, no fused multiply-add)', () => {
    fc.assert(fc.property(fc.integer(), fc.double({ min: 1e-6, max: 1e12, noNaN: true }), (seed, scale) => {
      const r = rng(seed);
      const rows = 200;
      const dims = 6;
      const stride = 8;
      const f = new Float32Array(rows * stride);
      for (let i = 0; i < rows; i++) for (let j = 0; j < dims; j++) f[i * stride + j] = fr(gauss(r) * scale + (j === 2 ? 5 : 0));
      const codec = planBox16Codec(f, rows, stride, dims);
      const boxes = new Float32Array(2 * stride);
      const out = new Uint16Array(2 * stride);
      for (let t = 0; t < 20; t++) {
        const a = Math.floor(r() * rows);
        const b = Math.min(rows, a + 1 + Math.floor(r() * 30));
        boxes.fill(Infinity, 0, stride);
        boxes.fill(-Infinity, stride);
        for (let i = a; i < b; i++) {
          for (let j = 0; j < stride; j++) {
            boxes[j] = Math.min(boxes[j], f[i * stride + j]);
            boxes[stride + j] = Math.max(boxes[stride + j], f[i * stride + j]);
          }
        }
        encodeBox16(codec, boxes, 0, out, 0);
        for (let j = 0; j < stride; j++) {
          expect(decodeBox16(codec, j, out[j])).toBeLessThanOrEqual(boxes[j]);
          expect(decodeBox16(codec, j, out[stride + j])).toBeGreaterThanOrEqual(boxes[stride + j]);
        }
      }
    }), { numRuns: 60 });
  });
});

describe('certified bounds (indexes/compact-bounds.ts)', () => {
  it('a row a code or sphere threshold skips always has a float32 cost at or above the limit', async () => {
    // Rows and queries of every magnitude; limits around the true cost.
    const value = fc.oneof(fc.double({ min: -4, max: 4, noNaN: true }), fc.constantFrom(0, 1e-40, 1e-20, 1e18, -3e18, 1.8e19));
    await fc.assert(fc.asyncProperty(fc.array(fc.array(value, { minLength: 5, maxLength: 5 }), { minLength: 3, maxLength: 30 }), fc.integer(), async (rowsIn, seed) => {
      const db = makeFakeDb(Float32Array.from(rowsIn.flat()), 5);
      const m = await Matcher.create(db, { backend: 'js', compact: ['u8', 'f16'] });
      const h = m.heap;
      const r = rng(seed);
      const q = new Float32Array(8);
      for (let j = 0; j < 5; j++) q[j] = db.features[Math.floor(r() * db.frameCount) * 8 + j] * (r() < 0.5 ? 1 : fr(1 + r())) + (r() < 0.3 ? gauss(r) : 0);
      const qAt = m.slots[0].queries;
      h.f32.set(q, qAt >> 2);
      const qcode = m.slots[0].qcode;
      const rho = m.kernels.encodeQueryU8(m.regions.ctx, qAt, qcode);
      const invU = h.f64[(m.regions.u8Params + U8P_INV_U) >> 3];
      const rb8 = u8RowBytes(8);
      const rb16 = f16RowBytes(8);
      for (let i = 0; i < db.frameCount; i++) {
        const cost = sqDistOf(q, db.features, i);
        const k = m.kernels.rowCodeDistance(m.regions.ctx, qcode, m.regions.u8Rows + i * rb8);
        const e8 = h.f32[(m.regions.u8Rows + i * rb8 + 8) >> 2];
        const d16 = m.kernels.rowHalfDistance(qAt, m.regions.f16Rows + i * rb16, 8);
        const e16 = h.f32[(m.regions.f16Rows + i * rb16 + 16) >> 2];
        for (const best of [cost, nextUpF32(cost), fr(cost * 1.0001), fr(cost * 0.9999), fr(cost * 2), 0, F32_MAX]) {
          for (const strict of [false, true]) {
            const lim = costLimit(best, 0, strict);
            const radius = limitRadius(lim, 8);
            // Skipped means: the float32 cost cannot be accepted (>= best, or > best when strict).
            const accepted = strict ? cost <= best : cost < best;
            if (k >= codeThreshold(rho + e8, radius * invU)) expect(accepted, `u8 row ${i} best ${best} strict ${strict}`).toBe(false);
            if (d16 >= sphereThreshold(e16, radius, 8)) expect(accepted, `f16 row ${i} best ${best} strict ${strict}`).toBe(false);
          }
        }
      }
    }), { numRuns: 150 });
  });

  it('a fine-unit box never bounds a row inside above its float32 cost, and the bound is within a few fine units of the box', async () => {
    // The KD records' boxes: the same integer distance on every backend, a certified lower bound of
    // every inside row's cost, and close to the exact box distance (a bound of 0 would pass the first check).
    const value = fc.oneof(fc.double({ min: -4, max: 4, noNaN: true }), fc.constantFrom(0, 1e-40, 1e-20, 1e18, -3e18, 1.8e19));
    let tight = 0;
    await fc.assert(fc.asyncProperty(fc.array(fc.array(value, { minLength: 5, maxLength: 5 }), { minLength: 4, maxLength: 30 }), fc.integer(), async (rowsIn, seed) => {
      const db = makeFakeDb(Float32Array.from(rowsIn.flat()), 5);
      const stride = db.stride;
      const codec = planU8Codec(db.features, db.frameCount, stride, db.dims);
      const r = rng(seed);
      // Four boxes over runs of rows (float32 min / max per dimension).
      const runs = Array.from({ length: 4 }, () => {
        const a = Math.floor(r() * db.frameCount);
        return [a, Math.min(db.frameCount, a + 1 + Math.floor(r() * 6))];
      });
      const boxes = new Float32Array(4 * 2 * stride);
      runs.forEach(([a, b], i) => {
        for (let j = 0; j < stride; j++) {
          let lo = Infinity, hi = -Infinity;
          for (let k = a; k < b; k++) {
            lo = Math.min(lo, db.features[k * stride + j]);
            hi = Math.max(hi, db.features[k * stride + j]);
          }
          boxes[i * 2 * stride + j] = lo;
          boxes[i * 2 * stride + stride + j] = hi;
        }
      });
      const q = new Float32Array(stride);
      for (let j = 0; j < 5; j++) q[j] = db.features[Math.floor(r() * db.frameCount) * stride + j] * (r() < 0.5 ? 1 : fr(1 + r())) + (r() < 0.3 ? gauss(r) * 3 : 0);
      const seen: number[][] = [];
      for (const backend of BACKENDS) {
        const m = await Matcher.create(db, { backend, compact: ['u8'] });
        const h = m.heap;
        const qAt = m.slots[0].queries;
        const boxAt = qAt + 256;
        const outAt = boxAt + 4 * kdBoxBytes(stride);
        h.f32.set(q, qAt >> 2);
        for (let i = 0; i < 4; i++) encodeFineBox(codec, boxes, i * 2 * stride, h.i16, (boxAt + i * kdBoxBytes(stride)) >> 1);
        const rho = m.kernels.encodeQueryU8(m.regions.ctx, qAt, m.slots[0].qcode);
        m.kernels.recordBoxDistances(boxAt, m.slots[0].qcode, stride, outAt);
        const ks = Array.from(h.i32.subarray(outAt >> 2, (outAt >> 2) + 4));
        seen.push(ks);
        const u = h.f64[(m.regions.u8Params + U8P_U) >> 3];
        runs.forEach(([a, b], i) => {
          const bound = m.kernels.boxCostLow(ks[i], rho, u, stride);
          for (let k = a; k < b; k++) expect(bound, `${backend} box ${i} row ${k}`).toBeLessThanOrEqual(sqDistOf(q, db.features, k));
          let exact = 0;
          for (let j = 0; j < stride; j++) {
            const lo = boxes[i * 2 * stride + j], hi = boxes[i * 2 * stride + stride + j];
            const g = q[j] < lo ? lo - q[j] : q[j] > hi ? q[j] - hi : 0;
            exact += g * g;
          }
          // Lost at most: the query's residual, a fine unit per side and dimension, the margins.
          const lost = (rho + 2 * Math.sqrt(stride)) * u;
          const floor = Math.sqrt(exact) * (1 - 1e-6) - lost;
          // A query beyond the codes' clamp box keeps only the distance to that box.
          const clamped = Array.from(codec.dim).some((d, j) => {
            const x = (q[d] - codec.lo[j]) / codec.u;
            return codec.w[j] > 0 && (x < 255 * codec.w[j] - codec.m || x > codec.m);
          });
          if (clamped || !(Number.isFinite(exact) && floor > 0)) return;
          // (A cost beyond the float32 range is bounded by F32_MAX: the row's cost overflows.)
          expect(Math.sqrt(bound), `${backend} box ${i}`).toBeGreaterThanOrEqual(Math.min(floor, Math.sqrt(F32_MAX) * (1 - 1e-7)));
          tight++;
        });
      }
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[2]).toEqual(seen[0]);
    }), { numRuns: 100 });
    // The closeness check ran on enough boxes to mean something (boxes away from the query).
    expect(tight).toBeGreaterThan(60);
  });

  it('distanceLow / distanceHigh bracket the exact distance of a float32 squared distance', () => {
    fc.assert(fc.property(fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: 8, maxLength: 8 }), fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: 8, maxLength: 8 }), (a, b) => {
      const x = Float32Array.from(a);
      const y = Float32Array.from(b);
      const d = sqDist(new Float32Array([...x, ...y]), 0, 8, 8);
      let exact = 0;
      for (let j = 0; j < 8; j++) exact += (x[j] - y[j]) ** 2;
      expect(distanceLow(d, 8)).toBeLessThanOrEqual(Math.sqrt(exact));
      expect(distanceHigh(d, 8)).toBeGreaterThanOrEqual(Math.sqrt(exact) * (1 - 1e-12));
    }), { numRuns: 2000 });
  });

  it('sphereSkips never trusts an overflowed distance beyond F32_MAX', () => {
    expect(sphereSkips(Infinity, 0, 1e19, 8)).toBe(true);
    expect(sphereSkips(Infinity, 1e19, 1e19, 8)).toBe(false);
    expect(sphereSkips(Infinity, 0, Infinity, 8)).toBe(false);
    expect(sphereThreshold(0, Infinity, 8)).toBeNaN();
    expect(codeThreshold(0, Infinity)).toBe(2147483647);
    expect(codeThreshold(1, -1)).toBe(0);
  });
});

function sqDistOf(q: Float32Array, f: Float32Array, i: number): number {
  const buf = new Float32Array(16);
  buf.set(q.subarray(0, 8), 0);
  buf.set(f.subarray(i * 8, i * 8 + 8), 8);
  return sqDist(buf, 0, 8, 8);
}

describe('the clustered index', () => {
  it('radii hold every row; rows are sorted by their distance to their sub-cluster; the build is deterministic', () => {
    const db = walkDb(3000, 11, 4);
    const a = buildClusters(db.features, db.frameCount, db.stride, db.dims, db.candidates, db.tagBits, { count: 40, seed: 3 });
    const b = buildClusters(db.features, db.frameCount, db.stride, db.dims, db.candidates, db.tagBits, { count: 40, seed: 3 });
    expect(a.order).toEqual(b.order);
    expect(a.subs.centres).toEqual(b.subs.centres);
    const exact = (f: number, centres: Float32Array, c: number): number => {
      let s = 0;
      for (let j = 0; j < db.stride; j++) s += (db.features[f * db.stride + j] - centres[c * db.stride + j]) ** 2;
      return Math.sqrt(s);
    };
    const seen = new Set<number>();
    for (let c = 0; c < a.clusters.count; c++) {
      for (let s = a.clusters.start[c]; s < a.clusters.start[c + 1]; s++) {
        for (let i = a.subs.start[s]; i < a.subs.start[s + 1]; i++) {
          const f = a.order[i];
          seen.add(f);
          expect(db.candidates[f]).toBe(1);
          expect(exact(f, a.clusters.centres, c)).toBeLessThanOrEqual(a.clusters.radius[c]);
          expect(exact(f, a.subs.centres, s)).toBeLessThanOrEqual(a.subs.radius[s]);
          expect(Math.abs(a.rowRadius[i] - exact(f, a.subs.centres, s))).toBeLessThanOrEqual(2 ** -23 * exact(f, a.subs.centres, s));
          if (i > a.subs.start[s]) expect(a.rowRadius[i]).toBeGreaterThanOrEqual(a.rowRadius[i - 1]);
        }
      }
    }
    expect(seen.size).toBe(db.candidates.reduce((n, x) => n + x, 0));
  });
});

describe('compact and clustered methods', () => {
  const db = walkDb(6000, 27, 1);
  const matchers = new Map<Backend, Matcher>();
  beforeAll(async () => {
    for (const b of BACKENDS) matchers.set(b, await Matcher.create(db, { backend: b, ...ALL, clusters: 30 }));
  });

  it('the same results and statistics on every backend; re-scored rows are a share of those looked at', () => {
    const r = rng(3);
    for (let t = 0; t < 40; t++) {
      const q = queryNear(db, r, [0.02, 0.1, 0.5, 2][t % 4]);
      const want = oracleSearch(db, q);
      for (const method of COMPACT_METHODS) {
        const stats: string[] = [];
        for (const [backend, m] of matchers) {
          const got = m.search(q, { method, normalized: true });
          expect({ frame: got.frame, cost: got.cost }, `${backend} ${method}`).toEqual({ frame: want.frame, cost: want.cost });
          expect(m.lastStats.rescored).toBeLessThanOrEqual(m.lastStats.bounded);
          if (method === 'brute-u8' || method === 'brute-f16') expect(m.lastStats.bounded).toBe(db.frameCount);
          stats.push(JSON.stringify(m.lastStats));
        }
        expect(new Set(stats).size, `${method} statistics ${stats.join(' ')}`).toBe(1);
      }
    }
  });

  it('brute-f16 equals the brute force at every row width (four-row short forms, the wide loop) and range alignment', async () => {
    // Strides 4..32 take the four-row short form (odd and even chunk counts), 36 and 44 the one-row
    // loop; random candidate masks start and end ranges at every alignment of the four-row steps.
    for (const dims of [3, 6, 9, 27, 32, 33, 41]) {
      const r = rng(100 + dims);
      const candidates = new Uint8Array(613).map(() => (r() < 0.8 ? 1 : 0));
      const db = makeFakeDb(walkRows(613, dims, dims), dims, { candidates });
      const ms = await Promise.all(BACKENDS.map((backend) => Matcher.create(db, { backend, compact: ['f16'] })));
      for (let t = 0; t < 24; t++) {
        const q = queryNear(db, r, [0, 0.05, 0.5, 3][t % 4]);
        const want = oracleSearch(db, q);
        const stats = ms.map((m, k) => {
          const got = m.search(q, { method: 'brute-f16', normalized: true });
          expect({ frame: got.frame, cost: got.cost }, `${BACKENDS[k]} dims ${dims}`).toEqual({ frame: want.frame, cost: want.cost });
          return JSON.stringify(m.lastStats);
        });
        expect(new Set(stats).size, `dims ${dims}: ${stats.join(' ')}`).toBe(1);
      }
    }
  });

  it('approximate mode: the probed clusters, exact "nothing found", enough probes is exact', () => {
    const r = rng(5);
    for (const [backend, m] of matchers) {
      const clusters = m.buildStats.compact.clusters;
      expect(clusters).toBeGreaterThan(5);
      let hits = 0;
      for (let t = 0; t < 30; t++) {
        const q = queryNear(db, r, 0.3);
        const exact = m.search(q, { method: 'cluster-u8', normalized: true });
        const one = m.search(q, { method: 'cluster-u8', normalized: true, probes: 1 });
        expect(one.frame).toBeGreaterThanOrEqual(0);
        expect(one.cost).toBeGreaterThanOrEqual(exact.cost);
        if (one.frame === exact.frame) hits++;
        expect(m.search(q, { method: 'cluster', normalized: true, probes: clusters })).toEqual(exact);
        // A best cost only the exact answer beats: the approximate search goes on until it finds it
        // or proves nothing beats it; frame -1 is never an approximation.
        const bar = nextUpF32(exact.cost);
        expect(m.search(q, { method: 'cluster-u8', normalized: true, probes: 1, bestCost: bar })).toEqual(exact);
        expect(m.search(q, { method: 'cluster-u8', normalized: true, probes: 1, bestCost: exact.cost }).frame).toBe(-1);
      }
      expect(hits, backend).toBeGreaterThan(10);
    }
  });

  it('batches equal single searches (per-query best costs and exclusions, tags, bias, probes)', () => {
    const r = rng(9);
    const k = 70;
    const queries = new Float32Array(k * db.stride);
    for (let i = 0; i < k; i++) queries.set(queryNear(db, r, 0.2), i * db.stride);
    const bestCost = new Float32Array(k).map(() => (r() < 0.3 ? 0.5 : Infinity));
    const perQuery = Array.from({ length: k }, (_, i) => (i % 3 ? null : [[i * 80, i * 80 + 40] as [number, number]]));
    const bias = new Float32Array(db.frameCount).map(() => 0.05 * gauss(r));
    for (const m of matchers.values()) {
      for (const method of COMPACT_METHODS) {
        for (const extra of [{}, { requireTags: ['a'], bias }, { probes: 2 }]) {
          if ('probes' in extra && !method.startsWith('cluster')) continue;
          const opts = { method, normalized: true, bestCost, excludeRangesPerQuery: perQuery, ...extra };
          const batch = m.searchBatch(queries, k, opts);
          for (let i = 0; i < k; i++) {
            const single = m.search(queries.subarray(i * db.stride, (i + 1) * db.stride), { ...opts, bestCost: bestCost[i], excludeRanges: perQuery[i] ?? undefined, excludeRangesPerQuery: undefined });
            expect([batch.frames[i], batch.costs[i]], `${m.backend} ${method} ${i}`).toEqual([single.frame, single.cost]);
          }
        }
      }
    }
  });

  it('an empty candidate set is an EmptyCandidateSetError for every method, also without candidates at all', async () => {
    const m = matchers.get('wasm-simd')!;
    const q = queryNear(db, rng(1), 0.1);
    for (const method of COMPACT_METHODS) {
      expect(() => m.search(q, { method, normalized: true, requireTags: ['a', 'b'] })).toThrow(EmptyCandidateSetError);
    }
    const none = makeFakeDb(new Float32Array(40 * 3).map((_, i) => i), 3, { candidates: new Uint8Array(40) });
    for (const backend of BACKENDS) {
      const e = await Matcher.create(none, { backend, ...ALL });
      for (const method of COMPACT_METHODS) expect(() => e.search([1, 2, 3], { method, normalized: true })).toThrow(EmptyCandidateSetError);
    }
  });

  it('builds what it was asked for and reports it', () => {
    const c = matchers.get('js')!.buildStats.compact;
    expect(c.u8RowBytes).toBe(32);
    expect(c.f16RowBytes).toBe(64);
    expect(c.clusters).toBeGreaterThan(0);
    expect(c.subClusters).toBeGreaterThanOrEqual(c.clusters);
    expect(c.u8ErrorMax).toBeGreaterThan(0);
    expect(c.f16ErrorMax).toBeLessThan(c.u8ErrorMax);
    const h = matchers.get('js')!.heap;
    const p = matchers.get('js')!.regions.u8Params;
    expect(h.f64[(p + U8P_INV_U) >> 3] * h.f64[(p + U8P_U) >> 3]).toBeCloseTo(1, 12);
    expect(h.f64[(p + U8P_EMAX) >> 3] * h.f64[(p + U8P_U) >> 3]).toBe(c.u8ErrorMax);
  });
});

describe('options', () => {
  const db = walkDb(500, 5, 2);

  it('construction options are checked with an error naming the option', async () => {
    await expect(Matcher.create(db, { compact: 'u8' as never })).rejects.toThrow(/^compact must be an array/);
    await expect(Matcher.create(db, { compact: ['u16'] as never })).rejects.toThrow(/^compact: unknown format "u16"/);
    await expect(Matcher.create(db, { clusters: 0 })).rejects.toThrow(/^clusters must be an integer in \[1, 4096\], got 0/);
    await expect(Matcher.create(db, { clusters: 2.5 })).rejects.toThrow(/^clusters must be an integer/);
    await expect(Matcher.create(db, { clusters: 'auto' as never })).rejects.toThrow(/^clusters must be an integer/);
    await expect(Matcher.create(db, { clusterSeed: -1 })).rejects.toThrow(/^clusterSeed must be an integer in \[0, 4294967295\]/);
    await expect(Matcher.create(db, { clusters: 2.5 })).rejects.toBeInstanceOf(RangeError);
  });

  it('search options are checked: probes, and methods whose data was not built', async () => {
    const plain = await Matcher.create(db, { backend: 'wasm-simd' });
    const q = db.features.subarray(0, 8);
    expect(() => plain.search(q, { method: 'brute-u8', normalized: true })).toThrow(/method 'brute-u8' needs the 8-bit copy: create the Matcher with \{ compact: \['u8'\] \}/);
    expect(() => plain.search(q, { method: 'brute-f16', normalized: true })).toThrow(/compact: \['f16'\]/);
    expect(() => plain.search(q, { method: 'cluster', normalized: true })).toThrow(/needs the clustered index: create the Matcher with \{ clusters: true \}/);
    const full = await Matcher.create(db, { backend: 'wasm-simd', ...ALL });
    expect(() => full.search(q, { method: 'cluster-u8', normalized: true, probes: 0 })).toThrow(/^probes must be an integer in \[1, 2147483647\], got 0/);
    expect(() => full.search(q, { method: 'cluster-u8', normalized: true, probes: 1.5 })).toThrow(RangeError);
    expect(() => full.search(q, { method: 'kdtree', normalized: true, probes: 3 })).toThrow(/^probes applies to the clustered methods/);
    expect(() => full.searchBatch(q, 1, { method: 'brute', normalized: true, probes: 3 })).toThrow(/^probes applies/);
    expect(() => full.search(q, { method: 'toString' as SearchMethod, normalized: true })).toThrow(/^unknown search method 'toString'/);
    // Clusters beyond the candidate count: as many as there are candidates.
    const small = await Matcher.create(walkDb(20, 3, 1), { clusters: 1000 });
    expect(small.buildStats.compact.clusters).toBeLessThanOrEqual(20);
  });
});

describe.skipIf(!HAS_MOCAP)('real motion capture', () => {
  let db: Database;
  beforeAll(() => {
    db = buildDatabase(loadBvhSources([join(MOCAP_DIR, 'bench')]), { mirror: true });
  }, 120_000);

  it('every compact and clustered method equals the brute force on every backend (σ 0.02 to 1)', { timeout: 300_000 }, async () => {
    const ms = new Map<Backend, Matcher>();
    for (const b of BACKENDS) ms.set(b, await Matcher.create(db, { backend: b, ...ALL }));
    const r = rng(77);
    const ref = ms.get('wasm-simd')!;
    for (let t = 0; t < 60; t++) {
      const q = queryNear(db, r, [0.02, 0.1, 0.5, 1][t % 4]);
      const opts = t % 5 === 0 ? { excludeRanges: [[0, 5000]] as [number, number][] } : {};
      const want = ref.search(q, { method: 'brute', normalized: true, ...opts });
      for (const [backend, m] of ms) {
        // The JS kernels are the slow oracle: a subset of the queries.
        if (backend === 'js' && t % 6 !== 0) continue;
        for (const method of COMPACT_METHODS) {
          const got = m.search(q, { method, normalized: true, ...opts });
          expect({ frame: got.frame, cost: got.cost }, `${backend} ${method} query ${t}`).toEqual({ frame: want.frame, cost: want.cost });
        }
      }
    }
  });
});
if (!HAS_MOCAP) console.log(`search-compact: ${MOCAP_SKIP_REASON}`);
