import { describe, it, expect } from 'vitest';
import { ApproximateMatcher, measureRecall, symmetricEigen } from '../../src/search/approximate.js';
import { Matcher } from '../../src/search/matcher.js';
import { builtinDatabase } from '../../src/apps/builtin-database.js';

describe('approximate search (PCA KD-tree + exact re-ranking)', () => {
  it('diagonalises a symmetric matrix', () => {
    const a = new Float64Array([4, 1, 0, 1, 3, 1, 0, 1, 2]);
    const { values, vectors } = symmetricEigen(a, 3);
    for (let i = 0; i < 3; i++) {
      for (let r = 0; r < 3; r++) {
        let av = 0;
        for (let c = 0; c < 3; c++) av += a[r * 3 + c] * vectors[i * 3 + c];
        expect(av).toBeCloseTo(values[i] * vectors[i * 3 + r], 9);
      }
    }
    expect(values[0]).toBeGreaterThanOrEqual(values[1]);
  });

  it('is exact with all components and enough candidates, and reports honest recall otherwise', async () => {
    const db = builtinDatabase();
    const exact = await Matcher.create(db, { backend: 'js' });
    const n = 200, S = db.stride;
    const queries = new Float32Array(n * S);
    let seed = 12345;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
    for (let i = 0; i < n; i++) {
      const f = Math.floor(rand() * db.frameCount);
      for (let k = 0; k < db.dims; k++) queries[i * S + k] = db.features[f * S + k] + 0.3 * (rand() - 0.5);
    }
    const frames = new Int32Array(n);
    for (let i = 0; i < n; i++) frames[i] = exact.search(queries.subarray(i * S, (i + 1) * S), { normalized: true, method: 'brute' }).frame;
    const full = new ApproximateMatcher(db, { components: db.dims, candidates: 4 }); // (a few, for float32 near-ties)
    expect(full.explainedVariance).toBeCloseTo(1, 9);
    expect(measureRecall(full, frames, queries, S)).toBe(1);
    const small = new ApproximateMatcher(db, { components: 6, candidates: 32 });
    const recall = measureRecall(small, frames, queries, S);
    console.log(`approximate 6 components x 32 candidates: recall@1 ${recall.toFixed(3)}, explained variance ${small.explainedVariance.toFixed(3)}`);
    expect(recall).toBeGreaterThan(0.5);
    expect(recall).toBeLessThanOrEqual(1);
    const r = small.search(queries.subarray(0, S));
    expect(r.approximate).toBe(true);
    expect(() => small.search(new Float32Array(S).fill(NaN))).toThrow(/finite/);
  });
});
