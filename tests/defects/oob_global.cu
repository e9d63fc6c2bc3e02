// The classic `i <= n` loop bound: one element written past the buffer.
// smemlab: --kernel scaleAll --grid 1 --block 64 --arg float[63]=random(5) --arg int=63
__global__ void scaleAll(float* x, int n) {
  int i = threadIdx.x;
  if (i <= n) x[i] = 2.f * x[i];  // EXPECT: out-of-bounds
}
