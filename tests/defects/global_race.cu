// Every block writes the same global element: the surviving value depends on
// block scheduling.
// smemlab: --kernel whoWins --grid 4 --block 32 --arg int[1]=zeros
__global__ void whoWins(int* out) {
  if (threadIdx.x == 0) out[0] = blockIdx.x;  // EXPECT: global-race
}
