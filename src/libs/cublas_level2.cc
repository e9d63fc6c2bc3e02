// cuBLAS level 2 (matrix-vector) in S/D/C/Z: gemv, ger (geru/gerc), symv,
// trsv. Column-major loops in the element type's precision, beta == 0
// overwriting y (NaN in y does not survive), as the reference BLAS.
#include "libs/cublas_handle.h"

using namespace smemlab::libs::blas;

namespace {

bool valid_op(cublasOperation_t op) {
  return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

template <class T>
cublasStatus_t gemv(cublasHandle_t h, const char* e, cublasOperation_t op, int m, int n,
                    const T* alpha, const T* A, int lda, const T* x, int incx, const T* beta, T* y,
                    int incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  // incx 0 is accepted (x[0] throughout), as an H200's cuBLAS 13 returned
  // success for it (scripts/gpu-libs, libs_bad_args); incy 0 is refused as documented.
  if (!valid_op(op) || m < 0 || n < 0 || lda < std::max(1, m) || incy == 0 || !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto a = scalar(h, alpha), b = scalar(h, beta);
  if (!ranges_ok(e, {{"matrix A", A, mat<T>(m, n, lda)},
                     {"vector x", x, vec<T>(op == CUBLAS_OP_N ? n : m, incx)},
                     {"vector y", y, vec<T>(op == CUBLAS_OP_N ? m : n, incy)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    T a0 = a.get(), b0 = b.get();
    auto av = *as_num(&a0), bv = *as_num(&b0);
    const auto* Av = as_num(A);
    const auto* xv = as_num(x);
    auto* yv = as_num(y);
    const int ylen = op == CUBLAS_OP_N ? m : n, xlen = op == CUBLAS_OP_N ? n : m;
    for (int i = 0; i < ylen; ++i) {
      num_t<T> s{};
      for (int j = 0; j < xlen; ++j) {
        num_t<T> aij = op == CUBLAS_OP_N ? Av[i + int64_t(j) * lda] : Av[j + int64_t(i) * lda];
        if (op == CUBLAS_OP_C) aij = conj_if(aij);
        s += aij * xv[at(j, xlen, incx)];
      }
      auto& yi = yv[at(i, ylen, incy)];
      yi = bv == num_t<T>{} ? av * s : av * s + bv * yi;
    }
  });
}

template <class T>
cublasStatus_t ger(cublasHandle_t h, const char* e, int m, int n, const T* alpha, const T* x,
                   int incx, const T* y, int incy, T* A, int lda, bool conjugate) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || lda < std::max(1, m) || incx == 0 || incy == 0 || !alpha)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto a = scalar(h, alpha);
  if (!ranges_ok(e, {{"vector x", x, vec<T>(m, incx)},
                     {"vector y", y, vec<T>(n, incy)},
                     {"matrix A", A, mat<T>(m, n, lda)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    T a0 = a.get();
    auto av = *as_num(&a0);
    for (int j = 0; j < n; ++j) {
      num_t<T> yj = as_num(y)[at(j, n, incy)];
      if (conjugate) yj = conj_if(yj);
      for (int i = 0; i < m; ++i)
        as_num(A)[i + int64_t(j) * lda] += av * as_num(x)[at(i, m, incx)] * yj;
    }
  });
}

// Element (i, j) of a symmetric matrix of which triangle `uplo` is stored.
template <class N>
N sym_at(const N* A, int lda, cublasFillMode_t uplo, int i, int j) {
  bool stored = uplo == CUBLAS_FILL_MODE_LOWER ? i >= j : i <= j;
  return stored ? A[i + int64_t(j) * lda] : A[j + int64_t(i) * lda];
}

template <class T>
cublasStatus_t symv(cublasHandle_t h, const char* e, cublasFillMode_t uplo, int n, const T* alpha,
                    const T* A, int lda, const T* x, int incx, const T* beta, T* y, int incy) {
  return stored_triangle_mv(
      h, e, uplo, n, alpha, A, lda, x, incx, beta, y, incy,
      [](auto* a, int ld, cublasFillMode_t u, int i, int j) { return sym_at(a, ld, u, i, j); });
}

// Solves op(A) x = b in place; A triangular (`uplo`), unit diagonal or not.
template <class T>
cublasStatus_t trsv(cublasHandle_t h, const char* e, cublasFillMode_t uplo, cublasOperation_t op,
                    cublasDiagType_t diag, int n, const T* A, int lda, T* x, int incx) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_fill(uplo) || !valid_op(op) || n < 0 || lda < std::max(1, n) || incx == 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  if (!ranges_ok(e, {{"matrix A", A, mat<T>(n, n, lda)}, {"vector x", x, vec<T>(n, incx)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    const auto* Av = as_num(A);
    auto* xv = as_num(x);
    // op(A)(i, j), and whether op(A) is lower triangular.
    auto opA = [&](int i, int j) {
      num_t<T> v = op == CUBLAS_OP_N ? Av[i + int64_t(j) * lda] : Av[j + int64_t(i) * lda];
      return op == CUBLAS_OP_C ? conj_if(v) : v;
    };
    const bool lower = (uplo == CUBLAS_FILL_MODE_LOWER) == (op == CUBLAS_OP_N);
    for (int k = 0; k < n; ++k) {
      int i = lower ? k : n - 1 - k;
      num_t<T> s = xv[at(i, n, incx)];
      if (lower)
        for (int j = 0; j < i; ++j) s -= opA(i, j) * xv[at(j, n, incx)];
      else
        for (int j = i + 1; j < n; ++j) s -= opA(i, j) * xv[at(j, n, incx)];
      xv[at(i, n, incx)] = diag == CUBLAS_DIAG_UNIT ? s : s / opA(i, i);
    }
  });
}

}  // namespace

extern "C" {

#define SMEMLAB_L2(P, T)                                                                           \
  cublasStatus_t cublas##P##gemv_v2(cublasHandle_t h, cublasOperation_t op, int m, int n,          \
                                    const T* alpha, const T* A, int lda, const T* x, int incx,     \
                                    const T* beta, T* y, int incy) {                               \
    return gemv(h, "cublas" #P "gemv_v2", op, m, n, alpha, A, lda, x, incx, beta, y, incy);        \
  }                                                                                                \
  cublasStatus_t cublas##P##symv_v2(cublasHandle_t h, cublasFillMode_t uplo, int n,                \
                                    const T* alpha, const T* A, int lda, const T* x, int incx,     \
                                    const T* beta, T* y, int incy) {                               \
    return symv(h, "cublas" #P "symv_v2", uplo, n, alpha, A, lda, x, incx, beta, y, incy);         \
  }                                                                                                \
  cublasStatus_t cublas##P##trsv_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t op, \
                                    cublasDiagType_t diag, int n, const T* A, int lda, T* x,       \
                                    int incx) {                                                    \
    return trsv(h, "cublas" #P "trsv_v2", uplo, op, diag, n, A, lda, x, incx);                     \
  }
SMEMLAB_L2(S, float)
SMEMLAB_L2(D, double)
SMEMLAB_L2(C, cuComplex)
SMEMLAB_L2(Z, cuDoubleComplex)
#undef SMEMLAB_L2

#define SMEMLAB_GER(NAME, T, CONJ)                                                          \
  cublasStatus_t NAME(cublasHandle_t h, int m, int n, const T* alpha, const T* x, int incx, \
                      const T* y, int incy, T* A, int lda) {                                \
    return ger(h, #NAME, m, n, alpha, x, incx, y, incy, A, lda, CONJ);                      \
  }
SMEMLAB_GER(cublasSger_v2, float, false)
SMEMLAB_GER(cublasDger_v2, double, false)
SMEMLAB_GER(cublasCgeru_v2, cuComplex, false)
SMEMLAB_GER(cublasCgerc_v2, cuComplex, true)
SMEMLAB_GER(cublasZgeru_v2, cuDoubleComplex, false)
SMEMLAB_GER(cublasZgerc_v2, cuDoubleComplex, true)
#undef SMEMLAB_GER

}  // extern "C"
