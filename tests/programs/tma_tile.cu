// Hopper TMA, whole: a 2-D tile load with the 128-byte swizzle completed on
// an mbarrier's transaction count, a tile store and a tile add-reduction
// back through bulk groups, a prefetch, a multicast load to the block
// itself, and refused tensor maps. The tensor (100 x 68 floats) is not a
// multiple of the 32 x 32 box, so edge tiles read zero-filled
// out-of-bounds elements and their stores are clipped. The kernel checks
// every element it reads (swizzled position, OOB fill); the host checks
// every output element. Prints PASS tma_tile or FAIL lines.
// --dump FILE writes the output buffers (scripts/gpu-tma compares GPU and
// emulator). Build: nvcc -arch=sm_90a (or -gencode arch=compute_90a,code=[sm_90a,compute_90a]).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tensor_map.cuh"

constexpr int kRows = 100, kCols = 68, kBox = 32;

__device__ float value(int x, int y) { return static_cast<float>(y * 1000 + x); }
float host_value(int x, int y) { return static_cast<float>(y * 1000 + x); }

__device__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// The 128-byte swizzle (CUDA programming guide, "TMA Swizzle"): the 16-byte
// chunk index within a 128-byte row XORed with the row index modulo 8.
__device__ int swizzled_index(int r, int c) {
  int chunk = (c * 4) / 16, within = (c * 4) % 16;
  return (r * 128 + ((chunk ^ (r % 8)) * 16) + within) / 4;
}

template <bool kMulticast>
__global__ void tile_kernel(const __grid_constant__ CUtensorMap in_map,
                            const __grid_constant__ CUtensorMap out_map,
                            const __grid_constant__ CUtensorMap acc_map, unsigned* bad) {
  __shared__ alignas(1024) float tile[kBox * kBox];
  __shared__ alignas(128) float res[kBox * kBox];
  __shared__ uint64_t bar;
  const int x0 = blockIdx.x * kBox, y0 = blockIdx.y * kBox;
  const uint32_t sbar = smem_addr(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(&in_map),
                 "r"(x0), "r"(y0)
                 : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar),
                 "r"(kBox * kBox * 4)
                 : "memory");
    if (kMulticast)
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
          ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_addr(tile)),
          "l"(&in_map), "r"(x0), "r"(y0), "r"(sbar), "h"(static_cast<uint16_t>(1))
          : "memory");
    else
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_addr(tile)),
          "l"(&in_map), "r"(x0), "r"(y0), "r"(sbar)
          : "memory");
  }
  // Wait for phase 0.
  asm volatile(
      "{\n .reg .pred p;\n WAIT:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
      " @!p bra WAIT;\n}" ::"r"(sbar)
      : "memory");
  for (int i = threadIdx.x; i < kBox * kBox; i += blockDim.x) {
    const int r = i / kBox, c = i % kBox, x = x0 + c, y = y0 + r;
    const float v = tile[swizzled_index(r, c)];
    const float want = x < kCols && y < kRows ? value(x, y) : 0.0f;
    if (v != want) atomicAdd(bad, 1u);
    res[r * kBox + c] = 2.0f * v;
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
            &out_map),
        "r"(x0), "r"(y0), "r"(smem_addr(res))
        : "memory");
    asm volatile(
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"
        " [%0, {%1, %2}], [%3];" ::"l"(&acc_map),
        "r"(x0), "r"(y0), "r"(smem_addr(res))
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
  __syncthreads();
}

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAIL %s\n", what);
    ++failures;
  }
}

CUresult make_map(EncodeTiled encode, CUtensorMap* m, void* base, CUtensorMapSwizzle sw,
                  cuuint64_t stride = kCols * 4, cuuint32_t box0 = kBox, cuuint32_t es1 = 1) {
  cuuint64_t dims[2] = {kCols, kRows};
  cuuint64_t strides[1] = {stride};
  cuuint32_t box[2] = {box0, kBox};
  cuuint32_t es[2] = {1, es1};
  return encode(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box, es,
                CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

void refused_maps(EncodeTiled encode, void* base) {
  CUtensorMap m;
  expect(make_map(encode, &m, base, CU_TENSOR_MAP_SWIZZLE_128B, kCols * 4 + 4) ==
             CUDA_ERROR_INVALID_VALUE,
         "stride not a multiple of 16 refused");
  expect(make_map(encode, &m, base, CU_TENSOR_MAP_SWIZZLE_128B, kCols * 4, 64) ==
             CUDA_ERROR_INVALID_VALUE,
         "256-byte inner box with the 128B swizzle refused");
  expect(make_map(encode, &m, base, CU_TENSOR_MAP_SWIZZLE_NONE, kCols * 4, 300) ==
             CUDA_ERROR_INVALID_VALUE,
         "boxDim 300 refused");
  expect(make_map(encode, &m, base, CU_TENSOR_MAP_SWIZZLE_NONE, kCols * 4, 32, 9) ==
             CUDA_ERROR_INVALID_VALUE,
         "elementStrides 9 refused");
  expect(make_map(encode, &m, static_cast<char*>(base) + 4, CU_TENSOR_MAP_SWIZZLE_NONE) ==
             CUDA_ERROR_INVALID_VALUE,
         "unaligned globalAddress refused");
}

int main(int argc, char** argv) {
  const char* dump = argc == 3 && std::string(argv[1]) == "--dump" ? argv[2] : nullptr;
  std::vector<float> dumped;
  const EncodeTiled encode = encode_tiled();
  if (!encode) {
    std::printf("FAIL no cuTensorMapEncodeTiled\n");
    return 1;
  }
  const size_t n = static_cast<size_t>(kRows) * kCols;
  std::vector<float> h(n), acc0(n, 1.0f);
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kCols; ++x) h[static_cast<size_t>(y) * kCols + x] = host_value(x, y);
  float *d_in, *d_out, *d_acc;
  unsigned* d_bad;
  cudaMalloc(&d_in, n * 4);
  cudaMalloc(&d_out, n * 4);
  cudaMalloc(&d_acc, n * 4);
  cudaMalloc(&d_bad, 4);
  cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice);
  refused_maps(encode, d_in);
  for (int multicast = 0; multicast < 2; ++multicast) {
    CUtensorMap in_map, out_map, acc_map;
    expect(make_map(encode, &in_map, d_in, CU_TENSOR_MAP_SWIZZLE_128B) == CUDA_SUCCESS, "in map");
    expect(make_map(encode, &out_map, d_out, CU_TENSOR_MAP_SWIZZLE_NONE) == CUDA_SUCCESS,
           "out map");
    expect(make_map(encode, &acc_map, d_acc, CU_TENSOR_MAP_SWIZZLE_NONE) == CUDA_SUCCESS,
           "acc map");
    cudaMemset(d_out, 0xff, n * 4);
    cudaMemcpy(d_acc, acc0.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemset(d_bad, 0, 4);
    dim3 grid((kCols + kBox - 1) / kBox, (kRows + kBox - 1) / kBox);
    if (multicast)
      tile_kernel<true><<<grid, 128>>>(in_map, out_map, acc_map, d_bad);
    else
      tile_kernel<false><<<grid, 128>>>(in_map, out_map, acc_map, d_bad);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::printf("FAIL launch: %s\n", cudaGetErrorString(e));
      return 1;
    }
    unsigned bad = 0;
    std::vector<float> out(n), acc(n);
    cudaMemcpy(&bad, d_bad, 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(out.data(), d_out, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(acc.data(), d_acc, n * 4, cudaMemcpyDeviceToHost);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += out[i] != 2.0f * h[i] || acc[i] != 1.0f + 2.0f * h[i];
    dumped.insert(dumped.end(), out.begin(), out.end());
    dumped.insert(dumped.end(), acc.begin(), acc.end());
    if (bad) std::printf("FAIL %u tile elements read wrong (multicast %d)\n", bad, multicast);
    if (wrong) std::printf("FAIL %zu output elements wrong (multicast %d)\n", wrong, multicast);
    failures += bad != 0 || wrong != 0;
  }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_acc);
  cudaFree(d_bad);
  if (dump) {  // every output element, for scripts/gpu-tma's GPU/emulator comparison
    FILE* f = std::fopen(dump, "wb");
    if (!f || std::fwrite(dumped.data(), 4, dumped.size(), f) != dumped.size()) {
      std::printf("FAIL cannot write %s\n", dump);
      ++failures;
    }
    if (f) std::fclose(f);
  }
  std::printf(failures ? "FAIL tma_tile\n" : "PASS tma_tile\n");
  return failures ? 1 : 0;
}
