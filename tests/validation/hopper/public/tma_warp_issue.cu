// How many copies a TMA or bulk-copy instruction makes when several lanes of
// a warp execute it (run 15, h-hop28g; docs/bank-model.md, "TMA issued once
// per warp"). CUTLASS 3's epilogue issues its TMA store from a whole warp
// with the same operands; the H100 counted one copy per warp there. This
// probe asks the cases CUTLASS did not: lanes with 2 and 32 different
// coordinates, loads, and the 1-D bulk copies. One block of 32 threads,
// one launch per mode (ncu pairs them in order):
//   0 store_same   1 store_two   2 store_all     (tensor store, y = 0 / (lane&1)*8 / lane*8)
//   3 reduce_same  4 reduce_two                  (tensor reduce-add of 1s into zeros)
//   5 load_same    6 load_two                    (tensor load; lane 0 expects 1 or 2 boxes)
//   7 bulk_store_same  8 bulk_reduce_same  9 bulk_load_same   (1-D, 1,024 bytes)
// Each launch prints what global memory shows: a reduction's value is the
// number of copies that reached the element (1 per copy); a load, whether
// its phase completed.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "../../../programs/tensor_map.cuh"

constexpr int kCols = 32, kRows = 256, kBoxRows = 8;  // u32; a box is 32 x 8 = 1,024 bytes
const char* const kModes[] = {"store_same",      "store_two",        "store_all",
                              "reduce_same",     "reduce_two",       "load_same",
                              "load_two",        "bulk_store_same",  "bulk_reduce_same",
                              "bulk_load_same"};

__global__ void probe(const __grid_constant__ CUtensorMap map, uint32_t* g, int mode, int* done) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const uint32_t bar = base, box = base + 1024;
  const uint32_t lane = threadIdx.x;
  uint32_t* s = reinterpret_cast<uint32_t*>(smem + 1024);
  for (int i = lane; i < kCols * kBoxRows; i += 32) s[i] = 1;
  if (lane == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncwarp();
  const int y = mode == 1 || mode == 4 || mode == 6 ? (lane & 1) * kBoxRows
                : mode == 2                          ? lane * kBoxRows
                                                     : 0;
  const bool load = mode == 5 || mode == 6 || mode == 9;
  if (load && lane == 0)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                 "r"(mode == 6 ? 2048 : 1024)
                 : "memory");
  __syncwarp();
  if (mode <= 2)
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
            &map),
        "r"(0), "r"(y), "r"(box)
        : "memory");
  else if (mode <= 4)
    asm volatile(
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"
        " [%0, {%1, %2}], [%3];" ::"l"(&map),
        "r"(0), "r"(y), "r"(box)
        : "memory");
  else if (mode <= 6)
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];" ::"r"(box + (mode == 6 ? (lane & 1) * 1024 : 0)),
        "l"(&map), "r"(0), "r"(y), "r"(bar)
        : "memory");
  else if (mode == 7)
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" ::"l"(g),
                 "r"(box)
                 : "memory");
  else if (mode == 8)
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 1024;" ::
                     "l"(g),
                 "r"(box)
                 : "memory");
  else
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::
            "r"(box),
        "l"(g), "r"(bar)
        : "memory");
  if (!load) {
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    return;
  }
  uint32_t ok = 0;
  for (int i = 0; i < 1000000 && !ok; ++i)
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
        " selp.u32 %0, 1, 0, p;\n}"
        : "=r"(ok)
        : "r"(bar)
        : "memory");
  if (lane == 0) *done = static_cast<int>(ok);
}

int main() {
  EncodeTiled encode = encode_tiled();
  if (!encode) {
    std::printf("no cuTensorMapEncodeTiled\n");
    return 1;
  }
  const size_t bytes = size_t{kCols} * kRows * 4;
  uint32_t* g;
  int* done;
  cudaMalloc(&g, bytes);
  cudaMalloc(&done, sizeof(int));
  CUtensorMap map;
  const cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * 4};
  const cuuint32_t boxdim[2] = {kCols, kBoxRows}, es[2] = {1, 1};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, g, dims, strides, boxdim, es,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::printf("encode failed\n");
    return 1;
  }
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096);
  std::vector<uint32_t> h(bytes / 4);
  int status = 0;
  for (int mode = 0; mode < 10; ++mode) {
    cudaMemset(g, 0, bytes);
    cudaMemset(done, 0, sizeof(int));
    probe<<<1, 32, 4096>>>(map, g, mode, done);
    cudaError_t e = cudaDeviceSynchronize();
    int d = 0;
    cudaMemcpy(h.data(), g, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(&d, done, sizeof(int), cudaMemcpyDeviceToHost);
    // Rows 0 and 8 (the two boxes of *_two) and row 248 (lane 31's of store_all).
    std::printf("mode %d %s: %s; element (0,0) %u, (0,8) %u, (0,248) %u; load phase %s\n", mode,
                kModes[mode], cudaGetErrorString(e), h[0], h[8 * kCols], h[248 * kCols],
                d ? "completed" : "not completed");
    if (e != cudaSuccess) status = 1;
  }
  return status;
}
