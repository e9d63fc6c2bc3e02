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
// 16384 x 4, MRG32k3a 32768 x 1; with one result per chunk a subsequence's
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

// The Sobol generators: the host API's results (dimension-major: n / dims
// points of dimension 0, then of dimension 1, ...) against the device API's
// curand_init(direction vectors, [scramble constant,] offset + point) with
// the tables of curandGetDirectionVectors32/64 and curandGetScrambleConstants32/64.
template <class State>
__global__ void quasi_reference(const void* vectors, const void* constants, unsigned dims,
                                unsigned long long offset, unsigned per, int dist,
                                unsigned long long* bits, float* f, double* d) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= dims * per) return;
  unsigned dim = i / per, j = i % per;
  State s;
  constexpr bool wide = std::is_same_v<State, curandStateSobol64_t> ||
                        std::is_same_v<State, curandStateScrambledSobol64_t>;
  using V = std::conditional_t<wide, unsigned long long, unsigned>;
  const V* v = static_cast<const V*>(vectors) + (wide ? 64 : 32) * size_t(dim);
  if constexpr (std::is_same_v<State, curandStateScrambledSobol32_t> ||
                std::is_same_v<State, curandStateScrambledSobol64_t>)
    curand_init(const_cast<V*>(v), static_cast<const V*>(constants)[dim], offset + j, &s);
  else
    curand_init(const_cast<V*>(v), offset + j, &s);
  if (dist == Bits) bits[i] = curand(&s);
  if (dist == Uniform) f[i] = curand_uniform(&s);
  if (dist == UniformDouble) d[i] = curand_uniform_double(&s);
  if (dist == Normal) f[i] = curand_normal(&s);
  if (dist == Normal + 1) d[i] = curand_normal_double(&s);
}

std::vector<unsigned> halves(const std::vector<unsigned long long>& v) {
  std::vector<unsigned> out;
  for (auto x : v) out.push_back(unsigned(x)), out.push_back(unsigned(x >> 32));
  return out;
}

template <class State>
void check_quasi(curandRngType_t type, const char* name, bool wide, bool scrambled, unsigned dims,
                 unsigned long long offset) {
  const unsigned per = 700, n = dims * per;
  curandGenerator_t g;
  CHECK_STATUS(curandCreateGenerator(&g, type));
  CHECK_STATUS(curandSetQuasiRandomGeneratorDimensions(g, dims));
  // The table the device API needs, from the library (host pointers), copied to the device.
  const void *hv, *hc = nullptr;
  size_t vbytes = size_t(dims) * (wide ? 64 * 8 : 32 * 4), cbytes = size_t(dims) * (wide ? 8 : 4);
  if (wide) {
    curandDirectionVectors64_t* v;
    CHECK_STATUS(curandGetDirectionVectors64(&v, scrambled
                                                     ? CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6
                                                     : CURAND_DIRECTION_VECTORS_64_JOEKUO6));
    hv = v;
    unsigned long long* c;
    CHECK_STATUS(curandGetScrambleConstants64(&c));
    hc = c;
  } else {
    curandDirectionVectors32_t* v;
    CHECK_STATUS(curandGetDirectionVectors32(&v, scrambled
                                                     ? CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6
                                                     : CURAND_DIRECTION_VECTORS_32_JOEKUO6));
    hv = v;
    unsigned* c;
    CHECK_STATUS(curandGetScrambleConstants32(&c));
    hc = c;
  }
  void *dv, *dc;
  unsigned long long *rbits, *hbits64;
  unsigned* hbits32;
  float *rf, *hf;
  double *rd, *hd;
  CHECK_CUDA(cudaMalloc(&dv, vbytes));
  CHECK_CUDA(cudaMalloc(&dc, cbytes));
  CHECK_CUDA(cudaMemcpy(dv, hv, vbytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dc, hc, cbytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMalloc(&rbits, n * 8));
  CHECK_CUDA(cudaMalloc(&hbits64, n * 8));
  CHECK_CUDA(cudaMalloc(&hbits32, n * 4));
  CHECK_CUDA(cudaMalloc(&rf, n * 4));
  CHECK_CUDA(cudaMalloc(&hf, n * 4));
  CHECK_CUDA(cudaMalloc(&rd, n * 8));
  CHECK_CUDA(cudaMalloc(&hd, n * 8));
  auto fetch = [&](auto* dev, auto zero) {
    std::vector<decltype(zero)> out(n);
    CHECK_CUDA(cudaMemcpy(out.data(), dev, n * sizeof(zero), cudaMemcpyDeviceToHost));
    return out;
  };
  auto reference = [&](int dist) {
    quasi_reference<State>
        <<<(n + 127) / 128, 128>>>(dv, dc, dims, offset, per, dist, rbits, rf, rd);
    CHECK_CUDA(cudaGetLastError());
  };
  std::string p =
      std::string(name) + "_dims" + std::to_string(dims) + "_off" + std::to_string(offset);
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  reference(Bits);
  if (wide) {
    CHECK_STATUS(curandGenerateLongLong(g, hbits64, n));
    expect_close((p + "_bits").c_str(), halves(fetch(hbits64, 0ull)), halves(fetch(rbits, 0ull)),
                 0);
  } else {
    CHECK_STATUS(curandGenerate(g, hbits32, n));
    std::vector<unsigned> ref;
    for (auto x : fetch(rbits, 0ull)) ref.push_back(unsigned(x));
    expect_close((p + "_bits").c_str(), fetch(hbits32, 0u), ref, 0);
  }
  // The generation advanced the offset by `per` points: generate again from there.
  reference(Uniform);
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  CHECK_STATUS(curandGenerateUniform(g, hf, n));
  expect_close((p + "_uniform").c_str(), fetch(hf, 0.f), fetch(rf, 0.f), 0);
  reference(UniformDouble);
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  CHECK_STATUS(curandGenerateUniformDouble(g, hd, n));
  expect_close((p + "_uniform_double").c_str(), fetch(hd, 0.0), fetch(rd, 0.0), 0);
  reference(Normal);
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  CHECK_STATUS(curandGenerateNormal(g, hf, n, 0.f, 1.f));
  expect_close((p + "_normal").c_str(), fetch(hf, 0.f), fetch(rf, 0.f), 1e-5);
  reference(Normal + 1);
  CHECK_STATUS(curandSetGeneratorOffset(g, offset));
  CHECK_STATUS(curandGenerateNormalDouble(g, hd, n, 0.0, 1.0));
  expect_close((p + "_normal_double").c_str(), fetch(hd, 0.0), fetch(rd, 0.0), 1e-12);
  // Statuses of misuse, as curand.h documents them.
  int bad = 0;
  bad += curandGenerateUniform(g, hf, dims * per + (dims > 1)) !=
         (dims > 1 ? CURAND_STATUS_LENGTH_NOT_MULTIPLE : CURAND_STATUS_SUCCESS);
  bad += curandSetPseudoRandomGeneratorSeed(g, 1) != CURAND_STATUS_TYPE_ERROR;
  bad += curandSetQuasiRandomGeneratorDimensions(g, 0) != CURAND_STATUS_OUT_OF_RANGE;
  bad += curandSetQuasiRandomGeneratorDimensions(g, 20001) != CURAND_STATUS_OUT_OF_RANGE;
  bad +=
      curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_DEFAULT) != CURAND_STATUS_OUT_OF_RANGE;
  bad += (wide ? curandGenerate(g, hbits32, dims) : curandGenerateLongLong(g, hbits64, dims)) !=
         CURAND_STATUS_TYPE_ERROR;
  std::printf("%s %s_statuses (%d wrong)\n", bad ? "FAIL" : "PASS", p.c_str(), bad);
  g_failures += bad != 0;
  CHECK_STATUS(curandDestroyGenerator(g));
  cudaFree(dv), cudaFree(dc), cudaFree(rbits), cudaFree(hbits64), cudaFree(hbits32), cudaFree(rf),
      cudaFree(hf), cudaFree(rd), cudaFree(hd);
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
                                              16384, 4);
  check_generator<curandStatePhilox4_32_10_t>(CURAND_RNG_PSEUDO_PHILOX4_32_10, "philox", 99, 10007,
                                              16384, 4);
  check_generator<curandStateMRG32k3a_t>(CURAND_RNG_PSEUDO_MRG32K3A, "mrg32k3a", 1234, 0, 32768, 1);
  check_generator<curandStateMRG32k3a_t>(CURAND_RNG_PSEUDO_MRG32K3A, "mrg32k3a", 99, 10007, 32768,
                                         1);
  check_quasi<curandStateSobol32_t>(CURAND_RNG_QUASI_SOBOL32, "sobol32", false, false, 3, 17);
  check_quasi<curandStateSobol32_t>(CURAND_RNG_QUASI_DEFAULT, "quasi_default", false, false, 1, 0);
  check_quasi<curandStateScrambledSobol32_t>(CURAND_RNG_QUASI_SCRAMBLED_SOBOL32,
                                             "scrambled_sobol32", false, true, 5, 1000);
  check_quasi<curandStateSobol64_t>(CURAND_RNG_QUASI_SOBOL64, "sobol64", true, false, 3, 17);
  check_quasi<curandStateScrambledSobol64_t>(CURAND_RNG_QUASI_SCRAMBLED_SOBOL64,
                                             "scrambled_sobol64", true, true, 4, 123);
  moments();
  if (g_dump) std::fclose(g_dump);
  std::printf("%s curand_check (%d failed)\n", g_failures ? "FAIL" : "PASS", g_failures);
  return g_failures ? 1 : 0;
}
