// All threads store the same value to one shared word and read it back
// with no barrier: the stores do not race with each other (equal bits),
// but another warp's read of the word races with them (RAW or WAR: it
// may see the word before any store) -- the equal-store rule must not
// hide that.
// smemlab: --kernel equalStoresThenRead --grid 1 --block 64 --arg int[64]=zeros
__global__ void equalStoresThenRead(int* out) {
  volatile __shared__ int flag;
  flag = 1;  // EXPECT: race
  out[threadIdx.x] = flag;
}
