// cp.async without waiting for the copy before the barrier: the barrier does
// not order the asynchronous write, so other threads may read the old bytes.
// smemlab: --kernel cpAsyncNoWait --grid 1 --block 64 --arg float[64]=iota --arg float[64]=zeros
#include <cuda_pipeline.h>
__global__ void cpAsyncNoWait(const float* in, float* out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&s[t], &in[t], sizeof(float));
  __pipeline_commit();
  __syncthreads();
  out[t] = s[63 - t];  // EXPECT: race
  __pipeline_wait_prior(0);
}
