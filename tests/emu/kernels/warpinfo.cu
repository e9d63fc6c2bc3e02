// Warp-level softmax over rows of 32 * k floats, written the way LLM
// training code writes it (warpSize, __shfl_xor_sync), and a kernel that
// records the special registers a thread can read.
#include <cstdint>

__device__ float warpMax(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ float warpSum(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// One warp per row; blockDim.x is a multiple of warpSize.
__global__ void softmaxRows(const float* in, float* out, int rows, int cols) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  int lane = threadIdx.x % warpSize;
  if (row >= rows) return;
  const float* x = in + static_cast<size_t>(row) * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += warpSize) m = fmaxf(m, x[c]);
  m = warpMax(m);
  float s = 0.f;
  for (int c = lane; c < cols; c += warpSize) s += __expf(x[c] - m);
  s = warpSum(s);
  for (int c = lane; c < cols; c += warpSize)
    out[static_cast<size_t>(row) * cols + c] = __expf(x[c] - m) / s;
}


#define SREG(name, var) asm volatile("mov.u32 %0, %%" name ";" : "=r"(var))

// 16 words per thread: warpSize, warpid, nwarpid, smid, nsmid, lanemask
// eq/le/lt/ge/gt, dynamic and total shared size, envreg0, globaltimer lo
// twice (must not decrease), laneid.
__global__ void specialRegs(uint32_t* out) {
  extern __shared__ float dyn[];
  uint32_t v[16];
  v[0] = warpSize;
  SREG("warpid", v[1]);
  SREG("nwarpid", v[2]);
  SREG("smid", v[3]);
  SREG("nsmid", v[4]);
  SREG("lanemask_eq", v[5]);
  SREG("lanemask_le", v[6]);
  SREG("lanemask_lt", v[7]);
  SREG("lanemask_ge", v[8]);
  SREG("lanemask_gt", v[9]);
  SREG("dynamic_smem_size", v[10]);
  SREG("total_smem_size", v[11]);
  SREG("envreg0", v[12]);
  SREG("globaltimer_lo", v[13]);
  dyn[threadIdx.x] = 1.f;  // uses the dynamic window
  SREG("globaltimer_lo", v[14]);
  SREG("laneid", v[15]);
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < 16; ++i) out[t * 16 + i] = v[i];
}
