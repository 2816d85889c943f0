// Row kernels over a matrix larger than the last-level cache, with and
// without non-temporal (streaming) stores and a prefetch of the next row.
//
//   clang-22 -O3 -march=native bench/cpu/streaming_stores.c -o /tmp/ss
//   /tmp/ss
//
// What it measures (single thread, 4096x4096 f32, 64 MiB in and out): a
// softmax-shaped row loop (a max pass over the row, a pass that writes a
// row temporary and sums it, a pass that scales the temporary into the
// output row; the exponential is replaced by a square, to time the memory
// traffic and not the arithmetic) and a plain scale (y = 2x), each with
// ordinary stores (every output line is first read from memory: a
// read-for-ownership) and with streaming stores (written without the read),
// and for the row loop with the next row prefetched in the sum pass
// (pf=1, as fx-cpu-prefetch-next-rows does) or in the store pass (pf=2).
// Minimum of 10 runs per variant. It exists to size a compiler change
// before making it: the numbers go in the notes (docs/Status.md).
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 4096
#ifdef __AVX512F__
#define LANES 16
typedef __m512 vec;
#define vload _mm512_loadu_ps
#define vstore _mm512_storeu_ps
#define vstream _mm512_stream_ps
#define vset1 _mm512_set1_ps
#define vmax _mm512_max_ps
#define vsub _mm512_sub_ps
#define vmul _mm512_mul_ps
#define vadd _mm512_add_ps
#define vzero _mm512_setzero_ps
static float hmax(vec v) { return _mm512_reduce_max_ps(v); }
static float hsum(vec v) { return _mm512_reduce_add_ps(v); }
#else
#define LANES 8
typedef __m256 vec;
#define vload _mm256_loadu_ps
#define vstore _mm256_storeu_ps
#define vstream _mm256_stream_ps
#define vset1 _mm256_set1_ps
#define vmax _mm256_max_ps
#define vsub _mm256_sub_ps
#define vmul _mm256_mul_ps
#define vadd _mm256_add_ps
#define vzero _mm256_setzero_ps
static float hmax(vec v) {
  float a[8], m = -1e30f;
  _mm256_storeu_ps(a, v);
  for (int i = 0; i < 8; ++i)
    m = a[i] > m ? a[i] : m;
  return m;
}
static float hsum(vec v) {
  float a[8], s = 0;
  _mm256_storeu_ps(a, v);
  for (int i = 0; i < 8; ++i)
    s += a[i];
  return s;
}
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

__attribute__((noinline)) static void rows(const float *x, float *y,
                                           int stream, int pf) {
  static vec tmp[N / LANES];
  for (int r = 0; r < N; ++r) {
    const float *xr = x + (size_t)r * N;
    float *yr = y + (size_t)r * N;
    vec m = vset1(-1e30f);
    for (int i = 0; i < N; i += LANES)
      m = vmax(m, vload(xr + i));
    vec vm = vset1(hmax(m)), s = vzero();
    for (int i = 0; i < N; i += LANES) {
      if (pf == 1 && r + 1 < N)
        _mm_prefetch((const char *)(xr + N + i), _MM_HINT_T0);
      vec e = vsub(vload(xr + i), vm);
      e = vmul(e, e);
      tmp[i / LANES] = e;
      s = vadd(s, e);
    }
    vec inv = vset1(1.0f / hsum(s));
    for (int i = 0; i < N; i += LANES) {
      if (pf == 2 && r + 1 < N)
        _mm_prefetch((const char *)(xr + N + i), _MM_HINT_T0);
      if (stream)
        vstream(yr + i, vmul(tmp[i / LANES], inv));
      else
        vstore(yr + i, vmul(tmp[i / LANES], inv));
    }
  }
}

__attribute__((noinline)) static void scale(const float *x, float *y,
                                            int stream) {
  vec two = vset1(2);
  for (size_t i = 0; i < (size_t)N * N; i += LANES) {
    if (stream)
      vstream(y + i, vmul(vload(x + i), two));
    else
      vstore(y + i, vmul(vload(x + i), two));
  }
}

int main(void) {
  float *x = aligned_alloc(64, sizeof(float) * N * N);
  float *y = aligned_alloc(64, sizeof(float) * N * N);
  for (size_t i = 0; i < (size_t)N * N; ++i) {
    x[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
    y[i] = 0;
  }
  printf("%d-lane vectors, 4096x4096 f32, one thread, minima of 10 runs\n",
         LANES);
  for (int stream = 0; stream < 2; ++stream) {
    for (int pf = 0; pf < 3; ++pf) {
      double best = 1e9;
      for (int k = 0; k < 10; ++k) {
        double t = now();
        rows(x, y, stream, pf);
        _mm_sfence();
        t = now() - t;
        best = t < best ? t : best;
      }
      printf("row kernel, %s stores, prefetch %s: %.2f ms\n",
             stream ? "streaming" : "ordinary",
             pf == 0   ? "none"
             : pf == 1 ? "in the sum pass"
                       : "in the store pass",
             best);
    }
    double best = 1e9;
    for (int k = 0; k < 10; ++k) {
      double t = now();
      scale(x, y, stream);
      _mm_sfence();
      t = now() - t;
      best = t < best ? t : best;
    }
    printf("scale y = 2x, %s stores: %.2f ms\n",
           stream ? "streaming" : "ordinary", best);
  }
  printf("check: %g\n", y[5]);
  return 0;
}
