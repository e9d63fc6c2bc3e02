// 21-point 1D FIR filter: y[i] = sum_{k=-10..10} c[k+10] * x[i+k], with zero
// boundary (x[j] = 0 for j < 0 or j >= n).
//
// Each block stages its input span plus a 10-element halo on each side in
// shared memory, so every input element is read from global memory about once
// although 21 outputs use it; the coefficients sit in __constant__ memory,
// read at one address by a whole warp (a broadcast). Device code only; the
// host side is bench/filter_bench.cu, which sets c_fir with
// cudaMemcpyToSymbol. All kernels expect blockDim.x == kFirBlock (256) and
// take any n >= 1 (n < 2^31 - 4096).
//
// Emulator launch recipes (parameters: x, y, n; c_fir keeps its initializer):
// clang-format off
// smemlab: --kernel fir_one_per_thread --grid 4 --block 256 --arg float[1000]=random(1) --arg float[1000]=zeros --arg int=1000
// smemlab: --kernel fir_two_per_thread --grid 2 --block 256 --arg float[1001]=random(1) --arg float[1001]=zeros --arg int=1001
// smemlab: --kernel fir_best --grid 1 --block 256 --arg float[1003]=random(1) --arg float[1003]=zeros --arg int=1003
// clang-format on
#include <cstdint>

constexpr int kFirRadius = 10;
constexpr int kFirTaps = 2 * kFirRadius + 1;
constexpr int kFirBlock = 256;

// The taps (a smoothing window by default, so the emulator sees non-zero
// coefficients; the benchmark overwrites them with random values).
__constant__ float c_fir[kFirTaps] = {0.01f, 0.02f, 0.03f, 0.04f, 0.05f, 0.06f, 0.07f,
                                      0.08f, 0.09f, 0.10f, 0.11f, 0.10f, 0.09f, 0.08f,
                                      0.07f, 0.06f, 0.05f, 0.04f, 0.03f, 0.02f, 0.01f};

__device__ __forceinline__ float load_or_zero(const float* __restrict__ x, long long g, int n) {
  return g >= 0 && g < n ? x[g] : 0.f;
}

// One output per thread: a tile of 256 + 20 floats, scalar loads and stores.
extern "C" __global__ void fir_one_per_thread(const float* __restrict__ x, float* __restrict__ y,
                                              int n) {
  __shared__ float tile[kFirBlock + 2 * kFirRadius];
  const long long base = (long long)blockIdx.x * kFirBlock;
  for (int j = threadIdx.x; j < kFirBlock + 2 * kFirRadius; j += kFirBlock)
    tile[j] = load_or_zero(x, base - kFirRadius + j, n);
  __syncthreads();
  const long long i = base + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < kFirTaps; ++k) acc = fmaf(c_fir[k], tile[threadIdx.x + k], acc);
  y[i] = acc;
}

// Two outputs per thread: 8-byte float2 loads, shared reads and stores; the
// 22 inputs of a thread's two outputs are read from the tile as 11 float2.
extern "C" __global__ void fir_two_per_thread(const float* __restrict__ x, float* __restrict__ y,
                                              int n) {
  constexpr int kSpan = 2 * kFirBlock;
  __shared__ __align__(16) float tile[kSpan + 2 * kFirRadius];  // tile[j] = x[base - 10 + j]
  const long long base = (long long)blockIdx.x * kSpan;
  const int t = threadIdx.x;
  const long long g = base + 2 * t;
  float2 v;
  if (g + 1 < n) {
    v = *reinterpret_cast<const float2*>(x + g);
  } else {
    v = make_float2(load_or_zero(x, g, n), 0.f);
  }
  *reinterpret_cast<float2*>(&tile[kFirRadius + 2 * t]) = v;
  if (t < kFirRadius) tile[t] = load_or_zero(x, base - kFirRadius + t, n);
  if (t < kFirRadius) tile[kFirRadius + kSpan + t] = load_or_zero(x, base + kSpan + t, n);
  __syncthreads();
  if (g >= n) return;
  float w[2 * kFirRadius + 2];
#pragma unroll
  for (int q = 0; q < kFirRadius + 1; ++q) {
    const float2 p = *reinterpret_cast<const float2*>(&tile[2 * t + 2 * q]);
    w[2 * q] = p.x;
    w[2 * q + 1] = p.y;
  }
  float a0 = 0.f, a1 = 0.f;
#pragma unroll
  for (int k = 0; k < kFirTaps; ++k) {
    a0 = fmaf(c_fir[k], w[k], a0);
    a1 = fmaf(c_fir[k], w[k + 1], a1);
  }
  if (g + 1 < n) {
    *reinterpret_cast<float2*>(y + g) = make_float2(a0, a1);
  } else {
    y[g] = a0;
  }
}

// 16-byte load of x[g..g+3] (g a multiple of 4), zeros outside [0, n).
__device__ __forceinline__ float4 load4_or_zero(const float* __restrict__ x, long long g, int n) {
  if (g >= 0 && g + 3 < n) return *reinterpret_cast<const float4*>(x + g);
  return make_float4(load_or_zero(x, g, n), load_or_zero(x, g + 1, n), load_or_zero(x, g + 2, n),
                     load_or_zero(x, g + 3, n));
}

// Best: four outputs per thread with float4 global loads and stores. The tile
// starts 12 elements (three float4) before the block's span so every shared
// access is a 16-byte-aligned float4; a thread reads its 24 inputs as 7 float4
// (28 floats, conflict-free: a warp covers 512 contiguous bytes per load) and
// keeps them in registers for the 84 FMAs of its four outputs.
extern "C" __global__ void fir_best(const float* __restrict__ x, float* __restrict__ y, int n) {
  constexpr int kSpan = 4 * kFirBlock;
  constexpr int kPad = 12;                                // >= kFirRadius, multiple of 4
  __shared__ __align__(16) float tile[kSpan + 2 * kPad];  // tile[j] = x[base - 12 + j]
  const long long base = (long long)blockIdx.x * kSpan;
  const int t = threadIdx.x;
  const long long g = base + 4 * t;
  *reinterpret_cast<float4*>(&tile[kPad + 4 * t]) = load4_or_zero(x, g, n);
  if (t < kPad / 4) {
    *reinterpret_cast<float4*>(&tile[4 * t]) = load4_or_zero(x, base - kPad + 4 * t, n);
  } else if (t < 2 * kPad / 4) {
    const int h = t - kPad / 4;
    *reinterpret_cast<float4*>(&tile[kPad + kSpan + 4 * h]) =
        load4_or_zero(x, base + kSpan + 4 * h, n);
  }
  __syncthreads();
  if (g >= n) return;
  float w[28];
#pragma unroll
  for (int q = 0; q < 7; ++q) {
    const float4 p = *reinterpret_cast<const float4*>(&tile[4 * t + 4 * q]);
    w[4 * q] = p.x;
    w[4 * q + 1] = p.y;
    w[4 * q + 2] = p.z;
    w[4 * q + 3] = p.w;
  }
  constexpr int kOff = kPad - kFirRadius;  // w[kOff + j + k] = x[g - 10 + j + k]
  float a[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
  for (int k = 0; k < kFirTaps; ++k) {
    const float c = c_fir[k];
#pragma unroll
    for (int j = 0; j < 4; ++j) a[j] = fmaf(c, w[kOff + j + k], a[j]);
  }
  if (g + 3 < n) {
    *reinterpret_cast<float4*>(y + g) = make_float4(a[0], a[1], a[2], a[3]);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (g + j < n) y[g + j] = a[j];
  }
}
