// A template kernel, for --kernel name resolution (mangled / demangled / no parameters).
template <int S>
__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= S;
}
template __global__ void scale<2>(float*, int);
template __global__ void scale<3>(float*, int);
