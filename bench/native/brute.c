/*
 * Native brute force over every row (non-candidates are skipped only when they would win, as in the
 * WASM kernel): the one-row loop the comparison used to run, and the strong versions, 4 rows per pass
 * with SSE and 8 with AVX2 (rows.h). Each returns the best candidate's index (-1 if none beats +inf)
 * and writes its cost.
 */
#include "native.h"
#include "rows.h"

/*
 * The specialised copies: `vecs` = 1..8 (rows of up to 32 floats) as a constant, so the compiler
 * knows the trip count and every load offset; other widths take the generic copy.
 */
#define SPECIALISE(call_with)                                  \
  switch (vecs) {                                              \
    case 1: return call_with(1);                               \
    case 2: return call_with(2);                               \
    case 3: return call_with(3);                               \
    case 4: return call_with(4);                               \
    case 5: return call_with(5);                               \
    case 6: return call_with(6);                               \
    case 7: return call_with(7);                               \
    case 8: return call_with(8);                               \
    default: return call_with(vecs);                           \
  }

/* What the comparison ran before: one row per iteration, a horizontal sum per row. */
int brute_sse_1row(const Rows *d, const float *q, float *cost) {
  Best b = {__builtin_inff(), -1};
  const int vecs = d->stride / 4;
  const float *r = d->rows;
  for (int i = 0; i < d->n; i++, r += d->stride) offer(&b, d->mask, i, row_cost(q, r, vecs));
  *cost = b.cost;
  return b.index;
}

/* Rows [from, to) with `costs4` passes of 4 rows and single rows for the rest, into b. */
MM_INLINE void scan_sse(const Rows *d, const float *q, int from, int to, int vecs, Best *b) {
  const size_t stride = 4 * (size_t)vecs; /* = d->stride (main.c checks it is a multiple of 4); a constant in the specialised copies */
  __m128 best = _mm_set1_ps(b->cost);
  int i = from;
  for (; i + 4 <= to; i += 4) {
    const __m128 c = row_costs4(q, d->rows + (size_t)i * stride, stride, vecs);
    const int beats = _mm_movemask_ps(_mm_cmplt_ps(c, best));
    if (__builtin_expect(beats != 0, 0)) {
      float cs[4];
      _mm_storeu_ps(cs, c);
      for (int k = 0; k < 4; k++) offer(b, d->mask, i + k, cs[k]);
      best = _mm_set1_ps(b->cost);
    }
  }
  for (; i < to; i++) offer(b, d->mask, i, row_cost(q, d->rows + (size_t)i * stride, vecs));
}

MM_INLINE int brute_sse_n(const Rows *d, const float *q, float *cost, int vecs) {
  Best b = {__builtin_inff(), -1};
  scan_sse(d, q, 0, d->n, vecs, &b);
  *cost = b.cost;
  return b.index;
}

int brute_sse(const Rows *d, const float *q, float *cost) {
  const int vecs = d->stride / 4;
#define CALL(v) brute_sse_n(d, q, cost, v)
  SPECIALISE(CALL)
#undef CALL
}

/* The same loop with the row width a run-time value: what a kernel that serves any stride runs. */
int brute_sse_generic(const Rows *d, const float *q, float *cost) {
  Best b = {__builtin_inff(), -1};
  scan_sse(d, q, 0, d->n, d->stride / 4, &b);
  *cost = b.cost;
  return b.index;
}

#ifdef __AVX2__
MM_INLINE void scan_avx2(const Rows *d, const float *q, int from, int to, int vecs, Best *b) {
  const size_t stride = 4 * (size_t)vecs; /* = d->stride (main.c checks it is a multiple of 4); a constant in the specialised copies */
  __m256 best = _mm256_set1_ps(b->cost);
  int i = from;
  for (; i + 8 <= to; i += 8) {
    const __m256 c = row_costs8(q, d->rows + (size_t)i * stride, stride, vecs);
    const int beats = _mm256_movemask_ps(_mm256_cmp_ps(c, best, _CMP_LT_OQ));
    if (__builtin_expect(beats != 0, 0)) {
      float cs[8];
      _mm256_storeu_ps(cs, c);
      for (int k = 0; k < 8; k++) offer(b, d->mask, i + k, cs[k]);
      best = _mm256_set1_ps(b->cost);
    }
  }
  for (; i < to; i++) offer(b, d->mask, i, row_cost(q, d->rows + (size_t)i * stride, vecs));
}

MM_INLINE int brute_avx2_n(const Rows *d, const float *q, float *cost, int vecs) {
  Best b = {__builtin_inff(), -1};
  scan_avx2(d, q, 0, d->n, vecs, &b);
  *cost = b.cost;
  return b.index;
}

int brute_avx2(const Rows *d, const float *q, float *cost) {
  const int vecs = d->stride / 4;
#define CALL(v) brute_avx2_n(d, q, cost, v)
  SPECIALISE(CALL)
#undef CALL
}
#endif

/* ---- box pruning (Holden): blocks of 64, then 16 rows, bounds over candidate rows ---- */

MM_INLINE int boxes_n(const Boxes *x, const float *q, float *cost, int vecs, int avx2) {
  const Rows *d = x->rows;
  const size_t box = 2 * (size_t)d->stride;
  Best b = {__builtin_inff(), -1};
  for (int c = 0; c < x->coarse_blocks; c++) {
    if (x->coarse_count[c] == 0) continue;
    const float *cb = x->coarse + (size_t)c * box;
    if (box_bound(q, cb, cb + d->stride, vecs) >= b.cost) continue;
    const int f_end = c * 4 + 4 < x->fine_blocks ? c * 4 + 4 : x->fine_blocks;
    for (int f = c * 4; f < f_end; f++) {
      if (x->fine_count[f] == 0) continue;
      const float *fb = x->fine + (size_t)f * box;
      if (box_bound(q, fb, fb + d->stride, vecs) >= b.cost) continue;
      const int from = f * 16, to = from + 16 < d->n ? from + 16 : d->n;
#ifdef __AVX2__
      if (avx2) { scan_avx2(d, q, from, to, vecs, &b); continue; }
#else
      (void)avx2;
#endif
      scan_sse(d, q, from, to, vecs, &b);
    }
  }
  *cost = b.cost;
  return b.index;
}

int boxes_sse(const Boxes *x, const float *q, float *cost) {
  const int vecs = x->rows->stride / 4;
#define CALL(v) boxes_n(x, q, cost, v, 0)
  SPECIALISE(CALL)
#undef CALL
}

#ifdef __AVX2__
int boxes_avx2(const Boxes *x, const float *q, float *cost) {
  const int vecs = x->rows->stride / 4;
#define CALL(v) boxes_n(x, q, cost, v, 1)
  SPECIALISE(CALL)
#undef CALL
}
#endif
