// Shared-memory reads through a table of function pointers, one of which
// reads past the end of the tile: found inside the called function.
// smemlab: --kernel applyOps --grid 1 --block 32 --arg float[32]=iota --arg float[32]=zeros
typedef float (*read_t)(const float*, int);
__device__ float same(const float* s, int t) { return s[t]; }
__device__ float next(const float* s, int t) { return s[t + 1]; }  // EXPECT: out-of-bounds
__device__ read_t readers[2] = {same, next};

__global__ void applyOps(const float* in, float* out) {
  __shared__ float tile[32];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = readers[threadIdx.x & 1](tile, threadIdx.x);
}
