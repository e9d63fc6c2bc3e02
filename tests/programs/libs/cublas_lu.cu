// cuBLAS's batched LU family (getrfBatched, getrsBatched, getriBatched,
// matinvBatched) in S/D/C/Z, checked against the matrices themselves: P L U
// equals A, A x equals b, A inv(A) is the identity, within a tolerance of the
// type; pivots are 1-based row indices; a singular matrix's info is the
// first zero diagonal element of U. Prints "ok TYPE PART" per part.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <complex>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                       \
  do {                                                 \
    if (!(x)) {                                        \
      std::printf("FAIL line %d: %s\n", __LINE__, #x); \
      std::exit(1);                                    \
    }                                                  \
  } while (0)

template <class T>
struct Api;
#define API(T, N, P)                                                                               \
  template <>                                                                                      \
  struct Api<T> {                                                                                  \
    using num = N;                                                                                 \
    static constexpr const char* name = #P;                                                        \
    static cublasStatus_t getrf(cublasHandle_t h, int n, T* const A[], int lda, int* p, int* info, \
                                int b) {                                                           \
      return cublas##P##getrfBatched(h, n, A, lda, p, info, b);                                    \
    }                                                                                              \
    static cublasStatus_t getrs(cublasHandle_t h, cublasOperation_t op, int n, int nrhs,           \
                                const T* const A[], int lda, const int* p, T* const B[], int ldb,  \
                                int* info, int b) {                                                \
      return cublas##P##getrsBatched(h, op, n, nrhs, A, lda, p, B, ldb, info, b);                  \
    }                                                                                              \
    static cublasStatus_t getri(cublasHandle_t h, int n, const T* const A[], int lda,              \
                                const int* p, T* const C[], int ldc, int* info, int b) {           \
      return cublas##P##getriBatched(h, n, A, lda, p, C, ldc, info, b);                            \
    }                                                                                              \
    static cublasStatus_t matinv(cublasHandle_t h, int n, const T* const A[], int lda,             \
                                 T* const C[], int ldc, int* info, int b) {                        \
      return cublas##P##matinvBatched(h, n, A, lda, C, ldc, info, b);                              \
    }                                                                                              \
  };
API(float, float, S)
API(double, double, D)
API(cuComplex, std::complex<float>, C)
API(cuDoubleComplex, std::complex<double>, Z)

// Single precision (float, complex<float>) or double.
template <class N>
double tol() {
  return std::is_same_v<N, float> || std::is_same_v<N, std::complex<float>> ? 2e-3 : 1e-9;
}

// A well-conditioned matrix with no pivot at the diagonal: rows must swap.
template <class N>
N entry(int b, int i, int j, int n) {
  double v = ((i * 7 + j * 13 + b * 5) % 11) / 11.0 - 0.5 + (j == (i + 1) % n ? n : 0);
  if constexpr (std::is_floating_point_v<N>)
    return static_cast<N>(v);
  else
    return N(static_cast<typename N::value_type>(v),
             static_cast<typename N::value_type>(((i + 2 * j + b) % 5) / 10.0));
}

template <class T>
void run(cublasHandle_t h) {
  using N = typename Api<T>::num;
  const int n = 6, lda = 8, batch = 3, nrhs = 2;
  const double eps = tol<N>();
  std::vector<N> a(size_t(lda) * n * batch);
  for (int b = 0; b < batch; ++b)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) a[b * lda * n + i + j * lda] = entry<N>(b, i, j, n);
  // The last matrix is singular: column 2 is column 1 (U(3,3) is zero at most).
  T *A, *B, *C;
  T **Ap, **Bp, **Cp;
  int *piv, *info;
  cudaMallocManaged(&A, a.size() * sizeof(T));
  cudaMallocManaged(&B, size_t(lda) * nrhs * batch * sizeof(T));
  cudaMallocManaged(&C, a.size() * sizeof(T));
  cudaMallocManaged(&Ap, batch * sizeof(T*));
  cudaMallocManaged(&Bp, batch * sizeof(T*));
  cudaMallocManaged(&Cp, batch * sizeof(T*));
  cudaMallocManaged(&piv, n * batch * sizeof(int));
  cudaMallocManaged(&info, batch * sizeof(int));
  N* An = reinterpret_cast<N*>(A);
  N* Bn = reinterpret_cast<N*>(B);
  N* Cn = reinterpret_cast<N*>(C);
  for (size_t k = 0; k < a.size(); ++k) An[k] = a[k];
  for (int b = 0; b < batch; ++b) {
    Ap[b] = A + b * lda * n;
    Bp[b] = B + b * lda * nrhs;
    Cp[b] = C + b * lda * n;
  }
  // getrf: P A = L U.
  CHECK(Api<T>::getrf(h, n, Ap, lda, piv, info, batch) == CUBLAS_STATUS_SUCCESS);
  cudaDeviceSynchronize();
  for (int b = 0; b < batch; ++b) {
    CHECK(info[b] == 0);
    std::vector<N> pa(n * n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) pa[i + j * n] = a[b * lda * n + i + j * lda];
    for (int i = 0; i < n; ++i) {
      CHECK(piv[b * n + i] >= i + 1 && piv[b * n + i] <= n);
      for (int j = 0; j < n; ++j) std::swap(pa[i + j * n], pa[piv[b * n + i] - 1 + j * n]);
    }
    const N* f = An + b * lda * n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        N s{};
        for (int k = 0; k <= std::min(i, j); ++k)
          s += (k == i ? N(1) : f[i + k * lda]) * f[k + j * lda];
        CHECK(std::abs(s - pa[i + j * n]) < eps * n);
      }
  }
  std::printf("ok %s getrfBatched\n", Api<T>::name);
  // getrs: A x = b and A^T x = b, checked with A.
  for (cublasOperation_t op : {CUBLAS_OP_N, CUBLAS_OP_T}) {
    for (int b = 0; b < batch; ++b)
      for (int c = 0; c < nrhs; ++c)
        for (int i = 0; i < n; ++i) Bn[b * lda * nrhs + c * lda + i] = N(i + c + 1);
    int hinfo = 1;
    CHECK(Api<T>::getrs(h, op, n, nrhs, Ap, lda, piv, Bp, lda, &hinfo, batch) ==
          CUBLAS_STATUS_SUCCESS);
    CHECK(hinfo == 0);
    cudaDeviceSynchronize();
    for (int b = 0; b < batch; ++b)
      for (int c = 0; c < nrhs; ++c)
        for (int i = 0; i < n; ++i) {
          N s{};
          for (int k = 0; k < n; ++k) {
            N aik = op == CUBLAS_OP_N ? a[b * lda * n + i + k * lda] : a[b * lda * n + k + i * lda];
            s += aik * Bn[b * lda * nrhs + c * lda + k];
          }
          CHECK(std::abs(s - N(i + c + 1)) < eps * n * 10);
        }
  }
  int hinfo = 0;
  CHECK(Api<T>::getrs(h, CUBLAS_OP_N, -1, nrhs, Ap, lda, piv, Bp, lda, &hinfo, batch) ==
        CUBLAS_STATUS_INVALID_VALUE);
  CHECK(hinfo == -2);
  std::printf("ok %s getrsBatched\n", Api<T>::name);
  // getri: inv(A) from the factors; matinv: from A.
  CHECK(Api<T>::getri(h, n, Ap, lda, piv, Cp, lda, info, batch) == CUBLAS_STATUS_SUCCESS);
  cudaDeviceSynchronize();
  auto identity = [&](const char* what) {
    for (int b = 0; b < batch; ++b) {
      CHECK(info[b] == 0);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          N s{};
          for (int k = 0; k < n; ++k)
            s += a[b * lda * n + i + k * lda] * Cn[b * lda * n + k + j * lda];
          CHECK(std::abs(s - N(i == j ? 1 : 0)) < eps * n * 10);
        }
    }
    std::printf("ok %s %s\n", Api<T>::name, what);
  };
  identity("getriBatched");
  for (size_t k = 0; k < a.size(); ++k) An[k] = a[k], Cn[k] = N{};
  CHECK(Api<T>::matinv(h, n, Ap, lda, Cp, lda, info, batch) == CUBLAS_STATUS_SUCCESS);
  cudaDeviceSynchronize();
  identity("matinvBatched");
  // A singular matrix: row 3 (1-based) zero, no pivoting: U(3,3) = 0 exactly.
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) An[i + j * lda] = i == 2 ? N{} : a[i + j * lda];
  CHECK(Api<T>::getrf(h, n, Ap, lda, nullptr, info, 1) == CUBLAS_STATUS_SUCCESS);
  cudaDeviceSynchronize();
  CHECK(info[0] == 3);
  std::printf("ok %s singular info %d\n", Api<T>::name, info[0]);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(Ap);
  cudaFree(Bp);
  cudaFree(Cp);
  cudaFree(piv);
  cudaFree(info);
}

int main() {
  cublasHandle_t h;
  CHECK(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS);
  run<float>(h);
  run<double>(h);
  run<cuComplex>(h);
  run<cuDoubleComplex>(h);
  CHECK(cublasDestroy(h) == CUBLAS_STATUS_SUCCESS);
  std::printf("PASS cublas_lu\n");
  return 0;
}
