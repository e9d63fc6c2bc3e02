// Latent races whose result depends on how a block's warps take turns
// (emu/schedule.h). Both accumulate into one word per column from every
// warp of a block, each warp loading the word once and storing its own sum:
// a race, benign on a GPU because a block's warps start together and all
// load the initial value before any stores (PolyBench's mvt does this).
// `x` is global memory in accumulateGlobal, shared memory in
// accumulateShared (then copied out).
// smemlab: --kernel accumulateGlobal --grid 1 --block 32,8 --arg float[2048]=random(1) --arg float[32]=iota --arg int=64
__global__ void accumulateGlobal(const float* a, float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // threadIdx.y ignored
  float sum = x[i];
  for (int j = 0; j < n; ++j) sum += a[j * 32 + threadIdx.x];
  x[i] = sum;
}

// smemlab: --kernel accumulateShared --grid 1 --block 32,8 --arg float[2048]=random(2) --arg float[32]=iota --arg int=64
__global__ void accumulateShared(const float* a, float* x, int n) {
  __shared__ float s[32];
  if (threadIdx.y == 0) s[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  float sum = s[threadIdx.x];
  for (int j = 0; j < n; ++j) sum += a[j * 32 + threadIdx.x];
  s[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0) x[threadIdx.x] = s[threadIdx.x];
}
