// Reverses each block-sized chunk through shared memory (static and dynamic).
__global__ void reverseStatic(int* d, int n) {
  __shared__ int s[256];
  int t = threadIdx.x, tr = blockDim.x - t - 1;
  int base = blockIdx.x * blockDim.x;
  s[t] = d[base + t];
  __syncthreads();
  d[base + t] = s[tr];
}
__global__ void reverseDynamic(int* d, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x, tr = blockDim.x - t - 1;
  int base = blockIdx.x * blockDim.x;
  s[t] = d[base + t];
  __syncthreads();
  d[base + t] = s[tr];
}
