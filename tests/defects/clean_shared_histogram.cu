// A privatized histogram: each block counts into shared bins with shared
// atomics (a grid-stride loop), then merges its bins into the global
// histogram with global atomics after a barrier.
// smemlab: --kernel histogram64 --grid 3 --block 128 --arg uchar[2048]=random(5) --arg unsigned[64]=zeros --arg int=2048
__global__ void histogram64(const unsigned char* data, unsigned* hist, int n) {
  __shared__ unsigned bins[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i] & 63], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x)
    if (bins[b]) atomicAdd(&hist[b], bins[b]);
}
