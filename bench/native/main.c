/*
 * The native reference's driver, run by bench/native-compare.ts (which compiles it, writes the data
 * and reads the results back).
 *
 *   native DATA OUT METHOD[,METHOD...]
 *
 * DATA: "MMNB", int32 rows, stride, queries; rows*stride float32 (normalised features, padding 0);
 *       rows bytes of candidate mask, padded to a multiple of 4; queries*stride float32.
 * OUT:  per method, in the order asked: int32 index[queries], float32 cost[queries], float64 us[queries]
 *       (each query timed on its own, after a warm-up pass over the first 8 queries).
 * stdout: one JSON line: the methods run and whether AVX2 was compiled in.
 * Methods: sse-1row, sse, sse-generic, avx2, boxes-sse, boxes-avx2 (the avx2 ones only when the
 * compiler targets AVX2, i.e. -march=native on a machine that has it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "native.h"

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

typedef int (*RowsMethod)(const Rows *, const float *, float *);
typedef int (*BoxesMethod)(const Boxes *, const float *, float *);

typedef struct {
  const char *name;
  RowsMethod rows;
  BoxesMethod boxes;
} Method;

static const Method METHODS[] = {
  {"sse-1row", brute_sse_1row, NULL},
  {"sse", brute_sse, NULL},
  {"sse-generic", brute_sse_generic, NULL},
  {"boxes-sse", NULL, boxes_sse},
#ifdef __AVX2__
  {"avx2", brute_avx2, NULL},
  {"boxes-avx2", NULL, boxes_avx2},
#endif
};

static int fail(const char *what) {
  fprintf(stderr, "native: %s\n", what);
  return 1;
}

static int run(const Method *m, const Rows *d, const Boxes *x, const float *q, float *cost) {
  return m->rows ? m->rows(d, q, cost) : m->boxes(x, q, cost);
}

int main(int argc, char **argv) {
  if (argc != 4) return fail("usage: native DATA OUT METHOD[,METHOD...]");
  FILE *f = fopen(argv[1], "rb");
  if (!f) return fail("cannot open the data file");
  char magic[4];
  int hdr[3];
  if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "MMNB", 4) != 0 || fread(hdr, 4, 3, f) != 3) return fail("not a native-compare data file");
  const int n = hdr[0], stride = hdr[1], nq = hdr[2];
  if (n < 1 || stride < 4 || stride % 4 != 0 || nq < 1) return fail("bad header");
  const size_t maskBytes = ((size_t)n + 3) & ~(size_t)3;
  float *rows = aligned_alloc(64, (((size_t)n * stride * 4) + 63) & ~(size_t)63);
  uint8_t *mask = malloc(maskBytes);
  float *qs = malloc((size_t)nq * stride * 4);
  if (!rows || !mask || !qs) return fail("out of memory");
  if (fread(rows, 4, (size_t)n * stride, f) != (size_t)n * stride || fread(mask, 1, maskBytes, f) != maskBytes ||
      fread(qs, 4, (size_t)nq * stride, f) != (size_t)nq * stride) return fail("short data file");
  fclose(f);
  const Rows d = {rows, mask, n, stride};
  Boxes x;
  if (build_boxes(&d, &x) != 0) return fail("out of memory");

  FILE *out = fopen(argv[2], "wb");
  if (!out) return fail("cannot create the output file");
  int *index = malloc((size_t)nq * sizeof(int));
  float *cost = malloc((size_t)nq * sizeof(float));
  double *us = malloc((size_t)nq * sizeof(double));
  if (!index || !cost || !us) return fail("out of memory");
#ifdef __AVX2__
  printf("{\"avx2\":true,\"methods\":[");
#else
  printf("{\"avx2\":false,\"methods\":[");
#endif
  int printed = 0;
  char *list = strdup(argv[3]);
  for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
    const Method *m = NULL;
    for (size_t k = 0; k < sizeof METHODS / sizeof METHODS[0]; k++) if (strcmp(METHODS[k].name, name) == 0) m = &METHODS[k];
    if (!m) continue; /* not compiled in (no AVX2): the caller sees it missing from the list */
    float c;
    for (int k = 0; k < nq && k < 8; k++) index[k] = run(m, &d, &x, qs + (size_t)k * stride, &c);
    for (int k = 0; k < nq; k++) {
      const double t0 = now_us();
      index[k] = run(m, &d, &x, qs + (size_t)k * stride, &cost[k]);
      us[k] = now_us() - t0;
    }
    if (fwrite(index, sizeof(int), nq, out) != (size_t)nq || fwrite(cost, sizeof(float), nq, out) != (size_t)nq ||
        fwrite(us, sizeof(double), nq, out) != (size_t)nq) return fail("cannot write the output file");
    printf("%s\"%s\"", printed++ ? "," : "", m->name);
  }
  printf("]}\n");
  if (fclose(out) != 0) return fail("cannot write the output file");
  free(list);
  free_boxes(&x);
  return 0;
}
