#include "libs/fft.h"

#include <cmath>
#include <numbers>

namespace smemlab::libs::fft {
namespace {

// exp(sign * 2 pi i num / den), num reduced first so large products stay exact.
cd unit(long long num, long long den, int sign) {
  num %= den;
  double a = 2 * std::numbers::pi * double(num) / double(den);
  return {std::cos(a), sign * std::sin(a)};
}

// The prime factors of n if all are at most 13 (4s first: fewer passes).
std::vector<int> smooth_factors(int n) {
  std::vector<int> f;
  while (n % 4 == 0) f.push_back(4), n /= 4;
  for (int p : {2, 3, 5, 7, 11, 13})
    while (n % p == 0) f.push_back(p), n /= p;
  if (n != 1) f.clear();
  return f;
}

}  // namespace

Plan1d::Plan1d(int n) : n_(n) {
  if (n <= 1) return;
  factors_ = smooth_factors(n);
  if (!factors_.empty()) {
    twiddle_.resize(n);
    for (int j = 0; j < n; ++j) twiddle_[j] = unit(j, n, -1);
    scratch_.resize(n);
    return;
  }
  int m = 1;
  while (m < 2 * n - 1) m *= 2;
  conv_ = std::make_unique<Plan1d>(m);
  chirp_.resize(n);
  // exp(-pi i k^2 / n) = unit(k^2 mod 2n, 2n, -1).
  for (long long k = 0; k < n; ++k) chirp_[k] = unit(k * k % (2LL * n), 2LL * n, -1);
  kernel_.assign(m, cd{});
  for (int k = 0; k < n; ++k) {
    kernel_[k] = std::conj(chirp_[k]);
    if (k) kernel_[m - k] = std::conj(chirp_[k]);
  }
  conv_->run(kernel_.data(), 1, -1);
}

Plan1d::~Plan1d() = default;

// Decimation in time: p sub-transforms of n/p interleaved elements, then
// p-point butterflies with twiddles.
void Plan1d::mixed(const cd* in, long istride, cd* out, int n, size_t level, int sign) const {
  const int p = factors_[level], m = n / p;
  if (m == 1) {
    for (int q = 0; q < p; ++q) out[q] = in[q * istride];
  } else {
    for (int q = 0; q < p; ++q)
      mixed(in + q * istride, istride * p, out + q * m, m, level + 1, sign);
  }
  const int step = n_ / n;  // twiddle_ is of n_: w_n^j = twiddle_[j * step]
  cd t[16], r[16];
  for (int k = 0; k < m; ++k) {
    for (int q = 0; q < p; ++q) {
      cd w = twiddle_[(long long)q * k * step % n_];
      t[q] = out[q * m + k] * (sign < 0 ? w : std::conj(w));
    }
    for (int u = 0; u < p; ++u) {
      cd s{};
      for (int q = 0; q < p; ++q) {
        cd w = twiddle_[(long long)(q * u % p) * (n_ / p)];
        s += t[q] * (sign < 0 ? w : std::conj(w));
      }
      r[u] = s;
    }
    for (int u = 0; u < p; ++u) out[k + u * m] = r[u];
  }
}

void Plan1d::bluestein(cd* data, int sign) const {
  const int m = conv_->size();
  std::vector<cd> a(m);
  // The inverse is the forward of the conjugate, conjugated.
  auto in = [&](int k) { return sign < 0 ? data[k] : std::conj(data[k]); };
  for (int k = 0; k < n_; ++k) a[k] = in(k)*chirp_[k];
  conv_->run(a.data(), 1, -1);
  for (int k = 0; k < m; ++k) a[k] *= kernel_[k];
  conv_->run(a.data(), 1, +1);
  for (int k = 0; k < n_; ++k) {
    cd x = a[k] * chirp_[k] / double(m);
    data[k] = sign < 0 ? x : std::conj(x);
  }
}

void Plan1d::run(cd* data, long stride, int sign) const {
  if (n_ <= 1) return;
  if (factors_.empty()) {
    if (stride == 1) return bluestein(data, sign);
    std::vector<cd> tmp(n_);
    for (int k = 0; k < n_; ++k) tmp[k] = data[k * stride];
    bluestein(tmp.data(), sign);
    for (int k = 0; k < n_; ++k) data[k * stride] = tmp[k];
    return;
  }
  std::vector<cd> in(n_);
  for (int k = 0; k < n_; ++k) in[k] = data[k * stride];
  mixed(in.data(), 1, scratch_.data(), n_, 0, sign);
  for (int k = 0; k < n_; ++k) data[k * stride] = scratch_[k];
}

void transform(cd* data, const std::vector<int>& dims, int sign) {
  long total = 1;
  for (int d : dims) total *= d;
  long inner = total;
  for (size_t a = 0; a < dims.size(); ++a) {
    const int n = dims[a];
    inner /= n;  // elements after this axis
    Plan1d plan(n);
    const long outer = total / (inner * n);
    for (long o = 0; o < outer; ++o)
      for (long i = 0; i < inner; ++i) plan.run(data + o * n * inner + i, inner, sign);
  }
}

}  // namespace smemlab::libs::fft
