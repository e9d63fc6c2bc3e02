// The mixed-type GEMM (cublas_ex.h), shared by cublasGemmEx and friends and
// cublasLtMatmul. Inputs are widened to the compute type (fp16/bf16/fp32 in with
// 32F compute, tf32 and the fast modes computed as fp32; 64F; complex
// 32F/64F), multiplied by OpenBLAS, and rounded to C's type (round to
// nearest even), so results differ from the GPU's only by summation order.
#include "libs/cublas_ex.h"

#include <cstring>
#include <vector>

#include "libs/cblas_calls.h"

namespace smemlab::libs::blas {

float load_real(const void* p, cudaDataType t, int64_t i) {
  switch (t) {
    case CUDA_R_32F:
      return static_cast<const float*>(p)[i];
    case CUDA_R_16F:
      return float(static_cast<const _Float16*>(p)[i]);
    case CUDA_R_16BF: {
      uint32_t bits = uint32_t(static_cast<const uint16_t*>(p)[i]) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default:
      return 0;
  }
}

void store_real(void* p, cudaDataType t, int64_t i, float v) {
  switch (t) {
    case CUDA_R_32F:
      static_cast<float*>(p)[i] = v;
      break;
    case CUDA_R_16F:
      static_cast<_Float16*>(p)[i] = _Float16(v);
      break;
    case CUDA_R_16BF: {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      if ((bits & 0x7fffffffu) > 0x7f800000u)
        bits = (bits | 0x00400000u);  // NaN stays a (quiet) NaN
      else
        bits += 0x7fffu + ((bits >> 16) & 1);  // round to nearest even
      static_cast<uint16_t*>(p)[i] = uint16_t(bits >> 16);
      break;
    }
    default:
      break;
  }
}

namespace {

bool real_in(cudaDataType t) { return t == CUDA_R_32F || t == CUDA_R_16F || t == CUDA_R_16BF; }

size_t type_size(cudaDataType t) {
  switch (t) {
    case CUDA_R_16F:
    case CUDA_R_16BF:
      return 2;
    case CUDA_R_32F:
      return 4;
    case CUDA_R_64F:
    case CUDA_C_32F:
      return 8;
    case CUDA_C_64F:
      return 16;
    default:
      return 0;
  }
}

// A column-major matrix of `rows` x `cols` (ld) of type t, widened to float.
std::vector<float> widen(const void* p, cudaDataType t, int rows, int cols, int ld) {
  std::vector<float> out(size_t(rows) * cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) out[i + size_t(j) * rows] = load_real(p, t, i + int64_t(j) * ld);
  return out;
}

}  // namespace

Combination classify(cudaDataType a, cudaDataType b, cudaDataType c, cublasComputeType_t compute) {
  if (a != b) return Combination::Unsupported;
  switch (compute) {
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
      if (real_in(a) && (c == a || c == CUDA_R_32F)) return Combination::Real32;
      if (a == CUDA_C_32F && c == CUDA_C_32F) return Combination::Complex32;
      return Combination::Unsupported;
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
      return a == CUDA_R_16F && c == CUDA_R_16F ? Combination::Half : Combination::Unsupported;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
      if (a == CUDA_R_64F && c == CUDA_R_64F) return Combination::Real64;
      if (a == CUDA_C_64F && c == CUDA_C_64F) return Combination::Complex64;
      return Combination::Unsupported;
    default:
      return Combination::Unsupported;
  }
}

void gemm_ex_one(const ExProblem& p, const void* alpha, const void* beta, const void* A,
                 const void* B, void* C) {
  switch (p.kind) {
    case Combination::Real32:
    case Combination::Half: {
      // 16F compute: half scalars; the product is accumulated in fp32 here.
      float a = p.kind == Combination::Half ? float(*static_cast<const _Float16*>(alpha))
                                            : *static_cast<const float*>(alpha);
      float b = p.kind == Combination::Half ? float(*static_cast<const _Float16*>(beta))
                                            : *static_cast<const float*>(beta);
      int ar = p.ta == CUBLAS_OP_N ? p.m : p.k, ac = p.ta == CUBLAS_OP_N ? p.k : p.m;
      int br = p.tb == CUBLAS_OP_N ? p.k : p.n, bc = p.tb == CUBLAS_OP_N ? p.n : p.k;
      std::vector<float> a32 = widen(A, p.at, ar, ac, p.lda), b32 = widen(B, p.bt, br, bc, p.ldb);
      std::vector<float> c32 =
          b == 0 ? std::vector<float>(size_t(p.m) * p.n) : widen(C, p.ct, p.m, p.n, p.ldc);
      gemm_cpu(p.ta == CUBLAS_OP_C ? CUBLAS_OP_T : p.ta, p.tb == CUBLAS_OP_C ? CUBLAS_OP_T : p.tb,
               p.m, p.n, p.k, a, a32.data(), ar, b32.data(), br, b, c32.data(), p.m);
      for (int j = 0; j < p.n; ++j)
        for (int i = 0; i < p.m; ++i)
          store_real(C, p.ct, i + int64_t(j) * p.ldc, c32[i + size_t(j) * p.m]);
      break;
    }
    case Combination::Real64:
      gemm_cpu(p.ta, p.tb, p.m, p.n, p.k, *static_cast<const double*>(alpha),
               static_cast<const double*>(A), p.lda, static_cast<const double*>(B), p.ldb,
               *static_cast<const double*>(beta), static_cast<double*>(C), p.ldc);
      break;
    case Combination::Complex32:
      gemm_cpu(p.ta, p.tb, p.m, p.n, p.k, *static_cast<const cf*>(alpha), static_cast<const cf*>(A),
               p.lda, static_cast<const cf*>(B), p.ldb, *static_cast<const cf*>(beta),
               static_cast<cf*>(C), p.ldc);
      break;
    case Combination::Complex64:
      gemm_cpu(p.ta, p.tb, p.m, p.n, p.k, *static_cast<const cd*>(alpha), static_cast<const cd*>(A),
               p.lda, static_cast<const cd*>(B), p.ldb, *static_cast<const cd*>(beta),
               static_cast<cd*>(C), p.ldc);
      break;
    case Combination::Unsupported:
      break;
  }
}

size_t scalar_size(Combination k) {
  switch (k) {
    case Combination::Half:
      return 2;
    case Combination::Real32:
      return 4;
    case Combination::Real64:
    case Combination::Complex32:
      return 8;
    case Combination::Complex64:
      return 16;
    default:
      return 0;
  }
}

size_t element_size(cudaDataType t) { return type_size(t); }

namespace {
const char* type_name(cudaDataType t) {
  switch (t) {
#define T(x) \
  case x:    \
    return #x;
    T(CUDA_R_16F)
    T(CUDA_R_16BF)
    T(CUDA_R_32F) T(CUDA_R_64F) T(CUDA_C_16F) T(CUDA_C_32F) T(CUDA_C_64F) T(CUDA_R_8I) T(CUDA_R_8U)
        T(CUDA_R_32I) T(CUDA_R_8F_E4M3) T(CUDA_R_8F_E5M2)
#undef T
            default : return "another cudaDataType";
  }
}
}  // namespace

std::string fmt_combination(const char* entry, cudaDataType a, cudaDataType b, cudaDataType c,
                            cublasComputeType_t compute) {
  return std::string(entry) + " with A " + type_name(a) + ", B " + type_name(b) + ", C " +
         type_name(c) + ", cublasComputeType_t " + std::to_string(int(compute));
}

}  // namespace smemlab::libs::blas
