// LLM-training style warp kernels (llm.c, the CUDA samples): a row softmax
// and a layernorm with one warp per row using warpSize and shuffles, and a
// double-precision block reduction.
// smemlab: --kernel softmaxForward --grid 3 --block 64 --arg float[384]=zeros --arg float[384]=random(1) --arg int=6 --arg int=64
// smemlab: --kernel layernormForward --grid 2 --block 128 --arg float[768]=zeros --arg float[768]=random(2) --arg float[96]=random(3) --arg float[96]=random(4) --arg int=8 --arg int=96
// smemlab: --kernel reduceDouble --grid 4 --block 256 --arg double[3000]=random(5) --arg double[1]=zeros --arg int=3000
#include <cuda_runtime.h>

__device__ float warpReduceMax(float v) {
  for (int off = warpSize / 2; off > 0; off /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, off));
  return v;
}
__device__ float warpReduceSum(float v) {
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffff, v, off);
  return v;
}

// out[row] = softmax(inp[row]); one warp per row of C floats.
__global__ void softmaxForward(float* out, const float* inp, int N, int C) {
  int warps = blockDim.x / warpSize;
  int row = blockIdx.x * warps + threadIdx.x / warpSize;
  int lane = threadIdx.x % warpSize;
  if (row >= N) return;
  const float* x = inp + row * C;
  float m = -INFINITY;
  for (int i = lane; i < C; i += warpSize) m = fmaxf(m, x[i]);
  m = warpReduceMax(m);
  float s = 0.f;
  for (int i = lane; i < C; i += warpSize) s += expf(x[i] - m);
  s = warpReduceSum(s);
  for (int i = lane; i < C; i += warpSize) out[row * C + i] = expf(x[i] - m) / s;
}

__global__ void layernormForward(float* out, const float* inp, const float* weight,
                                 const float* bias, int N, int C) {
  int lane = threadIdx.x % warpSize;
  int row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
  if (row >= N) return;
  const float* x = inp + row * C;
  float sum = 0.f;
  for (int i = lane; i < C; i += warpSize) sum += x[i];
  float mean = warpReduceSum(sum) / C;
  float var = 0.f;
  for (int i = lane; i < C; i += warpSize) var += (x[i] - mean) * (x[i] - mean);
  float rstd = rsqrtf(warpReduceSum(var) / C + 1e-5f);
  for (int i = lane; i < C; i += warpSize)
    out[row * C + i] = (x[i] - mean) * rstd * weight[i] + bias[i];
}

__global__ void reduceDouble(const double* in, double* total, int n) {
  __shared__ double partial[32];
  double v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  for (int off = warpSize / 2; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
  int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;
  if (lane == 0) partial[wid] = v;
  __syncthreads();
  if (wid == 0) {
    v = lane < blockDim.x / warpSize ? partial[lane] : 0.0;
    for (int off = warpSize / 2; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
    if (lane == 0) atomicAdd(total, v);
  }
}
