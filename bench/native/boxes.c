/* Box-pruning bounds, built as src/search/indexes/aabb.ts builds them (candidate rows only). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "native.h"

static void fill_level(const Rows *d, int size, int blocks, float *bounds, int *count) {
  const int s = d->stride;
  for (int b = 0; b < blocks; b++) {
    float *lo = bounds + (size_t)b * 2 * s, *hi = lo + s;
    for (int j = 0; j < s; j++) { lo[j] = INFINITY; hi[j] = -INFINITY; }
    int n = 0;
    const int end = (b + 1) * size < d->n ? (b + 1) * size : d->n;
    for (int i = b * size; i < end; i++) {
      if (!d->mask[i]) continue;
      n++;
      const float *r = d->rows + (size_t)i * s;
      for (int j = 0; j < s; j++) {
        if (r[j] < lo[j]) lo[j] = r[j];
        if (r[j] > hi[j]) hi[j] = r[j];
      }
    }
    if (n == 0) memset(lo, 0, 2 * (size_t)s * sizeof(float));
    count[b] = n;
  }
}

int build_boxes(const Rows *d, Boxes *x) {
  memset(x, 0, sizeof *x);
  x->rows = d;
  x->coarse_blocks = (d->n + 63) / 64;
  x->fine_blocks = (d->n + 15) / 16;
  x->coarse = malloc((size_t)x->coarse_blocks * 2 * d->stride * sizeof(float));
  x->fine = malloc((size_t)x->fine_blocks * 2 * d->stride * sizeof(float));
  x->coarse_count = malloc((size_t)x->coarse_blocks * sizeof(int));
  x->fine_count = malloc((size_t)x->fine_blocks * sizeof(int));
  if (!x->coarse || !x->fine || !x->coarse_count || !x->fine_count) { free_boxes(x); return -1; }
  fill_level(d, 64, x->coarse_blocks, x->coarse, x->coarse_count);
  fill_level(d, 16, x->fine_blocks, x->fine, x->fine_count);
  return 0;
}

void free_boxes(Boxes *x) {
  free(x->coarse);
  free(x->fine);
  free(x->coarse_count);
  free(x->fine_count);
  memset(x, 0, sizeof *x);
}
