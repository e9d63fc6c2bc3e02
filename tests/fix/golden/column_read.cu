// Golden case for `smemlab fix`: a row write and a column read of a 32x32
// tile (the transpose pattern, 32-way conflict on the read).
// smemlab: --kernel columnRead --grid 2 --block 32,32 --arg float[2048]=iota --arg float[2048]=zeros
extern "C" __global__ void columnRead(const float* in, float* out) {
  __shared__ float tile[32][32];
  const unsigned i = blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x;
  tile[threadIdx.y][threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[threadIdx.x][threadIdx.y];
}

// Row write and row read: conflict-free.
// smemlab: --kernel rowRead --grid 2 --block 32,32 --arg float[2048]=iota --arg float[2048]=zeros
extern "C" __global__ void rowRead(const float* in, float* out) {
  __shared__ float tile[32][32];
  const unsigned i = blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x;
  tile[threadIdx.y][threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[threadIdx.y][threadIdx.x];
}
