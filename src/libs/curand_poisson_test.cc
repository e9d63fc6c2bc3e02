// cuRAND's Poisson square histogram: that it is the Poisson distribution
// (each value's share of [0, 1) is its pmf, an independent computation),
// and that its bins and fill order are the GPU's (aliases and first results
// read from an H200's curand_probe.bin, seed 1234).
#include "libs/curand_poisson.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "libs/curand_generators.h"

namespace smemlab::libs::poisson {
namespace {

// The pmf by the recurrence p(k) = p(k-1) lambda / k, not the table's lgamma.
std::map<uint32_t, double> recurrence_pmf(double lambda) {
  std::map<uint32_t, double> p;
  double v = std::exp(-lambda);
  for (uint32_t k = 0; v > 0 || k < lambda; ++k, v *= lambda / k) p[k] = v;
  return p;
}

TEST(CurandPoisson, SharesAreThePmf) {
  for (double lambda : {0.25, 7.5, 31.0, 100.0}) {
    SquareHistogram t(lambda);
    const double a = 1.0 / double(t.length());
    std::map<uint32_t, double> share;
    for (size_t j = 0; j < t.length(); ++j) {
      const double own = std::min(std::max(t.threshold(j) - double(j) * a, 0.0), a);
      share[t.shift() + uint32_t(j)] += own;
      share[t.shift() + t.alias(j)] += a - own;
    }
    for (auto [k, p] : recurrence_pmf(lambda))
      EXPECT_NEAR(share[k], p, 1e-13 + 1e-9 * p) << "lambda " << lambda << " k " << k;
  }
}

TEST(CurandPoisson, BinsAreTheGpus) {
  // Every k with a pmf above 0 in double: the GPU's bin counts.
  EXPECT_EQ(SquareHistogram(7.5).length(), 281u);
  EXPECT_EQ(SquareHistogram(100).length(), 690u);
  EXPECT_EQ(SquareHistogram(7.5).shift(), 0u);
  // lambda 7.5's aliases as the GPU's results show them: bin 0 from 15, 15
  // from 14, bins 16..19 from 14, 20..24 from 13, 14 from 2, 2 from 1.
  SquareHistogram t(7.5);
  EXPECT_EQ(t.alias(0), 15u);
  EXPECT_EQ(t.alias(15), 14u);
  for (size_t j = 16; j < 20; ++j) EXPECT_EQ(t.alias(j), 14u) << j;
  for (size_t j = 20; j < 25; ++j) EXPECT_EQ(t.alias(j), 13u) << j;
  EXPECT_EQ(t.alias(14), 2u);
  EXPECT_EQ(t.alias(2), 1u);
  EXPECT_EQ(t.alias(280), 3u);
}

TEST(CurandPoisson, FirstResultsOfTheGpu) {
  // curandGeneratePoisson(lambda 7.5) on XORWOW, seed 1234: result g < 4096
  // takes subsequence g's first draw (the default layout).
  const uint32_t gpu[8] = {11, 5, 7, 9, 4, 5, 9, 6};
  SquareHistogram t(7.5);
  for (uint64_t g = 0; g < 8; ++g)
    EXPECT_EQ(t.sample(rng::Stream(rng::Kind::Xorwow, 1234, g, 0).next()), gpu[g]) << g;
}

}  // namespace
}  // namespace smemlab::libs::poisson
