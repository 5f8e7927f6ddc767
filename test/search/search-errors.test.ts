/** Bad input is rejected with clear errors; an empty candidate set is not "nothing beat bestCost". */
import { describe, expect, it } from 'vitest';
import { Matcher, EmptyCandidateSetError, type Backend } from '../../src/search/matcher.js';
import { makeFakeDb, rng, gauss } from '../helpers/fake-db.js';

const BACKENDS: Backend[] = ['wasm-simd', 'wasm-scalar', 'js'];

function smallDb() {
  const r = rng(4);
  const raw = new Float32Array(200 * 6).map(() => gauss(r));
  const candidates = new Uint8Array(200).fill(1);
  candidates.fill(0, 50, 100);
  const tagBits = new Uint32Array(200).map((_, i) => (i < 100 ? 1 : 2)); // 'walk' then 'run'
  return makeFakeDb(raw, 6, { candidates, tagBits, tagNames: ['walk', 'run', 'never'] });
}

describe.each(BACKENDS)('search errors (%s)', (backend) => {
  it('rejects queries of the wrong width, NaN or Infinity with RangeError', async () => {
    const m = await Matcher.create(smallDb(), { backend });
    expect(() => m.search(new Float32Array(5))).toThrow(RangeError);
    expect(() => m.search(new Float32Array(7))).toThrow(/expected 6 \(dims\) or 8 \(stride\)/);
    expect(() => m.search(new Float32Array(9))).toThrow(RangeError);
    expect(m.search(new Float32Array(6)).frame).toBeGreaterThanOrEqual(0);
    expect(m.search(new Float32Array(8)).frame).toBeGreaterThanOrEqual(0);
    for (const bad of [NaN, Infinity, -Infinity]) {
      const q = new Float32Array(6);
      q[3] = bad;
      expect(() => m.search(q)).toThrow(/query\[3\] is .*finite/);
      expect(() => m.search(q, { normalized: true })).toThrow(RangeError);
      const batch = new Float32Array(12);
      batch[9] = bad;
      expect(() => m.searchBatch(batch, 2)).toThrow(/query 1 \[3\]/);
    }
    expect(() => m.searchBatch(new Float32Array(13), 2)).toThrow(RangeError);
    expect(() => m.searchBatch(new Float32Array(12), 1.5)).toThrow(RangeError);
    expect(m.searchBatch(new Float32Array(0), 0).frames.length).toBe(0);
  });

  it('rejects bad options', async () => {
    const m = await Matcher.create(smallDb(), { backend });
    const q = new Float32Array(6);
    expect(() => m.search(q, { bestCost: NaN })).toThrow(/bestCost is NaN/);
    expect(() => m.search(q, { requireTags: ['fly'] })).toThrow(/unknown tag 'fly'/);
    expect(() => m.search(q, { excludeTags: ['fly'] })).toThrow(RangeError);
    expect(() => m.search(q, { method: 'window' })).toThrow(/needs ranges/);
    expect(() => m.search(q, { method: 'fast' as never })).toThrow(/unknown search method/);
    expect(() => m.search(q, { ranges: [[5, 2]] })).toThrow(/start <= end/);
    expect(() => m.search(q, { excludeRanges: [[0.5, 2]] })).toThrow(RangeError);
    expect(() => m.search(q, { bias: new Float32Array(10) })).toThrow(/200 values/);
    const nanBias = new Float32Array(200);
    nanBias[7] = NaN;
    expect(() => m.search(q, { bias: nanBias })).toThrow(/bias\[7\]/);
    expect(() => m.setBias(nanBias)).toThrow(RangeError);
    expect(() => m.searchBatch(new Float32Array(12), 2, { bestCost: new Float32Array(3) })).toThrow(/bestCost has 3 entries/);
    expect(() => m.searchBatch(new Float32Array(12), 2, { excludeRangesPerQuery: [] })).toThrow(/excludeRangesPerQuery/);
    expect(() => m.searchBatch(new Float32Array(12), 2, {}, { frames: new Int32Array(1), costs: new Float32Array(2) })).toThrow(RangeError);
  });

  it('an empty candidate set throws; nothing beating bestCost returns frame -1', async () => {
    const m = await Matcher.create(smallDb(), { backend });
    const q = new Float32Array(6);
    for (const method of ['brute', 'early', 'aabb', 'kdtree'] as const) {
      expect(m.search(q, { method, bestCost: 0 })).toEqual({ frame: -1, clip: -1, clipTime: 0, cost: 0 });
      expect(() => m.search(q, { method, requireTags: ['never'] })).toThrow(EmptyCandidateSetError);
      expect(() => m.search(q, { method, requireTags: ['never'], bestCost: 0 })).toThrow(/requireTags \[never\]/);
      expect(() => m.search(q, { method, requireTags: ['walk', 'run'] })).toThrow(EmptyCandidateSetError);
      expect(() => m.search(q, { method, ranges: [[50, 100]] })).toThrow(EmptyCandidateSetError); // not candidates
      expect(() => m.search(q, { method, ranges: [[300, 400]] })).toThrow(EmptyCandidateSetError); // outside
      expect(() => m.search(q, { method, excludeRanges: [[0, 200]] })).toThrow(EmptyCandidateSetError);
      expect(() => m.search(q, { method, ranges: [[0, 50]], excludeTags: ['walk'] })).toThrow(EmptyCandidateSetError);
      expect(m.search(q, { method, ranges: [[40, 60]], requireTags: ['walk'] }).frame).toBeLessThan(50);
      expect(() => m.searchBatch(new Float32Array(12), 2, { method, requireTags: ['never'], bestCost: 0 })).toThrow(EmptyCandidateSetError);
      expect(() => m.searchBatch(new Float32Array(12), 2, { method, excludeRangesPerQuery: [null, [[0, 200]]] })).toThrow(/query 1/);
    }
    expect(() => m.search(q, { method: 'window', ranges: [[60, 70]] })).toThrow(EmptyCandidateSetError);
  });

  it('a database without candidate frames throws on search', async () => {
    const r = rng(1);
    const db = makeFakeDb(new Float32Array(40).map(() => gauss(r)), 4, { candidates: new Uint8Array(10) });
    const m = await Matcher.create(db, { backend });
    expect(() => m.search(new Float32Array(4))).toThrow(/database has no candidate frames/);
  });
});

describe('database validation', () => {
  it('rejects non-finite features, non-zero padding and inconsistent arrays', async () => {
    const db = makeFakeDb(new Float32Array(30), 3);
    db.features[4] = NaN;
    await expect(Matcher.create(db)).rejects.toThrow(/features' value at frame 1, column 0 is NaN/);
    db.features[4] = 0;
    db.features[3] = 1; // padding of frame 0
    await expect(Matcher.create(db)).rejects.toThrow(/padding/);
    db.features[3] = 0;
    await expect(Matcher.create({ ...db, candidates: new Uint8Array(3) })).rejects.toThrow(/candidates/);
    await expect(Matcher.create({ ...db, stride: 8 })).rejects.toThrow(/stride/);
    await expect(Matcher.create(db, { backend: 'gpu' as never })).rejects.toThrow(/unknown backend/);
  });
});
