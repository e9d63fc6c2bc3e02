// Templates and parameters by value as libraries write them: a templated
// functor kernel (elementwise op chosen at compile time), a struct of
// problem sizes and coefficients passed by value, a kernel taking a small
// array of pointers in a struct (multi-tensor apply), and a
// vectorized float4 copy with __ldg and __restrict__.
// smemlab: --kernel "elementwise<Relu, float>" --grid 2 --block 128 --arg float[256]=random(1) --arg float[256]=zeros --arg int=256
// smemlab: --kernel "elementwise<Square, double>" --grid 1 --block 64 --arg double[64]=random(2) --arg double[64]=zeros --arg int=64
// smemlab: --kernel affineRows --grid 2 --block 64 --arg float[128]=random(3) --arg float[128]=zeros --arg bytes=0200000040000000000000400000803e
// smemlab: --kernel multiTensorScale --grid 3 --block 32 --arg float[32]=iota --arg float[64]=iota --arg float[16]=iota --arg ptr[3]={@0,@1,@2} --arg bytes=200000004000000010000000000040c0
// smemlab: --kernel vectorCopy --grid 2 --block 32 --arg float[256]=random(4) --arg float[256]=zeros --arg int=64
#include <cstdint>

struct Relu {
  template <typename T>
  __device__ T operator()(T x) const { return x > T(0.5) ? x : T(0); }
};
struct Square {
  template <typename T>
  __device__ T operator()(T x) const { return x * x; }
};

template <typename Op, typename T>
__global__ void elementwise(const T* in, T* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = Op()(in[i]);
}
template __global__ void elementwise<Relu, float>(const float*, float*, int);
template __global__ void elementwise<Square, double>(const double*, double*, int);

struct Affine {
  int rows, cols;  // 2 x 64
  float scale, shift;
};

__global__ void affineRows(const float* in, float* out, Affine p) {
  int r = blockIdx.x, c = threadIdx.x;
  if (r < p.rows && c < p.cols) out[r * p.cols + c] = in[r * p.cols + c] * p.scale + p.shift;
}

// Three tensors of different lengths scaled in one launch (apex/PyTorch
// multi_tensor_apply style): a table of their pointers, lengths and the
// factor in a struct by value; block b handles tensor b.
struct TensorList {
  int len[3];
  float factor;
};

__global__ void multiTensorScale(float*, float*, float*, float* const* ptrs, TensorList list) {
  float* p = ptrs[blockIdx.x];
  for (int i = threadIdx.x; i < list.len[blockIdx.x]; i += blockDim.x) p[i] *= list.factor;
}

__global__ void vectorCopy(const float* __restrict__ in, float* __restrict__ out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = __ldg(reinterpret_cast<const float4*>(in) + i);
    v.x += 1.0f, v.w -= 1.0f;
    reinterpret_cast<float4*>(out)[i] = v;
  }
}
