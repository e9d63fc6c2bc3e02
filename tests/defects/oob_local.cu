// A per-thread array indexed by a runtime value one past its end (the array
// lives in local memory because the index is not a compile-time constant).
// smemlab: --kernel localTable --grid 1 --block 32 --arg int[32]=zeros --arg int=8
__global__ void localTable(int* out, int k) {
  int table[8];
  for (int i = 0; i < 8; ++i) table[i] = i * threadIdx.x;
  volatile int* t = table;
  out[threadIdx.x] = t[k];  // EXPECT: out-of-bounds
}
