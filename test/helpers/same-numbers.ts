/**
 * Long numeric arrays compared as `toEqual` compares them (same length, each pair Object.is: NaN
 * equals NaN, 0 differs from -0) in one plain loop: vitest's deep equality walks a typed array
 * element by element through its generic machinery, about a microsecond each, which made a few
 * tests of height fields and poses spend seconds in it (a CPU profile of the suite put 26 s there).
 */
import { expect } from 'vitest';

/** Index of the first element where `a` and `b` differ (Object.is), or -1 when every element is the same; lengths are not compared. */
export function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

/** Passes when `actual` and `expected` have the same length and elements; otherwise fails naming the first difference. */
export function expectSameNumbers(actual: ArrayLike<number>, expected: ArrayLike<number>, label = 'arrays'): void {
  expect(actual.length, `${label}: length`).toBe(expected.length);
  const i = firstDifference(actual, expected);
  if (i >= 0) expect({ index: i, value: actual[i] }, `${label}: first difference`).toEqual({ index: i, value: expected[i] });
}

/** Passes when `actual` and `other` differ in length or in at least one element. */
export function expectDifferentNumbers(actual: ArrayLike<number>, other: ArrayLike<number>, label = 'arrays'): void {
  const same = actual.length === other.length && firstDifference(actual, other) < 0;
  expect(same, `${label}: expected them to differ`).toBe(false);
}
