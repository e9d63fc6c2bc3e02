// An int read through a pointer offset by two bytes.
// smemlab: --kernel offsetRead --grid 1 --block 32 --arg int[40]=iota --arg int[32]=zeros
__global__ void offsetRead(const int* in, int* out) {
  const int* p = reinterpret_cast<const int*>(reinterpret_cast<const char*>(in) + 2);
  out[threadIdx.x] = p[threadIdx.x];  // EXPECT: misaligned
}
