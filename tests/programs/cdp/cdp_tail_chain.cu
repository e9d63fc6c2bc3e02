// Dynamic parallelism (CDP2): a chain of tail launches. Each grid logs its
// step, launches a fire-and-forget child that sets the step's flag, and
// tail-launches the next step (cudaStreamTailLaunch), which runs only after
// its parent grid and all the work it launched completed: so every step
// finds its predecessor's flag set, and the log is in step order.
#include <cstdio>

constexpr int kSteps = 10;

__global__ void set_flag(int* flags, int step) {
  for (volatile int spin = 0; spin < 1000; ++spin) {
  }
  flags[step] = 1;
}

__global__ void step(int n, int* log, int* counter, int* flags, int* missed) {
  if (n > 0 && flags[n - 1] != 1) atomicAdd(missed, 1);
  log[atomicAdd(counter, 1)] = n;
  set_flag<<<1, 1, 0, cudaStreamFireAndForget>>>(flags, n);
  if (n + 1 < kSteps) step<<<1, 1, 0, cudaStreamTailLaunch>>>(n + 1, log, counter, flags, missed);
}

int main() {
  int *buf = nullptr;
  cudaMalloc(&buf, sizeof(int) * (2 * kSteps + 2));
  cudaMemset(buf, 0, sizeof(int) * (2 * kSteps + 2));
  int *log = buf, *flags = buf + kSteps, *counter = buf + 2 * kSteps, *missed = counter + 1;
  step<<<1, 1>>>(0, log, counter, flags, missed);
  cudaError_t sync = cudaDeviceSynchronize();
  int h[2 * kSteps + 2];
  cudaMemcpy(h, buf, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(buf);
  int bad = 0;
  for (int i = 0; i < kSteps; ++i) bad += h[i] != i || h[kSteps + i] != 1;
  printf("sync %s, %d steps, %d out of order, %d predecessors unfinished\n",
         cudaGetErrorName(sync), h[2 * kSteps], bad, h[2 * kSteps + 1]);
  bool ok = !sync && h[2 * kSteps] == kSteps && bad == 0 && h[2 * kSteps + 1] == 0;
  printf("%s cdp_tail_chain\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
