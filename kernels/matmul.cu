// Matrix multiply C = A * B in FP32 (row-major: A is MxK, B is KxN, C is MxN).
//
// From the naive kernel through the classic shared-memory tiled kernel to a
// register-blocked SGEMM and its cp.async-pipelined form (sgemm_async_*, the
// suite's best, ~94 % of cuBLAS FP32 on the H100): each step shows what shared
// memory buys. Device code only; the host side lives in bench/matmul_bench.cu.
// Every kernel handles any M, N, K (zero-filled tile edges, guarded stores).
// The sgemm_* kernels take a float4 path when K % 4 == 0 and N % 4 == 0 (rows
// then start 16-byte aligned; sgemm_async_* need only N % 4 == 0) and a scalar
// path otherwise; the host picks the instance.
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
// smemlab: --kernel sgemm_async_128x128x16s3_vec --grid 2,2 --block 256 --shared 49920 --arg float[9100]=random(1) --arg float[9240]=random(2) --arg float[17160]=zeros --arg int=130 --arg int=132 --arg int=70
// smemlab: --kernel sgemm_async_128x128x16s3_scalar --grid 1,1 --block 256 --shared 49920 --arg float[4087]=random(1) --arg float[4221]=random(2) --arg float[3843]=zeros --arg int=61 --arg int=63 --arg int=67
// smemlab: --kernel sgemm_async_64x128x16s3_vec --grid 2,3 --block 128 --shared 37632 --arg float[9100]=random(1) --arg float[9240]=random(2) --arg float[17160]=zeros --arg int=130 --arg int=132 --arg int=70
// smemlab: --kernel sgemm_async_64x128x16s3_scalar --grid 1,1 --block 128 --shared 37632 --arg float[4087]=random(1) --arg float[4221]=random(2) --arg float[3843]=zeros --arg int=61 --arg int=63 --arg int=67
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

// cp.async (sm_80+): a copy from global to shared memory that bypasses
// registers and completes asynchronously; src_bytes < size zero-fills the
// rest (0 reads nothing), which is how the tile edges are handled. No
// "memory" clobbers: every read of a slice is separated from the copies into
// it by wait_group + __syncthreads(), and the barrier also orders the compiler.
__device__ __forceinline__ void cp_async4(float* smem, const float* gmem, bool ok) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem),
               "r"(ok ? 4 : 0));
}
__device__ __forceinline__ void cp_async16(float* smem, const float* gmem, bool ok) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem),
               "r"(ok ? 16 : 0));
}
// The same without the zero-fill operand, to a shared address (interior tiles).
__device__ __forceinline__ void cp_async4_at(unsigned smem, const float* gmem) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem), "l"(gmem));
}
__device__ __forceinline__ void cp_async16_at(unsigned smem, const float* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Shared memory (bytes) of an sgemm_async instance: kStages slices of the
// transposed, padded A tile and of the B tile.
constexpr int sgemm_async_smem(int BM, int BN, int BK, int stages) {
  return stages * BK * (BM + 4 + BN) * 4;
}

// Pipelined SGEMM: the register-blocked kernel above (same warp tiles, lane
// mapping and 8 x kTN outputs per lane) with the global -> shared copies done
// by cp.async into a ring of kStages shared slices, so kStages - 1 slices are
// in flight while one is consumed and no registers hold staged tiles. A goes
// in transposed by 4-byte copies (lanes take 8 consecutive k of 4 rows: 32-byte
// global runs, and the 4-float row pad spreads the 32 shared words over 32
// banks); B by 16-byte copies (kVec, N % 4 == 0) or 4-byte ones. Fragments are
// double-buffered in registers and each slice's wait + barrier sits before its
// last k-step, so the next slice's first fragments load under that step's
// FFMAs; the same barrier frees the slice just read for the copy issued right
// after it. One barrier per slice. Any M, N, K (copies of elements outside A
// or B read nothing and zero-fill; stores guarded). Dynamic shared memory of
// sgemm_async_smem(...) bytes.
template <int BM, int BN, int BK, int WM, int WN, int kStages, bool kVec>
__device__ __forceinline__ void sgemm_async_body(const float* __restrict__ A,
                                                 const float* __restrict__ B, float* __restrict__ C,
                                                 int M, int N, int K) {
  constexpr int kWarpsN = BN / WN;
  constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  constexpr int kLaneRows = WM / 8;
  constexpr int kLaneCols = 32 / kLaneRows;
  constexpr int kQN = WN / (4 * kLaneCols);
  constexpr int kTN = 4 * kQN;
  static_assert(
      (kLaneRows == 4 || kLaneRows == 8) && kQN * 4 * kLaneCols == WN && (kQN == 2 || kQN == 4),
      "a warp tile must hold 32 lanes of 8x8 or 8x16 outputs");
  static_assert(kStages >= 2 && BK % 8 == 0 && BM % 4 == 0, "shape");
  constexpr int kLda = BM + 4;
  constexpr int kAElems = BM * BK;  // 4-byte copies per A slice
  constexpr int kBCopies = kVec ? BK * BN / 4 : BK * BN;
  static_assert(kAElems % kThreads == 0 && kBCopies % 32 == 0, "whole warps copy each slice");
  constexpr int kStageA = BK * kLda, kStageB = BK * BN;

  extern __shared__ __align__(16) float smem[];
  float* const As = smem;                      // [kStages][BK][kLda]
  float* const Bs = smem + kStages * kStageA;  // [kStages][BK][BN]

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  constexpr int kRowHiBits = kLaneRows == 4 ? 1 : 2;
  const int lane_row = (lane & 1) | (((lane >> 2) & ((1 << kRowHiBits) - 1)) << 1);
  const int lane_col = ((lane >> 1) & 1) | ((lane >> (2 + kRowHiBits)) << 1);
  const int a_row = (warp / kWarpsN) * WM + lane_row * 4;
  const int b_col = (warp % kWarpsN) * WN + lane_col * 4;
  const int block_row = blockIdx.y * BM;
  const int block_col = blockIdx.x * BN;

  // This thread's copies: A element e = tid + i * kThreads sits at k = 8 *
  // (e / (8 BM)) + e % 8, row (e / 8) % BM; with kThreads % 8 == 0 and
  // BM % (kThreads / 8) == 0 that is row a_r0 + (i * kT8) % BM, k a_k0 + 8 *
  // (i * kT8 / BM): one base pointer and per-copy offsets known at compile
  // time up to a multiple of K. B likewise, when kThreads covers whole rows.
  constexpr int kT8 = kThreads / 8;
  static_assert(kThreads % 8 == 0 && BM % kT8 == 0, "A copies: whole rows per pass");
  constexpr int kBRow = kVec ? BN / 4 : BN;  // copies per B row
  static_assert(kThreads % kBRow == 0, "B copies: whole rows per pass");
  const int a_r0 = tid / 8, a_k0 = tid % 8;
  const int b_k0 = tid / kBRow, b_c0 = (tid % kBRow) * (kVec ? 4 : 1);
  const float* const a_src = A + (size_t)(block_row + a_r0) * K + a_k0;
  const float* const b_src = B + (size_t)b_k0 * N + block_col + b_c0;
  const bool b_col_ok = block_col + b_c0 < N;
  // Interior blocks (the whole tile inside C) copy full slices without
  // bounds checks: a global pointer per operand advanced by one slice, the
  // per-copy offsets a multiple of K or N plus a constant, shared addresses
  // a base plus constants. Only edge blocks and the last partial slice take
  // the checked copies.
  const bool interior = block_row + BM <= M && block_col + BN <= N;
  const unsigned a_dst0 = static_cast<unsigned>(__cvta_generic_to_shared(&As[a_k0 * kLda + a_r0]));
  const unsigned b_dst0 = static_cast<unsigned>(__cvta_generic_to_shared(&Bs[b_k0 * BN + b_c0]));
  const int a_step = kT8 * K, b_step = (kThreads / kBRow) * N;  // offsets of one pass
  // Issues the copies of slice s into stage st (nothing when s is past K).
  auto issue = [&](int s, int st) {
    const int k0 = s * BK;
    if (interior && k0 + BK <= K) {
      const float* a = a_src + k0;
      const float* b = b_src + (size_t)k0 * N;
      const unsigned ad = a_dst0 + st * (kStageA * 4), bd = b_dst0 + st * (kStageB * 4);
#pragma unroll
      for (int i = 0; i < kAElems / kThreads; ++i) {
        const int pr = (i * kT8) % BM / kT8, dk = 8 * (i * kT8 / BM);
        cp_async4_at(ad + (dk * kLda + pr * kT8) * 4, a + pr * a_step + dk);
      }
#pragma unroll
      for (int i = 0; i < (kBCopies + kThreads - 1) / kThreads; ++i) {
        if (kBCopies % kThreads != 0 && tid + i * kThreads >= kBCopies) break;
        const unsigned d = bd + i * (kThreads / kBRow) * BN * 4;
        if constexpr (kVec)
          cp_async16_at(d, b + i * b_step);
        else
          cp_async4_at(d, b + i * b_step);
      }
      return;
    }
#pragma unroll
    for (int i = 0; i < kAElems / kThreads; ++i) {
      const int dr = (i * kT8) % BM, dk = 8 * (i * kT8 / BM);
      const bool ok = block_row + a_r0 + dr < M && k0 + a_k0 + dk < K;
      cp_async4(&As[st * kStageA + (a_k0 + dk) * kLda + a_r0 + dr],
                ok ? a_src + (size_t)dr * K + k0 + dk : A, ok);
    }
#pragma unroll
    for (int i = 0; i < (kBCopies + kThreads - 1) / kThreads; ++i) {
      if (kBCopies % kThreads != 0 && tid + i * kThreads >= kBCopies) break;
      const int dk = i * (kThreads / kBRow);
      const bool ok = b_col_ok && k0 + b_k0 + dk < K;
      float* dst = &Bs[st * kStageB + (b_k0 + dk) * BN + b_c0];
      const float* src = ok ? b_src + (size_t)(k0 + dk) * N : B;
      if constexpr (kVec)
        cp_async16(dst, src, ok);
      else
        cp_async4(dst, src, ok);
    }
  };
  auto load_frag = [&](int st, int k, float(&fa)[8], float(&fb)[kTN]) {
    const float* a = &As[st * kStageA + k * kLda + a_row];
    const float4 a0 = *reinterpret_cast<const float4*>(a);
    const float4 a1 = *reinterpret_cast<const float4*>(a + WM / 2);
    fa[0] = a0.x, fa[1] = a0.y, fa[2] = a0.z, fa[3] = a0.w;
    fa[4] = a1.x, fa[5] = a1.y, fa[6] = a1.z, fa[7] = a1.w;
#pragma unroll
    for (int q = 0; q < kQN; ++q) {
      const float4 bq =
          *reinterpret_cast<const float4*>(&Bs[st * kStageB + k * BN + b_col + q * (WN / kQN)]);
      fb[4 * q] = bq.x, fb[4 * q + 1] = bq.y, fb[4 * q + 2] = bq.z, fb[4 * q + 3] = bq.w;
    }
  };

  float acc[8][kTN];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] = 0.f;

  const int slices = (K + BK - 1) / BK;
  // Every stage gets a slice (or an empty group), so the group count per
  // slice is uniform and wait_group's constant is always kStages - 2.
#pragma unroll
  for (int s = 0; s < kStages; ++s) {
    if (s < slices) issue(s, s);
    cp_async_commit();
  }
  cp_async_wait<kStages - 1>();
  __syncthreads();
  float fa[2][8], fb[2][kTN];
  if (slices > 0) load_frag(0, 0, fa[0], fb[0]);
  int st = 0;  // stage of slice s
  for (int s = 0; s < slices; ++s) {
    const int next_st = st + 1 == kStages ? 0 : st + 1;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      if (k + 1 < BK) {
        load_frag(st, k + 1, fa[(k + 1) % 2], fb[(k + 1) % 2]);
      } else {
        // Slice s + 1 has landed (this thread's copies: wait; everyone's:
        // the barrier), and every thread is done reading stage st, which
        // the copy of slice s + kStages may now overwrite.
        cp_async_wait<kStages - 2>();
        __syncthreads();
        if (s + kStages < slices) issue(s + kStages, st);
        cp_async_commit();
        if (s + 1 < slices) load_frag(next_st, 0, fa[(k + 1) % 2], fb[(k + 1) % 2]);
      }
      // Rows in serpentine order: each FFMA shares an operand with the one
      // before it, also across row turns (the B element), so ptxas can take
      // it from the operand reuse cache. Measured on the H100: +2 % over
      // the plain row order (91.5 -> 93.5 % of cuBLAS at 4096), while a
      // column-major order loses 7 %: the order sets the dispatch stalls.
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int jj = 0; jj < kTN; ++jj) {
          const int j = i % 2 ? kTN - 1 - jj : jj;
          acc[i][j] = fmaf(fa[k % 2][i], fb[k % 2][j], acc[i][j]);
        }
    }
    st = next_st;
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

#define SMEMLAB_SGEMM_ASYNC_KERNEL(NAME, BM, BN, BK, WM, WN, STAGES, VEC, MINB)                    \
  extern "C" __global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB)                   \
      NAME(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, \
           int N, int K) {                                                                         \
    sgemm_async_body<BM, BN, BK, WM, WN, STAGES, VEC>(A, B, C, M, N, K);                           \
  }
// Pipelined SGEMM, 128x128x16 tile, 3 cp.async stages (49,920 B dynamic shared), 256 threads
// of 8x8, 2 blocks per SM: the fastest from 2048 up (docs/kernels-compute.md).
SMEMLAB_SGEMM_ASYNC_KERNEL(sgemm_async_128x128x16s3_vec, 128, 128, 16, 32, 64, 3, true, 2)
// The same for N not a multiple of 4 (4-byte copies of B, scalar stores).
SMEMLAB_SGEMM_ASYNC_KERNEL(sgemm_async_128x128x16s3_scalar, 128, 128, 16, 32, 64, 3, false, 2)
// Pipelined SGEMM, 64x128x16 tile, 3 stages (37,632 B), 128 threads, 4 blocks per SM: twice the
// blocks of 128x128, for sizes where that tile leaves SMs idle (1024).
SMEMLAB_SGEMM_ASYNC_KERNEL(sgemm_async_64x128x16s3_vec, 64, 128, 16, 32, 64, 3, true, 4)
// The same for N not a multiple of 4.
SMEMLAB_SGEMM_ASYNC_KERNEL(sgemm_async_64x128x16s3_scalar, 64, 128, 16, 32, 64, 3, false, 4)
#undef SMEMLAB_SGEMM_ASYNC_KERNEL
