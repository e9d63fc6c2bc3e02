// The guards of the full-warp affine ld/st path (warp_loop.h: affine_words,
// affine_halves): an access the path must not take — a lane off the
// pattern in any group of four lanes, a partial warp, a run leaving its
// allocation in either half-warp, a misaligned base — must give exactly
// what the per-lane path gives: the same values, or the same fault naming
// the same lane. Each test fails when its guard is removed or weakened
// (docs/emulator.md, "tenth step").
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

// Sets SMEMLAB_EMU_ISA for one test and restores "unset" after it: both
// copies of the loop (portable and AVX2) have their own affine_halves.
struct IsaEnv {
  explicit IsaEnv(const char* v) { setenv("SMEMLAB_EMU_ISA", v, 1); }
  ~IsaEnv() { unsetenv("SMEMLAB_EMU_ISA"); }
};

class AffineGuard : public ::testing::TestWithParam<const char*> {
 protected:
  IsaEnv env_{GetParam()};
};

const char* kShared = ".shared .align 8 .b8 sh[1024];\n";

// Fills sh[i] = 1000 + i for i < 96 (three contiguous rows), then every lane
// loads word base(lane) = stride * lane, except lane `odd`, which loads
// word stride * odd + 40: off the pattern, in bounds. The path checks four
// lanes a vector; an odd lane in each of the eight groups (and at both
// ends of each half) must send the access to the per-lane path.
TEST_P(AffineGuard, OneLaneOffThePatternInAnyGroupOfFour) {
  for (int stride : {0, 1}) {
    for (int odd : {2, 3, 4, 7, 8, 11, 12, 15, 16, 17, 19, 20, 23, 24, 27, 28, 31}) {
      auto r = run_snippet(fmt::format(R"(
  mov.u32 %r1, sh;
  shl.b32 %r2, %r15, 2;
  add.s32 %r3, %r1, %r2;
  add.u32 %r4, %r15, 1000;
  st.shared.u32 [%r3], %r4;
  add.u32 %r4, %r15, 1032;
  st.shared.u32 [%r3+128], %r4;
  add.u32 %r4, %r15, 1064;
  st.shared.u32 [%r3+256], %r4;
  bar.sync 0;
  mul.lo.u32 %r5, %r15, {};
  setp.eq.u32 %p1, %r15, {};
  @%p1 add.u32 %r5, %r5, 40;
  shl.b32 %r6, %r5, 2;
  add.s32 %r7, %r1, %r6;
  ld.shared.u32 %r8, [%r7];
  st.global.u32 [%rd14], %r8;)",
                                       stride, odd),
                           32, kShared);
      SNIPPET_OK(r);
      for (int t = 0; t < 32; ++t)
        EXPECT_EQ(r.u32(0, t), static_cast<uint32_t>(1000 + stride * t + (t == odd ? 40 : 0)))
            << "stride " << stride << ", odd lane " << odd << ", thread " << t;
    }
  }
}

// The same for a store: lane `odd` stores to word 40 + odd instead of its
// own; its own word keeps what was there (a sentinel) and word 40 + odd
// gets its value.
TEST_P(AffineGuard, OneLaneOffThePatternStoresWhereItPoints) {
  for (int odd : {3, 12, 15, 16, 28, 31}) {
    auto r = run_snippet(fmt::format(R"(
  mov.u32 %r1, sh;
  shl.b32 %r2, %r15, 2;
  add.s32 %r3, %r1, %r2;
  mov.u32 %r4, 77;
  st.shared.u32 [%r3], %r4;
  st.shared.u32 [%r3+128], %r4;
  bar.sync 0;
  mov.u32 %r5, %r3;
  setp.eq.u32 %p1, %r15, {};
  @%p1 add.u32 %r5, %r5, 160;
  add.u32 %r6, %r15, 500;
  st.shared.u32 [%r5], %r6;
  bar.sync 0;
  ld.shared.u32 %r7, [%r3];
  ld.shared.u32 %r8, [%r3+128];
  st.global.u32 [%rd14], %r7;
  st.global.u32 [%rd14+8], %r8;)",
                                     odd),
                         32, kShared);
    SNIPPET_OK(r);
    for (int t = 0; t < 32; ++t) {
      EXPECT_EQ(r.u32(0, t), t == odd ? 77u : static_cast<uint32_t>(500 + t))
          << "odd lane " << odd << ", thread " << t;
      EXPECT_EQ(r.u32(1, t), t + 32 == odd + 40 ? static_cast<uint32_t>(500 + odd) : 77u)
          << "odd lane " << odd << ", thread " << t;
    }
  }
}

// A warp with one lane predicated off: only the other lanes store (the
// path takes full warps only).
TEST_P(AffineGuard, PartialWarpStoresOnlyItsLanes) {
  auto r = run_snippet(R"(
  mov.u32 %r1, sh;
  shl.b32 %r2, %r15, 2;
  add.s32 %r3, %r1, %r2;
  mov.u32 %r4, 777;
  st.shared.u32 [%r3], %r4;
  bar.sync 0;
  setp.ne.u32 %p1, %r15, 5;
  @%p1 st.shared.u32 [%r3], %r15;
  bar.sync 0;
  ld.shared.u32 %r5, [%r3];
  st.global.u32 [%rd14], %r5;)",
                       32, kShared);
  SNIPPET_OK(r);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(r.u32(0, t), t == 5 ? 777u : static_cast<uint32_t>(t));
}

// A global run that leaves its allocation (the harness's 2,048-byte
// output buffer) in the first half-warp, or in the second half-warp only
// (its own base), faults naming the first lane outside, as the per-lane
// path does.
TEST_P(AffineGuard, GlobalRunPastTheEndFaultsAtItsLane) {
  struct Case {
    const char* what;
    int first_off, second_off, lane;
  } cases[] = {
      {"first half", 2048 - 40, 2048 - 40 + 64, 10},  // lane 10 at 2048
      {"second half", 0, 2048 - 24, 22},              // lane 16 at 2024, lane 22 at 2048
  };
  for (const Case& c : cases) {
    for (const char* op : {"ld", "st"}) {
      const std::string access =
          std::string(op) == "ld" ? "ld.global.u32 %r4, [%rd5];" : "st.global.u32 [%rd5], %r15;";
      auto r = run_snippet(fmt::format(R"(
  and.b32 %r1, %r15, 15;
  mul.wide.u32 %rd1, %r1, 4;
  setp.lt.u32 %p1, %r15, 16;
  selp.b64 %rd2, {}, {}, %p1;
  add.s64 %rd3, %rd0, %rd2;
  add.s64 %rd5, %rd3, %rd1;
  {})",
                                       c.first_off, c.second_off, access),
                           32);
      ASSERT_FALSE(r.ok) << c.what << " " << op;
      EXPECT_NE(r.error.find(fmt::format("thread ({},0,0)", c.lane)), std::string::npos)
          << c.what << " " << op << ": " << r.error;
      EXPECT_NE(r.error.find("past the end"), std::string::npos)
          << c.what << " " << op << ": " << r.error;
    }
  }
}

// A contiguous run whose base is 2 bytes off a word: misaligned at lane 0
// (the stride alone is aligned).
TEST_P(AffineGuard, MisalignedBaseFaultsAtItsLane) {
  auto r = run_snippet(R"(
  mov.u32 %r1, sh;
  shl.b32 %r2, %r15, 2;
  add.s32 %r3, %r1, %r2;
  ld.shared.u32 %r4, [%r3+2];
  st.global.u32 [%rd14], %r4;)",
                       32, kShared);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("misaligned 4-byte load"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("thread (0,0,0)"), std::string::npos) << r.error;
}

INSTANTIATE_TEST_SUITE_P(Isa, AffineGuard, ::testing::Values("portable", "auto"));

}  // namespace
}  // namespace smemlab::emu::test
