/*
 * Native reference for the WASM SIMD brute-force kernel: the same row-major float32 scan with 4-wide
 * lanes (compiled without fused multiply-add, like the kernel, so both do the same arithmetic;
 * SSE as f32x4), lowest cost wins, ties to the lowest index. Used only by
 * bench/native-compare.ts to put the WebAssembly figure next to a native one on this machine.
 * Input file: int32 rows, int32 stride, int32 queries, then rows*stride floats, then queries*stride floats.
 * Output: one line "us_per_query checksum".
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int nearest(const float *rows, int n, int stride, const float *q, float *best_out) {
  int best = -1;
  float best_cost = __builtin_inff();
  for (int i = 0; i < n; i++) {
    const float *r = rows + (size_t)i * stride;
    __m128 acc = _mm_setzero_ps();
    for (int j = 0; j < stride; j += 4) {
      __m128 d = _mm_sub_ps(_mm_loadu_ps(q + j), _mm_loadu_ps(r + j));
      acc = _mm_add_ps(acc, _mm_mul_ps(d, d));
    }
    float l[4];
    _mm_storeu_ps(l, acc);
    float cost = (l[0] + l[2]) + (l[1] + l[3]);
    if (cost < best_cost) { best_cost = cost; best = i; }
  }
  *best_out = best_cost;
  return best;
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: brute FILE\n"); return 2; }
  FILE *f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 1; }
  int hdr[3];
  if (fread(hdr, 4, 3, f) != 3) { fprintf(stderr, "short header\n"); return 1; }
  int n = hdr[0], stride = hdr[1], nq = hdr[2];
  float *rows = malloc((size_t)n * stride * 4), *qs = malloc((size_t)nq * stride * 4);
  if (fread(rows, 4, (size_t)n * stride, f) != (size_t)n * stride || fread(qs, 4, (size_t)nq * stride, f) != (size_t)nq * stride) {
    fprintf(stderr, "short data\n");
    return 1;
  }
  long checksum = 0;
  float c;
  for (int k = 0; k < nq && k < 5; k++) checksum += nearest(rows, n, stride, qs + (size_t)k * stride, &c); /* warm-up */
  checksum = 0;
  double t0 = now_us();
  for (int k = 0; k < nq; k++) checksum += nearest(rows, n, stride, qs + (size_t)k * stride, &c);
  double t1 = now_us();
  printf("%.3f %ld\n", (t1 - t0) / nq, checksum);
  return 0;
}
