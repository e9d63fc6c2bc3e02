// Shared by the library test programs (tests/programs/libs/): deterministic
// random inputs (an LCG, the same natively and under smemlab), a check
// counter, and an optional binary dump of results (argv[1]) that
// scripts/gpu-libs compares between an H100 and smemlab.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#define CHECK_CUDA(x)                                                                     \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)
#define CHECK_STATUS(x)                                                       \
  do {                                                                        \
    int s_ = int(x);                                                          \
    if (s_ != 0) {                                                            \
      std::printf("FAIL %s:%d %s returned %d\n", __FILE__, __LINE__, #x, s_); \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

struct Lcg {
  uint64_t s;
  explicit Lcg(uint64_t seed) : s(seed * 6364136223846793005ull + 1442695040888963407ull) {}
  double next() {  // in [-1, 1)
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return double(s >> 11) / double(1ull << 52) - 1.0;
  }
};

template <class T>
const char* kind_of() {
  if constexpr (std::is_same_v<T, float>)
    return "f";
  else if constexpr (std::is_same_v<T, double>)
    return "d";
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return "c";
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return "z";
  else
    return "u";
}

inline int g_failures = 0;
inline FILE* g_dump = nullptr;

// Reports one check: max |got - want| relative to max(1, |want|) under tol.
template <class T>
void expect_close(const char* name, const std::vector<T>& got, const std::vector<T>& want,
                  double tol) {
  double err = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double d = std::abs(std::complex<double>(got[i]) - std::complex<double>(want[i]));
    double m = std::max(1.0, std::abs(std::complex<double>(want[i])));
    if (!(d / m <= err)) err = d / m;  // NaN counts as an error
  }
  bool ok = got.size() == want.size() && err <= tol;
  std::printf("%s %s max_rel_err %.3g (tol %.1g, %zu values)\n", ok ? "PASS" : "FAIL", name, err,
              tol, got.size());
  if (!ok) ++g_failures;
  if (g_dump) {
    // name|kind|tol: kind f d c z u (float, double, complex, double complex, uint32).
    char tol_text[32];
    std::snprintf(tol_text, sizeof tol_text, "%g", tol);
    std::string tag = std::string(name) + "|" + kind_of<T>() + "|" + tol_text;
    uint32_t len = uint32_t(tag.size()), bytes = uint32_t(got.size() * sizeof(T));
    name = tag.c_str();
    std::fwrite(&len, 4, 1, g_dump), std::fwrite(name, 1, len, g_dump);
    std::fwrite(&bytes, 4, 1, g_dump), std::fwrite(got.data(), 1, bytes, g_dump);
  }
}

inline void open_dump(int argc, char** argv) {
  if (argc > 1) g_dump = std::fopen(argv[1], "wb");
}
