// Checks that the verification rules of the compute benchmarks accept results
// computed correctly in float (in several orders) and reject wrong ones.
#include "bench/compute_verify.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace smemlab::bench::verify {
namespace {

std::vector<float> random_vec(size_t n, unsigned seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// The filter as a float kernel computes it: fmaf in tap order, zero boundary.
std::vector<float> fir_float(const std::vector<float>& x, const std::vector<float>& c) {
  const long long n = static_cast<long long>(x.size());
  const int r = (static_cast<int>(c.size()) - 1) / 2;
  std::vector<float> y(n);
  for (long long i = 0; i < n; ++i) {
    float acc = 0.f;
    for (int k = 0; k < static_cast<int>(c.size()); ++k) {
      const long long j = i + k - r;
      acc = std::fmaf(c[k], (j >= 0 && j < n) ? x[j] : 0.f, acc);
    }
    y[i] = acc;
  }
  return y;
}

TEST(CheckFir, AcceptsFloatResultAtEverySize) {
  const auto c = random_vec(21, 1);
  for (size_t n : {1u, 7u, 20u, 21u, 1000u}) {
    const auto x = random_vec(n, 2 + static_cast<unsigned>(n));
    EXPECT_EQ(check_fir(x, fir_float(x, c), c), "") << "n=" << n;
  }
}

TEST(CheckFir, RejectsWrongBoundaryShiftedTapsNaNAndSmallErrors) {
  const auto c = random_vec(21, 3);
  const auto x = random_vec(1000, 4);
  auto y = fir_float(x, c);
  ASSERT_EQ(check_fir(x, y, c), "");

  auto bad = y;
  bad[0] += x[10] * c[20];  // a clamped instead of zero boundary would differ at the ends
  EXPECT_NE(check_fir(x, bad, c), "");

  bad = y;
  bad[500] = std::numeric_limits<float>::quiet_NaN();  // unwritten (poisoned) output
  EXPECT_NE(check_fir(x, bad, c), "");

  bad = y;
  bad[123] = std::nextafter(std::nextafter(y[123], 10.f), 10.f) + 1e-4f;  // small but real error
  EXPECT_NE(check_fir(x, bad, c), "");

  std::vector<float> shifted(c.rbegin(), c.rend());  // taps applied in reverse
  EXPECT_NE(check_fir(x, fir_float(x, shifted), c), "");

  EXPECT_NE(check_fir(x, std::vector<float>(999), c), "");  // wrong size
}

TEST(CheckSum, AcceptsSerialAndPairwiseFloatSumsWithTheirChains) {
  const auto x = random_vec(1 << 16, 5);
  float serial = 0.f;
  for (float v : x) serial += v;
  std::string note;
  EXPECT_EQ(check_sum(serial, x, static_cast<int>(x.size()), &note), "") << note;

  std::vector<float> level = x;  // pairwise tree: chain = log2(n) = 16
  while (level.size() > 1) {
    std::vector<float> next(level.size() / 2);
    for (size_t i = 0; i < next.size(); ++i) next[i] = level[2 * i] + level[2 * i + 1];
    level = next;
  }
  EXPECT_EQ(check_sum(level[0], x, 16, &note), "") << note;
}

TEST(CheckSum, RejectsALostElementAtSmallSizesAndNaN) {
  const auto x = random_vec(4099, 6, 0.5f, 1.f);
  double exact = 0.0;
  for (float v : x) exact += v;
  const float missing_one = static_cast<float>(exact - x[17]);
  EXPECT_NE(check_sum(missing_one, x, 40, nullptr), "");
  EXPECT_NE(check_sum(std::numeric_limits<float>::quiet_NaN(), x, 40, nullptr), "");
  EXPECT_EQ(check_sum(static_cast<float>(exact), x, 40, nullptr), "");
}

// The premise of the reduction benchmarks' exact check: ternary inputs with
// n < 2^24 give the exact integer sum in float, in any order.
TEST(ExactTernarySums, AnyOrderIsExact) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-1, 1);
  std::vector<float> x(1000003);
  long long exact = 0;
  for (auto& v : x) {
    v = static_cast<float>(d(rng));
    exact += static_cast<long long>(v);
  }
  for (int trial = 0; trial < 3; ++trial) {
    std::shuffle(x.begin(), x.end(), rng);
    float s = 0.f;
    for (float v : x) s += v;
    EXPECT_EQ(s, static_cast<float>(exact));
  }
}

TEST(ChainBound, MultiPassMatchesLaunchShapes) {
  // 2^28 with 256 threads, one element each: 2^20, 2^12, 16, 1 blocks, so
  // 4 passes of 8 tree levels + 1.
  EXPECT_EQ(chain_bound_passes(1LL << 28, 1, 256), 36);
  // Two elements per thread: 2^19, 2^10, 2, 1 blocks: 4 passes of 1 + 8 + 1.
  EXPECT_EQ(chain_bound_passes(1LL << 28, 2, 256), 40);
  EXPECT_EQ(chain_bound_passes(1, 1, 256), 9);
}

}  // namespace
}  // namespace smemlab::bench::verify
