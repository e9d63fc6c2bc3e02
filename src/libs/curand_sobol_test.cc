// The Sobol points against independent statements of the sequence: the
// first dimension is van der Corput's in Gray-code order, every dimension
// follows the device API's one-step recurrence (x ^= v[ctz(~i)]), and the
// inverse normal CDF inverts libm's normal CDF.
#include "libs/curand_sobol.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <numbers>

namespace smemlab::libs::sobol {
namespace {

TEST(Sobol, TablesAreTheToolkitsLayout) {
  ASSERT_TRUE(tables_complete());
  // Dimension 0's direction numbers are 1/2, 1/4, ... (every Sobol construction).
  for (int k = 0; k < 32; ++k) EXPECT_EQ(directions32(false)[0][k], 1u << (31 - k)) << k;
  for (int k = 0; k < 64; ++k) EXPECT_EQ(directions64(false)[0][k], 1ull << (63 - k)) << k;
}

TEST(Sobol, FirstDimensionIsVanDerCorputInGrayOrder) {
  for (uint64_t i = 0; i < 5000; ++i) {
    uint32_t gray = uint32_t(i ^ (i >> 1)), rev = 0;
    for (int b = 0; b < 32; ++b) rev |= (gray >> b & 1u) << (31 - b);
    ASSERT_EQ(point32(0, false, i), rev) << i;
    ASSERT_EQ(point64(0, false, i), uint64_t(rev) << 32) << i;
  }
}

TEST(Sobol, SkipAheadEqualsTheOneStepRecurrence) {
  for (unsigned dim : {1u, 2u, 7u, 999u, 19999u})
    for (bool scrambled : {false, true}) {
      uint32_t x = scrambled ? scramble32()[dim] : 0u;
      uint64_t y = scrambled ? scramble64()[dim] : 0ull;
      for (uint64_t i = 0; i < 3000; ++i) {
        ASSERT_EQ(point32(dim, scrambled, i), x) << dim << " " << i;
        ASSERT_EQ(point64(dim, scrambled, i), y) << dim << " " << i;
        int k = std::countr_zero(~i);
        x ^= directions32(scrambled)[dim][k];
        y ^= directions64(scrambled)[dim][k];
      }
    }
}

TEST(Sobol, NormalIcdfInvertsTheNormalCdf) {
  for (uint32_t x : {0u, 1u, 12345u, 0x40000000u, 0x7fffffffu, 0x80000000u, 0x80000001u,
                     0xc0000000u, 0xfffffff0u, 0xffffffffu}) {
    double z = normal_icdf_double(x);
    double u = x <= 0x80000000u
                   ? x * 2.3283064365386963e-10 + 1.1641532182693481e-10
                   : 1 - ((0xffffffffu - x) * 2.3283064365386963e-10 + 1.1641532182693481e-10);
    double cdf = z < 0 ? 0.5 * std::erfc(-z / std::numbers::sqrt2)
                       : 1 - 0.5 * std::erfc(z / std::numbers::sqrt2);
    EXPECT_NEAR(cdf / u, 1.0, 1e-12) << x;
    EXPECT_NEAR(normal_icdf(x), z, 2e-6 * std::max(1.0, std::abs(z))) << x;
  }
  EXPECT_LT(normal_icdf_double(0u), -6.0);  // small points are the left tail (CURAND_SQRT2 < 0)
}

}  // namespace
}  // namespace smemlab::libs::sobol
