// cuBLAS level 1 (vector-vector) in S/D/C/Z: axpy, scal, copy, swap, dot,
// dotu/dotc, nrm2, asum, amax/amin, rot. Plain loops in the reference BLAS's
// order of accumulation, in the element type's own precision (what OpenBLAS
// would vectorize is memory-bound here and not worth a dependency's quirks,
// such as increments of 0); levels 2 and 3 go to OpenBLAS.
#include <cmath>

#include "libs/cublas_handle.h"

using namespace smemlab::libs::blas;

namespace {

template <class T, class S>
cublasStatus_t axpy(cublasHandle_t h, const char* e, int n, const S* alpha, const T* x, int incx,
                    T* y, int incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  auto a = scalar(h, alpha);
  if (!ranges_ok(e, {{"vector x", x, vec<T>(n, incx)}, {"vector y", y, vec<T>(n, incy)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    S s = a.get();
    auto av = *as_num(&s);
    for (int i = 0; i < n; ++i) as_num(y)[at(i, n, incy)] += av * as_num(x)[at(i, n, incx)];
  });
}

template <class T, class S>
cublasStatus_t scal(cublasHandle_t h, const char* e, int n, const S* alpha, T* x, int incx) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0 || incx <= 0) return CUBLAS_STATUS_SUCCESS;
  auto a = scalar(h, alpha);
  if (!ranges_ok(e, {{"vector x", x, vec<T>(n, incx)}})) return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    S s = a.get();
    auto av = *as_num(&s);
    for (int i = 0; i < n; ++i) as_num(x)[int64_t(i) * incx] *= av;
  });
}

template <class T>
cublasStatus_t copy(cublasHandle_t h, const char* e, int n, const T* x, int incx, T* y, int incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  if (!ranges_ok(e, {{"vector x", x, vec<T>(n, incx)}, {"vector y", y, vec<T>(n, incy)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    for (int i = 0; i < n; ++i) y[at(i, n, incy)] = x[at(i, n, incx)];
  });
}

template <class T>
cublasStatus_t swap(cublasHandle_t h, const char* e, int n, T* x, int incx, T* y, int incy) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  if (!ranges_ok(e, {{"vector x", x, vec<T>(n, incx)}, {"vector y", y, vec<T>(n, incy)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    for (int i = 0; i < n; ++i) std::swap(x[at(i, n, incx)], y[at(i, n, incy)]);
  });
}

template <class T>
cublasStatus_t dot(cublasHandle_t h, const char* e, int n, const T* x, int incx, const T* y,
                   int incy, T* result, bool conjugate) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  if (!ranges_ok(e, {{"vector x", x, vec<T>(n, incx)}, {"vector y", y, vec<T>(n, incy)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit_result(h, e, [=] {
    num_t<T> s{};
    for (int i = 0; i < n; ++i) {
      num_t<T> xv = as_num(x)[at(i, n, incx)];
      s += (conjugate ? conj_if(xv) : xv) * as_num(y)[at(i, n, incy)];
    }
    *as_num(result) = s;
  });
}

// nrm2 as the reference BLAS computes it (scaled, no overflow).
template <class T, class R>
cublasStatus_t nrm2(cublasHandle_t h, const char* e, int n, const T* x, int incx, R* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  if (!ranges_ok(e, {{"vector x", x, vec<T>(n, incx)}})) return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit_result(h, e, [=] {
    double scale = 0, ssq = 1;
    auto add = [&](double v) {
      if (v == 0) return;
      double a = std::fabs(v);
      if (scale < a) {
        ssq = 1 + ssq * (scale / a) * (scale / a);
        scale = a;
      } else {
        ssq += (a / scale) * (a / scale);
      }
    };
    if (incx > 0)
      for (int i = 0; i < n; ++i) {
        num_t<T> v = as_num(x)[int64_t(i) * incx];
        if constexpr (is_complex_v<num_t<T>>) {
          add(v.real()), add(v.imag());
        } else {
          add(v);
        }
      }
    *result = R(n > 0 && incx > 0 ? scale * std::sqrt(ssq) : 0);
  });
}

template <class N>
double abs1(N v) {
  if constexpr (is_complex_v<N>)
    return std::fabs(double(v.real())) + std::fabs(double(v.imag()));
  else
    return std::fabs(double(v));
}

template <class T, class R>
cublasStatus_t asum(cublasHandle_t h, const char* e, int n, const T* x, int incx, R* result) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  if (!ranges_ok(e, {{"vector x", x, vec<T>(n, incx)}})) return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit_result(h, e, [=] {
    R s = 0;
    if (incx > 0)
      for (int i = 0; i < n; ++i) s += R(abs1(as_num(x)[int64_t(i) * incx]));
    *result = s;
  });
}

// amax/amin: the first index (1-based) of the largest/smallest |re|+|im|.
template <class T>
cublasStatus_t iamax(cublasHandle_t h, const char* e, int n, const T* x, int incx, int* result,
                     bool largest) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!result) return CUBLAS_STATUS_INVALID_VALUE;
  if (!ranges_ok(e, {{"vector x", x, vec<T>(n, incx)}})) return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit_result(h, e, [=] {
    int best = 0;
    double bv = 0;
    if (incx > 0)
      for (int i = 0; i < n; ++i) {
        double v = abs1(as_num(x)[int64_t(i) * incx]);
        if (i == 0 || (largest ? v > bv : v < bv)) best = i + 1, bv = v;
      }
    *result = best;
  });
}

template <class T, class C, class S>
cublasStatus_t rot(cublasHandle_t h, const char* e, int n, T* x, int incx, T* y, int incy,
                   const C* c, const S* s) {
  if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!c || !s) return CUBLAS_STATUS_INVALID_VALUE;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  auto cs = scalar(h, c);
  auto ss = scalar(h, s);
  if (!ranges_ok(e, {{"vector x", x, vec<T>(n, incx)}, {"vector y", y, vec<T>(n, incy)}}))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  return submit(h, e, [=] {
    C cv = cs.get();
    S sv0 = ss.get();
    auto sv = *as_num(&sv0);
    for (int i = 0; i < n; ++i) {
      auto& xv = as_num(x)[at(i, n, incx)];
      auto& yv = as_num(y)[at(i, n, incy)];
      auto nx = cv * xv + sv * yv;
      yv = cv * yv - conj_if(sv) * xv;
      xv = nx;
    }
  });
}

}  // namespace

extern "C" {

#define SMEMLAB_L1(P, p, T)                                                                    \
  cublasStatus_t cublas##P##axpy_v2(cublasHandle_t h, int n, const T* a, const T* x, int incx, \
                                    T* y, int incy) {                                          \
    return axpy(h, "cublas" #P "axpy_v2", n, a, x, incx, y, incy);                             \
  }                                                                                            \
  cublasStatus_t cublas##P##scal_v2(cublasHandle_t h, int n, const T* a, T* x, int incx) {     \
    return scal(h, "cublas" #P "scal_v2", n, a, x, incx);                                      \
  }                                                                                            \
  cublasStatus_t cublas##P##copy_v2(cublasHandle_t h, int n, const T* x, int incx, T* y,       \
                                    int incy) {                                                \
    return copy(h, "cublas" #P "copy_v2", n, x, incx, y, incy);                                \
  }                                                                                            \
  cublasStatus_t cublas##P##swap_v2(cublasHandle_t h, int n, T* x, int incx, T* y, int incy) { \
    return swap(h, "cublas" #P "swap_v2", n, x, incx, y, incy);                                \
  }                                                                                            \
  cublasStatus_t cublasI##p##amax_v2(cublasHandle_t h, int n, const T* x, int incx, int* r) {  \
    return iamax(h, "cublasI" #p "amax_v2", n, x, incx, r, true);                              \
  }                                                                                            \
  cublasStatus_t cublasI##p##amin_v2(cublasHandle_t h, int n, const T* x, int incx, int* r) {  \
    return iamax(h, "cublasI" #p "amin_v2", n, x, incx, r, false);                             \
  }
SMEMLAB_L1(S, s, float)
SMEMLAB_L1(D, d, double)
SMEMLAB_L1(C, c, cuComplex)
SMEMLAB_L1(Z, z, cuDoubleComplex)
#undef SMEMLAB_L1

#define SMEMLAB_REAL(P, T)                                                                    \
  cublasStatus_t cublas##P##dot_v2(cublasHandle_t h, int n, const T* x, int incx, const T* y, \
                                   int incy, T* r) {                                          \
    return dot(h, "cublas" #P "dot_v2", n, x, incx, y, incy, r, false);                       \
  }                                                                                           \
  cublasStatus_t cublas##P##nrm2_v2(cublasHandle_t h, int n, const T* x, int incx, T* r) {    \
    return nrm2(h, "cublas" #P "nrm2_v2", n, x, incx, r);                                     \
  }                                                                                           \
  cublasStatus_t cublas##P##asum_v2(cublasHandle_t h, int n, const T* x, int incx, T* r) {    \
    return asum(h, "cublas" #P "asum_v2", n, x, incx, r);                                     \
  }                                                                                           \
  cublasStatus_t cublas##P##rot_v2(cublasHandle_t h, int n, T* x, int incx, T* y, int incy,   \
                                   const T* c, const T* s) {                                  \
    return rot(h, "cublas" #P "rot_v2", n, x, incx, y, incy, c, s);                           \
  }
SMEMLAB_REAL(S, float)
SMEMLAB_REAL(D, double)
#undef SMEMLAB_REAL

#define SMEMLAB_CPLX(P, T, R, Q)                                                               \
  cublasStatus_t cublas##P##dotu_v2(cublasHandle_t h, int n, const T* x, int incx, const T* y, \
                                    int incy, T* r) {                                          \
    return dot(h, "cublas" #P "dotu_v2", n, x, incx, y, incy, r, false);                       \
  }                                                                                            \
  cublasStatus_t cublas##P##dotc_v2(cublasHandle_t h, int n, const T* x, int incx, const T* y, \
                                    int incy, T* r) {                                          \
    return dot(h, "cublas" #P "dotc_v2", n, x, incx, y, incy, r, true);                        \
  }                                                                                            \
  cublasStatus_t cublas##Q##nrm2_v2(cublasHandle_t h, int n, const T* x, int incx, R* r) {     \
    return nrm2(h, "cublas" #Q "nrm2_v2", n, x, incx, r);                                      \
  }                                                                                            \
  cublasStatus_t cublas##Q##asum_v2(cublasHandle_t h, int n, const T* x, int incx, R* r) {     \
    return asum(h, "cublas" #Q "asum_v2", n, x, incx, r);                                      \
  }                                                                                            \
  cublasStatus_t cublas##P##rot_v2(cublasHandle_t h, int n, T* x, int incx, T* y, int incy,    \
                                   const R* c, const T* s) {                                   \
    return rot(h, "cublas" #P "rot_v2", n, x, incx, y, incy, c, s);                            \
  }
SMEMLAB_CPLX(C, cuComplex, float, Sc)
SMEMLAB_CPLX(Z, cuDoubleComplex, double, Dz)
#undef SMEMLAB_CPLX

cublasStatus_t cublasCsscal_v2(cublasHandle_t h, int n, const float* a, cuComplex* x, int incx) {
  return scal(h, "cublasCsscal_v2", n, a, x, incx);
}
cublasStatus_t cublasZdscal_v2(cublasHandle_t h, int n, const double* a, cuDoubleComplex* x,
                               int incx) {
  return scal(h, "cublasZdscal_v2", n, a, x, incx);
}
cublasStatus_t cublasCsrot_v2(cublasHandle_t h, int n, cuComplex* x, int incx, cuComplex* y,
                              int incy, const float* c, const float* s) {
  return rot(h, "cublasCsrot_v2", n, x, incx, y, incy, c, s);
}
cublasStatus_t cublasZdrot_v2(cublasHandle_t h, int n, cuDoubleComplex* x, int incx,
                              cuDoubleComplex* y, int incy, const double* c, const double* s) {
  return rot(h, "cublasZdrot_v2", n, x, incx, y, incy, c, s);
}

}  // extern "C"
