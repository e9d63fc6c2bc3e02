// A named barrier waiting for more threads than will ever arrive: a hang on
// the GPU.
// smemlab-gpu: skip (waits forever on real hardware)
// smemlab: --kernel namedBarrier --grid 1 --block 64 --arg int[64]=zeros
__global__ void namedBarrier(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  asm volatile("bar.sync 1, 128;");  // EXPECT: barrier-deadlock
  out[threadIdx.x] = s[63 - threadIdx.x];
}
