// cuRAND's host API through smemlab's libcurand (or the GPU's), checked
// against the device API of curand_kernel.h run in this program's own
// kernel (curand_init(seed, subsequence, offset) + curand/curand_uniform...):
// the host API's result n (from the generator's offset o) is the device
// generator's draw at subsequence (o+n) mod 4096, position (o+n) / 4096.
// 32-bit and uniform results are compared bit for bit; normal and
// log-normal within float tolerance; Poisson by its mean and variance.
// Exit 1 if any check failed. argv[1]: a file for the raw results.
#include <curand.h>
#include <curand_kernel.h>

#include "common.h"

enum Dist { Bits, Uniform, UniformDouble, Normal };

template <class State>
__global__ void reference(unsigned long long seed, unsigned long long first, const unsigned* idx, int count, int dist,
                          unsigned* bits, float* f, double* d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  unsigned long long n = first + idx[i];
  // Draws per result: doubles take two 32-bit draws (not MRG32k3a), normals a pair.
  int draws = dist == UniformDouble ? 2 : dist == Normal ? 2 : 1;
  State s;
  if constexpr (std::is_same_v<State, curandStateMRG32k3a_t>) {
    if (dist == UniformDouble) draws = 1;
  }
  curand_init(seed, n % 4096, (n / 4096) * draws, &s);
  if (dist == Bits) bits[i] = curand(&s);
  if (dist == Uniform) f[i] = curand_uniform(&s);
  if (dist == UniformDouble) d[i] = curand_uniform_double(&s);
  if (dist == Normal) f[i] = curand_normal(&s);
}

template <class State>
void check_generator(curandRngType_t type, const char* name, unsigned long long seed, unsigned long long offset) {
  const size_t N = 2 * 4096 + 100;
  curandGenerator_t g;
  CHECK_STATUS(curandCreateGenerator(&g, type));
  CHECK_STATUS(curandSetPseudoRandomGeneratorSeed(g, seed));
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  // Sampled result indices: the start, across the first wrap, the end.
  std::vector<unsigned> idx;
  for (unsigned i = 0; i < 40; ++i) idx.push_back(i);
  for (unsigned i = 4090; i < 4110; ++i) idx.push_back(i);
  for (unsigned i = N - 20; i < N; ++i) idx.push_back(i);
  unsigned *didx, *dbits, *hbits;
  float *df, *hf;
  double *dd, *hd;
  CHECK_CUDA(cudaMalloc(&didx, idx.size() * 4));
  CHECK_CUDA(cudaMalloc(&dbits, idx.size() * 4));
  CHECK_CUDA(cudaMalloc(&df, idx.size() * 4));
  CHECK_CUDA(cudaMalloc(&dd, idx.size() * 8));
  CHECK_CUDA(cudaMalloc(&hbits, N * 4));
  CHECK_CUDA(cudaMalloc(&hf, N * 4));
  CHECK_CUDA(cudaMalloc(&hd, N * 8));
  CHECK_CUDA(cudaMemcpy(didx, idx.data(), idx.size() * 4, cudaMemcpyHostToDevice));
  const int n = int(idx.size());
  auto pick = [&](auto* dev_all, auto zero) {
    std::vector<decltype(zero)> all(N), out;
    CHECK_CUDA(cudaMemcpy(all.data(), dev_all, N * sizeof(zero), cudaMemcpyDeviceToHost));
    for (unsigned i : idx) out.push_back(all[i]);
    return out;
  };
  auto ref = [&](auto* dev_ref, auto zero) {
    std::vector<decltype(zero)> out(n);
    CHECK_CUDA(cudaMemcpy(out.data(), dev_ref, n * sizeof(zero), cudaMemcpyDeviceToHost));
    return out;
  };
  std::string p = std::string(name) + "_seed" + std::to_string(seed) + "_off" + std::to_string(offset);
  // Each generation restarts at the same offset, so each compares with the same positions.
  CHECK_STATUS(curandGenerate(g, hbits, N));
  reference<State><<<1, 128>>>(seed, offset, didx, n, Bits, dbits, df, dd);
  auto got_bits = pick(hbits, 0u);
  expect_close((p + "_bits").c_str(), got_bits, ref(dbits, 0u), 0);
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  CHECK_STATUS(curandGenerateUniform(g, hf, N));
  reference<State><<<1, 128>>>(seed, offset, didx, n, Uniform, dbits, df, dd);
  expect_close((p + "_uniform").c_str(), pick(hf, 0.f), ref(df, 0.f), 0);
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  CHECK_STATUS(curandGenerateUniformDouble(g, hd, N));
  reference<State><<<1, 128>>>(seed, offset, didx, n, UniformDouble, dbits, df, dd);
  expect_close((p + "_uniform_double").c_str(), pick(hd, 0.0), ref(dd, 0.0), 0);
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  CHECK_STATUS(curandGenerateNormal(g, hf, N, 0.f, 1.f));
  reference<State><<<1, 128>>>(seed, offset, didx, n, Normal, dbits, df, dd);
  expect_close((p + "_normal").c_str(), pick(hf, 0.f), ref(df, 0.f), 1e-5);
  CHECK_STATUS(curandDestroyGenerator(g));
  cudaFree(didx), cudaFree(dbits), cudaFree(df), cudaFree(dd), cudaFree(hbits), cudaFree(hf), cudaFree(hd);
}

// Distribution checks that need no reference sequence: moments.
void moments() {
  const size_t N = 1 << 16;
  curandGenerator_t g;
  CHECK_STATUS(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CHECK_STATUS(curandSetPseudoRandomGeneratorSeed(g, 42));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreate(&s));
  CHECK_STATUS(curandSetStream(g, s));
  unsigned* dp;
  float* dl;
  CHECK_CUDA(cudaMalloc(&dp, N * 4));
  CHECK_CUDA(cudaMalloc(&dl, N * 4));
  CHECK_STATUS(curandGeneratePoisson(g, dp, N, 7.5));
  CHECK_STATUS(curandGenerateLogNormal(g, dl, N, 0.5f, 0.25f));
  std::vector<unsigned> p(N);
  std::vector<float> l(N);
  CHECK_CUDA(cudaMemcpyAsync(p.data(), dp, N * 4, cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaMemcpyAsync(l.data(), dl, N * 4, cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  double m = 0, v = 0, lm = 0;
  for (unsigned x : p) m += x;
  m /= N;
  for (unsigned x : p) v += (x - m) * (x - m);
  v /= N;
  for (float x : l) lm += std::log(x);
  lm /= N;
  // Poisson: mean = variance = 7.5 (5 sigma of the estimates); log of log-normal: mean 0.5.
  expect_close("poisson_7.5_mean", std::vector<double>{m}, std::vector<double>{7.5}, 0.06);
  expect_close("poisson_7.5_variance", std::vector<double>{v}, std::vector<double>{7.5}, 0.25);
  expect_close("lognormal_logmean", std::vector<double>{lm}, std::vector<double>{0.5}, 0.005);
  CHECK_STATUS(curandDestroyGenerator(g));
  CHECK_CUDA(cudaStreamDestroy(s));
  cudaFree(dp), cudaFree(dl);
}

int main(int argc, char** argv) {
  open_dump(argc, argv);
  check_generator<curandStateXORWOW_t>(CURAND_RNG_PSEUDO_XORWOW, "xorwow", 1234, 0);
  check_generator<curandStateXORWOW_t>(CURAND_RNG_PSEUDO_XORWOW, "xorwow", 99, 10007);
  check_generator<curandStatePhilox4_32_10_t>(CURAND_RNG_PSEUDO_PHILOX4_32_10, "philox", 1234, 0);
  check_generator<curandStatePhilox4_32_10_t>(CURAND_RNG_PSEUDO_PHILOX4_32_10, "philox", 99, 10007);
  check_generator<curandStateMRG32k3a_t>(CURAND_RNG_PSEUDO_MRG32K3A, "mrg32k3a", 1234, 0);
  check_generator<curandStateMRG32k3a_t>(CURAND_RNG_PSEUDO_MRG32K3A, "mrg32k3a", 99, 10007);
  moments();
  if (g_dump) std::fclose(g_dump);
  std::printf("%s curand_check (%d failed)\n", g_failures ? "FAIL" : "PASS", g_failures);
  return g_failures ? 1 : 0;
}
