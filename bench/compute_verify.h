// CPU-side verification rules of the compute benchmarks (filter, reduction),
// kept free of CUDA so that bench/compute_verify_test.cc can check that they
// accept correct results and reject wrong ones. The error bounds are the
// standard first-order ones for float summation: a chain of L additions of
// terms t_i errs by at most L * u * sum |t_i|, u = 2^-24, in any order.
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace smemlab::bench::verify {

inline constexpr double kUnitRoundoff = 1.0 / (1 << 24);

// FIR with zero boundary: y[i] = sum_k c[k] x[i + k - r], r = (taps - 1) / 2.
// Every y[i] must be within taps * u * sum_k |c[k] x[i+k-r]| of the double
// sum of the same float products. "" when all pass (NaN never passes).
inline std::string check_fir(const std::vector<float>& x, const std::vector<float>& y,
                             const std::vector<float>& c) {
  const long long n = static_cast<long long>(x.size());
  const int taps = static_cast<int>(c.size()), r = (taps - 1) / 2;
  if (y.size() != x.size())
    return "output size " + std::to_string(y.size()) + " != " + std::to_string(n);
  for (long long i = 0; i < n; ++i) {
    double ref = 0.0, mag = 0.0;
    for (int k = 0; k < taps; ++k) {
      const long long j = i + k - r;
      if (j < 0 || j >= n) continue;
      const double t = static_cast<double>(c[k]) * x[j];
      ref += t;
      mag += std::fabs(t);
    }
    const double bound = taps * kUnitRoundoff * mag;
    const double err = std::fabs(static_cast<double>(y[i]) - ref);
    if (!(err <= bound))
      return "n=" + std::to_string(n) + ": y[" + std::to_string(i) + "] = " + std::to_string(y[i]) +
             ", expected " + std::to_string(ref) + " (bound " + std::to_string(bound) + ")";
  }
  return "";
}

// A float sum of x whose longest addition chain is `chain` must be within
// chain * u * sum |x| of the double sum. Fills *note with the numbers.
inline std::string check_sum(float got, const std::vector<float>& x, int chain, std::string* note) {
  double sum = 0.0, abs_sum = 0.0;
  for (float v : x) sum += v, abs_sum += std::fabs(v);
  const double tol = chain * kUnitRoundoff * abs_sum;
  const double err = std::fabs(static_cast<double>(got) - sum);
  if (note)
    *note = "n=" + std::to_string(x.size()) + " err " + std::to_string(err) + " <= tol " +
            std::to_string(tol) + " (L=" + std::to_string(chain) + ")";
  if (!(err <= tol))
    return "sum " + std::to_string(got) + " vs double " + std::to_string(sum) + ": error " +
           std::to_string(err) + " > bound " + std::to_string(tol);
  return "";
}

// Longest addition chain of a multi-pass block reduction (each pass: a
// thread adds per_thread loaded elements serially, then log2(block) tree
// levels; passes repeat on the partials until one block remains).
inline int chain_bound_passes(long long n, int per_thread, int block) {
  int levels = 0;
  for (int b = block; b > 1; b /= 2) ++levels;
  const long long per_block = static_cast<long long>(block) * per_thread;
  int chain = 0;
  while (true) {
    chain += (per_thread - 1) + levels + 1;
    const long long blocks = (n + per_block - 1) / per_block;
    if (blocks <= 1) return chain;
    n = blocks;
  }
}

}  // namespace smemlab::bench::verify
