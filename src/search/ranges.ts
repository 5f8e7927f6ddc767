/**
 * Frame-range lists as the kernels want them: sorted, disjoint, non-adjacent, non-empty pairs
 * [start, end) inside [0, rows), flattened into an Int32Array. Everything works in caller-provided
 * scratch so a search does not allocate.
 */

export type FrameRange = readonly [number, number];

/**
 * Copies `list` into out (pairs), clamped to [0, rows), sorted and merged; returns the pair count.
 * Throws RangeError for non-integer bounds or start > end. `out` must hold 2 * list.length ints.
 */
export function normalizeRanges(list: ReadonlyArray<FrameRange>, rows: number, out: Int32Array, label: string, labelIndex = -1): number {
  let n = 0;
  let sorted = true;
  for (let k = 0; k < list.length; k++) {
    const r = list[k];
    const s = r[0];
    const e = r[1];
    if (!Number.isInteger(s) || !Number.isInteger(e) || s > e) {
      // The label is assembled only here: per-query calls must not build a string each.
      const name = labelIndex >= 0 ? `${label}[${labelIndex}]` : label;
      throw new RangeError(`${name}[${k}] must be [start, end) with integer start <= end, got [${s}, ${e}]`);
    }
    const cs = Math.max(0, s);
    const ce = Math.min(rows, e);
    if (cs >= ce) continue;
    if (n > 0 && cs < out[2 * n - 2]) sorted = false;
    out[2 * n] = cs;
    out[2 * n + 1] = ce;
    n++;
  }
  if (!sorted) sortPairs(out, n);
  return mergePairs(out, n);
}

/** Pairs of a, minus every frame covered by b (both normalised); returns the pair count. */
export function subtractRanges(a: Int32Array, na: number, b: Int32Array, nb: number, out: Int32Array): number {
  let n = 0;
  let j = 0;
  for (let i = 0; i < na; i++) {
    let s = a[2 * i];
    const e = a[2 * i + 1];
    while (j < nb && b[2 * j + 1] <= s) j++;
    let k = j;
    while (s < e && k < nb && b[2 * k] < e) {
      if (b[2 * k] > s) {
        out[2 * n] = s;
        out[2 * n + 1] = b[2 * k];
        n++;
      }
      s = Math.max(s, b[2 * k + 1]);
      k++;
    }
    if (s < e) {
      out[2 * n] = s;
      out[2 * n + 1] = e;
      n++;
    }
  }
  return n;
}

/** Merges overlapping or touching pairs of a sorted list in place; returns the new count. */
function mergePairs(p: Int32Array, n: number): number {
  if (n === 0) return 0;
  let w = 0;
  for (let k = 1; k < n; k++) {
    if (p[2 * k] <= p[2 * w + 1]) {
      if (p[2 * k + 1] > p[2 * w + 1]) p[2 * w + 1] = p[2 * k + 1];
    } else {
      w++;
      p[2 * w] = p[2 * k];
      p[2 * w + 1] = p[2 * k + 1];
    }
  }
  return w + 1;
}

/** In-place heapsort of n pairs by start (no allocation, O(n log n) worst case). */
function sortPairs(p: Int32Array, n: number): void {
  for (let i = (n >> 1) - 1; i >= 0; i--) siftDown(p, i, n);
  for (let end = n - 1; end > 0; end--) {
    swapPairs(p, 0, end);
    siftDown(p, 0, end);
  }
}

function siftDown(p: Int32Array, i: number, n: number): void {
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) return;
    const c = l + 1 < n && p[2 * (l + 1)] > p[2 * l] ? l + 1 : l;
    if (p[2 * c] <= p[2 * i]) return;
    swapPairs(p, i, c);
    i = c;
  }
}

function swapPairs(p: Int32Array, i: number, j: number): void {
  const s = p[2 * i];
  const e = p[2 * i + 1];
  p[2 * i] = p[2 * j];
  p[2 * i + 1] = p[2 * j + 1];
  p[2 * j] = s;
  p[2 * j + 1] = e;
}
