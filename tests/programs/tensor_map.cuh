// The driver's tensor-map encoders for the TMA test programs (tma_tile,
// tma_swizzle, tma_multicast, tma_probe), fetched through the runtime's
// driver entry point as CUTLASS does, so that each program states only the
// map it encodes.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
using EncodeIm2col = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                  const cuuint64_t*, const cuuint64_t*, const int*, const int*,
                                  cuuint32_t, cuuint32_t, const cuuint32_t*, CUtensorMapInterleave,
                                  CUtensorMapSwizzle, CUtensorMapL2promotion,
                                  CUtensorMapFloatOOBfill);

// The driver function `name` at its CUDA 12.0 signature, or nullptr.
inline void* driver_entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    return nullptr;
  return fn;
}

inline EncodeTiled encode_tiled() {
  return reinterpret_cast<EncodeTiled>(driver_entry("cuTensorMapEncodeTiled"));
}

inline EncodeIm2col encode_im2col() {
  return reinterpret_cast<EncodeIm2col>(driver_entry("cuTensorMapEncodeIm2col"));
}
