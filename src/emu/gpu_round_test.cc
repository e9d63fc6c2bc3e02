// The `gpu` schedule's own round loop (gpu_round.h) against the general
// loop (run_round_isa), which SMEMLAB_TIER=interp keeps: the same memory,
// warp and lane counts, %clock values, faults and budget stops on a block
// whose result is the order of its turns. Three warps, the last one of 16
// lanes, run 5, 8 and 11 iterations of: lane 0 of each warp updates one
// shared word (acc = acc * 31 + warp + 1: the order of the warps' turns),
// then every lane adds its thread index to a global word other warps'
// lanes also update (a load, an add and a store: the interleaving decides
// the sum) and reads %clock (the block's steps so far: where each turn
// ended). Then warp 2 exits while warps 0 and 1 wait at `bar.sync 1` for
// every live thread: the exit releases them (an exit completes barriers;
// an arrival completes only its own, release_if_complete), then a counted
// `bar.sync 2, 64` and a `bar.red.popc`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "emu/launch.h"

namespace smemlab::emu {
namespace {

const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 bad)
{
  .reg .pred %p<8>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;
  .shared .align 4 .b32 acc;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r20, [bad];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  setp.eq.u32 %p5, %r1, 0;
  mov.u32 %r4, 0;
  @%p5 st.shared.u32 [acc], %r4;
  bar.sync 0;
  mov.u32 %r9, 0;
  mov.u32 %r10, 0;
  mad.lo.u32 %r8, %r2, 3, 5;
  add.u32 %r21, %r2, 1;
  setp.eq.u32 %p6, %r20, %r21;
LOOP:
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra SKIP;
  ld.shared.u32 %r11, [acc];
  mul.lo.u32 %r11, %r11, 31;
  add.u32 %r11, %r11, %r21;
  st.shared.u32 [acc], %r11;
SKIP:
  add.u32 %r12, %r1, %r9;
  rem.u32 %r12, %r12, 40;
  shl.b32 %r12, %r12, 2;
  cvt.u64.u32 %rd3, %r12;
  add.s64 %rd4, %rd1, %rd3;
  setp.eq.and.u32 %p7, %r9, 2, %p6;
  @%p7 add.s64 %rd4, %rd4, 1099511627776;
  ld.global.u32 %r13, [%rd4];
  add.u32 %r13, %r13, %r1;
  st.global.u32 [%rd4], %r13;
  mov.u32 %r14, %clock;
  mad.lo.u32 %r10, %r10, 7, %r14;
  add.u32 %r9, %r9, 1;
  setp.lt.u32 %p2, %r9, %r8;
  @%p2 bra LOOP;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6+160], %r10;
  setp.eq.u32 %p3, %r2, 2;
  @%p3 bra DONE;
  bar.sync 1;
  bar.sync 2, 64;
  and.b32 %r15, %r1, 5;
  setp.ne.u32 %p4, %r15, 0;
  bar.red.popc.u32 %r16, 3, %p4;
  @!%p5 bra DONE;
  ld.shared.u32 %r17, [acc];
  st.global.u32 [%rd1+480], %r17;
  st.global.u32 [%rd1+484], %r16;
DONE:
  ret;
}
)";

constexpr uint32_t kThreads = 80, kWords = 40 + kThreads + 2;

struct Outcome {
  std::vector<uint32_t> mem;
  uint64_t warp_instructions = 0, lane_instructions = 0;
  std::string error;
};

// One block under SMEMLAB_TIER=tier (SMEMLAB_QUIET_EPOCHS=quiet), one host
// thread; `bad` = w + 1: warp w's load in its third iteration is out of
// bounds.
Outcome run(const char* tier, const char* quiet, uint32_t bad, uint64_t budget,
            Schedule::Kind schedule = Schedule::Kind::Gpu) {
  setenv("SMEMLAB_TIER", tier, 1);
  setenv("SMEMLAB_QUIET_EPOCHS", quiet, 1);
  Device dev;
  auto m = Module::load_text(dev, kPtx, "gpu_round.ptx");
  const uint64_t out = dev.malloc(kWords * 4);
  std::vector<uint32_t> zeros(kWords, 0);
  dev.copy_to(out, zeros.data(), kWords * 4);
  LaunchConfig cfg{{1}, {kThreads}};
  cfg.budget = budget;
  cfg.threads = 1;
  cfg.schedule = Schedule{schedule, 1};
  auto st = launch(*m, "k", cfg, out, bad);
  unsetenv("SMEMLAB_TIER");
  unsetenv("SMEMLAB_QUIET_EPOCHS");
  Outcome o;
  o.mem.resize(kWords);
  dev.copy_from(o.mem.data(), out, kWords * 4);
  o.warp_instructions = st.warp_instructions;
  o.lane_instructions = st.lane_instructions;
  if (st.error) o.error = st.error->what();
  return o;
}

void expect_same(const Outcome& a, const Outcome& b, const std::string& what) {
  EXPECT_EQ(a.error, b.error) << what;
  EXPECT_EQ(a.mem, b.mem) << what;
  EXPECT_EQ(a.warp_instructions, b.warp_instructions) << what;
  EXPECT_EQ(a.lane_instructions, b.lane_instructions) << what;
}

TEST(GpuRound, SameMemoryCountsAndClocksAsTheGeneralLoop) {
  const Outcome a = run("interp", "0", 0, 100'000'000);
  ASSERT_EQ(a.error, "");
  // (The result is the turns' order: `serial` gives other sums.)
  EXPECT_NE(a.mem, run("interp", "0", 0, 100'000'000, Schedule::Kind::Serial).mem);
  // Lanes with tid & 5 nonzero among the 64 threads of warps 0 and 1.
  EXPECT_EQ(a.mem[40 + kThreads + 1], 48u);
  expect_same(a, run("jit", "0", 0, 100'000'000), "jit, no quiet epochs");
  // With quiet epochs: warp 2 runs alone (the others wait at `bar.sync 1`)
  // and its exit releases them; its last old turn (setp, bra, ret: 3
  // steps) must count (the rest of the releasing round, run_round_from,
  // begins at an exited warp).
  expect_same(a, run("jit", "1", 0, 100'000'000), "jit");
}

TEST(GpuRound, FaultsAndBudgetStopsAreTheGeneralLoops) {
  for (uint32_t bad : {1u, 2u, 3u}) {
    const Outcome a = run("interp", "0", bad, 100'000'000);
    EXPECT_NE(a.error, "") << bad;
    expect_same(a, run("jit", "0", bad, 100'000'000), "fault " + std::to_string(bad));
  }
  // Budgets that stop the block in its first, middle and last turns.
  for (uint64_t budget : {20u, 150u, 333u, 500u}) {
    const Outcome a = run("interp", "0", 0, budget);
    EXPECT_NE(a.error, "") << budget;
    expect_same(a, run("jit", "0", 0, budget), "budget " + std::to_string(budget));
  }
}

// A barrier whose lanes arrive at two different bar.sync ops (each half of
// each warp at its own): released, the warp's lanes stand at two pcs and
// must stay divergent (release_lanes makes a warp uniform again only when
// all its lanes stand at one pc).
const char* kSplitPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry split(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  setp.lt.u32 %p1, %r2, 16;
  @%p1 bra LOW;
  bar.sync 0;
  mov.u32 %r3, 200;
  bra.uni DONE;
LOW:
  bar.sync 0;
  mov.u32 %r3, 100;
DONE:
  add.u32 %r3, %r3, %r1;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";

TEST(GpuRound, LanesReleasedAtTwoPcsStayApart) {
  for (const char* tier : {"interp", "jit"}) {
    setenv("SMEMLAB_TIER", tier, 1);
    Device dev;
    auto m = Module::load_text(dev, kSplitPtx, "split.ptx");
    const uint64_t out = dev.malloc(64 * 4);
    LaunchConfig cfg{{1}, {64}};
    cfg.threads = 1;
    auto st = launch(*m, "split", cfg, out);
    unsetenv("SMEMLAB_TIER");
    ASSERT_FALSE(st.error) << tier << ": " << st.error->what();
    std::vector<uint32_t> mem(64);
    dev.copy_from(mem.data(), out, 64 * 4);
    for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(mem[t], ((t & 31) < 16 ? 100u : 200u) + t) << tier;
  }
}

}  // namespace
}  // namespace smemlab::emu
