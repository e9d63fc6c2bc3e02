// What every cuBLAS entry point of smemlab's libcublas shares: the handle
// (stream, pointer mode, math mode, workspace), scalars read as cuBLAS reads
// them (a host scalar at the call, a device scalar when the work runs), the
// element types as std::complex, strided vector access, and `submit`, which
// counts the call and runs its work in stream order.
#pragma once

#include <cublas_v2.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <type_traits>

#include "libs/bridge.h"

struct cublasContext {
  CUstream stream = nullptr;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
  cublasAtomicsMode_t atomics = CUBLAS_ATOMICS_NOT_ALLOWED;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  int sm_count_target = 0;
};

namespace smemlab::libs::blas {

// cuBLAS's element types as the arithmetic types the CPU computes in.
template <class T>
struct Num {
  using type = T;
};
template <>
struct Num<cuComplex> {
  using type = std::complex<float>;
};
template <>
struct Num<cuDoubleComplex> {
  using type = std::complex<double>;
};
template <class T>
using num_t = typename Num<T>::type;
template <class T>
num_t<T>* as_num(T* p) {
  return reinterpret_cast<num_t<T>*>(p);
}
template <class T>
const num_t<T>* as_num(const T* p) {
  return reinterpret_cast<const num_t<T>*>(p);
}
// The real type of a (possibly complex) element type.
template <class N>
struct RealOf {
  using type = N;
};
template <class R>
struct RealOf<std::complex<R>> {
  using type = R;
};
template <class N>
using real_t = typename RealOf<N>::type;
template <class N>
constexpr bool is_complex_v = !std::is_same_v<N, real_t<N>>;

inline real_t<float> conj_if(float x) { return x; }
inline real_t<double> conj_if(double x) { return x; }
template <class R>
std::complex<R> conj_if(std::complex<R> x) {
  return std::conj(x);
}

// A scalar argument: copied at the call in host pointer mode (the caller may
// reuse its variable at once), read when the work runs in device mode.
template <class T>
struct Scalar {
  T value{};
  const T* device = nullptr;
  // Read bytewise: callers pass std::complex<float> (4-byte aligned) where
  // the API says cuComplex (float2, 8-byte aligned), which cuBLAS accepts.
  T get() const {
    if (!device) return value;
    T v;
    std::memcpy(&v, device, sizeof(T));
    return v;
  }
};
template <class T>
Scalar<T> scalar(cublasHandle_t h, const T* p) {
  Scalar<T> s;
  if (h->pointer_mode == CUBLAS_POINTER_MODE_DEVICE)
    s.device = p;
  else
    std::memcpy(&s.value, p, sizeof(T));
  return s;
}

// Element i of a BLAS vector of n with increment inc (a negative increment
// walks it backwards, as the reference BLAS does).
inline int64_t at(int64_t i, int64_t n, int64_t inc) {
  return inc >= 0 ? i * inc : (n - 1 - i) * -inc;
}

// A range an entry point reads or writes (bridge.h's device_range).
struct Range {
  const char* role;
  const void* p;
  uint64_t bytes;
};
// Whether every range is device memory; each one that is not is reported
// (the entry point then returns CUBLAS_STATUS_EXECUTION_FAILED untouched).
inline bool ranges_ok(const char* entry, std::initializer_list<Range> ranges) {
  bool ok = true;
  for (const Range& r : ranges) ok = device_range(entry, r.role, r.p, r.bytes) && ok;
  return ok;
}
template <class T>
uint64_t vec(int64_t n, int64_t inc) {
  return vector_bytes(n, inc, sizeof(T));
}
template <class T>
uint64_t mat(int64_t rows, int64_t cols, int64_t ld) {
  return matrix_bytes(rows, cols, ld, sizeof(T));
}

// Counts the call and enqueues `work` on the handle's stream.
cublasStatus_t submit(cublasHandle_t h, const char* entry, std::function<void()> work);
// A result a host-pointer-mode caller reads at return: the stream is waited
// for (cuBLAS blocks in this case too).
cublasStatus_t submit_result(cublasHandle_t h, const char* entry, std::function<void()> work);

inline cublasOperation_t op_of(cublasOperation_t op) { return op; }

// Whether `f` names one of the two triangles (symv, hemv, her, herk, hemm...).
inline bool valid_fill(cublasFillMode_t f) {
  return f == CUBLAS_FILL_MODE_LOWER || f == CUBLAS_FILL_MODE_UPPER;
}

// y = alpha A x + beta y for a square A of which triangle `uplo` is stored:
// symv and hemv, which differ only in how the other triangle is read
// (`elem(A, lda, uplo, i, j)` gives element (i, j)).
template <class T, class Elem>
cublasStatus_t stored_triangle_mv(cublasHandle_t h, const char* e, cublasFillMode_t uplo, int n,
                                  const T* alpha, const T* A, int lda, const T* x, int incx,
                                  const T* beta, T* y, int incy, Elem elem) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_fill(uplo) || n < 0 || lda < std::max(1, n) || incx == 0 || incy == 0 || !alpha ||
      !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (n == 0) return CUBLAS_STATUS_SUCCESS;
  if (!ranges_ok(e, {{"matrix A", A, mat<T>(n, n, lda)},
                     {"vector x", x, vec<T>(n, incx)},
                     {"vector y", y, vec<T>(n, incy)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  auto a = scalar(h, alpha), b = scalar(h, beta);
  return submit(h, e, [=] {
    T a0 = a.get(), b0 = b.get();
    auto av = *as_num(&a0), bv = *as_num(&b0);
    for (int i = 0; i < n; ++i) {
      num_t<T> s{};
      for (int j = 0; j < n; ++j) s += elem(as_num(A), lda, uplo, i, j) * as_num(x)[at(j, n, incx)];
      auto& yi = as_num(y)[at(i, n, incy)];
      yi = bv == num_t<T>{} ? av * s : av * s + bv * yi;
    }
  });
}

}  // namespace smemlab::libs::blas
