// A TMA-filled tile read column-wise from shared memory, under a chosen
// swizzle (issue 28: the swizzle what-if and `fix`'s swizzle proposal, checked
// against Nsight Compute on an H100). One block of 256 threads loads a box of
// kRows rows of ROW bytes (32, 64 or 128: 8, 16 or 32 floats) with the tensor
// map's swizzle mode SW; each warp then reads one column: lane i reads row i
// (plus 32 per pass) at the shared address the swizzle put that element at.
// Without a swizzle the rows are ROW bytes apart, so a column lands on few
// banks; a swizzle spreads the 16-byte chunks over them.
//   tma_swizzle [ROW [SW]]   (defaults 128 0; SW: 0 none, 1 32B, 2 64B, 3 128B)
// Prints PASS tma_swizzle or FAIL lines (every element read is checked).
// Build: nvcc -gencode arch=compute_90a,code=[sm_90a,compute_90a] tma_swizzle.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tensor_map.cuh"

constexpr int kRows = 64;

__device__ float value(int col, int row) { return static_cast<float>(row * 1000 + col); }

// Byte offset of (row, byte b) in a box of `row_bytes` rows under swizzle
// `sw`: rows `span` bytes apart when swizzled (span = 16 << sw, the mode's
// width), and the 16-byte chunk index XOR the row-group bits the mode
// takes (programming guide "TMA Swizzle": address bits 4..6 ^= bits 7..9).
__device__ uint32_t swizzled(uint32_t row, uint32_t b, uint32_t row_bytes, int sw) {
  const uint32_t pitch = sw == 0 ? row_bytes : (16u << sw);
  const uint32_t addr = row * pitch + b;
  if (sw == 0) return addr;
  const uint32_t mask = (1u << (sw)) - 1;  // 32B: 1 bit, 64B: 2, 128B: 3
  return addr ^ (((addr >> 7) & mask) << 4);
}

__global__ void column_reads(const __grid_constant__ CUtensorMap map, int row_bytes, int sw,
                             unsigned* bad, float* sum) {
  extern __shared__ __align__(1024) uint8_t raw[];
  __shared__ __align__(8) uint64_t bar;
  // The swizzle patterns repeat on 1024-byte boundaries of shared addresses.
  const uint32_t raw_addr = static_cast<uint32_t>(__cvta_generic_to_shared(raw));
  const uint32_t base = (raw_addr + 1023u) & ~1023u;
  const uint8_t* smem = raw + (base - raw_addr);
  const uint32_t sbar = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  tma_load_box_2d(map, base, sbar, kRows * row_bytes);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, cols = row_bytes / 4;
  float acc = 0;
  for (int col = warp; col < cols; col += blockDim.x / 32)
    for (int row = lane; row < kRows; row += 32) {
      const float v = *reinterpret_cast<const float*>(smem + swizzled(row, col * 4, row_bytes, sw));
      if (v != value(col, row)) atomicAdd(bad, 1u);
      acc += v;
    }
  atomicAdd(sum, acc);
}

int main(int argc, char** argv) {
  const int row_bytes = argc > 1 ? std::atoi(argv[1]) : 128;
  const int sw = argc > 2 ? std::atoi(argv[2]) : 0;
  if ((row_bytes != 32 && row_bytes != 64 && row_bytes != 128) || sw < 0 || sw > 3 ||
      (sw != 0 && row_bytes > (16 << sw))) {
    std::fprintf(stderr,
                 "usage: tma_swizzle [32|64|128 [0..3]] (a swizzle's span must hold a row)\n");
    return 2;
  }
  const int cols = row_bytes / 4;
  std::vector<float> host(cols * kRows);
  double want = 0;
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < cols; ++c) want += host[r * cols + c] = static_cast<float>(r * 1000 + c);
  float* g;
  unsigned* bad;
  float* sum;
  cudaMalloc(&g, host.size() * 4);
  cudaMalloc(&bad, 4);
  cudaMalloc(&sum, 4);
  cudaMemcpy(g, host.data(), host.size() * 4, cudaMemcpyHostToDevice);
  cudaMemset(bad, 0, 4);
  cudaMemset(sum, 0, 4);
  const EncodeTiled encode = encode_tiled();
  if (!encode) {
    std::printf("FAIL no cuTensorMapEncodeTiled\n");
    return 1;
  }
  CUtensorMap map;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), kRows};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(row_bytes)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(cols), kRows}, es[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, g, dims, strides, box, es,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, static_cast<CUtensorMapSwizzle>(sw),
                      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::printf("FAIL cuTensorMapEncodeTiled: %d\n", static_cast<int>(r));
    return 1;
  }
  const int smem = kRows * (sw ? (16 << sw) : row_bytes);
  column_reads<<<1, 256, smem + 1024>>>(map, row_bytes, sw, bad, sum);
  cudaError_t e = cudaDeviceSynchronize();
  unsigned nbad = 0;
  float got = 0;
  cudaMemcpy(&nbad, bad, 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(&got, sum, 4, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess || nbad != 0 || got != static_cast<float>(want)) {
    std::printf("FAIL tma_swizzle row %d sw %d: %s, %u wrong reads, sum %g (want %g)\n", row_bytes,
                sw, cudaGetErrorString(e), nbad, got, want);
    return 1;
  }
  std::printf("PASS tma_swizzle row %d sw %d\n", row_bytes, sw);
  return 0;
}
