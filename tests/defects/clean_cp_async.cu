// A shared tile filled with cp.async, waited for and synchronized before
// other threads read it: initialized and race-free (check once reported every
// byte as uninitialized).
// smemlab: --kernel cpAsyncReverse --grid 2 --block 64 --arg float[128]=iota --arg float[128]=zeros
#include <cuda_pipeline.h>
__global__ void cpAsyncReverse(const float* in, float* out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&s[t], &in[blockIdx.x * 64 + t], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[63 - t];
}
