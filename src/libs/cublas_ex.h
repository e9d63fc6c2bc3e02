// The mixed-type GEMMs' model (cublas_gemm_ex.cc, and cublasLtMatmul): which
// type/compute combinations smemlab computes and how.
#pragma once

#include <cublas_v2.h>

#include <string>

namespace smemlab::libs::blas {

enum class Combination { Unsupported, Real32, Half, Real64, Complex32, Complex64 };

// One GEMM of a mixed-type call: shapes, operations and types.
struct ExProblem {
  Combination kind;
  cublasOperation_t ta, tb;
  int m, n, k;
  cudaDataType at, bt, ct;
  int lda, ldb, ldc;
};

Combination classify(cudaDataType a, cudaDataType b, cudaDataType c, cublasComputeType_t compute);
// C = alpha op(A) op(B) + beta C; alpha/beta of the compute type's scalar.
void gemm_ex_one(const ExProblem& p, const void* alpha, const void* beta, const void* A,
                 const void* B, void* C);
size_t scalar_size(Combination k);
size_t element_size(cudaDataType t);
// "cublasGemmEx with A/B CUDA_R_8I, C CUDA_R_32I, compute CUBLAS_COMPUTE_32I" for the error line.
std::string fmt_combination(const char* entry, cudaDataType a, cudaDataType b, cudaDataType c,
                            cublasComputeType_t compute);

}  // namespace smemlab::libs::blas
