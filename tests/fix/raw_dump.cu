// A kernel whose output depends on its shared array's layout: it writes the
// tile out raw (through a plain pointer to its first element), so padding or
// swizzling the tile changes the output. `smemlab fix` finds layouts that
// remove the column write's 32-way conflict, and its proof must reject every
// one of them.
// smemlab: --kernel dumpTile --grid 2 --block 32,32 --arg float[2048]=zeros
// EXPECT: rejected: buffer argument 0 differs
extern "C" __global__ void dumpTile(float* out) {
  __shared__ float tile[32][32];
  // Column-order write: a warp's lanes walk down one column (32-way conflict).
  tile[threadIdx.x][threadIdx.y] = float(blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x);
  __syncthreads();
  const float* raw = &tile[0][0];
  const unsigned i = threadIdx.y * 32 + threadIdx.x;
  out[blockIdx.x * 1024 + i] = raw[i];
}
