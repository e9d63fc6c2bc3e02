// __syncwarp() orders lanes of one warp only; the value read here was written
// by a thread of another warp, so a block-wide barrier is needed.
// smemlab: --kernel crossWarp --grid 1 --block 64 --arg int[64]=zeros
__global__ void crossWarp(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncwarp();
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64];  // EXPECT: race
}
