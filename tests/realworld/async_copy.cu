// Asynchronous copies to shared memory as CUDA 11+ code writes them:
// __pipeline_memcpy_async double buffering, cuda::memcpy_async with a
// block-scope cuda::barrier, a multi-stage cuda::pipeline, cooperative
// groups' memcpy_async, and raw cp.async with zero fill for a ragged tail.
// smemlab: --kernel pipelineStencil --grid 2 --block 128 --arg float[2048]=random(1) --arg float[2048]=zeros --arg int=8
// smemlab: --kernel barrierTileSum --grid 3 --block 128 --arg float[1536]=random(2) --arg float[3]=zeros
// smemlab: --kernel multiStagePipeline --grid 2 --block 64 --arg int[1024]=iota --arg int[128]=zeros --arg int=8
// smemlab: --kernel cgMemcpyAsync --grid 2 --block 96 --arg double[384]=random(3) --arg double[384]=zeros
// smemlab: --kernel cpAsyncZfill --grid 1 --block 64 --arg float[250]=random(4) --arg float[256]=zeros --arg int=250
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;
#pragma nv_diag_suppress static_var_with_dynamic_init

// Each block streams `chunks` chunks of 128 floats (of its 1024) with a
// two-stage __pipeline_* double buffer; out[i] = 0.25 x[i-1] + 0.5 x[i] + 0.25 x[i+1]
// within each chunk (ends clamped).
__global__ void pipelineStencil(const float* in, float* out, int chunks) {
  __shared__ float buf[2][128];
  int t = threadIdx.x;
  const float* base = in + blockIdx.x * 128 * chunks;
  __pipeline_memcpy_async(&buf[0][t], base + t, sizeof(float));
  __pipeline_commit();
  for (int c = 0; c < chunks; ++c) {
    if (c + 1 < chunks)
      __pipeline_memcpy_async(&buf[(c + 1) % 2][t], base + (c + 1) * 128 + t, sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    const float* b = buf[c % 2];
    float l = b[t > 0 ? t - 1 : t], r = b[t < 127 ? t + 1 : t];
    out[blockIdx.x * 128 * chunks + c * 128 + t] = 0.25f * l + 0.5f * b[t] + 0.25f * r;
    __syncthreads();
  }
}

// A 512-float tile per block through cuda::memcpy_async + cuda::barrier,
// then a shared-memory tree sum.
__global__ void barrierTileSum(const float* in, float* sums) {
  __shared__ float tile[512];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 512, sizeof(float) * 512, bar);
  bar.arrive_and_wait();
  int t = threadIdx.x;
  float v = tile[t] + tile[t + 128] + tile[t + 256] + tile[t + 384];
  block.sync();
  tile[t] = v;
  block.sync();
  for (int s = 64; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    block.sync();
  }
  if (t == 0) sums[blockIdx.x] = tile[0];
}

// cuda::pipeline with 3 stages, per-thread scope: each thread sums its
// 8 column entries of 8 batches of 64 ints (out[b*64+t] = sum of batch rows).
__global__ void multiStagePipeline(const int* in, int* out, int batches) {
  constexpr int stages = 3;
  __shared__ int buf[stages][64];
  auto pipe = cuda::make_pipeline();
  int t = threadIdx.x;
  const int* base = in + blockIdx.x * 64 * batches;
  int fetched = 0, sum = 0;
  for (int b = 0; b < batches; ++b) {
    for (; fetched < batches && fetched < b + stages; ++fetched) {
      pipe.producer_acquire();
      cuda::memcpy_async(&buf[fetched % stages][t], base + fetched * 64 + t, sizeof(int), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    sum += buf[b % stages][t] * (b + 1);
    pipe.consumer_release();
  }
  out[blockIdx.x * 64 + t] = sum;
}

// cooperative_groups::memcpy_async of a 192-double tile, wait, reverse.
__global__ void cgMemcpyAsync(const double* in, double* out) {
  __shared__ double tile[192];
  auto block = cg::this_thread_block();
  cg::memcpy_async(block, tile, in + blockIdx.x * 192, sizeof(double) * 192);
  cg::wait(block);
  for (int i = threadIdx.x; i < 192; i += blockDim.x) out[blockIdx.x * 192 + i] = tile[191 - i];
}

// Raw cp.async.ca with src-size: lanes past n copy 0 bytes and zero-fill.
__global__ void cpAsyncZfill(const float* in, float* out, int n) {
  __shared__ __align__(16) float s[256];
  int t = threadIdx.x;
  for (int i = 0; i < 4; ++i) {
    int e = t * 4 + i;
    uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&s[e]));
    int bytes = e < n ? 4 : 0;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst),
                 "l"(in + (e < n ? e : 0)), "r"(bytes));
  }
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
  __syncthreads();
  for (int i = t; i < 256; i += 64) out[i] = s[255 - i] + 1.0f;
}
