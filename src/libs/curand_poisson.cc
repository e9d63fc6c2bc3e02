#include "libs/curand_poisson.h"

#include <cmath>
#include <cstddef>

namespace smemlab::libs::poisson {
namespace {

double poisson_pmf(double lambda, double k) {
  return std::exp(-lambda + k * std::log(lambda) - std::lgamma(k + 1.0));
}

// Robin Hood as the GPU's tables show it (curand_probe's aliases): passes
// over the bins in index order; each bin below 1/length not yet filled is
// topped up from the highest-indexed bin still at or above 1/length, which,
// once it drops below, is filled in the pass that next reaches it.
void fill_square_histogram(std::vector<double>& p, std::vector<double>& v,
                           std::vector<uint32_t>& k) {
  const size_t n = p.size();
  const double a = 1.0 / double(n);
  std::vector<bool> filled(n, false);
  for (size_t i = 0; i < n; ++i) k[i] = uint32_t(i), v[i] = double(i + 1) * a;
  std::ptrdiff_t rich = std::ptrdiff_t(n) - 1;
  auto next_rich = [&] {
    while (rich >= 0 && !(p[size_t(rich)] >= a)) --rich;
  };
  next_rich();
  for (bool any = true; any && rich >= 0;) {
    any = false;
    for (size_t i = 0; i < n && rich >= 0; ++i) {
      if (filled[i] || !(p[i] < a) || std::ptrdiff_t(i) == rich) continue;
      any = true;
      k[i] = uint32_t(rich), v[i] = double(i) * a + p[i];
      p[size_t(rich)] -= a - p[i];
      p[i] = a, filled[i] = true;
      next_rich();
    }
  }
}

}  // namespace

// The values are every k whose pmf is above 0 in double precision (lambda
// 7.5: 0..280, lambda 100: 0..689, as the GPU's bins are), found outwards
// from the mode so that a large lambda does not walk up from 0.
SquareHistogram::SquareHistogram(double lambda) {
  const double mode = std::floor(lambda);
  double lo = mode, hi = mode;
  while (lo > 0 && poisson_pmf(lambda, lo - 1) > 0) --lo;
  while (poisson_pmf(lambda, hi + 1) > 0) ++hi;
  shift_ = uint32_t(lo);
  const size_t n = size_t(hi - lo) + 1;
  std::vector<double> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = poisson_pmf(lambda, lo + double(i));
  v_.resize(n), k_.resize(n);
  fill_square_histogram(p, v_, k_);
}

uint32_t SquareHistogram::sample(uint32_t x) const {
  constexpr double kInv32 = 2.3283064365386963e-10;  // CURAND_2POW32_INV_DOUBLE
  const double u = double(x) * kInv32 + kInv32 / 2.0;
  const size_t j = size_t(std::floor(double(v_.size()) * u));
  return shift_ + (u < v_[j] ? uint32_t(j) : k_[j]);
}

}  // namespace smemlab::libs::poisson
