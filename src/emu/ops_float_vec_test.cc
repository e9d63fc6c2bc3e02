// The float slow path's vectors (ops_float_vec.h) against its per-lane loop,
// the reference: every result bit, every op the vectors take, with and
// without .ftz, full and partial warps, on random bit patterns (NaNs with
// payloads, infinities, subnormals included), hand-picked specials and ties,
// and ex2 over a stride of all 2^32 inputs (all of them with
// SMEMLAB_EXHAUSTIVE=1). Also that the vectors decide most ordinary lanes, so
// a path that hands everything back to the loop fails too.
#include "emu/ops_float_vec.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "emu/program.h"

namespace smemlab::emu::test {
namespace {

constexpr uint8_t kVectorOps[] = {F_ADD,  F_SUB,   F_MUL, F_FMA, F_DIV, F_RCP,
                                  F_SQRT, F_RSQRT, F_ABS, F_NEG, F_EX2};
constexpr uint64_t kUntouched = 0xdeadbeefcafef00dull;

// Bit patterns worth a lane: zeros, subnormals, the normal boundary, ones,
// float max, infinities, quiet and signalling NaNs with payloads, ex2's
// range ends (-125, 127, -126, 128) and their neighbours, and a division
// tie's operands (1 + 2^-23 over 2: exact; 3 / 3; 1 / 3).
const std::vector<uint32_t>& specials() {
  static const std::vector<uint32_t> v = {
      0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000,
      0x80800000, 0x3f800000, 0xbf800000, 0x3f800001, 0x7f7fffff, 0xff7fffff, 0x7f800000,
      0xff800000, 0x7fc00000, 0xffc00000, 0x7fc12345, 0x7f812345, 0xff812345, 0xc2fa0000,
      0xc2f9ffff, 0xc2fa0001, 0x42fe0000, 0x42fdffff, 0x42fe0001, 0xc2fc0000, 0x43000000,
      0x40400000, 0x40000000, 0x3eaaaaab, 0x34000000, 0x00400000, 0x3f000000, 0xbf000000};
  return v;
}

// One warp's operand registers, f32 in the low half of each 64-bit slot.
struct Regs {
  uint64_t a[32], b[32], c[32];
};

uint32_t pick(std::mt19937_64& rng, int kind) {
  const auto& s = specials();
  switch (kind) {
    case 0:
      return static_cast<uint32_t>(rng());  // any pattern
    case 1:
      return s[rng() % s.size()];
    case 2: {  // an ordinary value in ex2's range: [-125, 127)
      std::uniform_real_distribution<float> d(-125.0f, 127.0f);
      return std::bit_cast<uint32_t>(d(rng));
    }
    default: {  // near 1 (sums, quotients and square roots with ties nearby)
      std::uniform_int_distribution<uint32_t> d(0x3f7fff00, 0x3f8000ff);
      return d(rng);
    }
  }
}

// D through the vectors then the loop for the lanes they leave, against
// D through the loop alone: returns the lanes the vectors decided.
uint32_t check(F32VectorFn vec, uint8_t f, bool ftz, const Regs& r, uint32_t exec,
               const char* what) {
  uint64_t want[32], got[32];
  for (int l = 0; l < 32; ++l) want[l] = got[l] = kUntouched;
  const uint8_t flags = ftz ? kFtz : 0;
  EXPECT_TRUE(f32_nearest_lanes(f, flags, want, r.a, r.b, r.c, exec));
  const uint32_t left = vec(f, ftz, got, r.a, r.b, r.c, exec);
  EXPECT_EQ(left & ~exec, 0u) << what;
  if (left) f32_nearest_lanes(f, flags, got, r.a, r.b, r.c, left);
  for (int l = 0; l < 32; ++l)
    EXPECT_EQ(got[l], want[l]) << what << ": op " << int(f) << (ftz ? " .ftz" : "") << " lane " << l
                               << " a=" << std::hex << r.a[l] << " b=" << r.b[l] << " c=" << r.c[l]
                               << " exec=" << exec;
  return exec & ~left;
}

TEST(OpsFloatVec, EveryOpMatchesTheLoopBitForBit) {
  const F32VectorFn vec = f32_vector();
  if (!vec) GTEST_SKIP() << "no AVX2 + FMA on this CPU: the loop runs every lane";
  std::mt19937_64 rng(29);
  for (uint8_t f : kVectorOps) {
    uint64_t decided = 0, ordinary = 0;
    for (int round = 0; round < 400; ++round) {
      Regs r;
      const int kind = round % 4;
      for (int l = 0; l < 32; ++l) {
        // Upper halves set too: the loop reads only the low half.
        r.a[l] = pick(rng, kind) | (rng() & 0xffffffff00000000ull);
        r.b[l] = pick(rng, kind == 3 || rng() % 2 ? kind : 1);
        r.c[l] = pick(rng, kind);
      }
      const uint32_t exec = round % 3 == 0 ? 0xffffffffu : static_cast<uint32_t>(rng());
      for (bool ftz : {false, true}) {
        const uint32_t d = check(vec, f, ftz, r, exec, "random");
        if (kind == 3) {
          decided += std::popcount(d);
          ordinary += std::popcount(exec);
        }
      }
    }
    // Ordinary inputs (all three near 1) are decided by the vectors (ex2:
    // all but the ~3 % near midpoints).
    EXPECT_GT(decided, ordinary * 9 / 10) << "op " << int(f);
  }
}

// Every pair of specials in one warp: a, b and c each a special.
TEST(OpsFloatVec, SpecialsMatchTheLoop) {
  const F32VectorFn vec = f32_vector();
  if (!vec) GTEST_SKIP() << "no AVX2 + FMA on this CPU";
  const auto& s = specials();
  for (uint8_t f : kVectorOps)
    for (size_t i = 0; i < s.size(); ++i) {
      Regs r;
      for (int l = 0; l < 32; ++l) {
        r.a[l] = s[i];
        r.b[l] = s[(i + static_cast<size_t>(l)) % s.size()];
        r.c[l] = s[(i * 7 + static_cast<size_t>(l) * 3) % s.size()];
      }
      for (bool ftz : {false, true}) check(vec, f, ftz, r, 0xffffffffu, "specials");
    }
}

// ex2 against the loop (glibc's exp2f) over every 61st bit pattern, or all
// 2^32 with SMEMLAB_EXHAUSTIVE=1 (a few CPU minutes).
TEST(OpsFloatVec, Ex2MatchesExp2fOnEveryFloat) {
  const F32VectorFn vec = f32_vector();
  if (!vec) GTEST_SKIP() << "no AVX2 + FMA on this CPU";
  const char* env = std::getenv("SMEMLAB_EXHAUSTIVE");
  const uint64_t step = env && *env == '1' ? 1 : 61;
  Regs r = {};
  uint64_t want[32], got[32], mismatches = 0, decided = 0, in_range = 0;
  for (uint64_t x = 0; x < (1ull << 32);) {
    for (int l = 0; l < 32; ++l, x += step) r.a[l] = static_cast<uint32_t>(x);
    f32_nearest_lanes(F_EX2, 0, want, r.a, r.a, r.a, 0xffffffffu);
    const uint32_t left = vec(F_EX2, false, got, r.a, r.a, r.a, 0xffffffffu);
    for (int l = 0; l < 32; ++l) {
      const float a = std::bit_cast<float>(static_cast<uint32_t>(r.a[l]));
      const bool ordinary = a >= -125.0f && a < 127.0f;
      in_range += ordinary;
      if (left >> l & 1) continue;
      ++decided;
      if (got[l] != want[l] && ++mismatches < 10)
        ADD_FAILURE() << "ex2 of " << std::hex << r.a[l] << ": " << got[l] << ", exp2f " << want[l];
    }
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(decided, in_range * 95 / 100);  // only lanes near midpoints go back
  std::printf("ex2: %llu inputs in [-125, 127) (step %llu), %llu decided by the vectors\n",
              static_cast<unsigned long long>(in_range), static_cast<unsigned long long>(step),
              static_cast<unsigned long long>(decided));
}

}  // namespace
}  // namespace smemlab::emu::test
