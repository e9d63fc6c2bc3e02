// cuRAND's MTGP32 host generator: 192 MTGP32 states with the toolkit's
// parameter sets (curand_mtgp32dc_p_11213.h), seeded as
// curandMakeMTGP32KernelState seeds them (state b: (seed ^ seed >> 32) + b + 1),
// each advanced 256 results per round as curand_mtgp32_kernel.h's block of
// 256 threads advances it. Result g of the host API's sequence is result
// (g / (256 * 192)) * 256 + g % 256 of state (g / 256) mod 192: fitted to
// the first 65536 results of an H200's cuRAND (tests/data/h100_libs/
// curand_probe.bin), which it reproduces bit for bit.
#pragma once

#include <cstdint>
#include <vector>

namespace smemlab::libs::mtgp {

constexpr unsigned kStates = 192, kThreads = 256;

class Sequence {
 public:
  explicit Sequence(uint64_t seed);
  uint64_t seed() const { return seed_; }
  // Result g of the sequence; cheapest when calls come in increasing g.
  uint32_t at(uint64_t g);

 private:
  struct State {
    uint32_t s[1024];
    unsigned offset = 0;
    uint64_t round = 0;  // rounds generated; out holds round - 1's results
    uint32_t out[kThreads];
  };
  void reset(unsigned b);
  void advance(unsigned b);
  uint64_t seed_;
  std::vector<State> states_;
};

}  // namespace smemlab::libs::mtgp
