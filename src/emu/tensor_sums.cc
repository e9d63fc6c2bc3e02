// tensor::mma_sums (ops_tensor.h): the k-order sums of an mma, vectorized
// across the columns of a row. Each acc[r][c] gets exactly the scalar loop's
// operations in the scalar loop's order (a product rounded to double, then
// a sum rounded to double; or one fma per k), so the result is bit-identical
// to it; the vectors only do several columns' (independent) chains at once.
// The body is compiled twice: portable (SSE2 halves of each vector) and for
// AVX2 (no FMA in that target, so no product and sum can be contracted into
// one rounding), chosen once per process by what the CPU has.
#include <cmath>
#include <cstring>

#include "emu/ops_tensor.h"

namespace smemlab::emu::tensor {
namespace {

typedef double V4 __attribute__((vector_size(32)));

// Rows r and r + 1 of acc (NV vectors of 4 columns each) at once: two
// independent chains per column vector keep the adders busy.
template <unsigned NV>
inline __attribute__((always_inline)) void two_rows(const double* A, const double* B, double* acc,
                                                    unsigned K, unsigned N) {
  V4 s0[NV], s1[NV];
  std::memcpy(s0, acc, sizeof s0);
  std::memcpy(s1, acc + N, sizeof s1);
  for (unsigned k = 0; k < K; ++k) {
    const double a0 = A[k], a1 = A[K + k];
    const V4 x0 = {a0, a0, a0, a0}, x1 = {a1, a1, a1, a1};
    for (unsigned v = 0; v < NV; ++v) {
      V4 b;
      std::memcpy(&b, B + size_t{k} * N + 4 * v, sizeof b);
      const V4 p0 = x0 * b, p1 = x1 * b;  // rounded products (exact but for f64)
      s0[v] = s0[v] + p0;
      s1[v] = s1[v] + p1;
    }
  }
  std::memcpy(acc, s0, sizeof s0);
  std::memcpy(acc + N, s1, sizeof s1);
}

inline __attribute__((always_inline)) void sums_body(Shape s, bool fma_chain, const double* A,
                                                     const double* B, double* acc) {
  const unsigned M = s.m, N = s.n, K = s.k;
  if (fma_chain) {
    // f64: d = fma(a, b, d) per k, each column its own chain.
    for (unsigned r = 0; r < M; ++r)
      for (unsigned k = 0; k < K; ++k) {
        const double a = A[size_t{r} * K + k];
        for (unsigned c = 0; c < N; ++c)
          acc[size_t{r} * N + c] = std::fma(a, B[size_t{k} * N + c], acc[size_t{r} * N + c]);
      }
    return;
  }
  if (M % 2 == 0 && (N == 8 || N == 16)) {
    for (unsigned r = 0; r < M; r += 2) {
      if (N == 8)
        two_rows<2>(A + size_t{r} * K, B, acc + size_t{r} * N, K, N);
      else
        two_rows<4>(A + size_t{r} * K, B, acc + size_t{r} * N, K, N);
    }
    return;
  }
  for (unsigned r = 0; r < M; ++r)
    for (unsigned c = 0; c < N; ++c) {
      double d = acc[size_t{r} * N + c];
      for (unsigned k = 0; k < K; ++k) {
        const double p = A[size_t{r} * K + k] * B[size_t{k} * N + c];
        d = d + p;
      }
      acc[size_t{r} * N + c] = d;
    }
}

void sums_portable(Shape s, bool fma_chain, const double* A, const double* B, double* acc) {
  sums_body(s, fma_chain, A, B, acc);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) void sums_avx2(Shape s, bool fma_chain, const double* A,
                                               const double* B, double* acc) {
  sums_body(s, fma_chain, A, B, acc);
}
using SumsFn = void (*)(Shape, bool, const double*, const double*, double*);
SumsFn pick_sums() { return __builtin_cpu_supports("avx2") ? &sums_avx2 : &sums_portable; }
#else
using SumsFn = void (*)(Shape, bool, const double*, const double*, double*);
SumsFn pick_sums() { return &sums_portable; }
#endif

}  // namespace

void mma_sums(Shape s, bool fma_chain, const double* A, const double* B, double* acc) {
  static const SumsFn fn = pick_sums();
  fn(s, fma_chain, A, B, acc);
}

}  // namespace smemlab::emu::tensor
