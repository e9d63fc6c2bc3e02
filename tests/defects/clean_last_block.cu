// The CUDA samples' threadFenceReduction: every block writes its partial
// sum, __threadfence(), takes a ticket with atomicInc; the block that takes
// the last ticket (a shared flag tells its threads) sums the partials,
// read through volatile, and resets the counter for the next launch.
// smemlab: --kernel sumLastBlock --grid 4 --block 128 --arg float[512]=random(6) --arg float[4]=zeros --arg unsigned[1]=zeros --arg float[1]=zeros
__global__ void sumLastBlock(const float* in, float* partial, unsigned* retired, float* total) {
  __shared__ float s[128];
  __shared__ bool amLast;
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    unsigned ticket = atomicInc(retired, gridDim.x);
    amLast = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (amLast) {
    volatile float* vp = partial;
    float v = t < gridDim.x ? vp[t] : 0.0f;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (t == 0) {
      *total = v;
      *retired = 0;
    }
  }
}
