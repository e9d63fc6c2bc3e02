// Inline-PTX tensor-core code as flash-attention / GEMM tutorials write it:
// ldmatrix from swizzle-free shared tiles feeding mma.sync, fragments built
// by hand from global memory for the other shapes, results written back
// with the C fragment layout (row g / g+8, columns 2*tig, 2*tig+1).
// smemlab: --kernel mmaF16Ldmatrix --grid 2,2 --block 32 --arg half[1024]=random(1) --arg half[1024]=random(2) --arg float[512]=zeros --arg int=16 --arg int=32
// smemlab: --kernel mmaBf16Ldmatrix --grid 1,1 --block 32 --arg bf16[512]=random(3) --arg bf16[256]=random(4) --arg float[128]=zeros --arg int=8 --arg int=32
// smemlab: --kernel mmaM16n8k8F16 --grid 1 --block 32 --arg half[128]=random(5) --arg half[64]=random(6) --arg float[128]=zeros
// smemlab: --kernel mmaTf32 --grid 1 --block 32 --arg float[128]=random(7) --arg float[64]=random(8) --arg float[128]=random(9)
// smemlab: --kernel mmaS8 --grid 1 --block 32 --arg char[512]=random(10) --arg char[256]=random(11) --arg int[128]=zeros
#include <cuda_bf16.h>
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
__device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(smem_u32(p)));
}

template <bool BF16>
__device__ void mma16816(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  if (BF16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// C(16x8 tile) = A(row-major M x K) * B^T where Bt is N x K (b(k, n) = Bt[n*K + k]).
template <typename T, bool BF16>
__device__ void mma_tile(const T* A, const T* Bt, float* C, int N, int K) {
  __shared__ __align__(16) T sa[16 * 16];
  __shared__ __align__(16) T sb[8 * 16];
  int lane = threadIdx.x, tm = blockIdx.y, tn = blockIdx.x;
  float d[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int e = lane; e < 256; e += 32) sa[e] = A[(tm * 16 + e / 16) * K + k0 + e % 16];
    for (int e = lane; e < 128; e += 32) sb[e] = Bt[(tn * 8 + e / 16) * K + k0 + e % 16];
    __syncwarp();
    uint32_t a[4], b[2];
    ldmatrix_x4(a, &sa[(lane % 16) * 16 + (lane / 16) * 8]);
    ldmatrix_x2(b, &sb[(lane % 8) * 16 + ((lane / 8) % 2) * 8]);
    mma16816<BF16>(d, a, b);
    __syncwarp();
  }
  int g = lane / 4, t = lane % 4;
  float* c = C + (tm * 16) * N + tn * 8;
  c[g * N + 2 * t] = d[0];
  c[g * N + 2 * t + 1] = d[1];
  c[(g + 8) * N + 2 * t] = d[2];
  c[(g + 8) * N + 2 * t + 1] = d[3];
}

__global__ void mmaF16Ldmatrix(const half* A, const half* Bt, float* C, int N, int K) {
  mma_tile<half, false>(A, Bt, C, N, K);
}
__global__ void mmaBf16Ldmatrix(const __nv_bfloat16* A, const __nv_bfloat16* Bt, float* C, int N,
                                int K) {
  mma_tile<__nv_bfloat16, true>(A, Bt, C, N, K);
}

__device__ __forceinline__ uint32_t pack2(half lo, half hi) {
  __half2 h = __halves2half2(lo, hi);
  return *reinterpret_cast<uint32_t*>(&h);
}

// One m16n8k8 f16 -> f32: A 16x8 row-major, B 8x8 (b[k*8 + n]), C 16x8.
__global__ void mmaM16n8k8F16(const half* A, const half* B, float* C) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  uint32_t a0 = pack2(A[g * 8 + 2 * t], A[g * 8 + 2 * t + 1]);
  uint32_t a1 = pack2(A[(g + 8) * 8 + 2 * t], A[(g + 8) * 8 + 2 * t + 1]);
  uint32_t b0 = pack2(B[(2 * t) * 8 + g], B[(2 * t + 1) * 8 + g]);
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a0), "r"(a1), "r"(b0));
  C[g * 8 + 2 * t] = d0;
  C[g * 8 + 2 * t + 1] = d1;
  C[(g + 8) * 8 + 2 * t] = d2;
  C[(g + 8) * 8 + 2 * t + 1] = d3;
}

// m16n8k8 tf32: D = A(16x8) * B(8x8, b[k*8+n]) + C, in place in C.
__global__ void mmaTf32(const float* A, const float* B, float* C) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  uint32_t a[4], b[2];
  auto tf = [](float x) {
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
  };
  a[0] = tf(A[g * 8 + t]);
  a[1] = tf(A[(g + 8) * 8 + t]);
  a[2] = tf(A[g * 8 + t + 4]);
  a[3] = tf(A[(g + 8) * 8 + t + 4]);
  b[0] = tf(B[t * 8 + g]);
  b[1] = tf(B[(t + 4) * 8 + g]);
  float d[4] = {C[g * 8 + 2 * t], C[g * 8 + 2 * t + 1], C[(g + 8) * 8 + 2 * t],
                C[(g + 8) * 8 + 2 * t + 1]};
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  C[g * 8 + 2 * t] = d[0];
  C[g * 8 + 2 * t + 1] = d[1];
  C[(g + 8) * 8 + 2 * t] = d[2];
  C[(g + 8) * 8 + 2 * t + 1] = d[3];
}

// m16n8k32 s8: A 16x32 row-major, Bt 8x32 (b(k, n) = Bt[n*32 + k]), int32 C.
__global__ void mmaS8(const int8_t* A, const int8_t* Bt, int* C) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  auto word = [](const int8_t* p) { return *reinterpret_cast<const uint32_t*>(p); };
  uint32_t a0 = word(A + g * 32 + 4 * t), a1 = word(A + (g + 8) * 32 + 4 * t);
  uint32_t a2 = word(A + g * 32 + 16 + 4 * t), a3 = word(A + (g + 8) * 32 + 16 + 4 * t);
  uint32_t b0 = word(Bt + g * 32 + 4 * t), b1 = word(Bt + g * 32 + 16 + 4 * t);
  int d[4] = {0, 0, 0, 0};
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  C[g * 8 + 2 * t] = d[0];
  C[g * 8 + 2 * t + 1] = d[1];
  C[(g + 8) * 8 + 2 * t] = d[2];
  C[(g + 8) * 8 + 2 * t + 1] = d[3];
}
