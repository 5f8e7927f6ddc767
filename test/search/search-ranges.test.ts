/** Range normalisation and subtraction against naive frame sets. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalizeRanges, subtractRanges } from '../../src/search/ranges.js';

const rangeList = fc.array(fc.tuple(fc.integer({ min: -5, max: 60 }), fc.integer({ min: 0, max: 30 })).map(([s, len]) => [s, s + len] as [number, number]), { maxLength: 12 });

function frames(list: ReadonlyArray<readonly [number, number]>, rows: number): Set<number> {
  const s = new Set<number>();
  for (const [a, b] of list) for (let i = Math.max(0, a); i < Math.min(rows, b); i++) s.add(i);
  return s;
}

function pairs(a: Int32Array, n: number): [number, number][] {
  return Array.from({ length: n }, (_, k) => [a[2 * k], a[2 * k + 1]] as [number, number]);
}

function checkNormal(p: [number, number][], rows: number): void {
  for (let k = 0; k < p.length; k++) {
    expect(p[k][0]).toBeGreaterThanOrEqual(0);
    expect(p[k][1]).toBeLessThanOrEqual(rows);
    expect(p[k][0]).toBeLessThan(p[k][1]);
    if (k > 0) expect(p[k][0]).toBeGreaterThan(p[k - 1][1]); // disjoint and not touching
  }
}

describe('ranges', () => {
  it('normalizeRanges covers exactly the clamped frames, sorted, disjoint, merged', () => {
    fc.assert(
      fc.property(rangeList, fc.integer({ min: 0, max: 50 }), (list, rows) => {
        const out = new Int32Array(2 * list.length + 2);
        const p = pairs(out, normalizeRanges(list, rows, out, 'ranges'));
        checkNormal(p, rows);
        expect(frames(p, rows)).toEqual(frames(list, rows));
      }),
    );
  });

  it('subtractRanges removes exactly the excluded frames', () => {
    fc.assert(
      fc.property(rangeList, rangeList, fc.integer({ min: 0, max: 50 }), (a, b, rows) => {
        const na = new Int32Array(2 * a.length + 2);
        const nb = new Int32Array(2 * b.length + 2);
        const ca = normalizeRanges(a, rows, na, 'a');
        const cb = normalizeRanges(b, rows, nb, 'b');
        const out = new Int32Array(2 * (ca + cb) + 2);
        const p = pairs(out, subtractRanges(na, ca, nb, cb, out));
        checkNormal(p, rows);
        const want = frames(a, rows);
        for (const f of frames(b, rows)) want.delete(f);
        expect(frames(p, rows)).toEqual(want);
      }),
    );
  });

  it('rejects reversed or fractional ranges', () => {
    const out = new Int32Array(8);
    expect(() => normalizeRanges([[3, 1]], 10, out, 'ranges')).toThrow(/ranges\[0\]/);
    expect(() => normalizeRanges([[0, 1.5]], 10, out, 'ranges')).toThrow(RangeError);
    expect(() => normalizeRanges([[NaN, 1]], 10, out, 'ranges')).toThrow(RangeError);
  });
});
