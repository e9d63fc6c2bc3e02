// cuRAND's MT19937 against three independent references: the recurrence
// itself (a jump by 2^k equals 2^k steps), an H200's first 65536 results at
// seed 1234 (tests/data/h100_libs/curand_probe.bin), and the toolkit's own
// host generator, which libcurand computes on the CPU (NVIDIA documents a
// host generator's results as the device's), over seeds, 64-bit seeds,
// block boundaries and the distributions.
#include "libs/curand_mt19937.h"

#include <curand.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "libs/curand_poisson.h"
#include "libs/curand_sobol.h"

namespace smemlab::libs::mt19937 {
namespace {

// The first 624 * 3 outputs of the reference MT19937 from state s.
std::vector<uint32_t> outputs(State s, unsigned blocks) {
  std::vector<uint32_t> v;
  for (unsigned b = 0; b < blocks; ++b) {
    twist(s);
    v.insert(v.end(), s.mt, s.mt + kWords);
  }
  return v;
}

TEST(Mt19937, ReferenceKnownAnswer) {
  // mt19937ar.c's init_genrand(5489): its first output is 3499211612
  // (std::mt19937's default-seeded first value).
  State s = seeded(5489);
  twist(s);
  EXPECT_EQ(temper(s.mt[0]), 3499211612u);
}

TEST(Mt19937, JumpEqualsStepping) {
  State s = seeded(1234);
  twist(s);  // any state; this one has every word set
  const std::vector<uint32_t> stepped = outputs(s, 9);
  for (unsigned log2 : {0u, 1u, 5u, 9u, 12u}) {
    const std::vector<uint32_t> jumped_out = outputs(jumped_pow2(s, log2), 1);
    for (unsigned i = 0; i < kWords; ++i)
      ASSERT_EQ(jumped_out[i], stepped[(1u << log2) + i]) << "jump 2^" << log2 << ", word " << i;
  }
}

// curand_probe.bin: records of (name length, name, byte count, bytes).
std::vector<uint32_t> probe_record(const std::string& name) {
  const std::string path =
      std::string(SMEMLAB_SOURCE_DIR) + "/tests/data/h100_libs/curand_probe.bin";
  FILE* f = std::fopen(path.c_str(), "rb");
  std::vector<uint32_t> out;
  if (!f) return out;
  uint32_t len = 0, bytes = 0;
  while (std::fread(&len, 4, 1, f) == 1) {
    std::string tag(len, '\0');
    if (std::fread(tag.data(), 1, len, f) != len || std::fread(&bytes, 4, 1, f) != 1) break;
    std::vector<uint32_t> v(bytes / 4);
    if (std::fread(v.data(), 1, bytes, f) != bytes) break;
    if (tag == name) {
      out = std::move(v);
      break;
    }
  }
  std::fclose(f);
  return out;
}

TEST(Mt19937, FirstRoundIsTheH200s) {
  const std::vector<uint32_t> gpu = probe_record("mt19937_default|u|0");
  ASSERT_EQ(gpu.size(), kRound);
  std::vector<uint32_t> ours(kRound);
  Sequence(1234).fill(0, kRound, ours.data());
  for (size_t i = 0; i < gpu.size(); ++i) ASSERT_EQ(ours[i], gpu[i]) << "result " << i;
}

// `n` results of the toolkit's host generator, generated in `chunks`.
std::vector<uint32_t> toolkit(uint64_t seed, const std::vector<size_t>& chunks) {
  curandGenerator_t g;
  EXPECT_EQ(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_MT19937), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(curandSetPseudoRandomGeneratorSeed(g, seed), CURAND_STATUS_SUCCESS);
  std::vector<uint32_t> v;
  for (size_t n : chunks) {
    std::vector<uint32_t> part(n);
    EXPECT_EQ(curandGenerate(g, part.data(), n), CURAND_STATUS_SUCCESS);
    v.insert(v.end(), part.begin(), part.end());
  }
  curandDestroyGenerator(g);
  return v;
}

TEST(Mt19937, EqualsTheToolkitsHostGenerator) {
  // 64-bit seeds: the toolkit reads the low 32 bits only. 80 rounds cross
  // into every copy's second block (78 reads per thread per block).
  const struct {
    uint64_t seed;
    size_t n;
  } cases[] = {{(uint64_t(1) << 40) + 5, 3 * kRound + 1000}, {0, 80 * kRound}};
  for (auto c : cases) {
    const std::vector<uint32_t> want = toolkit(c.seed, {1000, 777, c.n - 1777});
    std::vector<uint32_t> ours(c.n);
    Sequence seq(c.seed);
    seq.fill(0, 1000, ours.data());  // in pieces, as successive calls read it
    seq.fill(1000, c.n - 1000, ours.data() + 1000);
    for (size_t i = 0; i < c.n; ++i)
      ASSERT_EQ(ours[i], want[i]) << "seed " << c.seed << ", result " << i;
  }
}

// The distributions, one toolkit generator and one Sequence for all (each
// costs seconds): its calls read successive results.
// - Uniforms: exact (x * 2^-32 + 2^-33 in double, rounded once to float).
// - Normals: the inverse normal CDF of each result's uniform; the toolkit's
//   erfcinv/erfcinvf round differently in the last bits from the double
//   quantile here (docs/runtime.md): within 4e-7 and 1e-14 relative.
// - Poisson: below lambda 2000 the square histogram of each result, from
//   2000 to 400000 the nearest integer to the float normal of each result
//   (exact over these results), above 400000 refused.
TEST(Mt19937, DistributionsAreTheToolkits) {
  constexpr size_t n = 20000;
  const double lambdas[] = {7.5, 1999.5, 2000.0, 300000.0};
  curandGenerator_t g;
  ASSERT_EQ(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_MT19937), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandSetPseudoRandomGeneratorSeed(g, 99), CURAND_STATUS_SUCCESS);
  std::vector<float> f(n), z(n);
  std::vector<double> d(n), zd(n);
  std::vector<unsigned> p(4 * n);
  ASSERT_EQ(curandGenerateUniform(g, f.data(), n), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandGenerateUniformDouble(g, d.data(), n), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandGenerateNormal(g, z.data(), n, 1.0f, 2.0f), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandGenerateNormalDouble(g, zd.data(), n, 1.0, 2.0), CURAND_STATUS_SUCCESS);
  for (size_t l = 0; l < 4; ++l)
    ASSERT_EQ(curandGeneratePoisson(g, p.data() + l * n, n, lambdas[l]), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(curandGeneratePoisson(g, p.data(), 1, 400000.5), CURAND_STATUS_OUT_OF_RANGE);
  curandDestroyGenerator(g);

  std::vector<uint32_t> bits(8 * n);
  Sequence(99).fill(0, bits.size(), bits.data());
  for (size_t i = 0; i < n; ++i) {
    const float u = uniform(bits[i]);
    ASSERT_EQ(std::memcmp(&f[i], &u, 4), 0) << "float " << i;
    ASSERT_EQ(d[i], uniform_double(bits[n + i])) << "double " << i;
    const float zo = 1.0f + 2.0f * sobol::normal_icdf(bits[2 * n + i]);
    ASSERT_NEAR(z[i], zo, 4e-7 * std::max(1.0f, std::fabs(zo))) << "normal " << i;
    const double zdo = 1.0 + 2.0 * sobol::normal_icdf_double(bits[3 * n + i]);
    ASSERT_NEAR(zd[i], zdo, 1e-14 * std::max(1.0, std::fabs(zdo))) << "normal double " << i;
  }
  for (size_t l = 0; l < 4; ++l) {
    const poisson::SquareHistogram table(lambdas[l]);
    const float mean = float(lambdas[l]), sd = std::sqrt(mean);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t x = bits[(4 + l) * n + i];
      const unsigned ours = lambdas[l] < 2000
                                ? table.sample(x)
                                : unsigned(std::floor(mean + sd * sobol::normal_icdf(x) + 0.5f));
      ASSERT_EQ(ours, p[l * n + i]) << "lambda " << lambdas[l] << ", result " << i;
    }
  }
}

}  // namespace
}  // namespace smemlab::libs::mt19937
