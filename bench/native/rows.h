/*
 * Row arithmetic of the native reference, in the project's summation order (docs/search.md, "Float32
 * summation order"): lane l of a 4-wide accumulator sums (q[j] - r[j])^2 for j = l, l + 4, ... from
 * +0, and the lanes combine as (l0 + l2) + (l1 + l3). Compiled with -ffp-contract=off (no fused
 * multiply-add), so every cost is bit-identical to the WASM kernels' and the JS reference's, and the
 * methods can be checked index for index.
 *
 * Several rows per pass keep one accumulator per row in registers; the lanes of 4 (SSE) or 8 (AVX2)
 * rows are combined at the end of the pass by a transpose, which yields their costs in one vector,
 * compared with the best in one instruction. `vecs` (4-float groups per row) is a compile-time
 * constant in the specialised copies (see SPECIALISE in brute.c), so loads take constant offsets.
 *
 * The multi-row loops stay rolled (`#pragma GCC unroll 1`): fully unrolled (7 groups x 4 rows),
 * gcc 12 issues the 28 independent subtractions first and spills the query and most differences
 * to the stack (a 0x150-byte frame, 45 stack accesses per pass), which made the "strong" loop 1.2x
 * slower than the same loop with a run-time width. Rolled, a pass is one query load and four
 * load-and-subtract, four multiplies and four adds per group, all in registers.
 */
#ifndef MM_NATIVE_ROWS_H
#define MM_NATIVE_ROWS_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#define MM_INLINE static inline __attribute__((always_inline))

/* (l0 + l2) + (l1 + l3) of one accumulator. */
MM_INLINE float hsum4(__m128 a) {
  __m128 t = _mm_add_ps(a, _mm_movehl_ps(a, a)); /* [l0 + l2, l1 + l3, ...] */
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

/* Cost of one row. */
MM_INLINE float row_cost(const float *q, const float *r, int vecs) {
  __m128 acc = _mm_setzero_ps();
  for (int j = 0; j < vecs; j++) {
    __m128 d = _mm_sub_ps(_mm_loadu_ps(q + 4 * j), _mm_loadu_ps(r + 4 * j));
    acc = _mm_add_ps(acc, _mm_mul_ps(d, d));
  }
  return hsum4(acc);
}

/* Costs of rows r, r + stride, r + 2 stride, r + 3 stride, in lanes 0..3. */
MM_INLINE __m128 row_costs4(const float *q, const float *r, size_t stride, int vecs) {
  __m128 a0 = _mm_setzero_ps(), a1 = _mm_setzero_ps(), a2 = _mm_setzero_ps(), a3 = _mm_setzero_ps();
#pragma GCC unroll 1
  for (int j = 0; j < vecs; j++) {
    const __m128 qv = _mm_loadu_ps(q + 4 * j);
    __m128 d0 = _mm_sub_ps(qv, _mm_loadu_ps(r + 4 * j));
    __m128 d1 = _mm_sub_ps(qv, _mm_loadu_ps(r + stride + 4 * j));
    __m128 d2 = _mm_sub_ps(qv, _mm_loadu_ps(r + 2 * stride + 4 * j));
    __m128 d3 = _mm_sub_ps(qv, _mm_loadu_ps(r + 3 * stride + 4 * j));
    a0 = _mm_add_ps(a0, _mm_mul_ps(d0, d0));
    a1 = _mm_add_ps(a1, _mm_mul_ps(d1, d1));
    a2 = _mm_add_ps(a2, _mm_mul_ps(d2, d2));
    a3 = _mm_add_ps(a3, _mm_mul_ps(d3, d3));
  }
  _MM_TRANSPOSE4_PS(a0, a1, a2, a3); /* a_l = lane l of rows 0..3 */
  return _mm_add_ps(_mm_add_ps(a0, a2), _mm_add_ps(a1, a3));
}

#ifdef __AVX2__
/* Rows k and k + 4 of a pass of 8 share one 256-bit accumulator (k in the low half, k + 4 in the high half). */
MM_INLINE __m256 load_rows_k_k4(const float *lo, const float *hi) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
}

/* Costs of rows r + k stride, k = 0..7, in lanes 0..7. */
MM_INLINE __m256 row_costs8(const float *q, const float *r, size_t stride, int vecs) {
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
  const float *r4 = r + 4 * stride;
#pragma GCC unroll 1
  for (int j = 0; j < vecs; j++) {
    const __m256 qv = _mm256_broadcast_ps((const __m128 *)(q + 4 * j));
    __m256 d0 = _mm256_sub_ps(qv, load_rows_k_k4(r + 4 * j, r4 + 4 * j));
    __m256 d1 = _mm256_sub_ps(qv, load_rows_k_k4(r + stride + 4 * j, r4 + stride + 4 * j));
    __m256 d2 = _mm256_sub_ps(qv, load_rows_k_k4(r + 2 * stride + 4 * j, r4 + 2 * stride + 4 * j));
    __m256 d3 = _mm256_sub_ps(qv, load_rows_k_k4(r + 3 * stride + 4 * j, r4 + 3 * stride + 4 * j));
    a0 = _mm256_add_ps(a0, _mm256_mul_ps(d0, d0));
    a1 = _mm256_add_ps(a1, _mm256_mul_ps(d1, d1));
    a2 = _mm256_add_ps(a2, _mm256_mul_ps(d2, d2));
    a3 = _mm256_add_ps(a3, _mm256_mul_ps(d3, d3));
  }
  /* 4x4 transpose within each 128-bit half: lanes of rows 0..3 below, of rows 4..7 above. */
  __m256 t0 = _mm256_unpacklo_ps(a0, a1), t1 = _mm256_unpackhi_ps(a0, a1);
  __m256 t2 = _mm256_unpacklo_ps(a2, a3), t3 = _mm256_unpackhi_ps(a2, a3);
  __m256 l0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 l1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 l2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 l3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  return _mm256_add_ps(_mm256_add_ps(l0, l2), _mm256_add_ps(l1, l3));
}
#endif

/*
 * Lower bound of the cost of any row inside the box [lo, hi]: the row sum with each difference
 * replaced by q - clamp(q, lo, hi), same lanes and order (so it never exceeds a row's float32 cost).
 */
MM_INLINE float box_bound(const float *q, const float *lo, const float *hi, int vecs) {
  __m128 acc = _mm_setzero_ps();
  for (int j = 0; j < vecs; j++) {
    const __m128 qv = _mm_loadu_ps(q + 4 * j);
    __m128 d = _mm_sub_ps(qv, _mm_min_ps(_mm_max_ps(qv, _mm_loadu_ps(lo + 4 * j)), _mm_loadu_ps(hi + 4 * j)));
    acc = _mm_add_ps(acc, _mm_mul_ps(d, d));
  }
  return hsum4(acc);
}

/* The best so far: lowest cost, ties to the lowest index (rows are visited in index order). */
typedef struct {
  float cost;
  int index;
} Best;

/* Takes row i with cost c when it beats the best and may be returned (a candidate). */
MM_INLINE void offer(Best *b, const uint8_t *mask, int i, float c) {
  if (c < b->cost && mask[i]) {
    b->cost = c;
    b->index = i;
  }
}

#endif
