// The base generators against published values and against themselves:
// Philox4x32-10's known answer (Random123's kat_vectors, counter and key 0),
// first results measured on an H100, XORWOW's recurrence restated, and
// skip-ahead equal to stepping.
#include "libs/curand_generators.h"

#include <gtest/gtest.h>

namespace smemlab::libs::rng {
namespace {

TEST(Rng, PhiloxKnownAnswer) {
  // seed 0: key 0; subsequence 0, offset 0: counter 0.
  Stream s(Kind::Philox, 0, 0, 0);
  EXPECT_EQ(s.next(), 0x6627e8d5u);
  EXPECT_EQ(s.next(), 0xe169c58du);
  EXPECT_EQ(s.next(), 0xbc57ac4cu);
  EXPECT_EQ(s.next(), 0x9b00dbd8u);
}

// The first 32-bit result of each generator at seed 1234 as an H100's
// cuRAND 10 host API returned it (scripts/gpu-libs, 2026-11-27): result 0 is
// subsequence 0, offset 0 of every ordering.
TEST(Rng, FirstResultsOfTheH100) {
  EXPECT_EQ(Stream(Kind::Xorwow, 1234, 0, 0).next(), 0x253d5e15u);
  EXPECT_EQ(Stream(Kind::Philox, 1234, 0, 0).next(), 0x2090b348u);
  EXPECT_EQ(Stream(Kind::Mrg32k3a, 1234, 0, 0).next(), 0xc96891f0u);
  // Results 1..3: Philox's next draws of subsequence 0, the others' subsequences 1..3.
  EXPECT_EQ(Stream(Kind::Philox, 1234, 0, 1).next(), 0xda7cf0abu);
  EXPECT_EQ(Stream(Kind::Xorwow, 1234, 1, 0).next(), 0xd1f7605au);
  EXPECT_EQ(Stream(Kind::Mrg32k3a, 1234, 3, 0).next(), 0xfc8fa50eu);
}

TEST(Rng, XorwowIsMarsagliasRecurrence) {
  // Marsaglia's (2003) xorwow from curand_init's salted seed, written
  // out here independently of Stream's code.
  uint32_t s0 = 0xaad26b49u, s1 = 0xf7dcefddu, t0 = 1099087573u * s0, t1 = 2591861531u * s1;
  uint32_t v[5] = {123456789u + t0, 362436069u ^ t0, 521288629u + t1, 88675123u ^ t1,
                   5783321u + t0};
  uint32_t d = 6615241u + t1 + t0;
  Stream s(Kind::Xorwow, 0, 0, 0);
  for (int i = 0; i < 100; ++i) {
    uint32_t t = v[0] ^ (v[0] >> 2);
    v[0] = v[1], v[1] = v[2], v[2] = v[3], v[3] = v[4];
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
    d += 362437u;
    ASSERT_EQ(s.next(), v[4] + d) << i;
  }
}

TEST(Rng, SkipAheadEqualsStepping) {
  for (Kind k : {Kind::Xorwow, Kind::Philox, Kind::Mrg32k3a})
    for (uint64_t n : {1ull, 3ull, 4ull, 5ull, 1000ull, 4097ull}) {
      Stream stepped(k, 1234, 0, 0), skipped(k, 1234, 0, n);
      for (uint64_t i = 0; i < n; ++i) stepped.next();
      for (int i = 0; i < 10; ++i) ASSERT_EQ(stepped.next(), skipped.next()) << int(k) << " " << n;
    }
}

// Results of the orderings other than the default as an H200 returned them
// (curand_probe.bin, seed 1234), each where its layout departs from the
// default's: XORWOW SEEDED's seeds per thread, XORWOW DYNAMIC's 2816
// threads, MRG32k3a LEGACY's 4096 and BEST's 65536, and the MRG32k3a
// results whose s1[0] lies close to m1 (64-bit arithmetic overflowed there).
TEST(Rng, OrderingsOfTheGpu) {
  auto result = [](Kind k, Layout l, uint64_t g) {
    uint32_t v = 0;
    for_each_result(k, ordering_of(k, l), 1234, g, 1, 1,
                    [&](uint64_t, Stream& s) { v = s.next(); });
    return v;
  };
  EXPECT_EQ(result(Kind::Xorwow, Layout::Seeded, 1), 0x7b531e20u);
  EXPECT_EQ(result(Kind::Xorwow, Layout::Seeded, 2), 0x62694e1du);
  EXPECT_EQ(result(Kind::Xorwow, Layout::Seeded, 4097), 0x982a7eabu);
  EXPECT_EQ(result(Kind::Xorwow, Layout::Dynamic, 2816), 0x6f558604u);
  EXPECT_EQ(result(Kind::Xorwow, Layout::Dynamic, 2817), 0xed29ae49u);
  EXPECT_EQ(result(Kind::Mrg32k3a, Layout::Legacy, 4096), 0x9650c684u);
  EXPECT_EQ(result(Kind::Mrg32k3a, Layout::Legacy, 4097), 0xac5068d7u);
  EXPECT_EQ(result(Kind::Mrg32k3a, Layout::Default, 40000), 0xf8cd12a7u);
  EXPECT_EQ(result(Kind::Mrg32k3a, Layout::Default, 23068), 0xb2882eaau);
  EXPECT_EQ(result(Kind::Mrg32k3a, Layout::Default, 27291), 0x875ac1ccu);
}

TEST(Rng, HostOrderingVisitsEveryResultOnce) {
  std::vector<int> seen(10000);
  for_each_result(Kind::Philox, 7, 123, seen.size(), 1, [&](uint64_t i, Stream& s) {
    ++seen[i];
    s.next();
  });
  for (int c : seen) ASSERT_EQ(c, 1);
}

}  // namespace
}  // namespace smemlab::libs::rng
