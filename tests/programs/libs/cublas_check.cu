// cuBLAS through smemlab's libcublas (or the GPU's): BLAS 1/2/3 in S/D/C/Z,
// GEMM forms (strided, batched, GemmEx fp16/bf16/tf32), pointer modes,
// streams mixed with the program's own kernels, cublasLtMatmul; each
// checked against a CPU reference written here (naive loops in double) on
// random inputs. Prints PASS/FAIL per check; exit 1 if any failed.
// argv[1]: a file for the raw results (scripts/gpu-libs).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common.h"

using cf = std::complex<float>;
using cd = std::complex<double>;

template <class T>
struct Dev;
template <>
struct Dev<float> {
  using type = float;
};
template <>
struct Dev<double> {
  using type = double;
};
template <>
struct Dev<cf> {
  using type = cuComplex;
};
template <>
struct Dev<cd> {
  using type = cuDoubleComplex;
};
template <class T>
using dv_t = typename Dev<T>::type;

template <class T>
T rnd(Lcg& g) {
  if constexpr (std::is_same_v<T, cf> || std::is_same_v<T, cd>)
    return T(g.next(), g.next());
  else
    return T(g.next());
}
template <class T>
std::vector<T> rnd_vec(size_t n, uint64_t seed) {
  Lcg g(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = rnd<T>(g);
  return v;
}

// Device copies.
template <class T>
dv_t<T>* up(const std::vector<T>& v) {
  void* p;
  CHECK_CUDA(cudaMalloc(&p, v.size() * sizeof(T) + 16));
  CHECK_CUDA(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return static_cast<dv_t<T>*>(p);
}
template <class T>
std::vector<T> down(const dv_t<T>* p, size_t n) {
  std::vector<T> v(n);
  CHECK_CUDA(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}
template <class T>
const dv_t<T>* dp(const T* p) {
  return reinterpret_cast<const dv_t<T>*>(p);
}

template <class T>
double tol_of() {
  return std::is_same_v<T, float> || std::is_same_v<T, cf> ? 2e-4 : 1e-11;
}
template <class T>
T cj(T x) {
  if constexpr (std::is_same_v<T, cf> || std::is_same_v<T, cd>)
    return std::conj(x);
  else
    return x;
}

// op(M)(i, j) of a column-major matrix.
template <class T>
T opm(const std::vector<T>& M, int ld, cublasOperation_t op, int i, int j) {
  T v = op == CUBLAS_OP_N ? M[i + j * ld] : M[j + i * ld];
  return op == CUBLAS_OP_C ? cj(v) : v;
}

// The typed entry points, chosen by T.
#define PICK(name)                              \
  if constexpr (std::is_same_v<T, float>)       \
    return cublasS##name;                       \
  else if constexpr (std::is_same_v<T, double>) \
    return cublasD##name;                       \
  else if constexpr (std::is_same_v<T, cf>)     \
    return cublasC##name;                       \
  else                                          \
    return cublasZ##name;
template <class T>
auto f_axpy() {
  PICK(axpy)
}
template <class T>
auto f_gemm() {
  PICK(gemm)
}
template <class T>
auto f_gemv() {
  PICK(gemv)
}
template <class T>
auto f_trsm() {
  PICK(trsm)
}
template <class T>
auto f_trmm() {
  PICK(trmm)
}
template <class T>
auto f_symm() {
  PICK(symm)
}
template <class T>
auto f_syrk() {
  PICK(syrk)
}
template <class T>
auto f_geam() {
  PICK(geam)
}
template <class T>
auto f_dgmm() {
  PICK(dgmm)
}
template <class T>
auto f_trsv() {
  PICK(trsv)
}
template <class T>
auto f_symv() {
  PICK(symv)
}
template <class T>
auto f_scal() {
  PICK(scal)
}
template <class T>
auto f_gemm_strided() {
  PICK(gemmStridedBatched)
}
template <class T>
auto f_gemm_batched() {
  PICK(gemmBatched)
}
template <class T>
auto f_iamax() {
  if constexpr (std::is_same_v<T, float>)
    return cublasIsamax;
  else if constexpr (std::is_same_v<T, double>)
    return cublasIdamax;
  else if constexpr (std::is_same_v<T, cf>)
    return cublasIcamax;
  else
    return cublasIzamax;
}
template <class T>
auto f_dot() {
  if constexpr (std::is_same_v<T, float>)
    return cublasSdot;
  else if constexpr (std::is_same_v<T, double>)
    return cublasDdot;
  else if constexpr (std::is_same_v<T, cf>)
    return cublasCdotc;
  else
    return cublasZdotc;
}
template <class T>
auto f_nrm2() {
  if constexpr (std::is_same_v<T, float>)
    return cublasSnrm2;
  else if constexpr (std::is_same_v<T, double>)
    return cublasDnrm2;
  else if constexpr (std::is_same_v<T, cf>)
    return cublasScnrm2;
  else
    return cublasDznrm2;
}

template <class T>
void level1(cublasHandle_t h, const char* P) {
  const int n = 1000;
  auto x = rnd_vec<T>(n, 1), y = rnd_vec<T>(n, 2);
  auto *dx = up(x), *dy = up(y);
  Lcg alpha_rng(3);
  T alpha = rnd<T>(alpha_rng);
  CHECK_STATUS(f_axpy<T>()(h, n, dp(&alpha), dx, 1, dy, 1));
  std::vector<T> want(n);
  for (int i = 0; i < n; ++i) want[i] = y[i] + alpha * x[i];
  expect_close((std::string(P) + "axpy").c_str(), down<T>(dy, n), want, tol_of<T>());
  // Negative increment: y walks backwards.
  CHECK_STATUS(f_scal<T>()(h, n / 2, dp(&alpha), dx, 2));
  for (int i = 0; i < n; i += 2) x[i] *= alpha;
  expect_close((std::string(P) + "scal_inc2").c_str(), down<T>(dx, n), x, tol_of<T>());
  T d{};
  CHECK_STATUS(f_dot<T>()(h, n, dx, 1, dy, 1, reinterpret_cast<dv_t<T>*>(&d)));
  T wd{};
  for (int i = 0; i < n; ++i) wd += cj(x[i]) * want[i];
  expect_close((std::string(P) + "dot").c_str(), std::vector<T>{d}, std::vector<T>{wd},
               tol_of<T>() * 10);
  decltype(std::abs(T{})) nr = 0;
  CHECK_STATUS(f_nrm2<T>()(h, n, dx, 1, &nr));
  double wn = 0;
  for (auto v : x) wn += std::norm(std::complex<double>(v));
  expect_close((std::string(P) + "nrm2").c_str(), std::vector<double>{double(nr)},
               std::vector<double>{std::sqrt(wn)}, tol_of<T>() * 10);
  int idx = 0;
  CHECK_STATUS(f_iamax<T>()(h, n, dx, 1, &idx));
  int wi = 0;
  double best = -1;
  for (int i = 0; i < n; ++i) {
    std::complex<double> c(x[i]);
    double v = std::fabs(c.real()) + std::fabs(c.imag());
    if (v > best) best = v, wi = i + 1;
  }
  expect_close((std::string(P) + "amax").c_str(), std::vector<double>{double(idx)},
               std::vector<double>{double(wi)}, 0);
  cudaFree(dx), cudaFree(dy);
}

template <class T>
void gemm_ref(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, T a,
              const std::vector<T>& A, int lda, const std::vector<T>& B, int ldb, T b,
              std::vector<T>& C, int ldc) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      T s{};
      for (int l = 0; l < k; ++l) s += opm(A, lda, ta, i, l) * opm(B, ldb, tb, l, j);
      C[i + j * ldc] = a * s + b * C[i + j * ldc];
    }
}

template <class T>
void level23(cublasHandle_t h, const char* P) {
  const int m = 37, n = 29, k = 41;
  T alpha = T(1.5), beta = T(-0.5);
  for (auto [ta, tb] : {std::pair{CUBLAS_OP_N, CUBLAS_OP_N},
                        {CUBLAS_OP_T, CUBLAS_OP_N},
                        {CUBLAS_OP_C, CUBLAS_OP_T}}) {
    int lda = (ta == CUBLAS_OP_N ? m : k) + 3, ldb = (tb == CUBLAS_OP_N ? k : n) + 1, ldc = m + 2;
    auto A = rnd_vec<T>(lda * std::max(m, k), 10), B = rnd_vec<T>(ldb * std::max(n, k), 11),
         C = rnd_vec<T>(ldc * n, 12);
    auto *dA = up(A), *dB = up(B), *dC = up(C);
    CHECK_STATUS(f_gemm<T>()(h, ta, tb, m, n, k, dp(&alpha), dA, lda, dB, ldb, dp(&beta), dC, ldc));
    gemm_ref(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    expect_close((std::string(P) + "gemm_" + "NTC"[ta] + "NTC"[tb]).c_str(), down<T>(dC, C.size()),
                 C, tol_of<T>());
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
  }
  // gemv (transposed), symv, trsv, trsm, trmm, symm, syrk, geam, dgmm.
  auto A = rnd_vec<T>(m * m, 20), x = rnd_vec<T>(m, 21), y = rnd_vec<T>(m, 22);
  for (int i = 0; i < m; ++i) A[i + i * m] += T(m);  // well conditioned for the solves
  auto *dA = up(A), *dx = up(x), *dy = up(y);
  CHECK_STATUS(f_gemv<T>()(h, CUBLAS_OP_T, m, m, dp(&alpha), dA, m, dx, 1, dp(&beta), dy, 1));
  std::vector<T> want(m);
  for (int i = 0; i < m; ++i) {
    T s{};
    for (int j = 0; j < m; ++j) s += A[j + i * m] * x[j];
    want[i] = alpha * s + beta * y[i];
  }
  expect_close((std::string(P) + "gemv_T").c_str(), down<T>(dy, m), want, tol_of<T>());
  CHECK_CUDA(cudaMemcpy(dy, y.data(), m * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_STATUS(
      f_symv<T>()(h, CUBLAS_FILL_MODE_LOWER, m, dp(&alpha), dA, m, dx, 1, dp(&beta), dy, 1));
  for (int i = 0; i < m; ++i) {
    T s{};
    for (int j = 0; j < m; ++j) s += (i >= j ? A[i + j * m] : A[j + i * m]) * x[j];
    want[i] = alpha * s + beta * y[i];
  }
  expect_close((std::string(P) + "symv_L").c_str(), down<T>(dy, m), want, tol_of<T>());
  // trsv: solve upper^T x = b; check by multiplying back.
  CHECK_STATUS(
      f_trsv<T>()(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, m, dA, m, dx, 1));
  auto sol = down<T>(dx, m);
  std::vector<T> back(m);
  for (int i = 0; i < m; ++i) {
    T s{};
    for (int j = 0; j <= i; ++j) s += A[j + i * m] * sol[j];  // (U^T)(i, j) = U(j, i), j <= i
    back[i] = s;
  }
  expect_close((std::string(P) + "trsv_UT").c_str(), back, x, tol_of<T>() * 10);
  // trsm left lower: A X = alpha B.
  auto B = rnd_vec<T>(m * n, 23);
  auto* dB = up(B);
  CHECK_STATUS(f_trsm<T>()(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                           CUBLAS_DIAG_NON_UNIT, m, n, dp(&alpha), dA, m, dB, m));
  auto X = down<T>(dB, m * n);
  std::vector<T> AX(m * n), aB(m * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      T s{};
      for (int l = 0; l <= i; ++l) s += A[i + l * m] * X[l + j * m];
      AX[i + j * m] = s, aB[i + j * m] = alpha * B[i + j * m];
    }
  expect_close((std::string(P) + "trsm_LLN").c_str(), AX, aB, tol_of<T>() * 10);
  // trmm right upper, out of place: C = alpha B A.
  CHECK_CUDA(cudaMemcpy(dB, B.data(), m * n * sizeof(T), cudaMemcpyHostToDevice));
  auto nA = rnd_vec<T>(n * n, 24);
  auto* dnA = up(nA);
  auto* dC = up(std::vector<T>(m * n));
  CHECK_STATUS(f_trmm<T>()(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                           CUBLAS_DIAG_UNIT, m, n, dp(&alpha), dnA, n, dB, m, dC, m));
  std::vector<T> wC(m * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      T s = B[i + j * m];  // unit diagonal
      for (int l = 0; l < j; ++l) s += B[i + l * m] * nA[l + j * n];
      wC[i + j * m] = alpha * s;
    }
  expect_close((std::string(P) + "trmm_RUN_unit").c_str(), down<T>(dC, m * n), wC, tol_of<T>());
  // symm left upper.
  auto C0 = rnd_vec<T>(m * n, 25);
  CHECK_CUDA(cudaMemcpy(dC, C0.data(), m * n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_STATUS(f_symm<T>()(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, m, n, dp(&alpha), dA, m, dB,
                           m, dp(&beta), dC, m));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      T s{};
      for (int l = 0; l < m; ++l) s += (i <= l ? A[i + l * m] : A[l + i * m]) * B[l + j * m];
      wC[i + j * m] = alpha * s + beta * C0[i + j * m];
    }
  expect_close((std::string(P) + "symm_LU").c_str(), down<T>(dC, m * n), wC, tol_of<T>());
  // syrk lower, trans N: C = alpha B B^T + beta C (m x m, k = n); only the lower triangle is
  // written.
  auto S0 = rnd_vec<T>(m * m, 26);
  auto* dS = up(S0);
  CHECK_STATUS(f_syrk<T>()(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, m, n, dp(&alpha), dB, m,
                           dp(&beta), dS, m));
  auto S = down<T>(dS, m * m);
  std::vector<T> gl, wl;
  for (int j = 0; j < m; ++j)
    for (int i = j; i < m; ++i) {
      T s{};
      for (int l = 0; l < n; ++l) s += B[i + l * m] * B[j + l * m];
      gl.push_back(S[i + j * m]), wl.push_back(alpha * s + beta * S0[i + j * m]);
    }
  expect_close((std::string(P) + "syrk_LN").c_str(), gl, wl, tol_of<T>());
  // geam: C = alpha A^T + beta B (m x m from A m x m).
  auto G = rnd_vec<T>(m * m, 27);
  auto* dG = up(G);
  CHECK_STATUS(
      f_geam<T>()(h, CUBLAS_OP_T, CUBLAS_OP_N, m, m, dp(&alpha), dA, m, dp(&beta), dG, m, dS, m));
  std::vector<T> wg(m * m);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) wg[i + j * m] = alpha * A[j + i * m] + beta * G[i + j * m];
  expect_close((std::string(P) + "geam_TN").c_str(), down<T>(dS, m * m), wg, tol_of<T>());
  // dgmm left: C = diag(x) B.
  auto xv = rnd_vec<T>(m, 28);
  auto* dxv = up(xv);
  CHECK_STATUS(f_dgmm<T>()(h, CUBLAS_SIDE_LEFT, m, n, dB, m, dxv, 1, dC, m));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) wC[i + j * m] = xv[i] * B[i + j * m];
  expect_close((std::string(P) + "dgmm_L").c_str(), down<T>(dC, m * n), wC, tol_of<T>());
  cudaFree(dA), cudaFree(dx), cudaFree(dy), cudaFree(dB), cudaFree(dnA), cudaFree(dC), cudaFree(dS),
      cudaFree(dG), cudaFree(dxv);
}

template <class T>
void batched(cublasHandle_t h, const char* P) {
  const int m = 16, n = 12, k = 20, batch = 5;
  T alpha = T(0.75), beta = T(0.25);
  auto A = rnd_vec<T>(m * k * batch, 30), B = rnd_vec<T>(k * n * batch, 31),
       C = rnd_vec<T>(m * n * batch, 32);
  auto *dA = up(A), *dB = up(B), *dC = up(C);
  CHECK_STATUS(f_gemm_strided<T>()(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, dp(&alpha), dA, m, m * k,
                                   dB, k, k * n, dp(&beta), dC, m, m * n, batch));
  std::vector<T> want = C;
  for (int b = 0; b < batch; ++b) {
    std::vector<T> a(A.begin() + b * m * k, A.begin() + (b + 1) * m * k),
        bb(B.begin() + b * k * n, B.begin() + (b + 1) * k * n),
        c(want.begin() + b * m * n, want.begin() + (b + 1) * m * n);
    gemm_ref(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, m, bb, k, beta, c, m);
    std::copy(c.begin(), c.end(), want.begin() + b * m * n);
  }
  expect_close((std::string(P) + "gemmStridedBatched").c_str(), down<T>(dC, C.size()), want,
               tol_of<T>());
  // The same through arrays of pointers in device memory, on the original C.
  CHECK_CUDA(cudaMemcpy(dC, C.data(), C.size() * sizeof(T), cudaMemcpyHostToDevice));
  std::vector<const dv_t<T>*> pa, pb;
  std::vector<dv_t<T>*> pc;
  for (int b = 0; b < batch; ++b)
    pa.push_back(dA + b * m * k), pb.push_back(dB + b * k * n), pc.push_back(dC + b * m * n);
  void *dpa, *dpb, *dpc;
  CHECK_CUDA(cudaMalloc(&dpa, batch * sizeof(void*)));
  CHECK_CUDA(cudaMalloc(&dpb, batch * sizeof(void*)));
  CHECK_CUDA(cudaMalloc(&dpc, batch * sizeof(void*)));
  CHECK_CUDA(cudaMemcpy(dpa, pa.data(), batch * sizeof(void*), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dpb, pb.data(), batch * sizeof(void*), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dpc, pc.data(), batch * sizeof(void*), cudaMemcpyHostToDevice));
  CHECK_STATUS(f_gemm_batched<T>()(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, dp(&alpha),
                                   (const dv_t<T>* const*)dpa, m, (const dv_t<T>* const*)dpb, k,
                                   dp(&beta), (dv_t<T>* const*)dpc, m, batch));
  expect_close((std::string(P) + "gemmBatched").c_str(), down<T>(dC, C.size()), want, tol_of<T>());
  cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dpa), cudaFree(dpb), cudaFree(dpc);
}

// Hermitian routines (C/Z): hemv (upper), her (lower), herk (lower, N),
// hemm (left, lower) against loops over the full Hermitian matrix.
template <class T, class R, class Hemv, class Her, class Herk, class Hemm>
void hermitian(cublasHandle_t h, const char* P, Hemv hemv, Her her, Herk herk, Hemm hemm) {
  using D = dv_t<T>;
  const int n = 23, k = 17;
  auto A = rnd_vec<T>(n * n, 60), x = rnd_vec<T>(n, 61), y = rnd_vec<T>(n, 62);
  auto full = [&](const std::vector<T>& M, bool upper, int i, int j) {
    if (i == j) return T(M[i + i * n].real(), 0);
    bool stored = upper ? i < j : i > j;
    return stored ? M[i + j * n] : std::conj(M[j + i * n]);
  };
  T alpha(0.5, -0.25), beta(1.5, 0.5);
  R ralpha = 0.75, rbeta = -0.5;
  auto *dA = up(A), *dx = up(x), *dy = up(y);
  CHECK_STATUS(hemv(h, CUBLAS_FILL_MODE_UPPER, n, dp(&alpha), dA, n, dx, 1, dp(&beta), dy, 1));
  std::vector<T> want(n);
  for (int i = 0; i < n; ++i) {
    T s{};
    for (int j = 0; j < n; ++j) s += full(A, true, i, j) * x[j];
    want[i] = alpha * s + beta * y[i];
  }
  expect_close((std::string(P) + "hemv_U").c_str(), down<T>(dy, n), want, tol_of<T>());
  CHECK_STATUS(her(h, CUBLAS_FILL_MODE_LOWER, n, &ralpha, dx, 1, dA, n));
  auto got = down<T>(dA, n * n);
  std::vector<T> gl, wl;
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      T w = full(A, false, i, j) + ralpha * x[i] * std::conj(x[j]);
      gl.push_back(got[i + j * n]), wl.push_back(i == j ? T(w.real(), 0) : w);
    }
  expect_close((std::string(P) + "her_L").c_str(), gl, wl, tol_of<T>());
  auto B = rnd_vec<T>(n * k, 63), C = rnd_vec<T>(n * n, 64);
  auto *dB = up(B), *dC = up(C);
  CHECK_STATUS(herk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, &ralpha, dB, n, &rbeta, dC, n));
  got = down<T>(dC, n * n);
  gl.clear(), wl.clear();
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      T s{};
      for (int l = 0; l < k; ++l) s += B[i + l * n] * std::conj(B[j + l * n]);
      T w = ralpha * s + rbeta * C[i + j * n];
      gl.push_back(got[i + j * n]), wl.push_back(i == j ? T(w.real(), 0) : w);
    }
  expect_close((std::string(P) + "herk_LN").c_str(), gl, wl, tol_of<T>());
  CHECK_CUDA(cudaMemcpy(dA, A.data(), n * n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dC, C.data(), n * k * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_STATUS(hemm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, n, k, dp(&alpha), dA, n, dB, n,
                    dp(&beta), dC, n));
  std::vector<T> wm(n * k);
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < n; ++i) {
      T s{};
      for (int l = 0; l < n; ++l) s += full(A, false, i, l) * B[l + j * n];
      wm[i + j * n] = alpha * s + beta * C[i + j * n];
    }
  expect_close((std::string(P) + "hemm_LL").c_str(), down<T>(dC, n * k), wm, tol_of<T>());
  cudaFree(dA), cudaFree(dx), cudaFree(dy), cudaFree(dB), cudaFree(dC);
}

// GemmEx: fp16 and bf16 inputs with fp32 compute and output, and fp32 with
// tf32 allowed (the tolerance is tf32's, the GPU rounds the inputs to it).
void gemm_ex(cublasHandle_t h) {
  const int m = 64, n = 48, k = 80;
  auto A = rnd_vec<float>(m * k, 40), B = rnd_vec<float>(k * n, 41);
  std::vector<__half> Ah(A.size()), Bh(B.size());
  std::vector<__nv_bfloat16> Ab(A.size()), Bb(B.size());
  std::vector<float> Ahf(A.size()), Bhf(B.size()), Abf(A.size()), Bbf(B.size());
  for (size_t i = 0; i < A.size(); ++i)
    Ah[i] = __float2half(A[i]), Ahf[i] = __half2float(Ah[i]), Ab[i] = __float2bfloat16(A[i]),
    Abf[i] = __bfloat162float(Ab[i]);
  for (size_t i = 0; i < B.size(); ++i)
    Bh[i] = __float2half(B[i]), Bhf[i] = __half2float(Bh[i]), Bb[i] = __float2bfloat16(B[i]),
    Bbf[i] = __bfloat162float(Bb[i]);
  float alpha = 1, beta = 0;
  void *dA, *dB, *dC;
  CHECK_CUDA(cudaMalloc(&dA, A.size() * 4));
  CHECK_CUDA(cudaMalloc(&dB, B.size() * 4));
  CHECK_CUDA(cudaMalloc(&dC, m * n * 4));
  struct Case {
    const char* name;
    cudaDataType t;
    const void* a;
    const void* b;
    size_t es;
    const std::vector<float>* ra;
    const std::vector<float>* rb;
    cublasComputeType_t c;
    double tol;
  };
  Case cases[] = {
      {"gemmEx_f16_f32", CUDA_R_16F, Ah.data(), Bh.data(), 2, &Ahf, &Bhf, CUBLAS_COMPUTE_32F, 1e-4},
      {"gemmEx_bf16_f32", CUDA_R_16BF, Ab.data(), Bb.data(), 2, &Abf, &Bbf, CUBLAS_COMPUTE_32F,
       1e-4},
      {"gemmEx_f32_tf32", CUDA_R_32F, A.data(), B.data(), 4, &A, &B, CUBLAS_COMPUTE_32F_FAST_TF32,
       2e-2}};
  for (const Case& c : cases) {
    CHECK_CUDA(cudaMemcpy(dA, c.a, A.size() * c.es, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dB, c.b, B.size() * c.es, cudaMemcpyHostToDevice));
    CHECK_STATUS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, c.t, m, dB, c.t, k,
                              &beta, dC, CUDA_R_32F, m, c.c, CUBLAS_GEMM_DEFAULT));
    std::vector<float> want(m * n, 0.f);
    gemm_ref(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, 1.f, *c.ra, m, *c.rb, k, 0.f, want, m);
    expect_close(c.name, down<float>((float*)dC, m * n), want, c.tol);
  }
  // Strided batched Ex with fp16 output.
  CHECK_CUDA(cudaMemcpy(dA, Ah.data(), A.size() * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dB, Bh.data(), B.size() * 2, cudaMemcpyHostToDevice));
  CHECK_STATUS(cublasGemmStridedBatchedEx(
      h, CUBLAS_OP_N, CUBLAS_OP_N, m / 2, n, k, &alpha, dA, CUDA_R_16F, m, m / 2, dB, CUDA_R_16F, k,
      0, &beta, dC, CUDA_R_16F, m / 2, (m / 2) * n, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  std::vector<float> want(m * n, 0.f);
  gemm_ref(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, 1.f, Ahf, m, Bhf, k, 0.f, want, m);
  std::vector<__half> got(m * n);
  CHECK_CUDA(cudaMemcpy(got.data(), dC, m * n * 2, cudaMemcpyDeviceToHost));
  std::vector<float> g2, w2;
  for (int b = 0; b < 2; ++b)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m / 2; ++i)
        g2.push_back(__half2float(got[b * (m / 2) * n + i + j * (m / 2)])),
            w2.push_back(want[b * m / 2 + i + j * m]);
  expect_close("gemmStridedBatchedEx_f16out", g2, w2, 2e-3);
  // cublasLt: D = alpha A B + beta C with C != D (fp32).
  cublasLtHandle_t lt;
  CHECK_STATUS(cublasLtCreate(&lt));
  cublasLtMatmulDesc_t desc;
  CHECK_STATUS(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t opT = CUBLAS_OP_T;
  CHECK_STATUS(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof(opT)));
  cublasLtMatrixLayout_t la, lb, lc;
  CHECK_STATUS(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, k, m, k));
  CHECK_STATUS(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k));
  CHECK_STATUS(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m));
  auto C = rnd_vec<float>(m * n, 42);
  void* dD;
  CHECK_CUDA(cudaMalloc(&dD, m * n * 4));
  CHECK_CUDA(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));  // A^T stored k x m
  CHECK_CUDA(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
  float la_alpha = 2, la_beta = 0.5;
  cublasLtMatmulPreference_t pref;
  CHECK_STATUS(cublasLtMatmulPreferenceCreate(&pref));
  cublasLtMatmulHeuristicResult_t heur;
  int found = 0;
  CHECK_STATUS(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &heur, &found));
  CHECK_STATUS(cublasLtMatmul(lt, desc, &la_alpha, dA, la, dB, lb, &la_beta, dC, lc, dD, lc,
                              found ? &heur.algo : nullptr, nullptr, 0, 0));
  std::vector<float> wd = C;
  gemm_ref(CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, 2.f, A, k, B, k, 0.5f, wd, m);
  expect_close("cublasLtMatmul_TN", down<float>((float*)dD, m * n), wd, 2e-4);
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(lt);
  cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dD);
}

__global__ void scale_kernel(float* x, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

// Stream order and device pointer mode: kernel, library call, kernel on one
// stream; alpha read from device memory, a dot result written to it.
void stream_order(cublasHandle_t h) {
  const int n = 4096;
  auto x = rnd_vec<float>(n, 50), y = rnd_vec<float>(n, 51);
  float *dx = up(x), *dy = up(y), *dscal;
  CHECK_CUDA(cudaMalloc(&dscal, 2 * sizeof(float)));
  float two = 2.f;
  CHECK_CUDA(cudaMemcpy(dscal, &two, 4, cudaMemcpyHostToDevice));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  CHECK_STATUS(cublasSetStream(h, s));
  CHECK_STATUS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
  scale_kernel<<<(n + 255) / 256, 256, 0, s>>>(dx, n, 3.f);
  CHECK_STATUS(cublasSaxpy(h, n, dscal, dx, 1, dy, 1));
  scale_kernel<<<(n + 255) / 256, 256, 0, s>>>(dy, n, 0.5f);
  CHECK_STATUS(cublasSdot(h, n, dx, 1, dy, 1, dscal + 1));
  float dot = 0;
  CHECK_CUDA(cudaMemcpyAsync(&dot, dscal + 1, 4, cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  std::vector<float> want(n);
  double wdot = 0;
  for (int i = 0; i < n; ++i)
    want[i] = 0.5f * (y[i] + 2.f * 3.f * x[i]), wdot += 3.0 * x[i] * want[i];
  expect_close("stream_kernel_axpy_kernel", down<float>(dy, n), want, 1e-5);
  expect_close("device_pointer_dot", std::vector<float>{dot}, std::vector<float>{float(wdot)},
               1e-4);
  // Captured into a graph (a library call is a node of it) and replayed twice.
  CHECK_STATUS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  auto y2 = down<float>(dy, n);
  float half = 0.5f;
  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK_STATUS(cublasSaxpy(h, n, &half, dx, 1, dy, 1));
  CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaGraphLaunch(exec, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) want[i] = y2[i] + 2 * 0.5f * (3.f * x[i]);
  expect_close("graph_captured_axpy_twice", down<float>(dy, n), want, 1e-5);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  CHECK_STATUS(cublasSetStream(h, 0));
  CHECK_CUDA(cudaStreamDestroy(s));
  cudaFree(dx), cudaFree(dy), cudaFree(dscal);
}

int main(int argc, char** argv) {
  open_dump(argc, argv);
  cublasHandle_t h;
  CHECK_STATUS(cublasCreate(&h));
  CHECK_STATUS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  level1<float>(h, "S"), level1<double>(h, "D"), level1<cf>(h, "C"), level1<cd>(h, "Z");
  level23<float>(h, "S"), level23<double>(h, "D"), level23<cf>(h, "C"), level23<cd>(h, "Z");
  batched<float>(h, "S"), batched<double>(h, "D"), batched<cf>(h, "C"), batched<cd>(h, "Z");
  hermitian<cf, float>(h, "C", cublasChemv, cublasCher, cublasCherk, cublasChemm);
  hermitian<cd, double>(h, "Z", cublasZhemv, cublasZher, cublasZherk, cublasZhemm);
  gemm_ex(h);
  stream_order(h);
  CHECK_STATUS(cublasDestroy(h));
  if (g_dump) std::fclose(g_dump);
  std::printf("%s cublas_check (%d failed)\n", g_failures ? "FAIL" : "PASS", g_failures);
  return g_failures ? 1 : 0;
}
