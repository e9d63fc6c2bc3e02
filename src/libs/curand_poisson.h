// cuRAND host API's Poisson results: a square histogram (Marsaglia, Tsang,
// Wang 2004; curand_poisson.h's _curand_M2_double) over the pmf, indexed by
// one 32-bit draw per result. The table's length and its Robin Hood fill
// order were derived from an H200's curand_probe results (docs/runtime.md)
// and reproduce them bit for bit at lambda 7.5 and 100.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace smemlab::libs::poisson {

class SquareHistogram {
 public:
  explicit SquareHistogram(double lambda);
  // The result for 32-bit draw x: u = curand_uniform_double's (x + 1/2) / 2^32,
  // bin j = floor(length u); shift + j below V[j], else shift + K[j].
  uint32_t sample(uint32_t x) const;
  uint32_t shift() const { return shift_; }
  size_t length() const { return v_.size(); }
  // Bin j's threshold and alias (tests).
  double threshold(size_t j) const { return v_[j]; }
  uint32_t alias(size_t j) const { return k_[j]; }

 private:
  uint32_t shift_ = 0;
  std::vector<double> v_;
  std::vector<uint32_t> k_;
};

}  // namespace smemlab::libs::poisson
