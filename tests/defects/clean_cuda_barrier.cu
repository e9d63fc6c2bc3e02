// cuda::barrier with cuda::memcpy_async (cp.async + mbarrier): the barrier's
// phase orders the copies before every thread's reads, so no race and no
// uninitialized read.
// smemlab: --kernel barrierRotate --grid 2 --block 128 --arg int[256]=iota --arg int[256]=zeros
#include <cuda/barrier>
__global__ void barrierRotate(const int* in, int* out) {
  __shared__ int buf[128];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  int t = threadIdx.x;
  cuda::memcpy_async(buf + t, in + blockIdx.x * 128 + t, sizeof(int), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 128 + t] = buf[(t + 1) % 128];
}
