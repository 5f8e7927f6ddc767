/**
 * The row arithmetic of the plain-JS kernels: float32 squared distances and box bounds in the
 * kernels' lane order (assembly/row.ts), shared by kernels-js/kernels.ts, the compact and clustered twins and
 * the approximate search.
 *
 * Float32 semantics: each +, -, * is computed in float64 and rounded with Math.fround. For these
 * operations double rounding is exact (float64 has more than 2 * 24 + 2 significand bits), so the
 * result equals the float32 operation WASM performs.
 */
const fr = Math.fround;

/** Squared distance of padded rows at float indices qi, ri. */
export function sqDist(f32: Float32Array, qi: number, ri: number, stride: number): number {
  return sqDistBetween(f32, qi, f32, ri, stride);
}

/** sqDist for rows in two arrays (same lanes and summation order, so the same float32 result). */
export function sqDistBetween(q: ArrayLike<number>, qi: number, r: Float32Array, ri: number, stride: number): number {
  let l0 = 0, l1 = 0, l2 = 0, l3 = 0;
  for (let j = 0; j < stride; j += 4) {
    const d0 = fr(q[qi + j] - r[ri + j]);
    const d1 = fr(q[qi + j + 1] - r[ri + j + 1]);
    const d2 = fr(q[qi + j + 2] - r[ri + j + 2]);
    const d3 = fr(q[qi + j + 3] - r[ri + j + 3]);
    l0 = fr(l0 + fr(d0 * d0));
    l1 = fr(l1 + fr(d1 * d1));
    l2 = fr(l2 + fr(d2 * d2));
    l3 = fr(l3 + fr(d3 * d3));
  }
  return fr(fr(l0 + l2) + fr(l1 + l3));
}

/**
 * sqDist + bias with early exit: one check after the first floor(stride / 8) groups of 4 dims (as
 * row.ts); +Infinity when the partial cost reaches limit, otherwise the exact cost.
 */
export function sqDistBounded(f32: Float32Array, qi: number, ri: number, stride: number, bias: number, limit: number): number {
  let l0 = 0, l1 = 0, l2 = 0, l3 = 0;
  const mid = (stride >> 3) << 2;
  for (let j = 0; j < stride; j += 4) {
    if (j === mid) {
      const p = fr(fr(fr(l0 + l2) + fr(l1 + l3)) + bias);
      if (p >= limit) return Infinity;
    }
    const d0 = fr(f32[qi + j] - f32[ri + j]);
    const d1 = fr(f32[qi + j + 1] - f32[ri + j + 1]);
    const d2 = fr(f32[qi + j + 2] - f32[ri + j + 2]);
    const d3 = fr(f32[qi + j + 3] - f32[ri + j + 3]);
    l0 = fr(l0 + fr(d0 * d0));
    l1 = fr(l1 + fr(d1 * d1));
    l2 = fr(l2 + fr(d2 * d2));
    l3 = fr(l3 + fr(d3 * d3));
  }
  return fr(fr(fr(l0 + l2) + fr(l1 + l3)) + bias);
}

/** q - clamp(q, lo, hi), as row.ts computes it. */
function clampGap(q: number, lo: number, hi: number): number {
  const c = q < lo ? lo : q;
  return fr(q - (hi < c ? hi : c));
}

/** Lower bound of sqDist over the box [lo, hi] (float indices), never above any inside row's cost. */
export function boxBound(f32: Float32Array, qi: number, lo: number, hi: number, stride: number): number {
  let l0 = 0, l1 = 0, l2 = 0, l3 = 0;
  for (let j = 0; j < stride; j += 4) {
    const d0 = clampGap(f32[qi + j], f32[lo + j], f32[hi + j]);
    const d1 = clampGap(f32[qi + j + 1], f32[lo + j + 1], f32[hi + j + 1]);
    const d2 = clampGap(f32[qi + j + 2], f32[lo + j + 2], f32[hi + j + 2]);
    const d3 = clampGap(f32[qi + j + 3], f32[lo + j + 3], f32[hi + j + 3]);
    l0 = fr(l0 + fr(d0 * d0));
    l1 = fr(l1 + fr(d1 * d1));
    l2 = fr(l2 + fr(d2 * d2));
    l3 = fr(l3 + fr(d3 * d3));
  }
  return fr(fr(l0 + l2) + fr(l1 + l3));
}
