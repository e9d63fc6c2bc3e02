// cuRAND's MT19937 host generator: 8192 copies of the reference MT19937
// (Matsumoto and Nishimura's init_genrand of the seed's low 32 bits), copy g
// jumped 2^2048 * g outputs ahead of copy 0, each read by 8 threads that
// share its 624-word blocks. Result r of the host
// API's sequence is, with k = r / 65536, g = (r % 65536) / 8, t = r % 8,
// word position(t, k % 78) of block k / 78 of copy g (position 0 of thread t
// is 0, 113, 170, 283, 340, 397, 510 or 567; the others follow in runs of 7).
// Equal, bit for bit, to an H200's first 65536 results and to the toolkit's
// own host generator (libcurand's curandCreateGeneratorHost, which runs on
// the CPU) over seeds, 64-bit seeds and 5.2 million results
// (curand_mt19937_test.cc).
//
// The jump is x^(2^2048) mod the MT19937 characteristic polynomial, applied
// with Horner's rule over windows of 7 coefficients; the polynomial is found
// once per process by Berlekamp-Massey on the generator's own output.
#pragma once

#include <cstdint>
#include <vector>

namespace smemlab::libs::mt19937 {

constexpr unsigned kWords = 624, kCopies = 8192, kThreads = 8;
constexpr unsigned kM = 397;  // word i's next value reads word i + 397
constexpr uint32_t kMatrixA = 0x9908b0dfu, kUpper = 0x80000000u, kLower = 0x7fffffffu;
constexpr uint64_t kRound = uint64_t(kCopies) * kThreads;  // results per round: one per thread

// One MT19937 state: the words of its next block before the twist.
struct State {
  uint32_t mt[kWords];
};

// init_genrand(s) of the reference implementation (mt19937ar.c).
State seeded(uint32_t s);
// The reference twist: the next block of 624 words in place.
void twist(State& s);
// The reference tempering of one word.
uint32_t temper(uint32_t y);
// `s` advanced by 2^2048 outputs (one word of the block per output).
State jumped(const State& s);
// `s` advanced by 2^log2 outputs, the same way (for tests: small jumps
// against stepping).
State jumped_pow2(const State& s, unsigned log2);

// The toolkit's uniform conversions of an MT19937 result (measured against
// its host generator): x * 2^-32 + 2^-33 in double, rounded once to float
// for curandGenerateUniform; one result per double for
// curandGenerateUniformDouble.
inline double uniform_double(uint32_t x) { return double(x) * 0x1p-32 + 0x1p-33; }
inline float uniform(uint32_t x) { return float(uniform_double(x)); }

class Sequence {
 public:
  explicit Sequence(uint64_t seed);
  uint64_t seed() const { return seed_; }
  // Results first .. first + n - 1 into out[0 .. n).
  void fill(uint64_t first, uint64_t n, uint32_t* out);

 private:
  struct Copy {
    State block;  // the words of block `blocks - 1` (twisted `blocks` times)
    uint64_t blocks = 0;
  };
  const uint32_t* block_of(unsigned g, uint64_t b);
  uint64_t seed_;
  std::vector<State> base_;  // copy g before its first twist
  std::vector<Copy> copies_;
};

}  // namespace smemlab::libs::mt19937
