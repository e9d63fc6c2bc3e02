#include "libs/curand_sobol.h"

#include <cmath>
#include <numbers>

namespace smemlab::libs::sobol {
namespace {

// Skip-ahead as curand_kernel.h's skipahead for Sobol states: the Gray code
// of the index selects the direction vectors.
template <class T, class V>
T gray_point(const V& v, T c, uint64_t index) {
  const uint64_t gray = index ^ (index >> 1);
  T x = c;
  for (unsigned k = 0; k < sizeof(T) * 8 && (gray >> k); ++k)
    if (gray >> k & 1) x ^= v[k];
  return x;
}

// The standard normal quantile: Acklam's rational approximation refined by
// one Halley step on libm's erfc (relative error near 1e-15).
double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - 0.02425) {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  for (int i = 0; i < 2; ++i) {
    double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
    double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
    x -= u / (1 + x * u / 2);
  }
  return x;
}

// erfcinv(y) for y in (0, 1]: erfc(z) = y  <=>  z = -quantile(y / 2) / sqrt(2).
double erfcinv(double y) { return -normal_quantile(y / 2) / std::sqrt(2.0); }

constexpr float kSqrt2 = -1.4142135f;  // CURAND_SQRT2 (its sign included)
constexpr double kSqrt2Double = -1.4142135623730951;
constexpr float kInv32 = 2.3283064e-10f;
constexpr double kInv32Double = 2.3283064365386963e-10, kInv53Double = 1.1102230246251565e-16;

float icdf_of_high_word(uint32_t x) {
  float s = kSqrt2;
  if (x > 0x80000000u) x = 0xffffffffu - x, s = -s;
  float p = float(x) * kInv32 + kInv32 / 2.0f;
  return s * float(erfcinv(double(2.0f * p)));
}

}  // namespace

uint32_t point32(unsigned dim, bool scrambled, uint64_t index) {
  return gray_point<uint32_t>(directions32(scrambled)[dim], scrambled ? scramble32()[dim] : 0u,
                              index);
}
uint64_t point64(unsigned dim, bool scrambled, uint64_t index) {
  return gray_point<uint64_t>(directions64(scrambled)[dim], scrambled ? scramble64()[dim] : 0ull,
                              index);
}

float normal_icdf(uint32_t x) { return icdf_of_high_word(x); }
float normal_icdf(uint64_t x) { return icdf_of_high_word(uint32_t(x >> 32)); }
double normal_icdf_double(uint32_t x) {
  double s = kSqrt2Double;
  if (x > 0x80000000u) x = 0xffffffffu - x, s = -s;
  double p = x * kInv32Double + kInv32Double / 2.0;
  return s * erfcinv(2.0 * p);
}
double normal_icdf_double(uint64_t x) {
  double s = kSqrt2Double;
  x >>= 11;
  if (x > 0x10000000000000ull) x = 0x1fffffffffffffull - x, s = -s;
  double p = double(x) * kInv53Double + kInv53Double / 2.0;
  return s * erfcinv(2.0 * p);
}

}  // namespace smemlab::libs::sobol
