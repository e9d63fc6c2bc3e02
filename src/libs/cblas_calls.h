// OpenBLAS's CBLAS level 3 as overloads on the element type (float, double,
// std::complex<float>, std::complex<double>), column-major: what smemlab's
// cuBLAS level 3 and GEMM extensions call.
#pragma once

#include <cblas.h>
#include <cublas_v2.h>

#include <complex>

namespace smemlab::libs::blas {

inline CBLAS_TRANSPOSE cb(cublasOperation_t op) {
  return op == CUBLAS_OP_N ? CblasNoTrans : op == CUBLAS_OP_T ? CblasTrans : CblasConjTrans;
}
inline CBLAS_UPLO cb(cublasFillMode_t f) {
  return f == CUBLAS_FILL_MODE_LOWER ? CblasLower : CblasUpper;
}
inline CBLAS_SIDE cb(cublasSideMode_t s) { return s == CUBLAS_SIDE_LEFT ? CblasLeft : CblasRight; }
inline CBLAS_DIAG cb(cublasDiagType_t d) {
  return d == CUBLAS_DIAG_UNIT ? CblasUnit : CblasNonUnit;
}

using cf = std::complex<float>;
using cd = std::complex<double>;

#define SMEMLAB_CB_BY_VALUE(P, T)                                                              \
  inline void gemm_cpu(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, T a,   \
                       const T* A, int lda, const T* B, int ldb, T b, T* C, int ldc) {         \
    cblas_##P##gemm(CblasColMajor, cb(ta), cb(tb), m, n, k, a, A, lda, B, ldb, b, C, ldc);     \
  }                                                                                            \
  inline void symm_cpu(cublasSideMode_t s, cublasFillMode_t u, int m, int n, T a, const T* A,  \
                       int lda, const T* B, int ldb, T b, T* C, int ldc) {                     \
    cblas_##P##symm(CblasColMajor, cb(s), cb(u), m, n, a, A, lda, B, ldb, b, C, ldc);          \
  }                                                                                            \
  inline void syrk_cpu(cublasFillMode_t u, cublasOperation_t t, int n, int k, T a, const T* A, \
                       int lda, T b, T* C, int ldc) {                                          \
    cblas_##P##syrk(CblasColMajor, cb(u), cb(t), n, k, a, A, lda, b, C, ldc);                  \
  }                                                                                            \
  inline void trsm_cpu(cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t,            \
                       cublasDiagType_t d, int m, int n, T a, const T* A, int lda, T* B,       \
                       int ldb) {                                                              \
    cblas_##P##trsm(CblasColMajor, cb(s), cb(u), cb(t), cb(d), m, n, a, A, lda, B, ldb);       \
  }                                                                                            \
  inline void trmm_cpu(cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t,            \
                       cublasDiagType_t d, int m, int n, T a, const T* A, int lda, T* B,       \
                       int ldb) {                                                              \
    cblas_##P##trmm(CblasColMajor, cb(s), cb(u), cb(t), cb(d), m, n, a, A, lda, B, ldb);       \
  }
SMEMLAB_CB_BY_VALUE(s, float)
SMEMLAB_CB_BY_VALUE(d, double)
#undef SMEMLAB_CB_BY_VALUE

// Complex scalars go by address.
#define SMEMLAB_CB_BY_ADDRESS(P, T)                                                            \
  inline void gemm_cpu(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, T a,   \
                       const T* A, int lda, const T* B, int ldb, T b, T* C, int ldc) {         \
    cblas_##P##gemm(CblasColMajor, cb(ta), cb(tb), m, n, k, &a, A, lda, B, ldb, &b, C, ldc);   \
  }                                                                                            \
  inline void symm_cpu(cublasSideMode_t s, cublasFillMode_t u, int m, int n, T a, const T* A,  \
                       int lda, const T* B, int ldb, T b, T* C, int ldc) {                     \
    cblas_##P##symm(CblasColMajor, cb(s), cb(u), m, n, &a, A, lda, B, ldb, &b, C, ldc);        \
  }                                                                                            \
  inline void syrk_cpu(cublasFillMode_t u, cublasOperation_t t, int n, int k, T a, const T* A, \
                       int lda, T b, T* C, int ldc) {                                          \
    cblas_##P##syrk(CblasColMajor, cb(u), cb(t), n, k, &a, A, lda, &b, C, ldc);                \
  }                                                                                            \
  inline void trsm_cpu(cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t,            \
                       cublasDiagType_t d, int m, int n, T a, const T* A, int lda, T* B,       \
                       int ldb) {                                                              \
    cblas_##P##trsm(CblasColMajor, cb(s), cb(u), cb(t), cb(d), m, n, &a, A, lda, B, ldb);      \
  }                                                                                            \
  inline void trmm_cpu(cublasSideMode_t s, cublasFillMode_t u, cublasOperation_t t,            \
                       cublasDiagType_t d, int m, int n, T a, const T* A, int lda, T* B,       \
                       int ldb) {                                                              \
    cblas_##P##trmm(CblasColMajor, cb(s), cb(u), cb(t), cb(d), m, n, &a, A, lda, B, ldb);      \
  }
SMEMLAB_CB_BY_ADDRESS(c, cf)
SMEMLAB_CB_BY_ADDRESS(z, cd)
#undef SMEMLAB_CB_BY_ADDRESS

}  // namespace smemlab::libs::blas
