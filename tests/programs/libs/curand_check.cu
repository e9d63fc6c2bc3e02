// cuRAND's host API through smemlab's libcurand (or the GPU's), checked
// against the device API of curand_kernel.h run in this program's own
// kernel (curand_init(seed, subsequence, offset) + curand/curand_uniform...)
// at the positions of the host API's layout (where(), below).
// 32-bit and uniform results are compared bit for bit; normal and
// log-normal within float tolerance; Poisson by its mean and variance.
// Exit 1 if any check failed. argv[1]: a file for the raw results.
#include <curand.h>
#include <curand_kernel.h>

#include "common.h"

enum Dist { Bits, Uniform, UniformDouble, Normal };

// Where result `idx` of a generation at offset `first` comes from in the
// device API's terms: the host API's layout (docs/runtime.md, measured on an
// H100): subsequence (g / chunk) mod threads, XORWOW 4096 x 1, Philox
// 8192 x 4, MRG32k3a 32768 x 1; with one result per chunk a subsequence's
// position counts draws from g / threads; normals come in (sin, cos) pairs.
struct Where {
  unsigned long long sub, pos;
  int second;  // the pair's second (cos) value
};
Where where(unsigned long long T, unsigned long long c, unsigned long long first,
            unsigned long long idx, int dist, bool mrg) {
  if (dist == Normal) {
    if (c == 1) {
      unsigned long long k = idx / 2, g = first + k;
      return {g % T, g / T + k / T, int(idx % 2)};
    }
    unsigned long long g = first + idx, p = g / 2;  // Philox: pairs at even results, 2 per counter
    return {(p / 2) % T, ((p / (2 * T)) * 2 + p % 2) * 2, int(g % 2)};
  }
  unsigned long long g = first + idx;
  unsigned long long draws = dist == UniformDouble && !mrg ? 2 : 1;
  if (c == 1) return {g % T, g / T + (draws - 1) * (idx / T), 0};
  return {(g / c) % T, ((g / (c * T)) * c + g % c) * draws, 0};
}

template <class State>
__global__ void reference(unsigned long long seed, const unsigned long long* sub,
                          const unsigned long long* pos, const int* second, int count, int dist,
                          unsigned* bits, float* f, double* d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  State s;
  curand_init(seed, sub[i], pos[i], &s);
  if (dist == Bits) bits[i] = curand(&s);
  if (dist == Uniform) f[i] = curand_uniform(&s);
  if (dist == UniformDouble) {
    // The host API's Philox doubles take two draws (as XORWOW's), where the
    // device API's curand_uniform_double takes one: the H100 showed it.
    if constexpr (std::is_same_v<State, curandStatePhilox4_32_10_t>) {
      unsigned x = curand(&s), y = curand(&s);
      d[i] = _curand_uniform_double_hq(x, y);
    } else {
      d[i] = curand_uniform_double(&s);
    }
  }
  if (dist == Normal) {
    float2 p = curand_normal2(&s);
    f[i] = second[i] ? p.y : p.x;
  }
}

template <class State>
void check_generator(curandRngType_t type, const char* name, unsigned long long seed,
                     unsigned long long offset, unsigned long long T, unsigned long long c) {
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
  unsigned long long *dsub, *dpos;
  int* dsecond;
  CHECK_CUDA(cudaMalloc(&dsub, idx.size() * 8));
  CHECK_CUDA(cudaMalloc(&dpos, idx.size() * 8));
  CHECK_CUDA(cudaMalloc(&dsecond, idx.size() * 4));
  auto run_reference = [&](int dist) {
    std::vector<unsigned long long> sub, pos;
    std::vector<int> second;
    for (unsigned i : idx) {
      Where w = where(T, c, offset, i, dist, type == CURAND_RNG_PSEUDO_MRG32K3A);
      sub.push_back(w.sub), pos.push_back(w.pos), second.push_back(w.second);
    }
    CHECK_CUDA(cudaMemcpy(dsub, sub.data(), n * 8, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dpos, pos.data(), n * 8, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dsecond, second.data(), n * 4, cudaMemcpyHostToDevice));
    reference<State><<<1, 128>>>(seed, dsub, dpos, dsecond, n, dist, dbits, df, dd);
    CHECK_CUDA(cudaGetLastError());
  };
  std::string p =
      std::string(name) + "_seed" + std::to_string(seed) + "_off" + std::to_string(offset);
  // Each generation restarts at the same offset, so each compares with the same positions.
  CHECK_STATUS(curandGenerate(g, hbits, N));
  run_reference(Bits);
  auto got_bits = pick(hbits, 0u);
  expect_close((p + "_bits").c_str(), got_bits, ref(dbits, 0u), 0);
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  CHECK_STATUS(curandGenerateUniform(g, hf, N));
  run_reference(Uniform);
  expect_close((p + "_uniform").c_str(), pick(hf, 0.f), ref(df, 0.f), 0);
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  CHECK_STATUS(curandGenerateUniformDouble(g, hd, N));
  run_reference(UniformDouble);
  expect_close((p + "_uniform_double").c_str(), pick(hd, 0.0), ref(dd, 0.0), 0);
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  CHECK_STATUS(curandGenerateNormal(g, hf, N, 0.f, 1.f));
  run_reference(Normal);
  expect_close((p + "_normal").c_str(), pick(hf, 0.f), ref(df, 0.f), 1e-5);
  CHECK_STATUS(curandDestroyGenerator(g));
  cudaFree(dsub), cudaFree(dpos), cudaFree(dsecond), cudaFree(didx), cudaFree(dbits), cudaFree(df),
      cudaFree(dd), cudaFree(hbits), cudaFree(hf), cudaFree(hd);
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
  check_generator<curandStateXORWOW_t>(CURAND_RNG_PSEUDO_XORWOW, "xorwow", 1234, 0, 4096, 1);
  check_generator<curandStateXORWOW_t>(CURAND_RNG_PSEUDO_XORWOW, "xorwow", 99, 10007, 4096, 1);
  check_generator<curandStatePhilox4_32_10_t>(CURAND_RNG_PSEUDO_PHILOX4_32_10, "philox", 1234, 0,
                                              8192, 4);
  check_generator<curandStatePhilox4_32_10_t>(CURAND_RNG_PSEUDO_PHILOX4_32_10, "philox", 99, 10007,
                                              8192, 4);
  check_generator<curandStateMRG32k3a_t>(CURAND_RNG_PSEUDO_MRG32K3A, "mrg32k3a", 1234, 0, 32768, 1);
  check_generator<curandStateMRG32k3a_t>(CURAND_RNG_PSEUDO_MRG32K3A, "mrg32k3a", 99, 10007, 32768,
                                         1);
  moments();
  if (g_dump) std::fclose(g_dump);
  std::printf("%s curand_check (%d failed)\n", g_failures ? "FAIL" : "PASS", g_failures);
  return g_failures ? 1 : 0;
}
