// The interpreter's two builds (portable and AVX2, chosen per launch by
// SMEMLAB_EMU_ISA) and the full-warp affine ld/st path: every pattern the
// fast path takes must give what the per-lane path gives, on both builds.
#include <cstdlib>
#include <string>

#include "emu/exec.h"
#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

bool cpu_has_avx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi2");
}

// Sets SMEMLAB_EMU_ISA for one test and restores "unset" after it.
struct IsaEnv {
  explicit IsaEnv(const char* v) { setenv("SMEMLAB_EMU_ISA", v, 1); }
  ~IsaEnv() { unsetenv("SMEMLAB_EMU_ISA"); }
};

TEST(RunWarpIsa, EnvironmentChoosesTheCopy) {
  std::string err;
  RunWarpFn portable, automatic;
  {
    IsaEnv e("portable");
    portable = select_run_warp(&err);
  }
  {
    IsaEnv e("auto");
    automatic = select_run_warp(&err);
  }
  ASSERT_NE(portable, nullptr);
  ASSERT_NE(automatic, nullptr);
  EXPECT_EQ(select_run_warp(&err), automatic);  // unset = auto
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  EXPECT_EQ(automatic != portable, cpu_has_avx2());
  IsaEnv e("avx2");
  EXPECT_EQ(select_run_warp(&err) != nullptr, cpu_has_avx2()) << err;
#endif
}

TEST(RunWarpIsa, UnknownValueIsAnErrorNamingIt) {
  IsaEnv e("sse9");
  std::string err;
  EXPECT_EQ(select_run_warp(&err), nullptr);
  EXPECT_NE(err.find("SMEMLAB_EMU_ISA='sse9'"), std::string::npos) << err;
  auto r = run_snippet("st.global.u32 [%rd14], %r15;", 32);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("sse9"), std::string::npos) << r.error;
}

class AffineAccess : public ::testing::TestWithParam<const char*> {
 protected:
  IsaEnv env_{GetParam()};
};

const char* kShared = ".shared .align 8 .b8 sh[2048];\n";

// A row stored by the warp (stride 4), then read back as a broadcast per
// half-warp (stride 0), a column with stride 12, both halves reading one
// 16-word row, and 64-bit words; every thread checks its own results.
TEST_P(AffineAccess, LoadsSeeWhatTheLanesStored) {
  auto r = run_snippet(R"(
  mov.u32 %r1, sh;
  shl.b32 %r2, %r15, 2;
  add.s32 %r3, %r1, %r2;
  mad.lo.u32 %r4, %r15, 7, -50;
  st.shared.u32 [%r3], %r4;
  st.shared.u32 [%r3+128], %r15;
  bar.sync 0;
  shr.u32 %r5, %r15, 4;
  shl.b32 %r6, %r5, 3;
  add.s32 %r7, %r1, %r6;
  ld.shared.u32 %r8, [%r7+4];
  st.global.u32 [%rd14], %r8;
  and.b32 %r9, %r15, 15;
  mul.lo.u32 %r10, %r9, 12;
  add.s32 %r11, %r1, %r10;
  ld.shared.s32 %r12, [%r11];
  cvt.s64.s32 %rd1, %r12;
  st.global.u64 [%rd14+8], %rd1;
  shl.b32 %r13, %r9, 2;
  add.s32 %r14, %r1, %r13;
  ld.shared.u32 %r14, [%r14+128];
  st.global.u32 [%rd14+16], %r14;
  cvt.u64.u32 %rd2, %r15;
  mul.wide.u32 %rd3, %r15, 8;
  cvt.u64.u32 %rd4, %r1;
  add.s64 %rd5, %rd4, %rd3;
  add.s64 %rd6, %rd2, 1000000000000;
  st.shared.u64 [%rd5+256], %rd6;
  bar.sync 0;
  ld.shared.u64 %rd7, [%rd4+264];
  st.global.u64 [%rd14+24], %rd7;)",
                       32, kShared);
  SNIPPET_OK(r);
  auto row = [](int i) { return static_cast<uint32_t>(i * 7 - 50); };
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(r.u32(0, t), row(t < 16 ? 1 : 3)) << t;
    int word = 3 * (t % 16);  // past 31: the second row, which holds lane numbers
    EXPECT_EQ(static_cast<int64_t>(r.at(t, 1)),
              word < 32 ? static_cast<int32_t>(row(word)) : word - 32)
        << t;
    EXPECT_EQ(r.u32(2, t), static_cast<uint32_t>(t % 16)) << t;
    EXPECT_EQ(r.at(t, 3), 1000000000001ull) << t;
  }
}

// Lanes storing to one word (stride 0 in each half): the highest lane's
// value stays, as when the lanes store one after another.
TEST_P(AffineAccess, StoresToOneWordKeepTheLastLane) {
  auto r = run_snippet(R"(
  mov.u32 %r1, sh;
  shr.u32 %r2, %r15, 4;
  shl.b32 %r3, %r2, 2;
  add.s32 %r4, %r1, %r3;
  add.u32 %r5, %r15, 100;
  st.shared.u32 [%r4], %r5;
  mov.u32 %r6, 0;
  st.shared.u32 [%r1+64], %r6;
  st.shared.u32 [%r1+64], %r15;
  bar.sync 0;
  ld.shared.u32 %r7, [%r1];
  ld.shared.u32 %r8, [%r1+4];
  ld.shared.u32 %r9, [%r1+64];
  st.global.u32 [%rd14], %r7;
  st.global.u32 [%rd14+8], %r8;
  st.global.u32 [%rd14+16], %r9;)",
                       32, kShared);
  SNIPPET_OK(r);
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(r.u32(0, t), 115u) << t;
    EXPECT_EQ(r.u32(1, t), 131u) << t;
    EXPECT_EQ(r.u32(2, t), 31u) << t;
  }
}

// A run that leaves shared memory at its last lanes still faults, naming
// the first lane outside (the per-lane path reports it).
TEST_P(AffineAccess, RunPastTheEndFaultsAtItsLane) {
  auto r = run_snippet(R"(
  mov.u32 %r1, sh;
  shl.b32 %r2, %r15, 7;
  add.s32 %r3, %r1, %r2;
  ld.shared.u32 %r4, [%r3];
  st.global.u32 [%rd14], %r4;)",
                       32, kShared);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("offset 2048 is outside the block's 2048 bytes"), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("thread (16,0,0)"), std::string::npos) << r.error;
}

TEST_P(AffineAccess, MisalignedStrideFaults) {
  auto r = run_snippet(R"(
  mov.u32 %r1, sh;
  shl.b32 %r2, %r15, 1;
  add.s32 %r3, %r1, %r2;
  ld.shared.u32 %r4, [%r3];
  st.global.u32 [%rd14], %r4;)",
                       32, kShared);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("misaligned"), std::string::npos) << r.error;
}

INSTANTIATE_TEST_SUITE_P(Isa, AffineAccess, ::testing::Values("portable", "auto"));

}  // namespace
}  // namespace smemlab::emu::test
