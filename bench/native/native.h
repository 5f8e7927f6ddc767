/* The native reference's data and methods (the .c files here; driven by bench/native-compare.ts). */
#ifndef MM_NATIVE_H
#define MM_NATIVE_H

#include <stdint.h>

/* The feature matrix: n rows of `stride` floats (a multiple of 4, padding zero), and the candidate mask. */
typedef struct {
  const float *rows;
  const uint8_t *mask;
  int n;
  int stride;
} Rows;

/*
 * Box-pruning bounds (the project's `aabb` layout, src/search/indexes/aabb.ts): per block of 64 and of
 * 16 consecutive rows, min[stride] then max[stride] over the block's candidate rows, and the number
 * of candidates (0: the block is skipped).
 */
typedef struct {
  const Rows *rows;
  int coarse_blocks, fine_blocks;
  float *coarse, *fine;
  int *coarse_count, *fine_count;
} Boxes;

int brute_sse_1row(const Rows *d, const float *q, float *cost);
int brute_sse(const Rows *d, const float *q, float *cost);
int brute_sse_generic(const Rows *d, const float *q, float *cost);
int boxes_sse(const Boxes *x, const float *q, float *cost);
#ifdef __AVX2__
int brute_avx2(const Rows *d, const float *q, float *cost);
int boxes_avx2(const Boxes *x, const float *q, float *cost);
#endif

/* Fills x's bounds for d (allocates; free_boxes releases). Returns 0, or -1 when out of memory. */
int build_boxes(const Rows *d, Boxes *x);
void free_boxes(Boxes *x);

#endif
