// Matrix multiply C = A * B in FP32 (row-major: A is MxK, B is KxN, C is MxN).
//
// From the naive kernel through the classic shared-memory tiled kernel to a
// register-blocked SGEMM: each step shows what shared memory buys. Device code
// only; the host side lives in bench/matmul_bench.cu. Every kernel handles any
// M, N, K (zero-filled tile edges, guarded stores). The sgemm_* kernels take a
// float4 path when K % 4 == 0 and N % 4 == 0 (rows then start 16-byte aligned)
// and a scalar path otherwise; the host picks the instance.
//
// Emulator launch recipes (small sizes; parameters are A, B, C, M, N, K):
// clang-format off
// smemlab: --kernel matmul_naive --grid 2,8 --block 32,8 --arg float[4096]=random(1) --arg float[4096]=random(2) --arg float[4096]=zeros --arg int=64 --arg int=64 --arg int=64
// smemlab: --kernel matmul_naive --grid 2,8 --block 32,8 --arg float[4087]=random(1) --arg float[4221]=random(2) --arg float[3843]=zeros --arg int=61 --arg int=63 --arg int=67
// smemlab: --kernel matmul_tiled16 --grid 4,4 --block 16,16 --arg float[4096]=random(1) --arg float[4096]=random(2) --arg float[4096]=zeros --arg int=64 --arg int=64 --arg int=64
// smemlab: --kernel matmul_tiled16 --grid 4,4 --block 16,16 --arg float[4087]=random(1) --arg float[4221]=random(2) --arg float[3843]=zeros --arg int=61 --arg int=63 --arg int=67
// smemlab: --kernel matmul_tiled32 --grid 2,2 --block 32,32 --arg float[4096]=random(1) --arg float[4096]=random(2) --arg float[4096]=zeros --arg int=64 --arg int=64 --arg int=64
// smemlab: --kernel matmul_tiled32 --grid 2,2 --block 32,32 --arg float[4087]=random(1) --arg float[4221]=random(2) --arg float[3843]=zeros --arg int=61 --arg int=63 --arg int=67
// smemlab: --kernel sgemm_128x128x8_vec --grid 1,1 --block 256 --arg float[4096]=random(1) --arg float[4096]=random(2) --arg float[4096]=zeros --arg int=64 --arg int=64 --arg int=64
// smemlab: --kernel sgemm_128x128x8_scalar --grid 1,1 --block 256 --arg float[4087]=random(1) --arg float[4221]=random(2) --arg float[3843]=zeros --arg int=61 --arg int=63 --arg int=67
// smemlab: --kernel sgemm_128x128x16_vec --grid 1,1 --block 256 --arg float[4096]=random(1) --arg float[4096]=random(2) --arg float[4096]=zeros --arg int=64 --arg int=64 --arg int=64
// smemlab: --kernel sgemm_128x128x16_scalar --grid 1,1 --block 256 --arg float[4087]=random(1) --arg float[4221]=random(2) --arg float[3843]=zeros --arg int=61 --arg int=63 --arg int=67
// smemlab: --kernel sgemm_128x256x8_vec --grid 1,1 --block 512 --arg float[4096]=random(1) --arg float[4096]=random(2) --arg float[4096]=zeros --arg int=64 --arg int=64 --arg int=64
// smemlab: --kernel sgemm_128x256x8_scalar --grid 1,1 --block 512 --arg float[4087]=random(1) --arg float[4221]=random(2) --arg float[3843]=zeros --arg int=61 --arg int=63 --arg int=67
// smemlab: --kernel sgemm_256x128x8_vec --grid 1,1 --block 512 --arg float[4096]=random(1) --arg float[4096]=random(2) --arg float[4096]=zeros --arg int=64 --arg int=64 --arg int=64
// smemlab: --kernel sgemm_256x128x8_scalar --grid 1,1 --block 512 --arg float[4087]=random(1) --arg float[4221]=random(2) --arg float[3843]=zeros --arg int=61 --arg int=63 --arg int=67
// smemlab: --kernel sgemm_256x128x8_pf_vec --grid 1,1 --block 512 --arg float[4096]=random(1) --arg float[4096]=random(2) --arg float[4096]=zeros --arg int=64 --arg int=64 --arg int=64
// smemlab: --kernel sgemm_256x128x8_pf_scalar --grid 1,1 --block 512 --arg float[4087]=random(1) --arg float[4221]=random(2) --arg float[3843]=zeros --arg int=61 --arg int=63 --arg int=67
// smemlab: --kernel sgemm_256x128x8_t16_vec --grid 1,1 --block 256 --arg float[4096]=random(1) --arg float[4096]=random(2) --arg float[4096]=zeros --arg int=64 --arg int=64 --arg int=64
// smemlab: --kernel sgemm_256x128x8_t16_scalar --grid 1,1 --block 256 --arg float[4087]=random(1) --arg float[4221]=random(2) --arg float[3843]=zeros --arg int=61 --arg int=63 --arg int=67
// smemlab: --kernel sgemm_128x64x8_vec --grid 2,1 --block 128 --arg float[4096]=random(1) --arg float[4352]=random(2) --arg float[4352]=zeros --arg int=64 --arg int=68 --arg int=64
// smemlab: --kernel sgemm_128x64x8_scalar --grid 2,1 --block 128 --arg float[3843]=random(1) --arg float[4221]=random(2) --arg float[4087]=zeros --arg int=61 --arg int=67 --arg int=63
// smemlab: --kernel sgemm_64x64x8_vec --grid 2,2 --block 64 --arg float[4352]=random(1) --arg float[4352]=random(2) --arg float[4624]=zeros --arg int=68 --arg int=68 --arg int=64
// smemlab: --kernel sgemm_64x64x8_scalar --grid 2,2 --block 64 --arg float[4221]=random(1) --arg float[4221]=random(2) --arg float[4489]=zeros --arg int=67 --arg int=67 --arg int=63
// clang-format on
#include <cstdint>

// Naive: one output per thread, every operand fetched from global memory (K
// loads of A and K loads of B per output; the caches are the only reuse).
extern "C" __global__ void matmul_naive(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
  C[(size_t)row * N + col] = acc;
}

// The classic tiled kernel: a TILE x TILE block stages one tile of A and one
// of B in shared memory, so each global element is loaded once per tile
// instead of once per output (TILE-fold reuse).
template <int TILE>
__device__ __forceinline__ void matmul_tiled_body(const float* __restrict__ A,
                                                  const float* __restrict__ B,
                                                  float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

// Classic tiled kernel with 16x16 tiles (256 threads, 2 KiB of shared memory).
extern "C" __global__ void matmul_tiled16(const float* __restrict__ A, const float* __restrict__ B,
                                          float* __restrict__ C, int M, int N, int K) {
  matmul_tiled_body<16>(A, B, C, M, N, K);
}

// Classic tiled kernel with 32x32 tiles (1024 threads, 8 KiB of shared memory).
extern "C" __global__ void matmul_tiled32(const float* __restrict__ A, const float* __restrict__ B,
                                          float* __restrict__ C, int M, int N, int K) {
  matmul_tiled_body<32>(A, B, C, M, N, K);
}

// Register-blocked SGEMM. A block computes a BM x BN tile of C, stepping
// through K in slices of BK. Each warp owns a WM x WN sub-tile and each lane
// 8 rows x (8 or 16) columns of outputs, taken as 4x4 pieces spread over the
// warp tile so that a warp's float4 fragment loads cover contiguous shared
// memory; lane bits are assigned so those loads merge quarter-warps (2
// wavefronts each, the 16-byte minimum). Per k each lane does 2 + kQN
// LDS.128 for 32 * kQN FFMAs. The A slice is stored transposed (k-major) so a
// lane's 4 rows are one float4. Shared memory is double-buffered and the next
// slice is prefetched into registers while the current one is consumed, so
// one __syncthreads() per slice suffices and global latency is hidden behind
// the slice's FFMAs. The fastest instance on the H100 is 256x128x8 with
// 8x8 per lane (docs/kernels-compute.md).
template <int BM, int BN, int BK, int WM, int WN, bool kVec, bool kFragPrefetch = false>
__device__ __forceinline__ void sgemm_body(const float* __restrict__ A, const float* __restrict__ B,
                                           float* __restrict__ C, int M, int N, int K) {
  constexpr int kWarpsN = BN / WN;
  constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  constexpr int kLaneRows = WM / 8;  // lanes down a warp tile (each lane: 2 x 4 rows)
  constexpr int kLaneCols = 32 / kLaneRows;
  constexpr int kQN = WN / (4 * kLaneCols);  // column quads per lane: 8 or 16 columns
  constexpr int kTN = 4 * kQN;
  static_assert(
      (kLaneRows == 4 || kLaneRows == 8) && kQN * 4 * kLaneCols == WN && (kQN == 2 || kQN == 4),
      "a warp tile must hold 32 lanes of 8x8 or 8x16 outputs");
  // A slice loads: consecutive lanes take consecutive k-quads of a row
  // (coalesced) and a 4-float row pad keeps the transposing stores
  // conflict-free (2-way at BK = 16). Where the padded tiles would not fit in
  // 48 KiB (128x256x16), consecutive lanes take consecutive rows instead, so
  // the stores are conflict-free unpadded, at the cost of half-used sectors.
  constexpr bool kRowFast = 2 * BK * (BM + 4 + BN) * 4 > 48 * 1024;
  constexpr int kLda = kRowFast ? BM : BM + 4;
  constexpr int kAQuads = BM * BK / 4, kBQuads = BK * BN / 4;  // float4s per slice
  constexpr int kAVec = (kAQuads + kThreads - 1) / kThreads;   // per thread (last may idle)
  constexpr int kBVec = (kBQuads + kThreads - 1) / kThreads;
  static_assert(kAQuads % 32 == 0 && kBQuads % 32 == 0, "whole warps load each slice");

  __shared__ __align__(16) float As[2][BK][kLda];
  __shared__ __align__(16) float Bs[2][BK][BN];

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  // Lane -> (lane row, lane col) with lane bit 0 in the row and bit 1 in the
  // column: lanes i and i^2 then read the same A fragment and lanes i and i^1
  // the same B fragment, which lets the hardware merge quarter-warps of each
  // 16-byte load (2 wavefronts per fragment load instead of 4 for B).
  constexpr int kRowHiBits = kLaneRows == 4 ? 1 : 2;
  const int lane_row = (lane & 1) | (((lane >> 2) & ((1 << kRowHiBits) - 1)) << 1);
  const int lane_col = ((lane >> 1) & 1) | ((lane >> (2 + kRowHiBits)) << 1);
  const int a_row = (warp / kWarpsN) * WM + lane_row * 4;  // first of 4 rows (x2)
  const int b_col = (warp % kWarpsN) * WN + lane_col * 4;  // first of 4 cols (x kQN)
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;

  float4 a_ld[kAVec], b_ld[kBVec];
  auto load_global = [&](int k0) {
#pragma unroll
    for (int i = 0; i < kAVec; ++i) {
      const int f = tid + i * kThreads;
      if (kAQuads % kThreads != 0 && f >= kAQuads) break;
      const int r = block_row + (kRowFast ? f % BM : f / (BK / 4));
      const int k = k0 + (kRowFast ? f / BM : f % (BK / 4)) * 4;
      const float* p = A + (size_t)r * K + k;
      if constexpr (kVec) {
        a_ld[i] = (r < M && k < K) ? *reinterpret_cast<const float4*>(p)
                                   : make_float4(0.f, 0.f, 0.f, 0.f);
      } else {
        const bool ok = r < M;
        a_ld[i] = make_float4(ok && k < K ? p[0] : 0.f, ok && k + 1 < K ? p[1] : 0.f,
                              ok && k + 2 < K ? p[2] : 0.f, ok && k + 3 < K ? p[3] : 0.f);
      }
    }
#pragma unroll
    for (int i = 0; i < kBVec; ++i) {
      const int f = tid + i * kThreads;
      if (kBQuads % kThreads != 0 && f >= kBQuads) break;
      const int k = k0 + f / (BN / 4);
      const int c = block_col + (f % (BN / 4)) * 4;
      const float* p = B + (size_t)k * N + c;
      if constexpr (kVec) {
        b_ld[i] = (k < K && c < N) ? *reinterpret_cast<const float4*>(p)
                                   : make_float4(0.f, 0.f, 0.f, 0.f);
      } else {
        const bool ok = k < K;
        b_ld[i] = make_float4(ok && c < N ? p[0] : 0.f, ok && c + 1 < N ? p[1] : 0.f,
                              ok && c + 2 < N ? p[2] : 0.f, ok && c + 3 < N ? p[3] : 0.f);
      }
    }
  };
  auto store_shared = [&](int buf) {
#pragma unroll
    for (int i = 0; i < kAVec; ++i) {
      const int f = tid + i * kThreads;
      if (kAQuads % kThreads != 0 && f >= kAQuads) break;
      const int r = kRowFast ? f % BM : f / (BK / 4);
      const int k = (kRowFast ? f / BM : f % (BK / 4)) * 4;
      As[buf][k + 0][r] = a_ld[i].x;
      As[buf][k + 1][r] = a_ld[i].y;
      As[buf][k + 2][r] = a_ld[i].z;
      As[buf][k + 3][r] = a_ld[i].w;
    }
#pragma unroll
    for (int i = 0; i < kBVec; ++i) {
      const int f = tid + i * kThreads;
      if (kBQuads % kThreads != 0 && f >= kBQuads) break;
      *reinterpret_cast<float4*>(&Bs[buf][f / (BN / 4)][(f % (BN / 4)) * 4]) = b_ld[i];
    }
  };

  float acc[8][kTN];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.f;

  // One k-step's fragments from shared memory into registers.
  auto load_frag = [&](int buf, int k, float(&fa)[8], float(&fb)[kTN]) {
    const float4 a0 = *reinterpret_cast<const float4*>(&As[buf][k][a_row]);
    const float4 a1 = *reinterpret_cast<const float4*>(&As[buf][k][a_row + WM / 2]);
    fa[0] = a0.x, fa[1] = a0.y, fa[2] = a0.z, fa[3] = a0.w;
    fa[4] = a1.x, fa[5] = a1.y, fa[6] = a1.z, fa[7] = a1.w;
#pragma unroll
    for (int q = 0; q < kQN; ++q) {
      const float4 bq = *reinterpret_cast<const float4*>(&Bs[buf][k][b_col + q * (WN / kQN)]);
      fb[4 * q] = bq.x, fb[4 * q + 1] = bq.y, fb[4 * q + 2] = bq.z, fb[4 * q + 3] = bq.w;
    }
  };
  auto fma_step = [&](const float(&fa)[8], const float(&fb)[kTN]) {
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
  };

  const int slices = (K + BK - 1) / BK;
  load_global(0);
  store_shared(0);
  __syncthreads();
  if constexpr (!kFragPrefetch) {
    for (int s = 0; s < slices; ++s) {
      const int buf = s & 1;
      if (s + 1 < slices) load_global((s + 1) * BK);  // in flight during the FFMAs below
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        float fa[8], fb[kTN];
        load_frag(buf, k, fa, fb);
        fma_step(fa, fb);
      }
      // The other buffer was last read in slice s - 1, which every thread
      // finished before the barrier that ended it.
      if (s + 1 < slices) store_shared(buf ^ 1);
      __syncthreads();
    }
  } else {
    // Fragments double-buffered in registers: step k's FFMAs run while step
    // k + 1's fragments load. The slice's store and barrier move before its
    // last step, so the next slice's first fragments load while the last
    // step's FFMAs run and no warp starts a slice waiting on shared memory.
    // Safe with one barrier per slice: buffer buf ^ 1 was last read (for
    // fragments) before the previous slice's barrier.
    float fa[2][8], fb[2][kTN];
    load_frag(0, 0, fa[0], fb[0]);
    for (int s = 0; s < slices; ++s) {
      const int buf = s & 1;
      const bool more = s + 1 < slices;
      if (more) load_global((s + 1) * BK);
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        if (k + 1 < BK) {
          load_frag(buf, k + 1, fa[(k + 1) % 2], fb[(k + 1) % 2]);
        } else {
          if (more) store_shared(buf ^ 1);
          __syncthreads();
          if (more) load_frag(buf ^ 1, 0, fa[(k + 1) % 2], fb[(k + 1) % 2]);
        }
        fma_step(fa[k % 2], fb[k % 2]);
      }
    }
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = block_row + a_row + (i / 4) * (WM / 2) + i % 4;
    if (r >= M) continue;
#pragma unroll
    for (int q = 0; q < kQN; ++q) {
      const int c = block_col + b_col + q * (WN / kQN);
      float* p = C + (size_t)r * N + c;
      if constexpr (kVec) {
        if (c < N)
          *reinterpret_cast<float4*>(p) =
              make_float4(acc[i][q * 4], acc[i][q * 4 + 1], acc[i][q * 4 + 2], acc[i][q * 4 + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (c + j < N) p[j] = acc[i][q * 4 + j];
      }
    }
  }
}

#define SMEMLAB_SGEMM_KERNEL(NAME, BM, BN, BK, WM, WN, VEC, MINB, PF)                              \
  extern "C" __global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)                   \
      NAME(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, \
           int N, int K) {                                                                         \
    sgemm_body<BM, BN, BK, WM, WN, VEC, PF>(A, B, C, M, N, K);                                     \
  }

// Register-blocked SGEMM, 128x128 block tile, BK = 8, 256 threads, 8x8 per thread (float4 path).
SMEMLAB_SGEMM_KERNEL(sgemm_128x128x8_vec, 128, 128, 8, 32, 64, true, 2, false)
// Register-blocked SGEMM, 128x128x8, scalar loads for K or N not a multiple of 4.
SMEMLAB_SGEMM_KERNEL(sgemm_128x128x8_scalar, 128, 128, 8, 32, 64, false, 2, false)
// Register-blocked SGEMM, 128x128 block tile, BK = 16: half the barriers per FFMA of BK = 8.
SMEMLAB_SGEMM_KERNEL(sgemm_128x128x16_vec, 128, 128, 16, 32, 64, true, 2, false)
// Register-blocked SGEMM, 128x128x16, scalar loads for K or N not a multiple of 4.
SMEMLAB_SGEMM_KERNEL(sgemm_128x128x16_scalar, 128, 128, 16, 32, 64, false, 2, false)
// Register-blocked SGEMM, 128x256x8 with 512 threads: fewer loads per FFMA, one block per SM.
SMEMLAB_SGEMM_KERNEL(sgemm_128x256x8_vec, 128, 256, 8, 32, 64, true, 1, false)
// Register-blocked SGEMM, 128x256x8, scalar loads for K or N not a multiple of 4.
SMEMLAB_SGEMM_KERNEL(sgemm_128x256x8_scalar, 128, 256, 8, 32, 64, false, 1, false)
// Register-blocked SGEMM, 256x128x8 with 512 threads (warps stacked along M).
SMEMLAB_SGEMM_KERNEL(sgemm_256x128x8_vec, 256, 128, 8, 32, 64, true, 1, false)
// Register-blocked SGEMM, 256x128x8, scalar loads for K or N not a multiple of 4.
SMEMLAB_SGEMM_KERNEL(sgemm_256x128x8_scalar, 256, 128, 8, 32, 64, false, 1, false)
// 256x128x8 with fragments double-buffered in registers and the barrier moved before the last
// k-step.
SMEMLAB_SGEMM_KERNEL(sgemm_256x128x8_pf_vec, 256, 128, 8, 32, 64, true, 1, true)
// The same, scalar loads for K or N not a multiple of 4.
SMEMLAB_SGEMM_KERNEL(sgemm_256x128x8_pf_scalar, 256, 128, 8, 32, 64, false, 1, true)
// Register-blocked SGEMM, 256x128x8, 256 threads of 8x16 outputs (warp tile 64x64).
SMEMLAB_SGEMM_KERNEL(sgemm_256x128x8_t16_vec, 256, 128, 8, 64, 64, true, 1, false)
// Register-blocked SGEMM, 256x128x8 with 8x16 per thread, scalar loads.
SMEMLAB_SGEMM_KERNEL(sgemm_256x128x8_t16_scalar, 256, 128, 8, 64, 64, false, 1, false)
// Register-blocked SGEMM, 128x64x8 with 128 threads: more blocks, for small matrices.
SMEMLAB_SGEMM_KERNEL(sgemm_128x64x8_vec, 128, 64, 8, 64, 32, true, 3, false)
// Register-blocked SGEMM, 128x64x8, scalar loads for K or N not a multiple of 4.
SMEMLAB_SGEMM_KERNEL(sgemm_128x64x8_scalar, 128, 64, 8, 64, 32, false, 3, false)
// Register-blocked SGEMM, 64x64x8 with 64 threads: four times the blocks of 128x128.
SMEMLAB_SGEMM_KERNEL(sgemm_64x64x8_vec, 64, 64, 8, 32, 64, true, 6, false)
// Register-blocked SGEMM, 64x64x8, scalar loads for K or N not a multiple of 4.
SMEMLAB_SGEMM_KERNEL(sgemm_64x64x8_scalar, 64, 64, 8, 32, 64, false, 6, false)

#undef SMEMLAB_SGEMM_KERNEL
