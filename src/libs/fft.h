// smemlab's own FFT for its cuFFT (cufft.cc): unnormalized complex DFTs of
// any length in double precision, mixed radix (Cooley-Tukey, any prime
// factor up to 13 by a direct butterfly) and Bluestein's chirp-z for lengths
// with a larger prime factor; multi-dimensional transforms axis by axis. Own
// code rather than FFTW (GPL, which the project's users could not link
// under other terms) or kissfft (Debian ships only its float build).
#pragma once

#include <complex>
#include <memory>
#include <vector>

namespace smemlab::libs::fft {

using cd = std::complex<double>;

// X[k] = sum_j x[j] exp(sign * 2 pi i j k / n); sign -1 is cuFFT's forward.
class Plan1d {
 public:
  explicit Plan1d(int n);
  ~Plan1d();
  Plan1d(const Plan1d&) = delete;
  Plan1d& operator=(const Plan1d&) = delete;
  int size() const { return n_; }
  // In place on n elements `stride` apart.
  void run(cd* data, long stride, int sign) const;

 private:
  void mixed(const cd* in, long istride, cd* out, int n, size_t level, int sign) const;
  void bluestein(cd* data, int sign) const;

  int n_;
  std::vector<int> factors_;  // empty: Bluestein
  std::vector<cd> twiddle_;   // exp(-2 pi i j / n)
  mutable std::vector<cd> scratch_;
  // Bluestein: the chirp, the transformed kernel (forward sign) and the
  // power-of-two plan of the convolution.
  std::vector<cd> chirp_, kernel_;
  std::unique_ptr<Plan1d> conv_;
};

// The DFT over a row-major array of dims[0] x ... x dims[r-1], in place.
void transform(cd* data, const std::vector<int>& dims, int sign);

}  // namespace smemlab::libs::fft
