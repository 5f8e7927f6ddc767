/**
 * The WASM memory contract: layout agreement with assembly/, shared and ordinary memories, growth
 * with re-derived views, several matchers in one memory, zero-copy query views, bit-identical
 * row arithmetic across backends.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { Matcher, type Backend } from '../../src/search/matcher.js';
import * as layout from '../../src/search/wasm/memory-layout.js';
import { simdSupported, sharedMemorySupported, isSharedMemory, readWasmFile, compileSearchModule, instantiateKernels } from '../../src/search/wasm/load.js';
import { createJsKernels } from '../../src/search/kernels-js/kernels.js';
import { makeFakeDb, rng, gauss } from '../helpers/fake-db.js';
import { oracleSearch, laneCost } from '../helpers/search-oracle.js';

function randomDb(rows: number, dims: number, seed: number) {
  const r = rng(seed);
  return makeFakeDb(new Float32Array(rows * dims).map(() => gauss(r)), dims);
}

function queryFor(db: ReturnType<typeof randomDb>, seed: number): Float32Array {
  const r = rng(seed);
  const q = new Float32Array(db.stride);
  for (let j = 0; j < db.dims; j++) q[j] = gauss(r);
  return q;
}

function expectOracle(m: Matcher, db: ReturnType<typeof randomDb>, seed: number): void {
  const q = queryFor(db, seed);
  const want = oracleSearch(db, q);
  for (const method of ['brute', 'aabb', 'kdtree'] as const) {
    const got = m.search(q, { method, normalized: true });
    expect([got.frame, got.cost]).toEqual([want.frame, want.cost]);
  }
}

describe('memory layout', () => {
  it('TypeScript struct offsets mirror assembly/layout.ts', () => {
    const src = readFileSync(new URL('../../assembly/layout.ts', import.meta.url), 'utf8');
    const consts = [...src.matchAll(/export const (\w+): i32 = (-?\d+);/g)];
    expect(consts.length).toBeGreaterThan(40);
    for (const [, name, value] of consts) {
      expect((layout as Record<string, unknown>)[name], name).toBe(Number(value));
    }
  });

  it('regions sit above the module heap base and are 64-byte aligned', async () => {
    const m = await Matcher.create(randomDb(100, 5, 1), { backend: 'wasm-simd' });
    expect(m.kernels.heapBase()).toBeGreaterThan(0);
    const r = m.regions;
    expect(r.ctx).toBeGreaterThanOrEqual(m.kernels.heapBase());
    for (const v of Object.values(r)) expect(v % 64).toBe(0);
    expect(m.slots[0].req).toBeGreaterThanOrEqual(r.end);
  });
});

describe('builds and memories', () => {
  it('Node has SIMD and shared memory', () => {
    expect(simdSupported()).toBe(true);
    expect(sharedMemorySupported()).toBe(true);
  });

  it('a shared-memory build refuses an ordinary memory (hence the unshared builds)', async () => {
    const bytes = await readWasmFile({ simd: true, shared: true });
    const plain = new WebAssembly.Memory({ initial: 1 });
    await expect(WebAssembly.instantiate(bytes as BufferSource, { env: { memory: plain } })).rejects.toThrow(/shared|maximum/);
    const plainMax = new WebAssembly.Memory({ initial: 1, maximum: 10 });
    await expect(WebAssembly.instantiate(bytes as BufferSource, { env: { memory: plainMax } })).rejects.toThrow(/shared/);
    const shared = new WebAssembly.Memory({ initial: 1, maximum: 10, shared: true });
    await expect(WebAssembly.instantiate(bytes as BufferSource, { env: { memory: shared } })).resolves.toBeTruthy();
    const unshared = await readWasmFile({ simd: true, shared: false });
    await expect(WebAssembly.instantiate(unshared as BufferSource, { env: { memory: plain } })).resolves.toBeTruthy();
  });

  it.each(['wasm-simd', 'wasm-scalar'] as Backend[])('%s works with shared and ordinary memories', async (backend) => {
    const db = randomDb(3000, 13, 2);
    for (const memory of [new WebAssembly.Memory({ initial: 1 }), new WebAssembly.Memory({ initial: 1, maximum: 4096, shared: true })]) {
      const m = await Matcher.create(db, { backend, memory });
      expect(m.memory).toBe(memory);
      expect(isSharedMemory(m.memory)).toBe(memory.buffer instanceof SharedArrayBuffer);
      expectOracle(m, db, 3);
    }
  });

  it('the default memory is shared in Node', async () => {
    const m = await Matcher.create(randomDb(10, 3, 1));
    expect(m.backend).toBe('wasm-simd');
    expect(isSharedMemory(m.memory)).toBe(true);
  });
});

describe('growth', () => {
  it.each(['wasm-simd', 'wasm-scalar', 'js'] as Backend[])('%s: loading a bigger database grows memory and re-derives views', async (backend) => {
    for (const shared of [false, true]) {
      const memory = shared ? new WebAssembly.Memory({ initial: 1, maximum: 4096, shared: true }) : new WebAssembly.Memory({ initial: 1 });
      const small = randomDb(50, 5, 4);
      const m = await Matcher.create(small, { backend, memory });
      const before = memory.buffer.byteLength;
      const view = m.queryView();
      view.set(queryFor(small, 1));
      expect(m.search(view, { normalized: true })).toEqual(m.search(queryFor(small, 1), { normalized: true }));

      const big = randomDb(20000, 27, 5);
      m.load(big);
      expect(memory.buffer.byteLength).toBeGreaterThan(before);
      if (!shared) expect(view.length).toBe(0); // detached by growth
      const view2 = m.queryView();
      expect(view2 === view).toBe(false);
      expect(view2.length).toBe(big.stride);
      expectOracle(m, big, 6);

      // A second matcher in the same memory lands above the first; reloading the first then has
      // to move (it is no longer the top reservation) and grows memory again.
      const m2 = await Matcher.create(randomDb(3000, 9, 7), { backend, memory });
      expect(m2.regions.ctx).toBeGreaterThanOrEqual(m.slots[0].end);
      const bigger = randomDb(30000, 27, 8);
      m.load(bigger);
      expect(m.regions.ctx).toBeGreaterThanOrEqual(m2.slots[0].end);
      expectOracle(m, bigger, 9);
      expectOracle(m2, randomDb(3000, 9, 7), 10);
      // Reloading something smaller reuses the reservation.
      const base = m.regions.ctx;
      m.load(small);
      expect(m.regions.ctx).toBe(base);
      expectOracle(m, small, 11);
    }
  });
});

describe('zero-copy queries', () => {
  it('queryView(k) feeds search and searchBatch in place (raw queries normalised in place)', async () => {
    const r = rng(3);
    const raw = new Float32Array(2000 * 10).map(() => 5 + 2 * gauss(r));
    const db = makeFakeDb(raw, 10, { normalize: true });
    const m = await Matcher.create(db, { backend: 'wasm-simd' });
    const k = 8;
    const qs = new Float32Array(k * 12);
    for (let i = 0; i < k * 12; i++) qs[i] = i % 12 < 10 ? 5 + 2 * gauss(r) : 0;
    const want = m.searchBatch(qs, k, { method: 'kdtree' });
    const view = m.queryView(k);
    expect(view.length).toBe(k * 12);
    view.set(qs);
    const got = m.searchBatch(view, k, { method: 'kdtree' });
    expect(got).toEqual(want);
    m.queryView().set(qs.subarray(0, 12));
    expect(m.search(m.queryView(), { method: 'brute' }).frame).toBe(want.frames[0]);
    expect(() => m.queryView(100000)).toThrow(RangeError);
  });
});

describe('row arithmetic is bit-identical across backends', () => {
  it('rowCost and rowBoxBound agree, and the box bound never exceeds an inside row', async () => {
    const memories = {
      simd: new WebAssembly.Memory({ initial: 2, maximum: 2, shared: true }),
      scalar: new WebAssembly.Memory({ initial: 2, maximum: 2, shared: true }),
      js: new WebAssembly.Memory({ initial: 2 }),
    };
    const kernels = {
      simd: await instantiateKernels(await compileSearchModule({ simd: true, shared: true }), memories.simd),
      scalar: await instantiateKernels(await compileSearchModule({ simd: false, shared: true }), memories.scalar),
      js: createJsKernels(memories.js),
    };
    const Q = 4096, R = 8192, LO = 12288, HI = 16384;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer(), fc.constantFrom(1e-3, 1, 1e3), (dims, seed, mag) => {
        const r = rng(seed);
        const stride = (dims + 3) & ~3;
        const q = new Float32Array(stride);
        const row = new Float32Array(stride);
        const lo = new Float32Array(stride);
        const hi = new Float32Array(stride);
        for (let j = 0; j < dims; j++) {
          q[j] = gauss(r) * mag;
          row[j] = gauss(r) * mag;
          lo[j] = Math.min(row[j], row[j] - Math.abs(gauss(r)) * mag * (r() < 0.5 ? 0 : 1));
          hi[j] = Math.max(row[j], row[j] + Math.abs(gauss(r)) * mag * (r() < 0.5 ? 0 : 1));
        }
        const want = laneCost(q, row, 0, stride);
        const costs: number[] = [];
        const bounds: number[] = [];
        for (const [name, k] of Object.entries(kernels)) {
          const f32 = new Float32Array(memories[name as keyof typeof memories].buffer);
          f32.set(q, Q / 4);
          f32.set(row, R / 4);
          f32.set(lo, LO / 4);
          f32.set(hi, HI / 4);
          costs.push(k.rowCost(Q, R, stride));
          bounds.push(k.rowBoxBound(Q, LO, HI, stride));
        }
        expect(costs).toEqual([want, want, want]);
        expect(bounds[1]).toBe(bounds[0]);
        expect(bounds[2]).toBe(bounds[0]);
        expect(bounds[0]).toBeLessThanOrEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});
