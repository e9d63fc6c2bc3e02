// A tile reloaded every iteration without the second barrier: the next
// iteration's store overwrites values other warps are still reading (WAR).
// smemlab: --kernel sumTiles --grid 1 --block 64 --arg float[256]=random(1) --arg float[64]=zeros --arg int=4
__global__ void sumTiles(const float* in, float* out, int tiles) {
  __shared__ float tile[64];
  float acc = 0.f;
  for (int k = 0; k < tiles; ++k) {
    tile[threadIdx.x] = in[k * 64 + threadIdx.x];  // EXPECT: race
    __syncthreads();
    acc += tile[63 - threadIdx.x];
  }
  out[threadIdx.x] = acc;
}
