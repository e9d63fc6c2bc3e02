// wgmma.mma_async kernels written as users write them (inline PTX, as
// CUTLASS and hand-written Hopper GEMMs do): 64 x 64 x 64 products with A
// and B in 128-byte-swizzled shared memory filled by plain stores, 4 wgmma
// k-steps each advancing the descriptors' start by 32 bytes; variants for
// every A/B type, f16 accumulators, A from registers, transposed (MN-major)
// operands, scale-d, imm-scale -1 and a descriptor base offset. Also the fp8
// mma.sync and cvt forms. scripts/gpu-wgmma runs each recipe with
// `smemlab run --compare` on an H100; tests/programs/wgmma_gemm.cu is the
// whole program. Needs -arch=sm_90a (the recipes say so).
//
// Buffers: A is 64 rows of 128 bytes (row m: the K elements of row m of A),
// B is 64 rows of 128 bytes (row n: the K elements of column n of B), D is
// 64 x 64 row-major. K = 128 bytes / element size.
#include <cuda_fp16.h>

#include <cstdint>

__device__ inline void wg_f16_n64(float* d, uint64_t da, uint64_t db, int scale) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale));
}

__device__ inline void wg_f16_n64_t(float* d, uint64_t da, uint64_t db, int scale) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale));
}

__device__ inline void wg_f16_n64_regs(float* d, const uint32_t* a, uint64_t db, int scale) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, -1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale));
}

__device__ inline void wg_f16acc_n64(uint32_t* d, uint64_t da, uint64_t db, int scale) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1, 0, 0;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
      : "l"(da), "l"(db), "r"(scale));
}

__device__ inline void wg_bf16_n64(float* d, uint64_t da, uint64_t db, int scale) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale));
}

__device__ inline void wg_tf32_n64(float* d, uint64_t da, uint64_t db, int scale) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale));
}

__device__ inline void wg_e4m3_n64(float* d, uint64_t da, uint64_t db, int scale) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, -1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale));
}

__device__ inline void wg_s8_n64(int* d, uint64_t da, uint64_t db, int scale) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.u8 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
      : "l"(da), "l"(db), "r"(scale));
}

// Byte offset of byte `b` (0..127) of row r in a 128B-swizzled tile of
// 128-byte rows: the 16-byte chunk b / 16 is stored at chunk (b / 16) ^ (r % 8).
__device__ inline uint32_t sw128(uint32_t r, uint32_t b) {
  return r * 128 + ((((b >> 4) ^ r) & 7) << 4) + (b & 15);
}

// Descriptor of a K-major 128B-swizzled tile at shared address `addr`
// (SBO = 1024: the next 8 rows; LBO unused).
__device__ inline uint64_t desc_k128(uint32_t addr, uint32_t base_offset = 0) {
  return uint64_t{(addr & 0x3ffff) >> 4} | uint64_t{1} << 16 | uint64_t{1024 >> 4} << 32 |
         uint64_t{base_offset} << 49 | uint64_t{1} << 62;
}

__device__ inline uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void fence_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ inline void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void wg_commit_wait() {
  asm volatile("wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

// Copies the 64 x 128-byte A and B into the swizzled tiles, with plain stores.
__device__ inline void fill(uint8_t* sa, uint8_t* sb, const uint32_t* a, const uint32_t* b,
                            uint32_t pad = 0) {
  for (uint32_t i = threadIdx.x; i < 64 * 32; i += blockDim.x) {
    uint32_t r = i / 32, byte = (i % 32) * 4;
    *reinterpret_cast<uint32_t*>(sa + pad + sw128(r, byte)) = a[i];
    *reinterpret_cast<uint32_t*>(sb + pad + sw128(r, byte)) = b[i];
  }
  fence_async();
  __syncthreads();
}

// D fragment element i of this thread: row, column of the 64 x 64 D.
__device__ inline int d_row(int i) { return 16 * (threadIdx.x / 32) + (threadIdx.x % 32) / 4 + 8 * ((i / 2) % 2); }
__device__ inline int d_col(int i) { return 8 * (i / 4) + 2 * (threadIdx.x % 4) + i % 2; }

template <typename Acc, typename F>
__device__ inline void kernel_body(const uint32_t* a, const uint32_t* b, Acc* out, F mma,
                                   uint32_t pad = 0) {
  __shared__ __align__(1024) uint8_t sa[8192 + 1024], sb[8192 + 1024];
  fill(sa, sb, a, b, pad);
  Acc d[32];
  for (int i = 0; i < 32; ++i) d[i] = Acc(0);
  wg_fence();
  for (int kb = 0; kb < 4; ++kb) mma(d, smem(sa) + pad + 32 * kb, smem(sb) + pad + 32 * kb, kb);
  wg_commit_wait();
  for (int i = 0; i < 32; ++i) out[d_row(i) * 64 + d_col(i)] = d[i];
}

// smemlab: --kernel wgmmaF16 --grid 1 --block 128 --Xnvcc -arch=sm_90a --arg ushort[4096]=random(1) --arg ushort[4096]=random(2) --arg float[4096]=zeros
__global__ void wgmmaF16(const uint32_t* a, const uint32_t* b, float* out) {
  kernel_body(a, b, out, [](float* d, uint32_t pa, uint32_t pb, int kb) {
    wg_f16_n64(d, desc_k128(pa), desc_k128(pb), kb > 0);
  });
}

// smemlab: --kernel wgmmaBf16 --grid 1 --block 128 --Xnvcc -arch=sm_90a --arg ushort[4096]=random(3) --arg ushort[4096]=random(4) --arg float[4096]=zeros
__global__ void wgmmaBf16(const uint32_t* a, const uint32_t* b, float* out) {
  kernel_body(a, b, out, [](float* d, uint32_t pa, uint32_t pb, int kb) {
    wg_bf16_n64(d, desc_k128(pa), desc_k128(pb), kb > 0);
  });
}

// smemlab: --kernel wgmmaTf32 --grid 1 --block 128 --Xnvcc -arch=sm_90a --arg float[2048]=random(5) --arg float[2048]=random(6) --arg float[4096]=zeros
__global__ void wgmmaTf32(const uint32_t* a, const uint32_t* b, float* out) {
  kernel_body(a, b, out, [](float* d, uint32_t pa, uint32_t pb, int kb) {
    wg_tf32_n64(d, desc_k128(pa), desc_k128(pb), kb > 0);
  });
}

// e4m3 A, e5m2 B, imm-scale-a = -1.
// smemlab: --kernel wgmmaFp8 --grid 1 --block 128 --Xnvcc -arch=sm_90a --arg uchar[8192]=random(7) --arg uchar[8192]=random(8) --arg float[4096]=zeros
__global__ void wgmmaFp8(const uint32_t* a, const uint32_t* b, float* out) {
  kernel_body(a, b, out, [](float* d, uint32_t pa, uint32_t pb, int kb) {
    wg_e4m3_n64(d, desc_k128(pa), desc_k128(pb), kb > 0);
  });
}

// s8 A, u8 B, s32 D.
// smemlab: --kernel wgmmaS8 --grid 1 --block 128 --Xnvcc -arch=sm_90a --arg uchar[8192]=random(9) --arg uchar[8192]=random(10) --arg int[4096]=zeros
__global__ void wgmmaS8(const uint32_t* a, const uint32_t* b, int* out) {
  kernel_body(a, b, out, [](int* d, uint32_t pa, uint32_t pb, int kb) {
    wg_s8_n64(d, desc_k128(pa), desc_k128(pb), kb > 0);
  });
}

// The same f16 product with both tiles 384 bytes past a 1024-byte boundary:
// the swizzle pattern starts there, and the descriptors say so (base offset 3).
// smemlab: --kernel wgmmaBaseOffset --grid 1 --block 128 --Xnvcc -arch=sm_90a --arg ushort[4096]=random(1) --arg ushort[4096]=random(2) --arg float[4096]=zeros
__global__ void wgmmaBaseOffset(const uint32_t* a, const uint32_t* b, float* out) {
  kernel_body(
      a, b, out,
      [](float* d, uint32_t pa, uint32_t pb, int kb) {
        wg_f16_n64(d, desc_k128(pa, 3), desc_k128(pb, 3), kb > 0);
      },
      384);
}

// f16 accumulators (two to a register): D is 64 x 64 f16, as ushort.
// smemlab: --kernel wgmmaF16Acc --grid 1 --block 128 --Xnvcc -arch=sm_90a --arg ushort[4096]=random(11) --arg ushort[4096]=random(12) --arg ushort[4096]=zeros
__global__ void wgmmaF16Acc(const uint32_t* a, const uint32_t* b, uint16_t* out) {
  __shared__ __align__(1024) uint8_t sa[8192], sb[8192];
  fill(sa, sb, a, b);
  uint32_t d[16] = {};
  wg_fence();
  for (int kb = 0; kb < 4; ++kb)
    wg_f16acc_n64(d, desc_k128(smem(sa) + 32 * kb), desc_k128(smem(sb) + 32 * kb), kb > 0);
  wg_commit_wait();
  for (int i = 0; i < 32; ++i) out[d_row(i) * 64 + d_col(i)] = uint16_t(d[i / 2] >> (16 * (i % 2)));
}

// A from registers (each thread loads its fragment from global memory),
// B swizzled in shared memory, imm-scale-b = -1.
// smemlab: --kernel wgmmaRegA --grid 1 --block 128 --Xnvcc -arch=sm_90a --arg ushort[4096]=random(13) --arg ushort[4096]=random(14) --arg float[4096]=zeros
__global__ void wgmmaRegA(const uint32_t* a, const uint32_t* b, float* out) {
  __shared__ __align__(1024) uint8_t sa[8192], sb[8192];
  fill(sa, sb, a, b);
  const uint16_t* ah = reinterpret_cast<const uint16_t*>(a);
  float d[32] = {};
  wg_fence();
  const int w = threadIdx.x / 32, g = (threadIdx.x % 32) / 4, t = threadIdx.x % 4;
  for (int kb = 0; kb < 4; ++kb) {
    uint32_t frag[4];
    for (int r = 0; r < 4; ++r) {
      int row = 16 * w + g + 8 * (r % 2), col = 16 * kb + 2 * t + 8 * (r / 2);
      frag[r] = ah[row * 64 + col] | uint32_t{ah[row * 64 + col + 1]} << 16;
    }
    wg_f16_n64_regs(d, frag, desc_k128(smem(sb) + 32 * kb), kb > 0);
  }
  wg_commit_wait();
  for (int i = 0; i < 32; ++i) out[d_row(i) * 64 + d_col(i)] = d[i];
}

// Both operands MN-major (imm-trans-a = imm-trans-b = 1), 128B swizzle: A^T
// and B^T in shared memory, k-rows of 64 elements (128 bytes), 8 k-rows a
// 1024-byte atom; SBO = 1024 (the next 8 k-rows), LBO unused (M = N = 64).
// smemlab: --kernel wgmmaTransposed --grid 1 --block 128 --Xnvcc -arch=sm_90a --arg ushort[4096]=random(15) --arg ushort[4096]=random(16) --arg float[4096]=zeros
__global__ void wgmmaTransposed(const uint32_t* a, const uint32_t* b, float* out) {
  __shared__ __align__(1024) uint8_t sa[8192], sb[8192];
  const uint16_t* ah = reinterpret_cast<const uint16_t*>(a);
  const uint16_t* bh = reinterpret_cast<const uint16_t*>(b);
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
    int mn = i % 64, k = i / 64;  // element (mn, k) goes to k-row k, byte 2 mn
    uint32_t off = sw128(k, 2 * mn);
    *reinterpret_cast<uint16_t*>(sa + off) = ah[mn * 64 + k];
    *reinterpret_cast<uint16_t*>(sb + off) = bh[mn * 64 + k];
  }
  fence_async();
  __syncthreads();
  float d[32] = {};
  wg_fence();
  for (int kb = 0; kb < 4; ++kb)  // 16 k = two 8-row groups = 2048 bytes
    wg_f16_n64_t(d, desc_k128(smem(sa) + 2048 * kb), desc_k128(smem(sb) + 2048 * kb), kb > 0);
  wg_commit_wait();
  for (int i = 0; i < 32; ++i) out[d_row(i) * 64 + d_col(i)] = d[i];
}

// fp8 conversions: every f16 bit pattern of `in` (as pairs) to e4m3x2 and
// e5m2x2 and back, and f32 pairs (two f16 values widened) with .relu.
// smemlab: --kernel cvtFp8 --grid 64 --block 256 --Xnvcc -arch=sm_90a --arg uint[16384]=iota --arg uint[65536]=zeros
__global__ void cvtFp8(const uint32_t* in, uint32_t* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t h2 = (in[i] * 2u) | ((in[i] * 2u + 1u) << 16);  // f16x2 {2i, 2i+1}
  uint16_t e4, e5, r4;
  uint32_t back4, back5;
  float lo = __half2float(__ushort_as_half(uint16_t(h2))), hi = __half2float(__ushort_as_half(uint16_t(h2 >> 16)));
  asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(e4) : "r"(h2));
  asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(e5) : "r"(h2));
  asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(r4) : "f"(hi * 0.75f), "f"(lo * 3.0f));
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(back4) : "h"(e4));
  asm("cvt.rn.relu.f16x2.e5m2x2 %0, %1;" : "=r"(back5) : "h"(e5));
  out[4 * i] = e4 | uint32_t{e5} << 16;
  out[4 * i + 1] = r4;
  out[4 * i + 2] = back4;
  out[4 * i + 3] = back5;
}

// mma.sync m16n8k32 with e4m3 A and e5m2 B: one warp, fragments straight
// from global memory (A 16 x 32 bytes row-major, B 8 x 32 bytes: column n).
// smemlab: --kernel mmaFp8 --grid 1 --block 32 --Xnvcc -arch=sm_90a --arg uchar[512]=random(17) --arg uchar[256]=random(18) --arg float[128]=zeros --arg ushort[128]=zeros
__global__ void mmaFp8(const uint8_t* a, const uint8_t* b, float* out, uint16_t* out16) {
  const int l = threadIdx.x, g = l / 4, t = l % 4;
  uint32_t fa[4], fb[2];
  for (int r = 0; r < 4; ++r)
    fa[r] = *reinterpret_cast<const uint32_t*>(a + (g + 8 * (r % 2)) * 32 + 4 * t + 16 * (r / 2));
  for (int r = 0; r < 2; ++r) fb[r] = *reinterpret_cast<const uint32_t*>(b + g * 32 + 4 * t + 16 * r);
  float d[4] = {0.5f, -0.25f, 1.0f, 2.0f};
  asm("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
  uint32_t h[2] = {0, 0};
  asm("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};"
      : "+r"(h[0]), "+r"(h[1])
      : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
  for (int i = 0; i < 4; ++i) {
    int row = g + 8 * (i / 2), col = 2 * t + i % 2;
    out[row * 8 + col] = d[i];
    out16[row * 8 + col] = uint16_t(h[i / 2] >> (16 * (i % 2)));
  }
}
