// Off-by-one neighbour read past the end of a static shared tile.
// smemlab: --kernel neighbour --grid 1 --block 32 --arg float[32]=random(4) --arg float[32]=zeros
__global__ void neighbour(const float* in, float* out) {
  __shared__ float tile[32];
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x] - tile[threadIdx.x + 1];  // EXPECT: out-of-bounds
}
