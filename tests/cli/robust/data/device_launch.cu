// Dynamic parallelism in kernel mode (emu::launch_raw runs the children
// itself): each thread launches a child that writes its slot, thread 0
// tail-launches one more. Expected: 0 10 20 30 40.
__global__ void child(int* out, int i) { out[i] = i * 10; }

__global__ void parent(int* out) {
  child<<<1, 1>>>(out, threadIdx.x);
  if (threadIdx.x == 0) child<<<1, 1, 0, cudaStreamTailLaunch>>>(out, 4);
}
