// cublasGemmEx, cublasGemmStridedBatchedEx, cublasGemmBatchedEx and
// cublasSgemmEx: mixed types through cublas_ex.h; a type/compute combination
// it does not compute is an error naming it (CUBLAS_STATUS_NOT_SUPPORTED).
#include <cstring>

#include "libs/cublas_ex.h"
#include "libs/cublas_handle.h"

using namespace smemlab::libs;
using namespace smemlab::libs::blas;

namespace {

// The three entry points share this: check, classify, capture the scalars
// (by value in host pointer mode), enqueue the batch.
template <class FA, class FB, class FC>
cublasStatus_t gemm_ex(cublasHandle_t h, const char* e, cublasOperation_t ta, cublasOperation_t tb,
                       int m, int n, int k, const void* alpha, cudaDataType at, int lda,
                       cudaDataType bt, int ldb, const void* beta, cudaDataType ct, int ldc,
                       int batch, cublasComputeType_t compute, bool arrays, FA a, FB b, FC c) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  ExProblem p{classify(at, bt, ct, compute), ta, tb, m, n, k, at, bt, ct, lda, ldb, ldc};
  if (p.kind == Combination::Unsupported) {
    record_call(e);
    report_missing("cuBLAS", fmt_combination(e, at, bt, ct, compute).c_str(),
                   "CUBLAS_STATUS_NOT_SUPPORTED");
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  auto bad_op = [](cublasOperation_t o) {
    return o != CUBLAS_OP_N && o != CUBLAS_OP_T && o != CUBLAS_OP_C;
  };
  if (bad_op(ta) || bad_op(tb) || m < 0 || n < 0 || k < 0 || batch < 0 || !alpha || !beta ||
      lda < std::max(1, ta == CUBLAS_OP_N ? m : k) ||
      ldb < std::max(1, tb == CUBLAS_OP_N ? k : n) || ldc < std::max(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
  // Each problem's matrices (pointer arrays: their elements are not read
  // here, as in cublas_level3.cc's gemm_batch).
  const size_t ea = element_size(at), eb = element_size(bt), ec = element_size(ct);
  for (int i = 0; i < batch && !arrays; ++i)
    if (!ranges_ok(e,
                   {{"matrix A", a(i),
                     matrix_bytes(ta == CUBLAS_OP_N ? m : k, ta == CUBLAS_OP_N ? k : m, lda, ea)},
                    {"matrix B", b(i),
                     matrix_bytes(tb == CUBLAS_OP_N ? k : n, tb == CUBLAS_OP_N ? n : k, ldb, eb)},
                    {"matrix C", c(i), matrix_bytes(m, n, ldc, ec)}}))
      return CUBLAS_STATUS_EXECUTION_FAILED;
  struct Scalars {
    unsigned char alpha[16], beta[16];
  } s{};
  const bool device = h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE;
  const size_t ss = scalar_size(p.kind);
  if (!device) std::memcpy(s.alpha, alpha, ss), std::memcpy(s.beta, beta, ss);
  return submit(h, e, [=] {
    Scalars v = s;
    if (device) std::memcpy(v.alpha, alpha, ss), std::memcpy(v.beta, beta, ss);
    for (int i = 0; i < batch; ++i) gemm_ex_one(p, v.alpha, v.beta, a(i), b(i), c(i));
  });
}

}  // namespace

extern "C" {

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                            int n, int k, const void* alpha, const void* A, cudaDataType at,
                            int lda, const void* B, cudaDataType bt, int ldb, const void* beta,
                            void* C, cudaDataType ct, int ldc, cublasComputeType_t compute,
                            cublasGemmAlgo_t) {
  return gemm_ex(
      h, "cublasGemmEx", ta, tb, m, n, k, alpha, at, lda, bt, ldb, beta, ct, ldc, 1, compute, false,
      [=](int) { return A; }, [=](int) { return B; }, [=](int) { return C; });
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const void* alpha, const void* A, cudaDataType at,
                                          int lda, long long sa, const void* B, cudaDataType bt,
                                          int ldb, long long sb, const void* beta, void* C,
                                          cudaDataType ct, int ldc, long long sc, int batch,
                                          cublasComputeType_t compute, cublasGemmAlgo_t) {
  const size_t ea = element_size(at), eb = element_size(bt), ec = element_size(ct);
  return gemm_ex(
      h, "cublasGemmStridedBatchedEx", ta, tb, m, n, k, alpha, at, lda, bt, ldb, beta, ct, ldc,
      batch, compute, false, [=](int i) { return static_cast<const char*>(A) + i * sa * ea; },
      [=](int i) { return static_cast<const char*>(B) + i * sb * eb; },
      [=](int i) { return static_cast<char*>(C) + i * sc * ec; });
}

cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                   int m, int n, int k, const void* alpha, const void* const A[],
                                   cudaDataType at, int lda, const void* const B[], cudaDataType bt,
                                   int ldb, const void* beta, void* const C[], cudaDataType ct,
                                   int ldc, int batch, cublasComputeType_t compute,
                                   cublasGemmAlgo_t) {
  if (batch > 0 && (!A || !B || !C)) return CUBLAS_STATUS_INVALID_VALUE;
  const uint64_t array = batch > 0 && m > 0 && n > 0 ? uint64_t(batch) * sizeof(void*) : 0;
  if (h && !ranges_ok("cublasGemmBatchedEx", {{"array of A pointers", A, array},
                                              {"array of B pointers", B, array},
                                              {"array of C pointers", C, array}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return gemm_ex(
      h, "cublasGemmBatchedEx", ta, tb, m, n, k, alpha, at, lda, bt, ldb, beta, ct, ldc, batch,
      compute, true, [=](int i) { return A[i]; }, [=](int i) { return B[i]; },
      [=](int i) { return C[i]; });
}

// cublasSgemmEx: fp32 compute on fp16/bf16/fp32 inputs (scalars float).
cublasStatus_t cublasSgemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                             int n, int k, const float* alpha, const void* A, cudaDataType at,
                             int lda, const void* B, cudaDataType bt, int ldb, const float* beta,
                             void* C, cudaDataType ct, int ldc) {
  return gemm_ex(
      h, "cublasSgemmEx", ta, tb, m, n, k, alpha, at, lda, bt, ldb, beta, ct, ldc, 1,
      CUBLAS_COMPUTE_32F, false, [=](int) { return A; }, [=](int) { return B; },
      [=](int) { return C; });
}

}  // extern "C"
