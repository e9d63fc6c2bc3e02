// Hopper's stmatrix (sm_90) in the style of CUTLASS 3 epilogues: a tile
// loaded with ldmatrix is written back transposed with stmatrix.trans, and
// an f32 accumulator fragment is packed to half and stored with stmatrix.
// smemlab: --kernel stmatrixTranspose --grid 1 --block 32 --arg half[256]=random(12) --arg half[256]=zeros
// smemlab: --kernel stmatrixEpilogue --grid 1 --block 32 --arg float[128]=random(13) --arg half[128]=zeros
#include <cuda_fp16.h>
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(p)));
}

// A 16x16 half tile transposed through ldmatrix + stmatrix.trans (sm_90).
__global__ void stmatrixTranspose(const half* in, half* out) {
  __shared__ __align__(16) half s[256];
  __shared__ __align__(16) half t[256];
  int lane = threadIdx.x;
  for (int e = lane; e < 256; e += 32) s[e] = in[e];
  __syncwarp();
  uint32_t r[4];
  ldmatrix_x4(r, &s[(lane % 16) * 16 + (lane / 16) * 8]);
  // Matrix j = (row block j%2, column block j/2) goes to (column block, row block).
  const half* dst = &t[((lane / 8) % 2 * 8 + lane % 8) * 16 + (lane / 16) * 8];
  asm volatile(
      "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(smem_u32(dst)),
      "r"(r[0]), "r"(r[2]), "r"(r[1]), "r"(r[3]));
  __syncwarp();
  for (int e = lane; e < 256; e += 32) out[e] = t[e];
}

// A 16x8 f32 accumulator in the mma C layout (row g / g+8, columns 2t, 2t+1),
// read from acc[row * 8 + col], converted to half and stored row-major with
// stmatrix.x2 (matrix 0: rows 0-7, matrix 1: rows 8-15).
__global__ void stmatrixEpilogue(const float* acc, half* out) {
  __shared__ __align__(16) half tile[16 * 8];
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  __half2 lo = __floats2half2_rn(acc[g * 8 + 2 * t], acc[g * 8 + 2 * t + 1]);
  __half2 hi = __floats2half2_rn(acc[(g + 8) * 8 + 2 * t], acc[(g + 8) * 8 + 2 * t + 1]);
  const half* row = &tile[(lane % 16) * 8];  // lanes 0-15 address the 16 rows
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};\n" ::"r"(smem_u32(row)),
               "r"(*reinterpret_cast<uint32_t*>(&lo)), "r"(*reinterpret_cast<uint32_t*>(&hi)));
  __syncwarp();
  for (int e = lane; e < 128; e += 32) out[e] = tile[e];
}
