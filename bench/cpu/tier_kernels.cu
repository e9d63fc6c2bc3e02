// Kernels for scripts/bench-tiers (issue 30): one per class of work the
// emulator's speed depends on, each dominated by that class so its
// warp-instructions/s shows what that class costs. Arguments and grids are in
// scripts/bench-tiers. Results: docs/emulator.md ("Issue 30").

// ALU-bound: a register-only loop (integer hash + float FMA chain), one store.
extern "C" __global__ void alu(float* out, int iters) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned h = i * 2654435761u;
  float x = static_cast<float>(i) * 0.001f, y = 1.0f;
  for (int k = 0; k < iters; ++k) {
    h ^= h << 13;
    h ^= h >> 17;
    h ^= h << 5;
    x = fmaf(x, 0.999f, static_cast<float>(h & 255) * 0.0001f);
    y = fmaf(y, x, 0.5f);
  }
  out[i] = x + y + static_cast<float>(h & 1);
}

// Memory-bound: grid-stride a*x + y over global arrays, `reps` times.
extern "C" __global__ void stream(float* y, const float* x, float a, int n, int reps) {
  for (int r = 0; r < reps; ++r)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
      y[i] = a * x[i] + y[i];
}

// Shared-bound: a 1-D stencil swept repeatedly over a shared tile (loads and
// stores of shared memory, a barrier per sweep).
extern "C" __global__ void shared_sweep(float* out, const float* in, int sweeps) {
  __shared__ float t[2][258];
  unsigned tid = threadIdx.x, g = blockIdx.x * blockDim.x + tid;
  t[0][tid + 1] = in[g];
  if (tid == 0) t[0][0] = t[0][257] = t[1][0] = t[1][257] = 0.0f;
  __syncthreads();
  int s = 0;
  for (int k = 0; k < sweeps; ++k, s ^= 1) {
    t[s ^ 1][tid + 1] = 0.25f * t[s][tid] + 0.5f * t[s][tid + 1] + 0.25f * t[s][tid + 2];
    __syncthreads();
  }
  out[g] = t[s][tid + 1];
}

// Collective-heavy: warp shuffles, votes and a match per iteration.
extern "C" __global__ void collective(unsigned* out, int iters) {
  unsigned lane = threadIdx.x & 31, v = blockIdx.x * blockDim.x + threadIdx.x, acc = 0;
  for (int k = 0; k < iters; ++k) {
    unsigned s = v + k;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    acc += __popc(__ballot_sync(0xffffffffu, (s + lane) & 1)) + __shfl_sync(0xffffffffu, s, k & 31);
    v = v * 1664525u + 1013904223u;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
