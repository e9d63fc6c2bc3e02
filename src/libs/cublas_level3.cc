// cuBLAS level 3 in S/D/C/Z: gemm (plain, strided batched, batched), symm,
// syrk, trsm, trmm (cuBLAS's out-of-place form), geam, dgmm. GEMM-like work
// goes to OpenBLAS (cblas_calls.h); geam and dgmm are loops.
#include <cstring>
#include <vector>

#include "libs/cblas_calls.h"
#include "libs/cublas_handle.h"

using namespace smemlab::libs::blas;

namespace {

bool op_ok(cublasOperation_t op) {
  return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}
int rows_of(cublasOperation_t op, int r, int c) { return op == CUBLAS_OP_N ? r : c; }

// The checks cuBLAS makes of a GEMM's shape.
cublasStatus_t gemm_args(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                         int k, int lda, int ldb, int ldc, const void* alpha, const void* beta) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!op_ok(ta) || !op_ok(tb) || m < 0 || n < 0 || k < 0 || !alpha || !beta ||
      lda < std::max(1, rows_of(ta, m, k)) || ldb < std::max(1, rows_of(tb, k, n)) ||
      ldc < std::max(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

// C = alpha op(A) op(B) + beta C over `batch` problems; `a(i)`, `b(i)`, `c(i)`
// give problem i's matrices when the work runs (strided, or read from a
// device array of pointers).
template <class T, class FA, class FB, class FC>
cublasStatus_t gemm_batch(cublasHandle_t h, const char* e, cublasOperation_t ta,
                          cublasOperation_t tb, int m, int n, int k, const T* alpha, int lda,
                          int ldb, const T* beta, int ldc, int batch, bool arrays, FA a, FB b,
                          FC c) {
  if (cublasStatus_t s = gemm_args(h, ta, tb, m, n, k, lda, ldb, ldc, alpha, beta)) return s;
  if (batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  // Each problem's matrices (pointer arrays: the arrays, by gemm_batched; their
  // elements may be written by earlier work of the stream, so not read here).
  for (int i = 0; i < batch && !arrays; ++i)
    if (!ranges_ok(e,
                   {{"matrix A", a(i), mat<T>(rows_of(ta, m, k), ta == CUBLAS_OP_N ? k : m, lda)},
                    {"matrix B", b(i), mat<T>(rows_of(tb, k, n), tb == CUBLAS_OP_N ? n : k, ldb)},
                    {"matrix C", c(i), mat<T>(m, n, ldc)}}))
      return CUBLAS_STATUS_EXECUTION_FAILED;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  return submit(h, e, [=] {
    T a0 = al.get(), b0 = be.get();
    for (int i = 0; i < batch; ++i)
      gemm_cpu(ta, tb, m, n, k, *as_num(&a0), as_num(a(i)), lda, as_num(b(i)), ldb, *as_num(&b0),
               as_num(c(i)), ldc);
  });
}

template <class T>
cublasStatus_t gemm(cublasHandle_t h, const char* e, cublasOperation_t ta, cublasOperation_t tb,
                    int m, int n, int k, const T* alpha, const T* A, int lda, const T* B, int ldb,
                    const T* beta, T* C, int ldc) {
  return gemm_batch(
      h, e, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, 1, false, [=](int) { return A; },
      [=](int) { return B; }, [=](int) { return C; });
}

template <class T>
cublasStatus_t gemm_strided(cublasHandle_t h, const char* e, cublasOperation_t ta,
                            cublasOperation_t tb, int m, int n, int k, const T* alpha, const T* A,
                            int lda, long long sa, const T* B, int ldb, long long sb, const T* beta,
                            T* C, int ldc, long long sc, int batch) {
  return gemm_batch(
      h, e, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, batch, false,
      [=](int i) { return A + i * sa; }, [=](int i) { return B + i * sb; },
      [=](int i) { return C + i * sc; });
}

template <class T>
cublasStatus_t gemm_batched(cublasHandle_t h, const char* e, cublasOperation_t ta,
                            cublasOperation_t tb, int m, int n, int k, const T* alpha,
                            const T* const A[], int lda, const T* const B[], int ldb, const T* beta,
                            T* const C[], int ldc, int batch) {
  if (batch > 0 && (!A || !B || !C)) return CUBLAS_STATUS_INVALID_VALUE;
  if (cublasStatus_t s = gemm_args(h, ta, tb, m, n, k, lda, ldb, ldc, alpha, beta)) return s;
  const uint64_t array = batch > 0 ? uint64_t(batch) * sizeof(T*) : 0;
  if (m > 0 && n > 0 &&
      !ranges_ok(e, {{"array of A pointers", A, array},
                     {"array of B pointers", B, array},
                     {"array of C pointers", C, array}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return gemm_batch(
      h, e, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, batch, true, [=](int i) { return A[i]; },
      [=](int i) { return B[i]; }, [=](int i) { return C[i]; });
}

template <class T>
cublasStatus_t symm(cublasHandle_t h, const char* e, cublasSideMode_t side, cublasFillMode_t uplo,
                    int m, int n, const T* alpha, const T* A, int lda, const T* B, int ldb,
                    const T* beta, T* C, int ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  int ka = side == CUBLAS_SIDE_LEFT ? m : n;
  if (m < 0 || n < 0 || lda < std::max(1, ka) || ldb < std::max(1, m) || ldc < std::max(1, m) ||
      !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  if (!ranges_ok(e, {{"matrix A", A, mat<T>(ka, ka, lda)},
                     {"matrix B", B, mat<T>(m, n, ldb)},
                     {"matrix C", C, mat<T>(m, n, ldc)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    T a0 = al.get(), b0 = be.get();
    symm_cpu(side, uplo, m, n, *as_num(&a0), as_num(A), lda, as_num(B), ldb, *as_num(&b0),
             as_num(C), ldc);
  });
}

template <class T>
cublasStatus_t syrk(cublasHandle_t h, const char* e, cublasFillMode_t uplo, cublasOperation_t op,
                    int n, int k, const T* alpha, const T* A, int lda, const T* beta, T* C,
                    int ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  // C (conjugate transpose) is herk's, not syrk's.
  if ((op != CUBLAS_OP_N && op != CUBLAS_OP_T && !(op == CUBLAS_OP_C && !is_complex_v<num_t<T>>)) ||
      n < 0 || k < 0 || lda < std::max(1, op == CUBLAS_OP_N ? n : k) || ldc < std::max(1, n) ||
      !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  if (!ranges_ok(
          e, {{"matrix A", A, mat<T>(op == CUBLAS_OP_N ? n : k, op == CUBLAS_OP_N ? k : n, lda)},
              {"matrix C", C, mat<T>(n, n, ldc)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    T a0 = al.get(), b0 = be.get();
    syrk_cpu(uplo, op == CUBLAS_OP_C ? CUBLAS_OP_T : op, n, k, *as_num(&a0), as_num(A), lda,
             *as_num(&b0), as_num(C), ldc);
  });
}

template <class T>
cublasStatus_t trsm(cublasHandle_t h, const char* e, cublasSideMode_t side, cublasFillMode_t uplo,
                    cublasOperation_t op, cublasDiagType_t diag, int m, int n, const T* alpha,
                    const T* A, int lda, T* B, int ldb) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  int ka = side == CUBLAS_SIDE_LEFT ? m : n;
  if (!op_ok(op) || m < 0 || n < 0 || lda < std::max(1, ka) || ldb < std::max(1, m) || !alpha)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha);
  if (!ranges_ok(e, {{"matrix A", A, mat<T>(ka, ka, lda)}, {"matrix B", B, mat<T>(m, n, ldb)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    T a0 = al.get();
    trsm_cpu(side, uplo, op, diag, m, n, *as_num(&a0), as_num(A), lda, as_num(B), ldb);
  });
}

// cuBLAS's trmm writes C = alpha op(A) B (B untouched; C may be B).
template <class T>
cublasStatus_t trmm(cublasHandle_t h, const char* e, cublasSideMode_t side, cublasFillMode_t uplo,
                    cublasOperation_t op, cublasDiagType_t diag, int m, int n, const T* alpha,
                    const T* A, int lda, const T* B, int ldb, T* C, int ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  int ka = side == CUBLAS_SIDE_LEFT ? m : n;
  if (!op_ok(op) || m < 0 || n < 0 || lda < std::max(1, ka) || ldb < std::max(1, m) ||
      ldc < std::max(1, m) || !alpha)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha);
  if (!ranges_ok(e, {{"matrix A", A, mat<T>(ka, ka, lda)},
                     {"matrix B", B, mat<T>(m, n, ldb)},
                     {"matrix C", C, mat<T>(m, n, ldc)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    T a0 = al.get();
    if (C != B)
      for (int j = 0; j < n; ++j)
        std::memmove(C + int64_t(j) * ldc, B + int64_t(j) * ldb, sizeof(T) * m);
    trmm_cpu(side, uplo, op, diag, m, n, *as_num(&a0), as_num(A), lda, as_num(C), ldc);
  });
}

// C = alpha op(A) + beta op(B); C may be A or B (with their leading
// dimension and no transpose), so each column is computed before it is
// written.
template <class T>
cublasStatus_t geam(cublasHandle_t h, const char* e, cublasOperation_t ta, cublasOperation_t tb,
                    int m, int n, const T* alpha, const T* A, int lda, const T* beta, const T* B,
                    int ldb, T* C, int ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!op_ok(ta) || !op_ok(tb) || m < 0 || n < 0 || lda < std::max(1, rows_of(ta, m, n)) ||
      ldb < std::max(1, rows_of(tb, m, n)) || ldc < std::max(1, m) || !alpha || !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  auto al = scalar(h, alpha), be = scalar(h, beta);
  if (!ranges_ok(
          e, {{"matrix A", A, A ? mat<T>(rows_of(ta, m, n), ta == CUBLAS_OP_N ? n : m, lda) : 0},
              {"matrix B", B, B ? mat<T>(rows_of(tb, m, n), tb == CUBLAS_OP_N ? n : m, ldb) : 0},
              {"matrix C", C, mat<T>(m, n, ldc)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    T a0 = al.get(), b0 = be.get();
    auto av = *as_num(&a0), bv = *as_num(&b0);
    auto elem = [](const num_t<T>* M, int ld, cublasOperation_t op, int i, int j) {
      num_t<T> v = op == CUBLAS_OP_N ? M[i + int64_t(j) * ld] : M[j + int64_t(i) * ld];
      return op == CUBLAS_OP_C ? conj_if(v) : v;
    };
    std::vector<num_t<T>> col(m);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        // A zero scalar leaves its matrix unread (it may be null or NaN).
        num_t<T> s{};
        if (av != num_t<T>{}) s += av * elem(as_num(A), lda, ta, i, j);
        if (bv != num_t<T>{}) s += bv * elem(as_num(B), ldb, tb, i, j);
        col[i] = s;
      }
      std::memcpy(as_num(C) + int64_t(j) * ldc, col.data(), sizeof(T) * m);
    }
  });
}

// C = A diag(x) (right) or diag(x) A (left).
template <class T>
cublasStatus_t dgmm(cublasHandle_t h, const char* e, cublasSideMode_t side, int m, int n,
                    const T* A, int lda, const T* x, int incx, T* C, int ldc) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (m < 0 || n < 0 || lda < std::max(1, m) || ldc < std::max(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  if (!ranges_ok(e, {{"matrix A", A, mat<T>(m, n, lda)},
                     {"vector x", x, vec<T>(side == CUBLAS_SIDE_LEFT ? m : n, incx)},
                     {"matrix C", C, mat<T>(m, n, ldc)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    const int len = side == CUBLAS_SIDE_LEFT ? m : n;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        int d = side == CUBLAS_SIDE_LEFT ? i : j;
        as_num(C)[i + int64_t(j) * ldc] =
            as_num(A)[i + int64_t(j) * lda] *
            as_num(x)[incx >= 0 ? int64_t(d) * incx : at(d, len, incx)];
      }
  });
}

}  // namespace

extern "C" {

#define SMEMLAB_L3(P, T)                                                                           \
  cublasStatus_t cublas##P##gemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,  \
                                    int m, int n, int k, const T* alpha, const T* A, int lda,      \
                                    const T* B, int ldb, const T* beta, T* C, int ldc) {           \
    return gemm(h, "cublas" #P "gemm_v2", ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);   \
  }                                                                                                \
  cublasStatus_t cublas##P##gemmStridedBatched(                                                    \
      cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,           \
      const T* alpha, const T* A, int lda, long long sa, const T* B, int ldb, long long sb,        \
      const T* beta, T* C, int ldc, long long sc, int batch) {                                     \
    return gemm_strided(h, "cublas" #P "gemmStridedBatched", ta, tb, m, n, k, alpha, A, lda, sa,   \
                        B, ldb, sb, beta, C, ldc, sc, batch);                                      \
  }                                                                                                \
  cublasStatus_t cublas##P##gemmBatched(cublasHandle_t h, cublasOperation_t ta,                    \
                                        cublasOperation_t tb, int m, int n, int k, const T* alpha, \
                                        const T* const A[], int lda, const T* const B[], int ldb,  \
                                        const T* beta, T* const C[], int ldc, int batch) {         \
    return gemm_batched(h, "cublas" #P "gemmBatched", ta, tb, m, n, k, alpha, A, lda, B, ldb,      \
                        beta, C, ldc, batch);                                                      \
  }                                                                                                \
  cublasStatus_t cublas##P##symm_v2(                                                               \
      cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, int m, int n,                \
      const T* alpha, const T* A, int lda, const T* B, int ldb, const T* beta, T* C, int ldc) {    \
    return symm(h, "cublas" #P "symm_v2", side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc);  \
  }                                                                                                \
  cublasStatus_t cublas##P##syrk_v2(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t op, \
                                    int n, int k, const T* alpha, const T* A, int lda,             \
                                    const T* beta, T* C, int ldc) {                                \
    return syrk(h, "cublas" #P "syrk_v2", uplo, op, n, k, alpha, A, lda, beta, C, ldc);            \
  }                                                                                                \
  cublasStatus_t cublas##P##trsm_v2(                                                               \
      cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t op,        \
      cublasDiagType_t diag, int m, int n, const T* alpha, const T* A, int lda, T* B, int ldb) {   \
    return trsm(h, "cublas" #P "trsm_v2", side, uplo, op, diag, m, n, alpha, A, lda, B, ldb);      \
  }                                                                                                \
  cublasStatus_t cublas##P##trmm_v2(cublasHandle_t h, cublasSideMode_t side,                       \
                                    cublasFillMode_t uplo, cublasOperation_t op,                   \
                                    cublasDiagType_t diag, int m, int n, const T* alpha,           \
                                    const T* A, int lda, const T* B, int ldb, T* C, int ldc) {     \
    return trmm(h, "cublas" #P "trmm_v2", side, uplo, op, diag, m, n, alpha, A, lda, B, ldb, C,    \
                ldc);                                                                              \
  }                                                                                                \
  cublasStatus_t cublas##P##geam(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,     \
                                 int m, int n, const T* alpha, const T* A, int lda, const T* beta, \
                                 const T* B, int ldb, T* C, int ldc) {                             \
    return geam(h, "cublas" #P "geam", ta, tb, m, n, alpha, A, lda, beta, B, ldb, C, ldc);         \
  }                                                                                                \
  cublasStatus_t cublas##P##dgmm(cublasHandle_t h, cublasSideMode_t side, int m, int n,            \
                                 const T* A, int lda, const T* x, int incx, T* C, int ldc) {       \
    return dgmm(h, "cublas" #P "dgmm", side, m, n, A, lda, x, incx, C, ldc);                       \
  }
SMEMLAB_L3(S, float)
SMEMLAB_L3(D, double)
SMEMLAB_L3(C, cuComplex)
SMEMLAB_L3(Z, cuDoubleComplex)
#undef SMEMLAB_L3

}  // extern "C"
