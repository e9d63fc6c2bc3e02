// Tensor-core GEMMs through <mma.h> as the CUDA samples and GEMM tutorials
// write them: tiles staged in shared memory, one warp per 16x16 (8x8 for
// f64) output tile, alpha/beta epilogue on the accumulator fragment.
// smemlab: --kernel "wmmaGemm<__half, float>" --grid 1,2 --block 64 --arg half[1536]=random(1) --arg half[1536]=random(2) --arg float[1024]=random(3) --arg int=32 --arg int=32 --arg int=48 --arg float=1.5 --arg float=0.5
// smemlab: --kernel "wmmaGemm<__nv_bfloat16, float>" --grid 1,2 --block 64 --arg bf16[1024]=random(4) --arg bf16[1024]=random(5) --arg float[1024]=random(6) --arg int=32 --arg int=32 --arg int=32 --arg float=1.0 --arg float=-1.0
// smemlab: --kernel wmmaGemmTf32 --grid 2,1 --block 32 --arg float[512]=random(7) --arg float[1024]=random(8) --arg float[512]=zeros --arg int=16 --arg int=32 --arg int=32
// smemlab: --kernel wmmaGemmF64 --grid 2,2 --block 32 --arg double[256]=random(9) --arg double[256]=random(10) --arg double[256]=zeros --arg int=16 --arg int=16 --arg int=16
// smemlab: --kernel wmmaGemmS8 --grid 1,2 --block 32 --arg char[1024]=random(15) --arg char[512]=random(16) --arg int[512]=zeros --arg int=32 --arg int=16 --arg int=32
// smemlab: --kernel wmmaGemmU8 --grid 1,1 --block 32 --arg uchar[512]=random(11) --arg uchar[512]=random(12) --arg int[256]=zeros --arg int=16 --arg int=16 --arg int=32
// smemlab: --kernel wmmaHalfAcc --grid 1 --block 32 --arg half[512]=random(13) --arg half[512]=random(14) --arg half[256]=zeros --arg int=32
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// C = alpha * A(MxK, row-major) * B(KxN, row-major) + beta * C; a block of
// two warps computes two 16x16 tiles side by side; A and B tiles of 16x16
// go through shared memory.
template <typename T, typename Acc>
__global__ void wmmaGemm(const T* A, const T* B, Acc* C, int M, int N, int K, float alpha,
                         float beta) {
  __shared__ __align__(32) T sa[2][16 * 16];
  __shared__ __align__(32) T sb[2][16 * 16];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int tm = blockIdx.y, tn = blockIdx.x * 2 + warp;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, Acc> acc, cf;
  wmma::fill_fragment(acc, Acc(0));
  for (int k = 0; k < K; k += 16) {
    for (int e = lane; e < 256; e += 32) {
      sa[warp][e] = A[(tm * 16 + e / 16) * K + k + e % 16];
      sb[warp][e] = B[(k + e / 16) * N + tn * 16 + e % 16];
    }
    __syncwarp();
    wmma::load_matrix_sync(fa, sa[warp], 16);
    wmma::load_matrix_sync(fb, sb[warp], 16);
    wmma::mma_sync(acc, fa, fb, acc);
    __syncwarp();
  }
  Acc* c = C + tm * 16 * N + tn * 16;
  wmma::load_matrix_sync(cf, c, N, wmma::mem_row_major);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = alpha * acc.x[i] + beta * cf.x[i];
  wmma::store_matrix_sync(c, acc, N, wmma::mem_row_major);
}
template __global__ void wmmaGemm<__half, float>(const __half*, const __half*, float*, int, int,
                                                 int, float, float);
template __global__ void wmmaGemm<__nv_bfloat16, float>(const __nv_bfloat16*,
                                                        const __nv_bfloat16*, float*, int, int,
                                                        int, float, float);

// tf32: A row-major, B col-major (b[n*K + k]), converted with __float_to_tf32.
__global__ void wmmaGemmTf32(const float* A, const float* B, float* C, int M, int N, int K) {
  int tm = blockIdx.y, tn = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 8) {
    wmma::load_matrix_sync(fa, A + tm * 16 * K + k, K);
    wmma::load_matrix_sync(fb, B + tn * 16 * K + k, K);
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(C + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

// f64 (DMMA): 8x8x4, A row-major, B row-major, C col-major.
__global__ void wmmaGemmF64(const double* A, const double* B, double* C, int M, int N, int K) {
  int tm = blockIdx.y, tn = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::fill_fragment(acc, 0.0);
  for (int k = 0; k < K; k += 4) {
    wmma::load_matrix_sync(fa, A + tm * 8 * K + k, K);
    wmma::load_matrix_sync(fb, B + k * N + tn * 8, N);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(C + tn * 8 * M + tm * 8, acc, M, wmma::mem_col_major);
}

// Integer GEMMs: A row-major, B col-major, int32 accumulators.
__global__ void wmmaGemmS8(const signed char* A, const signed char* B, int* C, int M, int N,
                           int K) {
  int tm = blockIdx.y, tn = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::fill_fragment(acc, 0);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, A + tm * 16 * K + k, K);
    wmma::load_matrix_sync(fb, B + tn * 16 * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(C + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}
__global__ void wmmaGemmU8(const unsigned char* A, const unsigned char* B, int* C, int M, int N,
                           int K) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::fill_fragment(acc, 0);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, A + k, K);
    wmma::load_matrix_sync(fb, B + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(C, acc, N, wmma::mem_row_major);
}

// f16 accumulators, col-major A, stored col-major: one 16x16 tile, K=32.
__global__ void wmmaHalfAcc(const half* A, const half* B, half* C, int K) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> acc;
  wmma::fill_fragment(acc, __float2half(0.0f));
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, A + k * 16, 16);  // a(m, k) = A[k * 16 + m]
    wmma::load_matrix_sync(fb, B + k, K);        // b(k, n) = B[n * K + k]
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(C, acc, 16, wmma::mem_col_major);
}
