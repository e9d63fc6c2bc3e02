// Struct-by-value and array parameters, as users pass them: a small
// "params" struct to a kernel, a fixed-size array inside a struct, and a
// struct passed by value to and returned from a non-inlined device function.
struct Affine {
  float scale;
  double shift;  // forces 8-byte alignment and padding
  int n;
};

struct Taps {
  float w[5];
};

struct Pair {
  float lo, hi;
};

__device__ __noinline__ Pair clampPair(Pair p, Affine a) {
  Pair r;
  r.lo = fminf(p.lo, p.hi) * a.scale;
  r.hi = fmaxf(p.lo, p.hi) * a.scale + static_cast<float>(a.shift);
  return r;
}

__global__ void affineFir(const float* in, float* out, Affine a, Taps t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  float s = 0.f;
  for (int k = 0; k < 5; ++k) {
    int j = i + k - 2;
    if (j >= 0 && j < a.n) s += t.w[k] * in[j];
  }
  Pair p = clampPair(Pair{s, in[i]}, a);
  out[2 * i] = p.lo;
  out[2 * i + 1] = p.hi;
}

// A table of row pointers into the first two arguments (they are only
// reached through it), as a pointer-table argument points at buffers.
__global__ void gatherRows(const float*, const float*, const float* const* rows,
                           const float* shifted, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = rows[0][i] + rows[1][i] + shifted[i];
}
