// A recursive function that writes its level's partial sum to shared memory
// and reads a neighbour's without a barrier: the race is reported at the
// function's line, inside the real call (docs/emulator.md, "Calls").
// smemlab: --kernel treeSums --grid 1 --block 64 --arg int[64]=iota
__device__ int level_sum(int* s, int t, int level) {
  if (level == 0) return s[t];
  s[t] += level;
  int mine = level_sum(s, t, level - 1);
  return mine + s[(t + 32) % 64];  // EXPECT: race
}

__global__ void treeSums(int* d) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = d[t];
  __syncthreads();
  d[t] = level_sum(s, t, 1 + (t & 3));
}
