// How many prefetches a TMA/bulk L2 prefetch makes when several lanes of a
// warp execute it (issue 28, run 16, h-hop28h), as tma_warp_issue.cu asked
// for stores, reductions and loads (run 15). A prefetch moves no
// SASS-patched counter (docs/bank-model.md, "L2 prefetches", run 4): only
// the TMA pipe's instruction count, 1 per tensor prefetch and 2 per 1-D
// bulk prefetch. One block of 32 threads, one launch per mode:
//   0 bulk_same  1 bulk_two  2 bulk_all     (1-D, 1,024 bytes at 0 / (lane&1)*1024 / lane*1024)
//   3 tensor_same  4 tensor_two  5 tensor_all  (box 32 x 8 u32 at y = 0 / (lane&1)*8 / lane*8)
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "../../../programs/tensor_map.cuh"

constexpr int kCols = 32, kRows = 256, kBoxRows = 8;

__global__ void probe(const __grid_constant__ CUtensorMap map, const uint8_t* g, int mode) {
  const uint32_t lane = threadIdx.x;
  const uint32_t pick = mode % 3 == 0 ? 0 : mode % 3 == 1 ? (lane & 1) : lane;
  if (mode < 3)
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], 1024;" ::"l"(g + pick * 1024) : "memory");
  else
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(&map),
                 "r"(0), "r"(pick * kBoxRows)
                 : "memory");
}

int main() {
  EncodeTiled encode = encode_tiled();
  if (!encode) {
    std::printf("no cuTensorMapEncodeTiled\n");
    return 1;
  }
  const size_t bytes = size_t{kCols} * kRows * 4;
  uint8_t* g;
  cudaMalloc(&g, bytes);
  CUtensorMap map;
  const cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * 4};
  const cuuint32_t boxdim[2] = {kCols, kBoxRows}, es[2] = {1, 1};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, g, dims, strides, boxdim, es,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::printf("encode failed\n");
    return 1;
  }
  int status = 0;
  for (int mode = 0; mode < 6; ++mode) {
    probe<<<1, 32>>>(map, g, mode);
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("mode %d: %s\n", mode, cudaGetErrorString(e));
    if (e != cudaSuccess) status = 1;
  }
  return status;
}
