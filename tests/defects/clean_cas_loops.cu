// The atomicCAS retry loop as real code writes it (the CUDA guide's
// atomicAdd(double) for old archs, float atomicMax with an early out, float
// atomicMul, a saturating add): the first read of the word is a plain load
// racing with other threads' CAS, benign because the CAS re-validates it.
// On shared and global memory, by every thread of two blocks of four warps,
// inside a loop over iterations.
// smemlab: --kernel casLoops --grid 2 --block 128 --arg float[256]=random(1) --arg float[1]={-1} --arg float[1]={1} --arg double[1]=zeros --arg int[1]=zeros --arg float[8]=zeros --arg int=3
__device__ float atomicMaxFloat(float* addr, float v) {
  int* p = reinterpret_cast<int*>(addr);
  int old = *p, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(p, assumed, __float_as_int(v));
  } while (old != assumed);
  return __int_as_float(old);
}

__device__ float atomicMulFloat(float* addr, float v) {
  unsigned* p = reinterpret_cast<unsigned*>(addr);
  unsigned old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __float_as_uint(__uint_as_float(assumed) * v));
  } while (old != assumed);
  return __uint_as_float(old);
}

__device__ double atomicAddDouble(double* addr, double v) {
  auto* p = reinterpret_cast<unsigned long long*>(addr);
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __double_as_longlong(v + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}

__device__ int atomicAddCapped(int* addr, int v, int cap) {
  int old = *addr, assumed;
  do {
    assumed = old;
    old = atomicCAS(addr, assumed, min(assumed + v, cap));
  } while (assumed != old);
  return old;
}

__global__ void casLoops(const float* in, float* gmax, float* gmul, double* gsum, int* gcap,
                         float* blockOut, int iters) {
  __shared__ float smax, smul;
  __shared__ double ssum;
  __shared__ int scap;
  if (threadIdx.x == 0) {
    smax = -1.0f;
    smul = 1.0f;
    ssum = 0.0;
    scap = 0;
  }
  __syncthreads();
  float x = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int it = 0; it < iters; ++it) {
    atomicMaxFloat(&smax, x + it);
    atomicMulFloat(&smul, 1.0f + x * 1e-3f);
    atomicAddDouble(&ssum, x);
    atomicAddCapped(&scap, 1, 300);
    atomicMaxFloat(gmax, x - it);
    atomicMulFloat(gmul, 1.0f + x * 1e-4f);
    atomicAddDouble(gsum, x);
    atomicAddCapped(gcap, 2, 1000);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    blockOut[blockIdx.x * 4 + 0] = smax;
    blockOut[blockIdx.x * 4 + 1] = smul;
    blockOut[blockIdx.x * 4 + 2] = static_cast<float>(ssum);
    blockOut[blockIdx.x * 4 + 3] = static_cast<float>(scap);
  }
}
