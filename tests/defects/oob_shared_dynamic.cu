// Dynamic shared memory sized by the launch (128 bytes = 32 ints) but indexed
// for the 64 threads of the block.
// smemlab: --kernel dynTooSmall --grid 1 --block 64 --shared 128 --arg int[64]=iota
__global__ void dynTooSmall(int* d) {
  extern __shared__ int s[];
  s[threadIdx.x] = d[threadIdx.x];  // EXPECT: out-of-bounds
  __syncthreads();
  d[threadIdx.x] = s[63 - threadIdx.x];
}
