// A warp-specialized block: its first two warps have nothing more to do and
// exit; the other 128 threads then synchronize among themselves on a named
// barrier with a thread count (what CUTLASS's ping-pong and cooperative
// kernels do in their epilogues). Legal: the barrier waits for its 128
// threads, not for the block.
// smemlab: --kernel namedAfterExit --grid 1 --block 192 --arg float[128]=random(3)
__global__ void namedAfterExit(float* data) {
  __shared__ float s[128];
  int t = threadIdx.x;
  if (t < 64) return;
  int i = t - 64;
  s[i] = data[i];
  asm volatile("bar.sync 1, 128;" ::: "memory");
  data[i] = s[127 - i];
}
