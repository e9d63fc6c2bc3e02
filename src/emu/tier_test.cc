// The jit tier's plan (plan_fused_runs) against runs counted by hand, and a
// kernel with every shape a run meets (guards inside runs, out-of-line
// arithmetic in runs: cvt, sqrt, ex2, bfind, dp4a; runs of a divergent
// warp's lowest-PC lanes, one ending where lanes waiting further on join
// them (MID: the interpreter merges them there, so must the runs, or the
// warp-instruction counts differ), divergence and reconvergence, a clock
// read after a run, a run cut by the turn's slice, a block over its budget)
// giving the same memory, counts and faults under SMEMLAB_TIER=interp and
// jit, and under native (the runs as native code, native_tier.h); an unknown
// tier is a launch error naming it.
#include "emu/tier.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "emu/launch.h"
#include "emu/native_tier.h"
#include "emu/program.h"

namespace smemlab::emu {
namespace {

const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 iters)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [iters];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, 0;
  mov.u32 %r4, 7;
LOOP:
  xor.b32 %r4, %r4, %r2;
  shl.b32 %r5, %r4, 3;
  add.s32 %r4, %r4, %r5;
  and.b32 %r6, %r2, 1;
  setp.eq.u32 %p1, %r6, 0;
  @%p1 add.s32 %r4, %r4, 11;
  @!%p1 mul.lo.s32 %r4, %r4, 3;
  cvt.rn.f32.u32 %f1, %r4;
  sqrt.rn.f32 %f2, %f1;
  ex2.approx.f32 %f3, %f2;
  add.f32 %f1, %f1, %f3;
  bfind.u32 %r9, %r4;
  dp4a.u32.u32 %r10, %r4, %r2, %r9;
  xor.b32 %r4, %r4, %r10;
  setp.lt.u32 %p2, %r2, 12;
  @%p2 bra MID;
  xor.b32 %r11, %r4, 85;
  shl.b32 %r11, %r11, 2;
  add.s32 %r4, %r4, %r11;
MID:
  mul.lo.s32 %r12, %r4, 7;
  xor.b32 %r4, %r4, %r12;
  cvt.rn.f32.s32 %f2, %r4;
  add.f32 %f1, %f1, %f2;
  @%p2 bra ODD;
  add.s32 %r4, %r4, 5;
  shr.u32 %r13, %r4, 3;
  xor.b32 %r4, %r4, %r13;
  bra.uni JOIN;
ODD:
  sub.s32 %r4, %r4, 9;
  shl.b32 %r13, %r4, 5;
  add.s32 %r4, %r4, %r13;
  cvt.rzi.s32.f32 %r14, %f1;
  xor.b32 %r4, %r4, %r14;
JOIN:
  add.s32 %r3, %r3, 1;
  setp.lt.u32 %p3, %r3, %r1;
  @%p3 bra LOOP;
  mov.u32 %r7, %clock;
  cvt.rzi.u32.f32 %r8, %f1;
  add.s32 %r4, %r4, %r8;
  mul.wide.u32 %rd2, %r2, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  st.global.u32 [%rd3+4], %r7;
  ret;
}
)";

struct Outcome {
  std::vector<uint32_t> mem;
  uint64_t warp_instructions = 0, lane_instructions = 0;
  std::string error;
  bool native = false;  // the kernel's runs ran as native code
  std::string why;      // (why not)
};

Outcome run_with(const char* tier, uint32_t iters, uint64_t budget) {
  setenv("SMEMLAB_TIER", tier, 1);
  Device dev;
  auto m = Module::load_text(dev, kPtx, "tier.ptx");
  const uint32_t threads = 96;  // (three warps: turns interleave)
  uint64_t out = dev.malloc(threads * 8);
  LaunchConfig cfg{{2}, {threads}};
  cfg.budget = budget;
  cfg.threads = 1;
  auto st = launch(*m, "k", cfg, out, iters);
  unsetenv("SMEMLAB_TIER");
  Outcome o;
  o.mem.resize(threads * 2);
  dev.copy_from(o.mem.data(), out, threads * 8);
  o.warp_instructions = st.warp_instructions;
  o.lane_instructions = st.lane_instructions;
  if (st.error) o.error = st.error->what();
  o.native = native_loaded(m->kernel("k"), &o.why);
  return o;
}

TEST(Tier, PlanCountsRunsOfPerLaneArithmetic) {
  Device dev;
  auto m = Module::load_text(dev, kPtx, "tier.ptx");
  const Program& p = m->kernel("k");
  ASSERT_EQ(p.fused.size(), p.ops.size());
  // Each entry: the ops from here to the next op that is not per-lane
  // arithmetic (a load, store, branch, special register or clock; cvt,
  // sqrt, ex2, bfind and dp4a are).
  // Runs shorter than kMinFusedRun are 1 (left to the loop).
  int out_of_line = 0, next = 0;
  for (size_t i = p.ops.size(); i-- > 0;) {
    const uint32_t b = p.ops[i].code / 16;
    const bool alu = b != LD && b != ST && b != BRA && b != EXIT && b != SPECIAL;
    if (b == CVT || b == FSLOW || b == BFIND || b == DP4A) {
      EXPECT_GT(p.fused[i], 0) << i;
      ++out_of_line;
    }
    if (!alu) {
      EXPECT_EQ(p.fused[i], 0) << i;
      next = 0;
      continue;
    }
    ++next;
    EXPECT_EQ(p.fused[i], next >= static_cast<int>(kMinFusedRun) ? next : 1) << i;
  }
  size_t longest = 0;
  for (uint8_t l : p.fused) longest = std::max<size_t>(longest, l);
  EXPECT_GE(longest, 5u);  // xor, shl, add, and, setp, two guarded ops
  EXPECT_EQ(out_of_line, 8);
}

TEST(Tier, SameResultsCountsAndFaults) {
  const Outcome a = run_with("interp", 50, 1'000'000), b = run_with("jit", 50, 1'000'000);
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.mem, b.mem);
  EXPECT_EQ(a.warp_instructions, b.warp_instructions);
  EXPECT_EQ(a.lane_instructions, b.lane_instructions);
  EXPECT_GT(a.warp_instructions, 2u * 3 * 50 * 10);
  // Over the budget: the same fault (block, line, count) under both.
  const Outcome c = run_with("interp", 5000, 2000), d = run_with("jit", 5000, 2000);
  EXPECT_NE(c.error, "");
  EXPECT_EQ(c.error, d.error);
  EXPECT_EQ(c.warp_instructions, d.warp_instructions);
}

TEST(Tier, NativeRunsGiveTheSameResultsCountsAndFaults) {
  // (A cache of this test's own.)
  setenv("XDG_CACHE_HOME", (::testing::TempDir() + "smemlab-tier-native").c_str(), 1);
  const Outcome a = run_with("interp", 50, 1'000'000), b = run_with("native", 50, 1'000'000);
  ASSERT_TRUE(b.native) << "the native code did not load: " << b.why;
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.mem, b.mem);
  EXPECT_EQ(a.warp_instructions, b.warp_instructions);
  EXPECT_EQ(a.lane_instructions, b.lane_instructions);
  // Over the budget inside the runs: the same fault and counts.
  const Outcome c = run_with("interp", 5000, 2000), d = run_with("native", 5000, 2000);
  EXPECT_NE(c.error, "");
  EXPECT_EQ(c.error, d.error);
  EXPECT_EQ(c.warp_instructions, d.warp_instructions);
}

TEST(Tier, UnknownTierIsALaunchError) {
  const Outcome o = run_with("fast", 1, 1000);
  EXPECT_NE(o.error.find("SMEMLAB_TIER='fast' is no execution tier (interp, jit or native)"),
            std::string::npos)
      << o.error;
}

}  // namespace
}  // namespace smemlab::emu
