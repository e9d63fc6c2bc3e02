// cuFFT through smemlab's libcufft (or the GPU's): 1-D C2C (powers of two,
// mixed radix, a prime for Bluestein) batched, 2-D R2C/C2R, 3-D Z2Z, D2Z,
// cufftPlanMany with strides and distances, cufftMakePlan with a work area,
// a stream between the program's kernels; each checked against the DFT's
// definition computed here in double. Exit 1 if any check failed.
#include <cufft.h>

#include "common.h"

using cf = std::complex<float>;
using cd = std::complex<double>;

// The DFT over a row-major array of dims (naive nested sums, one axis at a time).
std::vector<cd> dft(std::vector<cd> x, const std::vector<int>& dims, int sign) {
  long total = 1;
  for (int d : dims) total *= d;
  long inner = total;
  for (int n : dims) {
    inner /= n;
    std::vector<cd> y(total);
    for (long o = 0; o < total / (inner * n); ++o)
      for (long i = 0; i < inner; ++i)
        for (int k = 0; k < n; ++k) {
          cd s{};
          for (int j = 0; j < n; ++j) {
            double a = sign * 2 * M_PI * double((long(j) * k) % n) / n;
            s += x[(o * n + j) * inner + i] * cd(std::cos(a), std::sin(a));
          }
          y[(o * n + k) * inner + i] = s;
        }
    x = y;
  }
  return x;
}

std::vector<cd> rnd_c(size_t n, uint64_t seed) {
  Lcg g(seed);
  std::vector<cd> v(n);
  for (auto& x : v) x = cd(g.next(), g.next());
  return v;
}

template <class T>
T* dev(size_t bytes) {
  void* p;
  CHECK_CUDA(cudaMalloc(&p, bytes));
  return static_cast<T*>(p);
}

void c2c_1d(int n, int batch, int dir) {
  auto x = rnd_c(size_t(n) * batch, n + batch);
  std::vector<cf> xf(x.begin(), x.end());
  auto* d = dev<cufftComplex>(xf.size() * sizeof(cf));
  CHECK_CUDA(cudaMemcpy(d, xf.data(), xf.size() * sizeof(cf), cudaMemcpyHostToDevice));
  cufftHandle p;
  CHECK_STATUS(cufftPlan1d(&p, n, CUFFT_C2C, batch));
  CHECK_STATUS(cufftExecC2C(p, d, d, dir));  // in place
  std::vector<cf> got(xf.size());
  CHECK_CUDA(cudaMemcpy(got.data(), d, got.size() * sizeof(cf), cudaMemcpyDeviceToHost));
  std::vector<cf> want;
  for (int b = 0; b < batch; ++b) {
    auto y = dft(std::vector<cd>(x.begin() + b * n, x.begin() + (b + 1) * n), {n}, dir);
    for (auto v : y) want.push_back(cf(v / std::sqrt(double(n))));
  }
  for (auto& v : got) v /= std::sqrt(float(n));  // compare at unit scale
  expect_close(
      ("C2C_1d_n" + std::to_string(n) + "_b" + std::to_string(batch) + (dir < 0 ? "_fwd" : "_inv"))
          .c_str(),
      got, want, 2e-5 * std::log2(n + 1.0));
  cufftDestroy(p);
  cudaFree(d);
}

void r2c_c2r_2d(int nx, int ny) {
  const int half = ny / 2 + 1;
  auto xc = rnd_c(size_t(nx) * ny, 77);
  std::vector<float> x(xc.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(xc[i].real());
  auto* dr = dev<cufftReal>(x.size() * 4);
  auto* dc = dev<cufftComplex>(size_t(nx) * half * 8);
  CHECK_CUDA(cudaMemcpy(dr, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  cufftHandle f, b;
  CHECK_STATUS(cufftPlan2d(&f, nx, ny, CUFFT_R2C));
  CHECK_STATUS(cufftPlan2d(&b, nx, ny, CUFFT_C2R));
  CHECK_STATUS(cufftExecR2C(f, dr, dc));
  std::vector<cf> got(size_t(nx) * half);
  CHECK_CUDA(cudaMemcpy(got.data(), dc, got.size() * 8, cudaMemcpyDeviceToHost));
  auto full = dft(std::vector<cd>(x.begin(), x.end()), {nx, ny}, -1);
  std::vector<cf> want;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < half; ++j) want.push_back(cf(full[i * ny + j] / double(nx * ny)));
  for (auto& v : got) v /= float(nx * ny);
  expect_close(("R2C_2d_" + std::to_string(nx) + "x" + std::to_string(ny)).c_str(), got, want,
               1e-5);
  CHECK_STATUS(cufftExecC2R(b, dc, dr));  // unnormalized: x * nx * ny
  std::vector<float> back(x.size()), wantb(x.size());
  CHECK_CUDA(cudaMemcpy(back.data(), dr, back.size() * 4, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < x.size(); ++i) back[i] /= float(nx * ny), wantb[i] = x[i];
  expect_close(("C2R_2d_roundtrip_" + std::to_string(nx) + "x" + std::to_string(ny)).c_str(), back,
               wantb, 1e-5);
  cufftDestroy(f), cufftDestroy(b);
  cudaFree(dr), cudaFree(dc);
}

void z2z_3d() {
  const int a = 6, b = 5, c = 8, n = a * b * c;
  auto x = rnd_c(n, 99);
  auto* d = dev<cufftDoubleComplex>(n * 16);
  auto* o = dev<cufftDoubleComplex>(n * 16);
  CHECK_CUDA(cudaMemcpy(d, x.data(), n * 16, cudaMemcpyHostToDevice));
  cufftHandle p;
  CHECK_STATUS(cufftPlan3d(&p, a, b, c, CUFFT_Z2Z));
  CHECK_STATUS(cufftExecZ2Z(p, d, o, CUFFT_INVERSE));
  std::vector<cd> got(n);
  CHECK_CUDA(cudaMemcpy(got.data(), o, n * 16, cudaMemcpyDeviceToHost));
  auto want = dft(x, {a, b, c}, +1);
  for (int i = 0; i < n; ++i) got[i] /= double(n), want[i] /= double(n);
  expect_close("Z2Z_3d_6x5x8_inv", got, want, 1e-12);
  cufftDestroy(p);
  cudaFree(d), cudaFree(o);
}

void d2z_1d() {
  const int n = 60, half = n / 2 + 1, batch = 2;
  auto xc = rnd_c(n * batch, 5);
  std::vector<double> x(n * batch);
  for (int i = 0; i < n * batch; ++i) x[i] = xc[i].imag();
  auto* dr = dev<cufftDoubleReal>(x.size() * 8);
  auto* dc = dev<cufftDoubleComplex>(half * batch * 16);
  CHECK_CUDA(cudaMemcpy(dr, x.data(), x.size() * 8, cudaMemcpyHostToDevice));
  cufftHandle p;
  CHECK_STATUS(cufftPlan1d(&p, n, CUFFT_D2Z, batch));
  CHECK_STATUS(cufftExecD2Z(p, dr, dc));
  std::vector<cd> got(half * batch), want;
  CHECK_CUDA(cudaMemcpy(got.data(), dc, got.size() * 16, cudaMemcpyDeviceToHost));
  for (int bb = 0; bb < batch; ++bb) {
    auto y = dft(std::vector<cd>(x.begin() + bb * n, x.begin() + (bb + 1) * n), {n}, -1);
    for (int k = 0; k < half; ++k) want.push_back(y[k] / double(n));
  }
  for (auto& v : got) v /= double(n);
  expect_close("D2Z_1d_60_b2", got, want, 1e-12);
  cufftDestroy(p);
  cudaFree(dr), cudaFree(dc);
}

// PlanMany: 4 interleaved signals (stride 4, dist 1) of 24 into a padded
// output (stride 1, dist 30), through cufftMakePlanMany and a work area.
void plan_many(cudaStream_t s) {
  const int n = 24, batch = 4, odist = 30;
  auto x = rnd_c(n * batch, 123);
  std::vector<cf> xf(x.begin(), x.end());
  auto* di = dev<cufftComplex>(xf.size() * 8);
  auto* dout = dev<cufftComplex>(odist * batch * 8);
  CHECK_CUDA(cudaMemcpy(di, xf.data(), xf.size() * 8, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dout, 0, odist * batch * 8));
  cufftHandle p;
  CHECK_STATUS(cufftCreate(&p));
  CHECK_STATUS(cufftSetAutoAllocation(p, 0));
  int dims[] = {n}, inembed[] = {n * batch}, onembed[] = {odist};
  size_t work = 0;
  CHECK_STATUS(
      cufftMakePlanMany(p, 1, dims, inembed, batch, 1, onembed, 1, odist, CUFFT_C2C, batch, &work));
  void* area;
  CHECK_CUDA(cudaMalloc(&area, work + 256));
  CHECK_STATUS(cufftSetWorkArea(p, area));
  CHECK_STATUS(cufftSetStream(p, s));
  CHECK_STATUS(cufftExecC2C(p, di, dout, CUFFT_FORWARD));
  std::vector<cf> got(odist * batch);
  CHECK_CUDA(cudaMemcpyAsync(got.data(), dout, got.size() * 8, cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  std::vector<cf> want(odist * batch, cf(0, 0));
  for (int b = 0; b < batch; ++b) {
    std::vector<cd> sig(n);
    for (int j = 0; j < n; ++j) sig[j] = x[j * batch + b];
    auto y = dft(sig, {n}, -1);
    for (int k = 0; k < n; ++k) want[b * odist + k] = cf(y[k] / double(n));
  }
  for (int b = 0; b < batch; ++b)
    for (int k = 0; k < n; ++k) got[b * odist + k] /= float(n);
  expect_close("PlanMany_strided_1d_24_b4", got, want, 2e-6);
  cufftDestroy(p);
  cudaFree(di), cudaFree(dout), cudaFree(area);
}

int main(int argc, char** argv) {
  open_dump(argc, argv);
  c2c_1d(256, 3, CUFFT_FORWARD);
  c2c_1d(360, 2, CUFFT_INVERSE);
  c2c_1d(97, 2, CUFFT_FORWARD);
  c2c_1d(1000, 1, CUFFT_FORWARD);
  r2c_c2r_2d(12, 16);
  r2c_c2r_2d(9, 15);
  z2z_3d();
  d2z_1d();
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  plan_many(s);
  CHECK_CUDA(cudaStreamDestroy(s));
  if (g_dump) std::fclose(g_dump);
  std::printf("%s cufft_check (%d failed)\n", g_failures ? "FAIL" : "PASS", g_failures);
  return g_failures ? 1 : 0;
}
