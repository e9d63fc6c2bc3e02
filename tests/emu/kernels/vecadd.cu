// smemlab: --kernel vecAdd --grid 4 --block 128 --arg float[500]=iota --arg float[500]=random(1) --arg float[500]=zeros --arg int=500
__global__ void vecAdd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
