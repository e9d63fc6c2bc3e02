#include "libs/curand_mt19937.h"

namespace smemlab::libs::mt19937 {
namespace {

// Word of a block that thread t reads at its read l (0..77) of the block.
unsigned position(unsigned t, unsigned l) {
  static constexpr unsigned kFirst[kThreads] = {0, 113, 170, 283, 340, 397, 510, 567};
  static constexpr unsigned kRuns[11] = {1, 57, 114, 171, 227, 284, 341, 398, 454, 511, 568};
  if (l == 0) return kFirst[t];
  return kRuns[(l - 1) / 7] + 7 * t + (l - 1) % 7;
}

}  // namespace

State seeded(uint32_t s) {
  State st;
  st.mt[0] = s;
  for (unsigned i = 1; i < kWords; ++i)
    st.mt[i] = 1812433253u * (st.mt[i - 1] ^ (st.mt[i - 1] >> 30)) + i;
  return st;
}

// mt19937ar.c's genrand_int32 block step: word i from words i, i + 1, i + 397
// (mod 624), in order, so the last words read the block's new first ones.
void twist(State& s) {
  for (unsigned i = 0; i < kWords; ++i) {
    const uint32_t y = (s.mt[i] & kUpper) | (s.mt[(i + 1) % kWords] & kLower);
    s.mt[i] = s.mt[(i + kM) % kWords] ^ (y >> 1) ^ ((y & 1) ? kMatrixA : 0);
  }
}

uint32_t temper(uint32_t y) {
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  return y ^ (y >> 18);
}

Sequence::Sequence(uint64_t seed) : seed_(seed), base_(kCopies), copies_(kCopies) {
  base_[0] = seeded(uint32_t(seed));  // the low 32 bits: the toolkit ignores the others
  for (unsigned g = 1; g < kCopies; ++g) base_[g] = jumped(base_[g - 1]);
}

const uint32_t* Sequence::block_of(unsigned g, uint64_t b) {
  Copy& c = copies_[g];
  if (c.blocks > b + 1) c.blocks = 0;  // an earlier block: start the copy again
  if (c.blocks == 0) c.block = base_[g];
  while (c.blocks < b + 1) {
    twist(c.block);
    ++c.blocks;
  }
  return c.block.mt;
}

void Sequence::fill(uint64_t first, uint64_t n, uint32_t* out) {
  if (n == 0) return;
  constexpr unsigned kReads = kWords / kThreads;  // 78 reads of a block per thread
  const uint64_t end = first + n, k0 = first / kRound, k1 = (end - 1) / kRound;
  for (unsigned g = 0; g < kCopies; ++g)
    for (uint64_t k = k0; k <= k1; ++k) {
      const uint64_t r0 = k * kRound + uint64_t(g) * kThreads;
      if (r0 + kThreads <= first || r0 >= end) continue;
      const uint32_t* block = block_of(g, k / kReads);
      for (unsigned t = 0; t < kThreads; ++t) {
        const uint64_t r = r0 + t;
        if (r >= first && r < end)
          out[r - first] = temper(block[position(t, unsigned(k % kReads))]);
      }
    }
}

}  // namespace smemlab::libs::mt19937
