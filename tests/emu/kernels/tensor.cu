// Tensor-core, cp.async and mbarrier kernels in the style users write, for
// tests/emu/tensor_kernels_test.cc (PTX checked in under ../ptx, built with
// nvcc -ptx -lineinfo -arch=sm_90 / sm_100 -std=c++17).
#include <cuda/barrier>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

// C[M x N] = 2 * A[M x K] (row-major) * B[K x N] (col-major: b[n * K + k]),
// one warp per 16x16 tile of C; grid (N/16, M/16).
template <typename In, typename Acc, int K_STEP>
__device__ void wmma_gemm(const In* a, const In* b, Acc* c, int M, int N, int K) {
  int tm = blockIdx.y, tn = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, K_STEP, In, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, K_STEP, In, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, K_STEP, Acc> acc;
  wmma::fill_fragment(acc, Acc(0));
  for (int k = 0; k < K; k += K_STEP) {
    wmma::load_matrix_sync(fa, a + tm * 16 * K + k, K);
    wmma::load_matrix_sync(fb, b + tn * 16 * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = acc.x[i] * Acc(2);
  wmma::store_matrix_sync(c + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

__global__ void wmmaHalf(const half* a, const half* b, float* c, int M, int N, int K) {
  wmma_gemm<half, float, 16>(a, b, c, M, N, K);
}
__global__ void wmmaBf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int M, int N,
                         int K) {
  wmma_gemm<__nv_bfloat16, float, 16>(a, b, c, M, N, K);
}
__global__ void wmmaInt8(const signed char* a, const signed char* b, int* c, int M, int N, int K) {
  wmma_gemm<signed char, int, 16>(a, b, c, M, N, K);
}

// tf32: inputs converted with __float_to_tf32 as the CUDA guide shows.
__global__ void wmmaTf32(const float* a, const float* b, float* c, int M, int N, int K) {
  int tm = blockIdx.y, tn = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 8) {
    wmma::load_matrix_sync(fa, a + tm * 16 * K + k, K);
    wmma::load_matrix_sync(fb, b + tn * 16 * K + k, K);
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + tm * 16 * N + tn * 16, acc, N, wmma::mem_col_major);
}

// f64: 8x8 tiles, k steps of 4.
__global__ void wmmaF64(const double* a, const double* b, double* c, int M, int N, int K) {
  int tm = blockIdx.y, tn = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::load_matrix_sync(acc, c + tm * 8 * N + tn * 8, N, wmma::mem_row_major);
  for (int k = 0; k < K; k += 4) {
    wmma::load_matrix_sync(fa, a + tm * 8 * K + k, K);
    wmma::load_matrix_sync(fb, b + tn * 8 * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + tm * 8 * N + tn * 8, acc, N, wmma::mem_row_major);
}

// mma.sync m16n8k16 fed by ldmatrix from shared memory, one warp per 16x8
// tile of C, K a multiple of 16: a row-major M x K, b n-major (b[n * K + k]).
// The result goes back through shared memory with stmatrix (as f16) and
// directly as f32.
__global__ void mmaLdmatrix(const half* a, const half* b, float* c, half* c16, int N, int K) {
  __shared__ __align__(16) half sa[16 * 16];
  __shared__ __align__(16) half sb[8 * 16];
  __shared__ __align__(16) half sc[16 * 8];
  int t = threadIdx.x, tm = blockIdx.y, tn = blockIdx.x;
  float d[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int i = t; i < 256; i += 32) sa[i] = a[(tm * 16 + i / 16) * K + k0 + i % 16];
    for (int i = t; i < 128; i += 32) sb[i] = b[(tn * 8 + i / 16) * K + k0 + i % 16];
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1;
    unsigned pa = static_cast<unsigned>(__cvta_generic_to_shared(&sa[(t % 16) * 16 + (t / 16) * 8]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(pa));
    unsigned pb = static_cast<unsigned>(__cvta_generic_to_shared(&sb[(t % 8) * 16 + ((t / 8) % 2) * 8]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                 : "=r"(b0), "=r"(b1) : "r"(pb));
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    __syncwarp();
  }
  int g = t / 4, q = t % 4;
  float* tile = c + tm * 16 * N + tn * 8;
  tile[g * N + q * 2] = d[0];
  tile[g * N + q * 2 + 1] = d[1];
  tile[(g + 8) * N + q * 2] = d[2];
  tile[(g + 8) * N + q * 2 + 1] = d[3];
  // The accumulator fragment is the ldmatrix layout of two 8x8 matrices.
  __half2 lo = __floats2half2_rn(d[0], d[1]), hi = __floats2half2_rn(d[2], d[3]);
  unsigned r0 = *reinterpret_cast<unsigned*>(&lo), r1 = *reinterpret_cast<unsigned*>(&hi);
  unsigned pc = static_cast<unsigned>(__cvta_generic_to_shared(&sc[(t % 16) * 8]));
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" ::"r"(pc), "r"(r0), "r"(r1));
  __syncwarp();
  for (int i = t; i < 128; i += 32) c16[(tm * 16 + i / 8) * N + tn * 8 + i % 8] = sc[i];
}

// movmatrix: each warp transposes one 8x8 half tile held as a fragment.
__global__ void transpose8(const unsigned* in, unsigned* out) {
  unsigned v = in[threadIdx.x], r;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(r) : "r"(v));
  out[threadIdx.x] = r;
}

// Double-buffered tile loop with cp.async (pipeline primitives): every
// thread sums a reversed element of each 128-float4 tile.
__global__ void cpAsyncSum(const float4* in, float* out, int tiles) {
  __shared__ float4 buf[2][128];
  int t = threadIdx.x;
  const float4* base = in + blockIdx.x * tiles * 128;
  __pipeline_memcpy_async(&buf[0][t], &base[t], sizeof(float4));
  __pipeline_commit();
  float acc = 0;
  for (int i = 0; i < tiles; ++i) {
    if (i + 1 < tiles)
      __pipeline_memcpy_async(&buf[(i + 1) % 2][t], &base[(i + 1) * 128 + t], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    float4 v = buf[i % 2][127 - t];
    acc += v.x + v.y + v.z + v.w;
    __syncthreads();
  }
  out[blockIdx.x * 128 + t] = acc;
}

// cuda::barrier with cuda::memcpy_async (cp.async + cp.async.mbarrier.arrive).
__global__ void barrierCopy(const int* in, int* out) {
  __shared__ int buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(buf + threadIdx.x, in + blockIdx.x * blockDim.x + threadIdx.x, sizeof(int),
                     bar);
  bar.arrive_and_wait();
  out[blockIdx.x * blockDim.x + threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x] + 1;
}

// One thread moves a whole tile with a bulk copy (cp.async.bulk on sm_90)
// completed through the barrier's transaction count.
__global__ void bulkCopy(const float* in, float* out) {
  __shared__ alignas(16) float tile[512];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  if (threadIdx.x == 0)
    cuda::memcpy_async(tile, in + blockIdx.x * 512, cuda::aligned_size_t<16>(sizeof(tile)), bar);
  bar.arrive_and_wait();
  for (int i = threadIdx.x; i < 512; i += blockDim.x)
    out[blockIdx.x * 512 + i] = tile[511 - i] * 2.0f;
}
