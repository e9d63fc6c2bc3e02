// cuBLAS's batched LU family in S/D/C/Z: getrfBatched (LU with partial
// pivoting, or none when the pivot array is null), getrsBatched (solve with
// the factors), getriBatched (inverse from the factors, out of place) and
// matinvBatched (inverse of a small matrix). LAPACK's unblocked algorithms
// (getf2, getrs, getri) on the CPU: 1-based pivots, the LAPACK pivot choice
// (largest |re|+|im|, the first of equals), info as cuBLAS documents it
// (0, or k when U(k,k) is exactly zero; getrs's host info: -i for the
// i-th invalid argument, not counting the handle).
#include <cmath>
#include <complex>
#include <vector>

#include "libs/cublas_handle.h"

using namespace smemlab::libs::blas;

namespace {

template <class N>
double lu_abs1(N v) {
  if constexpr (std::is_floating_point_v<N>)
    return std::fabs(v);
  else
    return std::fabs(v.real()) + std::fabs(v.imag());
}

// Column-major element (i, j).
template <class N>
N& lu_el(N* a, int lda, int i, int j) {
  return a[i + int64_t(j) * lda];
}

// LAPACK getf2 on an n x n matrix: A = P L U in place; piv (1-based, may be
// null: no pivoting). Returns info: 0, or k when U(k,k) is exactly zero.
template <class N>
int lu_factor(N* a, int lda, int n, int* piv) {
  int info = 0;
  for (int j = 0; j < n; ++j) {
    int p = j;
    if (piv) {
      for (int i = j + 1; i < n; ++i)
        if (lu_abs1(lu_el(a, lda, i, j)) > lu_abs1(lu_el(a, lda, p, j))) p = i;
      piv[j] = p + 1;
    }
    if (lu_el(a, lda, p, j) != N{}) {
      if (p != j)
        for (int k = 0; k < n; ++k) std::swap(lu_el(a, lda, j, k), lu_el(a, lda, p, k));
      N inv = N{1} / lu_el(a, lda, j, j);
      for (int i = j + 1; i < n; ++i) lu_el(a, lda, i, j) *= inv;
    } else if (info == 0) {
      info = j + 1;
    }
    for (int k = j + 1; k < n; ++k)
      for (int i = j + 1; i < n; ++i)
        lu_el(a, lda, i, k) -= lu_el(a, lda, i, j) * lu_el(a, lda, j, k);
  }
  return info;
}

template <class N>
N lu_conj(N v) {
  if constexpr (std::is_floating_point_v<N>)
    return v;
  else
    return std::conj(v);
}

// op(A) X = B with A = P L U (LAPACK getrs): B is n x nrhs, overwritten.
template <class N>
void lu_solve(cublasOperation_t op, const N* a, int lda, int n, const int* piv, N* b, int ldb,
              int nrhs) {
  auto A = [&](int i, int j) {
    return op == CUBLAS_OP_C ? lu_conj(a[i + int64_t(j) * lda]) : a[i + int64_t(j) * lda];
  };
  for (int c = 0; c < nrhs; ++c) {
    N* x = b + int64_t(c) * ldb;
    if (op == CUBLAS_OP_N) {
      if (piv)
        for (int i = 0; i < n; ++i) std::swap(x[i], x[piv[i] - 1]);
      for (int i = 0; i < n; ++i)  // L y = P b (unit diagonal)
        for (int k = 0; k < i; ++k) x[i] -= A(i, k) * x[k];
      for (int i = n - 1; i >= 0; --i) {  // U x = y
        for (int k = i + 1; k < n; ++k) x[i] -= A(i, k) * x[k];
        x[i] /= A(i, i);
      }
    } else {  // op(A) = op(U) op(L) op(P): solve op(U) then op(L), then undo P
      for (int i = 0; i < n; ++i) {
        for (int k = 0; k < i; ++k) x[i] -= A(k, i) * x[k];
        x[i] /= A(i, i);
      }
      for (int i = n - 1; i >= 0; --i)
        for (int k = i + 1; k < n; ++k) x[i] -= A(k, i) * x[k];
      if (piv)
        for (int i = n - 1; i >= 0; --i) std::swap(x[i], x[piv[i] - 1]);
    }
  }
}

// inv(A) from A = P L U into c (n x n): the identity solved column by column.
// Returns info: k when U(k,k) is exactly zero (c is then left as it was).
template <class N>
int lu_inverse(const N* a, int lda, int n, const int* piv, N* c, int ldc) {
  for (int k = 0; k < n; ++k)
    if (a[k + int64_t(k) * lda] == N{}) return k + 1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) lu_el(c, ldc, i, j) = i == j ? N{1} : N{};
  lu_solve(CUBLAS_OP_N, a, lda, n, piv, c, ldc, n);
  return 0;
}

bool lu_shape_ok(int n, int lda, int batch) {
  return n >= 0 && lda >= std::max(1, n) && batch >= 0;
}

template <class T>
cublasStatus_t getrf_batched(cublasHandle_t h, const char* e, int n, T* const A[], int lda,
                             int* piv, int* info, int batch) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!lu_shape_ok(n, lda, batch) || (batch > 0 && (!A || !info)))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (batch == 0) return CUBLAS_STATUS_SUCCESS;
  if (!ranges_ok(e, {{"array of A pointers", A, uint64_t(batch) * sizeof(T*)},
                     {"info array", info, uint64_t(batch) * sizeof(int)},
                     {"pivot array", piv, piv ? uint64_t(batch) * n * sizeof(int) : 0}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    for (int b = 0; b < batch; ++b)
      info[b] = lu_factor(as_num(A[b]), lda, n, piv ? piv + int64_t(b) * n : nullptr);
  });
}

template <class T>
cublasStatus_t getrs_batched(cublasHandle_t h, const char* e, cublasOperation_t op, int n, int nrhs,
                             const T* const A[], int lda, const int* piv, T* const B[], int ldb,
                             int* info, int batch) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!info) return CUBLAS_STATUS_INVALID_VALUE;
  // The first invalid argument, numbered as cuBLAS numbers them.
  int bad = op != CUBLAS_OP_N && op != CUBLAS_OP_T && op != CUBLAS_OP_C ? 1
            : n < 0                                                     ? 2
            : nrhs < 0                                                  ? 3
            : !A && batch > 0                                           ? 4
            : lda < std::max(1, n)                                      ? 5
            : !B && batch > 0                                           ? 7
            : ldb < std::max(1, n)                                      ? 8
            : batch < 0                                                 ? 10
                                                                        : 0;
  *info = -bad;
  if (bad) return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0 || nrhs == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  if (!ranges_ok(e, {{"array of A pointers", A, uint64_t(batch) * sizeof(T*)},
                     {"array of B pointers", B, uint64_t(batch) * sizeof(T*)},
                     {"pivot array", piv, piv ? uint64_t(batch) * n * sizeof(int) : 0}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    for (int b = 0; b < batch; ++b)
      lu_solve(op, as_num(A[b]), lda, n, piv ? piv + int64_t(b) * n : nullptr, as_num(B[b]), ldb,
               nrhs);
  });
}

template <class T>
cublasStatus_t getri_batched(cublasHandle_t h, const char* e, int n, const T* const A[], int lda,
                             const int* piv, T* const C[], int ldc, int* info, int batch) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!lu_shape_ok(n, lda, batch) || ldc < std::max(1, n) || (batch > 0 && (!A || !C || !info)))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (batch == 0) return CUBLAS_STATUS_SUCCESS;
  if (!ranges_ok(e, {{"array of A pointers", A, uint64_t(batch) * sizeof(T*)},
                     {"array of C pointers", C, uint64_t(batch) * sizeof(T*)},
                     {"info array", info, uint64_t(batch) * sizeof(int)},
                     {"pivot array", piv, piv ? uint64_t(batch) * n * sizeof(int) : 0}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    for (int b = 0; b < batch; ++b)
      info[b] =
          lu_inverse(as_num(A[b]), lda, n, piv ? piv + int64_t(b) * n : nullptr, as_num(C[b]), ldc);
  });
}

// matinvBatched: n <= 32 (cuBLAS's limit); A is left as it was.
template <class T>
cublasStatus_t matinv_batched(cublasHandle_t h, const char* e, int n, const T* const A[], int lda,
                              T* const Ainv[], int ldc, int* info, int batch) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!lu_shape_ok(n, lda, batch) || n > 32 || ldc < std::max(1, n) ||
      (batch > 0 && (!A || !Ainv || !info)))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (batch == 0) return CUBLAS_STATUS_SUCCESS;
  if (!ranges_ok(e, {{"array of A pointers", A, uint64_t(batch) * sizeof(T*)},
                     {"array of Ainv pointers", Ainv, uint64_t(batch) * sizeof(T*)},
                     {"info array", info, uint64_t(batch) * sizeof(int)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    using N = num_t<T>;
    std::vector<N> lu(size_t(n) * n);
    std::vector<int> piv(n);
    for (int b = 0; b < batch; ++b) {
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) lu[i + size_t(j) * n] = lu_el(as_num(A[b]), lda, i, j);
      info[b] = lu_factor(lu.data(), std::max(1, n), n, piv.data());
      if (info[b] == 0)
        info[b] = lu_inverse(lu.data(), std::max(1, n), n, piv.data(), as_num(Ainv[b]), ldc);
    }
  });
}

}  // namespace

extern "C" {

#define SMEMLAB_LU(P, T)                                                                           \
  cublasStatus_t cublas##P##getrfBatched(cublasHandle_t h, int n, T* const A[], int lda, int* piv, \
                                         int* info, int batch) {                                   \
    return getrf_batched(h, "cublas" #P "getrfBatched", n, A, lda, piv, info, batch);              \
  }                                                                                                \
  cublasStatus_t cublas##P##getrsBatched(cublasHandle_t h, cublasOperation_t op, int n, int nrhs,  \
                                         const T* const A[], int lda, const int* piv,              \
                                         T* const B[], int ldb, int* info, int batch) {            \
    return getrs_batched(h, "cublas" #P "getrsBatched", op, n, nrhs, A, lda, piv, B, ldb, info,    \
                         batch);                                                                   \
  }                                                                                                \
  cublasStatus_t cublas##P##getriBatched(cublasHandle_t h, int n, const T* const A[], int lda,     \
                                         const int* piv, T* const C[], int ldc, int* info,         \
                                         int batch) {                                              \
    return getri_batched(h, "cublas" #P "getriBatched", n, A, lda, piv, C, ldc, info, batch);      \
  }                                                                                                \
  cublasStatus_t cublas##P##matinvBatched(cublasHandle_t h, int n, const T* const A[], int lda,    \
                                          T* const Ainv[], int ldc, int* info, int batch) {        \
    return matinv_batched(h, "cublas" #P "matinvBatched", n, A, lda, Ainv, ldc, info, batch);      \
  }

SMEMLAB_LU(S, float)
SMEMLAB_LU(D, double)
SMEMLAB_LU(C, cuComplex)
SMEMLAB_LU(Z, cuDoubleComplex)
#undef SMEMLAB_LU

}  // extern "C"
