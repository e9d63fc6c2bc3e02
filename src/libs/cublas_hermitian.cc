// cuBLAS's Hermitian routines in C/Z: hemv and her (loops: the stored
// triangle read or updated, the diagonal's imaginary part taken as 0, as
// the reference BLAS), herk and hemm (OpenBLAS).
#include "libs/cblas_calls.h"
#include "libs/cublas_handle.h"

using namespace smemlab::libs::blas;

namespace {

// Element (i, j) of a Hermitian matrix of which triangle `uplo` is stored.
template <class N>
N herm_at(const N* A, int lda, cublasFillMode_t uplo, int i, int j) {
  if (i == j) return N(A[i + int64_t(i) * lda].real(), 0);
  bool stored = uplo == CUBLAS_FILL_MODE_LOWER ? i > j : i < j;
  return stored ? A[i + int64_t(j) * lda] : std::conj(A[j + int64_t(i) * lda]);
}

template <class T>
cublasStatus_t hemv(cublasHandle_t h, const char* e, cublasFillMode_t uplo, int n, const T* alpha,
                    const T* A, int lda, const T* x, int incx, const T* beta, T* y, int incy) {
  return stored_triangle_mv(
      h, e, uplo, n, alpha, A, lda, x, incx, beta, y, incy,
      [](auto* a, int ld, cublasFillMode_t u, int i, int j) { return herm_at(a, ld, u, i, j); });
}

// A += alpha x x^H on the stored triangle (alpha real).
template <class T, class R>
cublasStatus_t her(cublasHandle_t h, const char* e, cublasFillMode_t uplo, int n, const R* alpha,
                   const T* x, int incx, T* A, int lda) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_fill(uplo) || n < 0 || lda < std::max(1, n) || incx == 0 || !alpha)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  auto a = scalar(h, alpha);
  if (!ranges_ok(e, {{"vector x", x, vec<T>(n, incx)}, {"matrix A", A, mat<T>(n, n, lda)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    const R av = a.get();
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        if (uplo == CUBLAS_FILL_MODE_LOWER ? i < j : i > j) continue;
        auto& aij = as_num(A)[i + int64_t(j) * lda];
        aij += av * as_num(x)[at(i, n, incx)] * std::conj(as_num(x)[at(j, n, incx)]);
        if (i == j) aij = {aij.real(), 0};
      }
  });
}

template <class T, class R>
cublasStatus_t herk(cublasHandle_t h, const char* e, cublasFillMode_t uplo, cublasOperation_t op,
                    int n, int k, const R* alpha, const T* A, int lda, const R* beta, T* C,
                    int ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_fill(uplo) || (op != CUBLAS_OP_N && op != CUBLAS_OP_C) || n < 0 || k < 0 ||
      lda < std::max(1, op == CUBLAS_OP_N ? n : k) || ldc < std::max(1, n) || !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  auto a = scalar(h, alpha), b = scalar(h, beta);
  if (!ranges_ok(
          e, {{"matrix A", A, mat<T>(op == CUBLAS_OP_N ? n : k, op == CUBLAS_OP_N ? k : n, lda)},
              {"matrix C", C, mat<T>(n, n, ldc)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    R av = a.get(), bv = b.get();
    if constexpr (std::is_same_v<R, float>)
      cblas_cherk(CblasColMajor, cb(uplo), cb(op), n, k, av, A, lda, bv, C, ldc);
    else
      cblas_zherk(CblasColMajor, cb(uplo), cb(op), n, k, av, A, lda, bv, C, ldc);
  });
}

template <class T>
cublasStatus_t hemm(cublasHandle_t h, const char* e, cublasSideMode_t side, cublasFillMode_t uplo,
                    int m, int n, const T* alpha, const T* A, int lda, const T* B, int ldb,
                    const T* beta, T* C, int ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  int ka = side == CUBLAS_SIDE_LEFT ? m : n;
  if (!valid_fill(uplo) || m < 0 || n < 0 || lda < std::max(1, ka) || ldb < std::max(1, m) ||
      ldc < std::max(1, m) || !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto a = scalar(h, alpha), b = scalar(h, beta);
  if (!ranges_ok(e, {{"matrix A", A, mat<T>(ka, ka, lda)},
                     {"matrix B", B, mat<T>(m, n, ldb)},
                     {"matrix C", C, mat<T>(m, n, ldc)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    T a0 = a.get(), b0 = b.get();
    if constexpr (std::is_same_v<T, cuComplex>)
      cblas_chemm(CblasColMajor, cb(side), cb(uplo), m, n, &a0, A, lda, B, ldb, &b0, C, ldc);
    else
      cblas_zhemm(CblasColMajor, cb(side), cb(uplo), m, n, &a0, A, lda, B, ldb, &b0, C, ldc);
  });
}

}  // namespace

extern "C" {

#define SMEMLAB_HERM(P, T, R)                                                                      \
  cublasStatus_t cublas##P##hemv_v2(cublasHandle_t h, cublasFillMode_t uplo, int n,                \
                                    const T* alpha, const T* A, int lda, const T* x, int incx,     \
                                    const T* beta, T* y, int incy) {                               \
    return hemv(h, "cublas" #P "hemv_v2", uplo, n, alpha, A, lda, x, incx, beta, y, incy);         \
  }                                                                                                \
  cublasStatus_t cublas##P##her_v2(cublasHandle_t h, cublasFillMode_t uplo, int n, const R* alpha, \
                                   const T* x, int incx, T* A, int lda) {                          \
    return her(h, "cublas" #P "her_v2", uplo, n, alpha, x, incx, A, lda);                          \
  }                                                                                                \
  cublasStatus_t cublas##P##herk_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t op, \
                                    int n, int k, const R* alpha, const T* A, int lda,             \
                                    const R* beta, T* C, int ldc) {                                \
    return herk(h, "cublas" #P "herk_v2", uplo, op, n, k, alpha, A, lda, beta, C, ldc);            \
  }                                                                                                \
  cublasStatus_t cublas##P##hemm_v2(                                                               \
      cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, int m, int n,                \
      const T* alpha, const T* A, int lda, const T* B, int ldb, const T* beta, T* C, int ldc) {    \
    return hemm(h, "cublas" #P "hemm_v2", side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);  \
  }
SMEMLAB_HERM(C, cuComplex, float)
SMEMLAB_HERM(Z, cuDoubleComplex, double)
#undef SMEMLAB_HERM

}  // extern "C"
