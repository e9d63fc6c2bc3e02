// A TMA-filled tile whose readers `smemlab fix` can swizzle (issue 28,
// deliverable 3: apply and prove the tensor-map swizzle pair). One block of
// 256 threads loads a 64 x 32-float box (rows 128 bytes) with the swizzle
// spelled as a constant in the encode below; each warp then reads columns of
// the tile through plain byte-offset arithmetic on the tile's base (lane i
// reads row i, plus 32 per pass) and writes them transposed. Unswizzled, a
// column's 32 rows are 128 bytes apart: one bank, 32 wavefronts per read;
// `fix` proposes CU_TENSOR_MAP_SWIZZLE_128B with the readers' offsets
// XOR-ed as CuTe's Swizzle<3,4,3>, rewrites both, and proves the pair.
//   tma_fix   prints PASS tma_fix or FAIL lines (the output is checked
//             against a CPU transpose of the input).
// `tma_fix offset` launches tile_columns_offset instead: the same reads
// through a pointer 64 bytes into the tile, so the XOR fix writes on the
// offsets from that pointer is not the hardware's on addresses, and the
// proof must reject the pair (the outputs differ).
// Build: nvcc -gencode arch=compute_90a,code=[sm_90a,compute_90a] -lineinfo tma_fix.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tensor_map.cuh"

constexpr int kRows = 64, kCols = 32, kRowBytes = kCols * 4;

// The tile loaded by one thread, every thread waiting for it; returns its
// base (1024-byte aligned).
__device__ uint8_t* load_tile(const CUtensorMap& map, uint8_t* raw, uint64_t* bar) {
  // The swizzle patterns repeat on 1024-byte boundaries of shared addresses.
  const uint32_t raw_addr = static_cast<uint32_t>(__cvta_generic_to_shared(raw));
  uint8_t* tile = raw + (((raw_addr + 1023u) & ~1023u) - raw_addr);
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  const uint32_t sbar = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  tma_load_box_2d(map, base, sbar, kRows * kRowBytes);
  return tile;
}

__global__ void tile_columns(const __grid_constant__ CUtensorMap map, float* out) {
  extern __shared__ __align__(1024) uint8_t raw[];
  __shared__ __align__(8) uint64_t bar;
  uint8_t* tile = load_tile(map, raw, &bar);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int col = warp; col < kCols; col += blockDim.x / 32)
    for (int row = lane; row < kRows; row += 32) {
      const float v = *reinterpret_cast<const float*>(tile + (row * kRowBytes + col * 4));
      out[col * kRows + row] = v;
    }
}

__global__ void tile_columns_offset(const __grid_constant__ CUtensorMap map, float* out) {
  extern __shared__ __align__(1024) uint8_t raw2[];
  __shared__ __align__(8) uint64_t bar2;
  load_tile(map, raw2, &bar2);
  const uint32_t raw_addr = static_cast<uint32_t>(__cvta_generic_to_shared(raw2));
  const uint8_t* mid = raw2 + (((raw_addr + 1023u) & ~1023u) - raw_addr + 64);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int col = warp; col < kCols; col += blockDim.x / 32)
    for (int row = lane; row < kRows; row += 32) {
      const float v = *reinterpret_cast<const float*>(mid + (row * kRowBytes + col * 4 - 64));
      out[col * kRows + row] = v;
    }
}

int main(int argc, char** argv) {
  const bool offset = argc > 1 && std::strcmp(argv[1], "offset") == 0;
  std::vector<float> host(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i) host[i] = static_cast<float>(i * 7 % 1009) + 0.25f;
  float *g, *out;
  cudaMalloc(&g, host.size() * 4);
  cudaMalloc(&out, host.size() * 4);
  cudaMemcpy(g, host.data(), host.size() * 4, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, host.size() * 4);
  const EncodeTiled encode = encode_tiled();
  if (!encode) {
    std::printf("FAIL no cuTensorMapEncodeTiled\n");
    return 1;
  }
  CUtensorMap map;
  const cuuint64_t dims[2] = {kCols, kRows};
  const cuuint64_t strides[1] = {kRowBytes};
  const cuuint32_t box[2] = {kCols, kRows}, es[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, g, dims, strides, box, es,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::printf("FAIL cuTensorMapEncodeTiled: %d\n", static_cast<int>(r));
    return 1;
  }
  // One box of kRows x 128 B under any mode that holds a 128-byte row, and
  // room to align it to 1024 bytes.
  if (offset)
    tile_columns_offset<<<1, 256, kRows * kRowBytes + 1024>>>(map, out);
  else
    tile_columns<<<1, 256, kRows * kRowBytes + 1024>>>(map, out);
  cudaError_t e = cudaDeviceSynchronize();
  std::vector<float> got(host.size());
  cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int row = 0; row < kRows; ++row)
    for (int col = 0; col < kCols; ++col)
      if (got[col * kRows + row] != host[row * kCols + col] && bad++ < 4)
        std::printf("FAIL out[%d][%d] = %g, want %g\n", col, row, got[col * kRows + row],
                    host[row * kCols + col]);
  if (e != cudaSuccess || bad) {
    std::printf("FAIL tma_fix: %s, %d wrong elements\n", cudaGetErrorString(e), bad);
    return 1;
  }
  std::printf("PASS tma_fix\n");
  return 0;
}
