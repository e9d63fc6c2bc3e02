// The driver's tensor-map encoders for the TMA test programs (tma_tile,
// tma_swizzle, tma_fix, tma_multicast, tma_probe), fetched through the
// runtime's driver entry point as CUTLASS does, so that each program states
// only the map it encodes; and the one-box TMA load with its mbarrier wait
// that tma_fix and tma_swizzle share.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

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

#ifdef __CUDACC__
// Loads the box of `map` at coordinates (0, 0) into the shared address
// `dst` (the swizzle patterns repeat on 1024-byte boundaries: align it so)
// through the mbarrier at shared address `bar`, which thread 0 initializes
// for one arrival expecting `bytes`; every thread of the block must call it
// and returns once the copy has landed (phase 0).
__device__ inline void tma_load_box_2d(const CUtensorMap& map, uint32_t dst, uint32_t bar,
                                       uint32_t bytes) {
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
        "l"(&map), "r"(0), "r"(0), "r"(bar)
        : "memory");
  }
  asm volatile(
      "{\n .reg .pred p;\n WAIT:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
      " @!p bra WAIT;\n}" ::"r"(bar)
      : "memory");
}
#endif
