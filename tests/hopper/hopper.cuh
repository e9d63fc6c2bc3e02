// What the Hopper protocol programs (tests/hopper/README.md) share: PTX
// wrappers for mbarriers, TMA and bulk groups, proxy fences, wgmma and
// clusters, each one instruction so that a finding's line is the call's
// line in the program (nvcc -lineinfo keeps the call site of inlined code);
// on the host, tensor maps and the program's last line. Build: nvcc
// -gencode arch=compute_90a,code=[sm_90a,compute_90a] -lineinfo.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace hopper {

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// ---- mbarriers ------------------------------------------------------------
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}
// Makes this thread's mbarrier.init visible to the cluster's other blocks
// (before a cluster barrier they pass).
__device__ __forceinline__ void fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void mbar_arrive_count(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(count)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes)
               : "memory");
}
// Arrive on the mbarrier at the same offset in block `rank` of the cluster.
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t rank) {
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}" ::"r"(smem(bar)),
      "r"(rank)
      : "memory");
}
// Waits until the phase of parity `parity` has completed (try_wait loop,
// as CUTLASS's ClusterBarrier::wait).
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred done;\n LAB_WAIT:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra LAB_WAIT;\n}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}
// The same wait with cluster scope: the phase may be completed by peers.
__device__ __forceinline__ void mbar_wait_cluster(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n .reg .pred done;\n LAB_WAIT:\n"
      " mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra LAB_WAIT;\n}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}

// ---- TMA and bulk copies ----------------------------------------------------
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int x, int y,
                                            uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem(bar))
      : "memory");
}
// The box goes to `dst` and its bytes to `bar` at the same offsets in every
// block of `mask` (cluster ranks).
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map, int x,
                                                      int y, uint64_t* bar, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem(bar)), "h"(mask)
      : "memory");
}
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, int x, int y,
                                             const void* src) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map),
      "r"(x), "r"(y), "r"(smem(src))
      : "memory");
}
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// The committed bulk groups have read their shared memory.
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
// Generic-proxy writes before it become visible to the async proxy (TMA
// stores, wgmma operands).
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---- wgmma ----------------------------------------------------------------------
// K-major operand tile of 64-element f16 rows (128 bytes) with the 128-byte
// swizzle, as TMA writes it with CU_TENSOR_MAP_SWIZZLE_128B: 8 rows of 128
// bytes apart by 1024 (SBO). The tile must be 1024-byte aligned.
__device__ __forceinline__ uint64_t desc128(const void* p) {
  const uint32_t a = smem(p);
  return uint64_t{(a & 0x3ffff) >> 4} | uint64_t{1} << 16 | uint64_t{1024 >> 4} << 32 |
         uint64_t{1} << 62;
}
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_wait0() {
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}
// d (64 x 64 f32, 32 per thread of the warpgroup) += A (64 x 16 f16) * B
// (16 x 64 f16), both K-major from shared memory.
__device__ __forceinline__ void wgmma_64x64x16(float* d, uint64_t da, uint64_t db) {
  asm volatile(
      "{\n .reg .pred acc;\n setp.ne.b32 acc, %34, 0;\n"
      " wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
      "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, acc, 1, 1, 0, "
      "0;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(1));
}
// The element of the 64 x 64 accumulator that register i of thread t holds.
__device__ __forceinline__ int acc_row(int t, int i) {
  return 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2);
}
__device__ __forceinline__ int acc_col(int t, int i) { return 8 * (i / 4) + 2 * (t % 4) + i % 2; }
// The warpgroup's accumulators `d` into the row-major 64 x 64 matrix `c`.
__device__ __forceinline__ void store_acc_64x64(float* c, const float* d) {
  for (int i = 0; i < 32; ++i) c[acc_row(threadIdx.x, i) * 64 + acc_col(threadIdx.x, i)] = d[i];
}

// ---- clusters -----------------------------------------------------------------
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}
// The shared::cluster address of `p`'s offset in block `rank` of the cluster.
__device__ __forceinline__ uint32_t map_rank(const void* p, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem(p)), "r"(rank));
  return r;
}
__device__ __forceinline__ void st_cluster(uint32_t addr, int v) {
  asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ int ld_cluster(uint32_t addr) {
  int v;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

// ---- host -------------------------------------------------------------------------
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// A 2-D tensor map over `rows` rows of `cols` elements of `bytes` bytes
// (row-major), boxes of box_rows x box_cols; exits when the driver refuses it.
inline CUtensorMap map_2d(void* base, CUtensorMapDataType type, int bytes, uint64_t cols,
                          uint64_t rows, uint32_t box_cols, uint32_t box_rows,
                          CUtensorMapSwizzle swizzle) {
  static EncodeTiled encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !fn) {
      std::printf("FAIL no cuTensorMapEncodeTiled\n");
      std::exit(1);
    }
    return reinterpret_cast<EncodeTiled>(fn);
  }();
  CUtensorMap m;
  cuuint64_t dims[2] = {cols, rows}, strides[1] = {cols * bytes};
  cuuint32_t box[2] = {box_cols, box_rows}, es[2] = {1, 1};
  CUresult r = encode(&m, type, 2, base, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                      swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::printf("FAIL cuTensorMapEncodeTiled: %d\n", static_cast<int>(r));
    std::exit(1);
  }
  return m;
}

// f16 bits of a float that is a multiple of 1/8 in [-4, 4) (exact).
inline uint16_t to_half(float f) {
  if (f == 0.0f) return 0;
  uint32_t x;
  std::memcpy(&x, &f, 4);
  int e = static_cast<int>((x >> 23) & 0xff) - 127;
  return static_cast<uint16_t>((x >> 16 & 0x8000) | (e + 15) << 10 | (x >> 13 & 0x3ff));
}

// Device allocations that release_all() frees (every program frees what
// it allocated: check counts leaks).
inline std::vector<void*>& allocations() {
  static std::vector<void*> v;
  return v;
}
template <class T>
cudaError_t dev_alloc(T** p, size_t bytes) {
  cudaError_t e = cudaMalloc(p, bytes);
  if (e == cudaSuccess) allocations().push_back(*p);
  return e;
}
inline void release_all() {
  for (void* p : allocations()) cudaFree(p);
  allocations().clear();
}

// A column of `tiles` 32 x 32 float tiles (`*in`, rows of 32 floats, boxes
// of 32 x `box_rows` without a swizzle) and an output buffer of the same
// size (`*out`), both device allocations that release_all() frees; the
// input is zeroed (the caller may copy its own data in). The programs' shared
// set-up: a TMA stage is one tile.
inline CUtensorMap tile_column(float** in, float** out, int tiles, uint32_t box_rows = 32) {
  const size_t bytes = size_t{32} * 32 * 4 * tiles;
  dev_alloc(in, bytes);
  dev_alloc(out, bytes);
  cudaMemset(*in, 0, bytes);
  return map_2d(*in, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, 32, 32 * tiles, 32, box_rows,
                CU_TENSOR_MAP_SWIZZLE_NONE);
}

// Waits for the launch; prints "DONE name: error" (a planted defect's
// program reports what the launch gave, not a verdict). Returns the error.
inline cudaError_t finish_launch(const char* name) {
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("DONE %s: %s\n", name, cudaGetErrorName(e));
  return e;
}

}  // namespace hopper
