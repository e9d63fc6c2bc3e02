// cuBLAS's handle, stream, modes, workspace, versions and vector/matrix
// copies (smemlab's libcublas.so.13).
#include "libs/cublas_handle.h"

#include <cuda_runtime_api.h>

#include <cstring>

namespace smemlab::libs::blas {

cublasStatus_t submit(cublasHandle_t h, const char* entry, std::function<void()> work) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  record_call(entry);
  enqueue(h->stream, std::move(work));
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t submit_result(cublasHandle_t h, const char* entry, std::function<void()> work) {
  cublasStatus_t s = submit(h, entry, std::move(work));
  if (s == CUBLAS_STATUS_SUCCESS && h->pointer_mode == CUBLAS_POINTER_MODE_HOST)
    synchronize(h->stream);
  return s;
}

}  // namespace smemlab::libs::blas

using namespace smemlab::libs;

namespace {
// A strided copy of n elements of `elem` bytes, as cublasSetVector and
// friends do it: after the legacy stream's earlier work, before its later.
cublasStatus_t strided_copy(const char* entry, int n, int elem, const void* src, int incs,
                            void* dst, int incd, CUstream stream, bool async) {
  if (n < 0 || elem <= 0 || incs <= 0 || incd <= 0) return CUBLAS_STATUS_INVALID_VALUE;
  record_call(entry);
  auto copy = [=] {
    for (int i = 0; i < n; ++i)
      std::memcpy(static_cast<char*>(dst) + int64_t(i) * incd * elem,
                  static_cast<const char*>(src) + int64_t(i) * incs * elem, elem);
  };
  enqueue(stream, copy);
  if (!async) synchronize(stream);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t matrix_copy(const char* entry, int rows, int cols, int elem, const void* src,
                           int lds, void* dst, int ldd, CUstream stream, bool async) {
  if (rows < 0 || cols < 0 || elem <= 0 || lds < rows || ldd < rows || lds <= 0 || ldd <= 0)
    return CUBLAS_STATUS_INVALID_VALUE;
  record_call(entry);
  auto copy = [=] {
    for (int c = 0; c < cols; ++c)
      std::memcpy(static_cast<char*>(dst) + int64_t(c) * ldd * elem,
                  static_cast<const char*>(src) + int64_t(c) * lds * elem, size_t(rows) * elem);
  };
  enqueue(stream, copy);
  if (!async) synchronize(stream);
  return CUBLAS_STATUS_SUCCESS;
}
}  // namespace

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  ensure_driver();
  record_call("cublasCreate_v2");
  *handle = new cublasContext{};
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  record_call("cublasDestroy_v2");
  synchronize(handle->stream);  // its work may still be queued
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int* version) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!version) return CUBLAS_STATUS_INVALID_VALUE;
  *version = CUBLAS_VERSION;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUBLAS_STATUS_INVALID_VALUE;
  switch (type) {
    case MAJOR_VERSION:
      *value = CUBLAS_VER_MAJOR;
      break;
    case MINOR_VERSION:
      *value = CUBLAS_VER_MINOR;
      break;
    case PATCH_LEVEL:
      *value = CUBLAS_VER_PATCH;
      break;
    default:
      return CUBLAS_STATUS_INVALID_VALUE;
  }
  return CUBLAS_STATUS_SUCCESS;
}

size_t cublasGetCudartVersion(void) { return CUDART_VERSION; }

const char* cublasGetStatusName(cublasStatus_t s) {
  switch (s) {
#define S(x) \
  case x:    \
    return #x;
    S(CUBLAS_STATUS_SUCCESS)
    S(CUBLAS_STATUS_NOT_INITIALIZED)
    S(CUBLAS_STATUS_ALLOC_FAILED) S(CUBLAS_STATUS_INVALID_VALUE) S(CUBLAS_STATUS_ARCH_MISMATCH)
        S(CUBLAS_STATUS_MAPPING_ERROR) S(CUBLAS_STATUS_EXECUTION_FAILED)
            S(CUBLAS_STATUS_INTERNAL_ERROR) S(CUBLAS_STATUS_NOT_SUPPORTED)
                S(CUBLAS_STATUS_LICENSE_ERROR)
#undef S
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

const char* cublasGetStatusString(cublasStatus_t s) { return cublasGetStatusName(s); }

cublasStatus_t cublasSetStream_v2(cublasHandle_t h, cudaStream_t stream) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->stream = reinterpret_cast<CUstream>(stream);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetStream_v2(cublasHandle_t h, cudaStream_t* stream) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!stream) return CUBLAS_STATUS_INVALID_VALUE;
  *stream = reinterpret_cast<cudaStream_t>(h->stream);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
    return CUBLAS_STATUS_INVALID_VALUE;
  h->pointer_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t* mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h->pointer_mode;
  return CUBLAS_STATUS_SUCCESS;
}
// Math modes choose tensor-core paths on the GPU; on the CPU every mode
// computes in the type's own precision (tf32 as fp32: docs/runtime.md).
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->math_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t* mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h->math_mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetAtomicsMode(cublasHandle_t h, cublasAtomicsMode_t mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  h->atomics = mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetAtomicsMode(cublasHandle_t h, cublasAtomicsMode_t* mode) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = h->atomics;
  return CUBLAS_STATUS_SUCCESS;
}
// The workspace is kept (cublasGetWorkspace-style queries); the CPU needs none.
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t h, void* workspace, size_t bytes) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (bytes && !workspace) return CUBLAS_STATUS_INVALID_VALUE;
  h->workspace = workspace, h->workspace_bytes = bytes;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetSmCountTarget(cublasHandle_t h, int count) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (count < 0) return CUBLAS_STATUS_INVALID_VALUE;
  h->sm_count_target = count;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetSmCountTarget(cublasHandle_t h, int* count) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!count) return CUBLAS_STATUS_INVALID_VALUE;
  *count = h->sm_count_target;
  return CUBLAS_STATUS_SUCCESS;
}

// cublasSetVector/GetVector/SetMatrix/GetMatrix: cudaMemcpy on the legacy
// default stream (the Async forms: on `stream`, not waited for).
cublasStatus_t cublasSetVector(int n, int elem, const void* x, int incx, void* y, int incy) {
  return strided_copy("cublasSetVector", n, elem, x, incx, y, incy, nullptr, false);
}
cublasStatus_t cublasGetVector(int n, int elem, const void* x, int incx, void* y, int incy) {
  return strided_copy("cublasGetVector", n, elem, x, incx, y, incy, nullptr, false);
}
cublasStatus_t cublasSetVectorAsync(int n, int elem, const void* x, int incx, void* y, int incy,
                                    cudaStream_t s) {
  return strided_copy("cublasSetVectorAsync", n, elem, x, incx, y, incy,
                      reinterpret_cast<CUstream>(s), true);
}
cublasStatus_t cublasGetVectorAsync(int n, int elem, const void* x, int incx, void* y, int incy,
                                    cudaStream_t s) {
  return strided_copy("cublasGetVectorAsync", n, elem, x, incx, y, incy,
                      reinterpret_cast<CUstream>(s), true);
}
cublasStatus_t cublasSetMatrix(int rows, int cols, int elem, const void* a, int lda, void* b,
                               int ldb) {
  return matrix_copy("cublasSetMatrix", rows, cols, elem, a, lda, b, ldb, nullptr, false);
}
cublasStatus_t cublasGetMatrix(int rows, int cols, int elem, const void* a, int lda, void* b,
                               int ldb) {
  return matrix_copy("cublasGetMatrix", rows, cols, elem, a, lda, b, ldb, nullptr, false);
}
cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elem, const void* a, int lda, void* b,
                                    int ldb, cudaStream_t s) {
  return matrix_copy("cublasSetMatrixAsync", rows, cols, elem, a, lda, b, ldb,
                     reinterpret_cast<CUstream>(s), true);
}
cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elem, const void* a, int lda, void* b,
                                    int ldb, cudaStream_t s) {
  return matrix_copy("cublasGetMatrixAsync", rows, cols, elem, a, lda, b, ldb,
                     reinterpret_cast<CUstream>(s), true);
}

}  // extern "C"
