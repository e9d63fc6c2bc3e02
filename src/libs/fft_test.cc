// fft.h against the DFT's definition (O(n^2) sums in long double) for every
// length path: powers of two, mixed radices, primes by direct butterflies
// and Bluestein; multi-dimensional transforms against the nested sums.
#include "libs/fft.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace smemlab::libs::fft {
namespace {

std::vector<cd> naive(const std::vector<cd>& x, int sign) {
  const size_t n = x.size();
  std::vector<cd> out(n);
  for (size_t k = 0; k < n; ++k) {
    std::complex<long double> s = 0;
    for (size_t j = 0; j < n; ++j) {
      long double a = 2 * 3.14159265358979323846264338327950288L * ((j * k) % n) / n;
      s += std::complex<long double>(x[j].real(), x[j].imag()) *
           std::complex<long double>(std::cos(a), sign * std::sin(a));
    }
    out[k] = cd(double(s.real()), double(s.imag()));
  }
  return out;
}

std::vector<cd> random_vector(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<cd> v(n);
  for (auto& x : v) x = cd(d(g), d(g));
  return v;
}

TEST(Fft, EveryLengthMatchesTheDefinition) {
  for (int n : {1,  2,  3,  4,  5,   6,   7,   8,   9,   11,  12,   13,   16,  17,
                30, 31, 64, 97, 100, 128, 210, 256, 251, 360, 1000, 1024, 1031}) {
    for (int sign : {-1, +1}) {
      auto x = random_vector(n, n * 7 + (sign > 0));
      auto want = naive(x, sign);
      Plan1d p(n);
      p.run(x.data(), 1, sign);
      double err = 0, mag = 0;
      for (int k = 0; k < n; ++k)
        err = std::max(err, std::abs(x[k] - want[k])), mag = std::max(mag, std::abs(want[k]));
      EXPECT_LT(err, 1e-12 * std::max(1.0, mag) * std::log2(n + 1.0) * 4)
          << "n=" << n << " sign=" << sign;
    }
  }
}

TEST(Fft, StridedInPlace) {
  const int n = 12, stride = 3;
  auto x = random_vector(n * stride, 5);
  std::vector<cd> col(n);
  for (int k = 0; k < n; ++k) col[k] = x[k * stride + 1];
  auto want = naive(col, -1);
  Plan1d(n).run(x.data() + 1, stride, -1);
  for (int k = 0; k < n; ++k) EXPECT_LT(std::abs(x[k * stride + 1] - want[k]), 1e-12);
  EXPECT_EQ(x[0], random_vector(n * stride, 5)[0]);  // other columns untouched
}

TEST(Fft, ThreeDimensionsMatchNestedSums) {
  const std::vector<int> dims{3, 5, 4};
  const int total = 60;
  auto x = random_vector(total, 9);
  std::vector<cd> want(total);
  for (int k0 = 0; k0 < 3; ++k0)
    for (int k1 = 0; k1 < 5; ++k1)
      for (int k2 = 0; k2 < 4; ++k2) {
        cd s{};
        for (int j0 = 0; j0 < 3; ++j0)
          for (int j1 = 0; j1 < 5; ++j1)
            for (int j2 = 0; j2 < 4; ++j2) {
              double a =
                  -2 * M_PI * (double(j0 * k0) / 3 + double(j1 * k1) / 5 + double(j2 * k2) / 4);
              s += x[(j0 * 5 + j1) * 4 + j2] * cd(std::cos(a), std::sin(a));
            }
        want[(k0 * 5 + k1) * 4 + k2] = s;
      }
  transform(x.data(), dims, -1);
  for (int i = 0; i < total; ++i) EXPECT_LT(std::abs(x[i] - want[i]), 1e-11) << i;
}

}  // namespace
}  // namespace smemlab::libs::fft
