// Quiet epochs (quiet_epochs.h) against the old turns of the `gpu`
// schedule: SMEMLAB_TIER=interp keeps the old turns, jit takes quiet rounds
// where it may. A block with a read-only epoch (shared and global loads, a
// different count per warp, so the warps arrive at the barrier in other
// turns than a quiet round runs them) followed by a racy epoch (a
// read-modify-write of one shared word by a lane of each warp, whose result
// is the order of the turns): the same memory, counts and faults under both,
// where the second epoch sees the first's release at the old turn and warp
// (it fails with the rest of the round after the release taken in the quiet
// order), and faults of two warps in different turns report the one the
// old turns meet first, with its counts.
#include "emu/quiet_epochs.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "emu/launch.h"
#include "emu/program.h"

namespace smemlab::emu {
namespace {

const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 bad)
{
  .reg .pred %p<8>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;
  .shared .align 4 .b32 tile[96];
  .shared .align 4 .b32 acc;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r20, [bad];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  mov.u32 %r3, tile;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  mad.lo.u32 %r6, %r1, 3, 1;
  st.shared.u32 [%r5], %r6;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r7, 0;
  @%p1 st.shared.u32 [acc], %r7;
  bar.sync 0;
QUIET:
  setp.eq.u32 %p2, %r2, 1;
  add.u32 %r8, %r2, 4;
  selp.u32 %r8, 12, %r8, %p2;
  mov.u32 %r9, 0;
  mov.u32 %r10, 0;
  mov.u32 %r21, 3;
  sub.u32 %r14, %r21, %r2;
  shr.u32 %r13, %r20, %r2;
  and.b32 %r13, %r13, 1;
LOOP:
  add.u32 %r11, %r1, %r9;
  rem.u32 %r11, %r11, 96;
  shl.b32 %r11, %r11, 2;
  add.u32 %r12, %r3, %r11;
  setp.eq.u32 %p3, %r9, %r14;
  setp.ne.and.u32 %p3, %r13, 0, %p3;
  @%p3 add.u32 %r12, %r12, 1048576;
  ld.shared.u32 %r15, [%r12];
  add.u32 %r10, %r10, %r15;
  cvt.u64.u32 %rd3, %r11;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r16, [%rd4];
  xor.b32 %r10, %r10, %r16;
  add.u32 %r9, %r9, 1;
  setp.lt.u32 %p4, %r9, %r8;
  @%p4 bra LOOP;
  bar.sync 0;
RACY:
  and.b32 %r17, %r1, 31;
  setp.eq.u32 %p5, %r17, 0;
  @!%p5 bra AFTER;
  mov.u32 %r22, acc;
  and.b32 %r23, %r20, 8;
  setp.ne.u32 %p6, %r23, 0;
  @%p6 add.u32 %r22, %r22, 1048576;
  ld.shared.u32 %r18, [%r22];
  mul.lo.u32 %r18, %r18, 31;
  add.u32 %r18, %r18, %r2;
  add.u32 %r18, %r18, 1;
  st.shared.u32 [acc], %r18;
AFTER:
  bar.sync 0;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r10;
  @!%p1 bra DONE;
  ld.shared.u32 %r19, [acc];
  st.global.u32 [%rd1+384], %r19;
DONE:
  ret;
}
)";

constexpr uint32_t kThreads = 96;

struct Outcome {
  std::vector<uint32_t> mem;
  uint64_t warp_instructions = 0, lane_instructions = 0, quiet_rounds = 0;
  std::string error;
};

// One block of kThreads runs kernel `name` of `ptx` (module `file`) under SMEMLAB_TIER=tier
// on one host thread, with an output buffer of `out_words` words as its
// first parameter and then the values `args(dev)` returns (a tuple).
template <typename Args>
Outcome run_block(const char* tier, const char* ptx, const char* file, const char* name,
                  uint32_t out_words, uint64_t budget, Args args) {
  setenv("SMEMLAB_TIER", tier, 1);
  Device dev;
  auto m = Module::load_text(dev, ptx, file);
  uint64_t out = dev.malloc(out_words * 4);
  const auto rest = args(dev);
  LaunchConfig cfg{{1}, {kThreads}};
  cfg.budget = budget;
  cfg.threads = 1;
  const uint64_t before = quiet_rounds_run();
  auto st = std::apply([&](auto... a) { return launch(*m, name, cfg, out, a...); }, rest);
  unsetenv("SMEMLAB_TIER");
  Outcome o;
  o.quiet_rounds = quiet_rounds_run() - before;
  o.mem.resize(out_words);
  dev.copy_from(o.mem.data(), out, out_words * 4);
  o.warp_instructions = st.warp_instructions;
  o.lane_instructions = st.lane_instructions;
  if (st.error) o.error = st.error->what();
  return o;
}

Outcome run_with(const char* tier, uint32_t bad, uint64_t budget) {
  return run_block(tier, kPtx, "quiet.ptx", "k", kThreads + 1, budget, [&](Device& dev) {
    const uint64_t in = dev.malloc(kThreads * 4);
    std::vector<uint32_t> input(kThreads);
    for (uint32_t i = 0; i < kThreads; ++i) input[i] = i * 2654435761u;
    dev.copy_to(in, input.data(), kThreads * 4);
    return std::tuple{in, bad};
  });
}

// The pcs of the ops from label `from` up to the op before label `to`.
std::vector<size_t> between(const Program& p, const char* from, const char* to) {
  auto line_of = [](const char* label) {
    const char* at = std::strstr(kPtx, label);
    int line = 1;
    for (const char* c = kPtx; c < at; ++c) line += *c == '\n';
    return line;
  };
  const int a = line_of(from), z = line_of(to);
  std::vector<size_t> pcs;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const int l = p.info[p.ops[i].info].ptx_line;
    if (l > a && l < z) pcs.push_back(i);
  }
  return pcs;
}

TEST(QuietEpochs, PlanMarksOnlyTheReadOnlyEpoch) {
  Device dev;
  auto m = Module::load_text(dev, kPtx, "quiet.ptx");
  const Program& p = m->kernel("k");
  ASSERT_EQ(p.quiet.size(), p.ops.size());
  const std::vector<size_t> quiet = between(p, "QUIET:", "RACY:");
  ASSERT_GT(quiet.size(), 20u);
  for (size_t pc : quiet) EXPECT_NE(p.quiet[pc], 0) << pc;
  // Before the first barrier (shared stores), the racy epoch, and the last
  // (global stores): noisy, up to their ends.
  for (size_t pc : between(p, "RACY:", "AFTER:")) EXPECT_EQ(p.quiet[pc], 0) << pc;
  // (The barrier that opens the last epoch ends its own: a lane there is
  // quiet.)
  for (size_t pc : between(p, "AFTER:", "DONE:"))
    EXPECT_EQ(p.quiet[pc] != 0, p.ops[pc].code / 16 == BAR) << pc;
  EXPECT_EQ(p.quiet[0], 0);
}

TEST(QuietEpochs, SameMemoryAndCountsAsTheOldTurns) {
  const Outcome a = run_with("interp", 0, 100'000'000), b = run_with("jit", 0, 100'000'000);
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.quiet_rounds, 0u);
  EXPECT_GT(b.quiet_rounds, 0u);  // (else this test compares nothing new)
  EXPECT_EQ(a.mem, b.mem);
  EXPECT_EQ(a.warp_instructions, b.warp_instructions);
  EXPECT_EQ(a.lane_instructions, b.lane_instructions);
  // The racy epoch's word depends on the turns' order after the release:
  // warp 1 arrives last (12 iterations), goes on first, then warp 2, then 0
  // (each reads 0 before any stores): 0 * 31 + 0 + 1.
  EXPECT_EQ(a.mem[kThreads], 1u);
}

TEST(QuietEpochs, FaultsAreThoseTheOldTurnsMeetFirst) {
  // Bit w: warp w reads out of bounds in iteration 3 - w (its old turn
  // about 6 - 2w of the epoch; warp 0 runs first in a quiet round).
  for (uint32_t bad : {1u, 2u, 3u, 4u, 5u, 6u, 7u}) {
    const Outcome a = run_with("interp", bad, 100'000'000), b = run_with("jit", bad, 100'000'000);
    EXPECT_NE(a.error, "") << bad;
    EXPECT_EQ(a.error, b.error) << bad;
    EXPECT_EQ(a.warp_instructions, b.warp_instructions) << bad;
    EXPECT_EQ(a.lane_instructions, b.lane_instructions) << bad;
  }
}

TEST(QuietEpochs, FaultRightAfterTheReleaseIsTheOldTurns) {
  // Bit 3: the racy epoch's load is out of bounds, so the first warp to go
  // on after the quiet epoch's release faults in the rest of the releasing
  // round: the lanes of that round's part taken in quiet turns must not be
  // counted (the old loop counts a round's lanes at its end).
  for (uint32_t bad : {8u, 9u, 10u}) {
    const Outcome a = run_with("interp", bad, 100'000'000), b = run_with("jit", bad, 100'000'000);
    EXPECT_NE(a.error, "") << bad;
    EXPECT_EQ(a.error, b.error) << bad;
    EXPECT_EQ(a.warp_instructions, b.warp_instructions) << bad;
    EXPECT_EQ(a.lane_instructions, b.lane_instructions) << bad;
  }
}

TEST(QuietEpochs, BudgetFaultIsTheOldTurns) {
  for (uint64_t budget : {60u, 150u, 300u}) {
    const Outcome a = run_with("interp", 0, budget), b = run_with("jit", 0, budget);
    EXPECT_NE(a.error, "") << budget;
    EXPECT_EQ(a.error, b.error) << budget;
    EXPECT_EQ(a.warp_instructions, b.warp_instructions) << budget;
  }
}

// Loads inside a quiet turn's runs (tier.h, plan_quiet_runs): 8 shared
// loads and a parameter load (which ends no old turn) among arithmetic in
// one straight run per iteration, 40-54 iterations per warp (320+ loads:
// the quiet turn's 256 old turns end inside a run), a warp that spins 6,000
// steps without a load in one iteration (old turns that end by the step
// slice inside a run), and a load out of bounds in the middle of a run of
// warp (bad & 3) - 1 in iteration bad >> 2.
const char* kRunsPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k2(.param .u64 out, .param .u32 bad, .param .u32 spin)
{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 t2[128];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r20, [bad];
  ld.param.u32 %r21, [spin];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  mov.u32 %r3, t2;
  shl.b32 %r4, %r1, 2;
  add.u32 %r5, %r3, %r4;
  mul.lo.u32 %r6, %r1, -1640531535;
  st.shared.u32 [%r5], %r6;
  bar.sync 0;
  mad.lo.u32 %r8, %r2, 7, 40;
  mov.u32 %r9, 0;
  mov.u32 %r10, 0;
  and.b32 %r11, %r1, 31;
  shl.b32 %r11, %r11, 2;
  add.u32 %r11, %r3, %r11;
  and.b32 %r22, %r20, 3;
  sub.u32 %r22, %r22, 1;
  shr.u32 %r23, %r20, 2;
L2:
  setp.eq.u32 %p1, %r2, %r22;
  setp.eq.and.u32 %p1, %r9, %r23, %p1;
  add.u32 %r30, %r11, 20;
  @%p1 add.u32 %r30, %r30, 1048576;
  ld.shared.u32 %r31, [%r11];
  add.u32 %r10, %r10, %r31;
  ld.shared.u32 %r31, [%r11+4];
  xor.b32 %r10, %r10, %r31;
  ld.param.u32 %r33, [spin];
  add.u32 %r10, %r10, %r33;
  ld.shared.u32 %r31, [%r11+8];
  mul.lo.u32 %r10, %r10, 33;
  add.u32 %r10, %r10, %r31;
  ld.shared.u32 %r31, [%r11+12];
  xor.b32 %r10, %r10, %r31;
  ld.shared.u32 %r31, [%r11+16];
  add.u32 %r10, %r10, %r31;
  ld.shared.u32 %r31, [%r30];
  xor.b32 %r10, %r10, %r31;
  ld.shared.u32 %r31, [%r11+24];
  mul.lo.u32 %r10, %r10, 5;
  add.u32 %r10, %r10, %r31;
  ld.shared.u32 %r31, [%r11+28];
  xor.b32 %r10, %r10, %r31;
  setp.eq.u32 %p2, %r2, %r21;
  setp.eq.and.u32 %p2, %r9, 3, %p2;
  @!%p2 bra NOSPIN;
  mov.u32 %r32, 0;
SPIN:
  mul.lo.u32 %r10, %r10, 3;
  add.u32 %r10, %r10, %r32;
  xor.b32 %r10, %r10, 17;
  add.u32 %r32, %r32, 1;
  setp.lt.u32 %p3, %r32, 1000;
  @%p3 bra SPIN;
NOSPIN:
  add.u32 %r9, %r9, 1;
  setp.lt.u32 %p4, %r9, %r8;
  @%p4 bra L2;
  bar.sync 0;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r10;
  ret;
}
)";

Outcome run_runs(const char* tier, uint32_t bad, uint32_t spin, uint64_t budget) {
  return run_block(tier, kRunsPtx, "runs.ptx", "k2", kThreads, budget, [&](Device&) {
    return std::tuple{bad, spin};
  });
}

TEST(QuietEpochs, QuietRunsTakeTheLoads) {
  Device dev;
  auto m = Module::load_text(dev, kRunsPtx, "runs.ptx");
  const Program& p = m->kernel("k2");
  ASSERT_EQ(p.quiet.size(), p.ops.size());
  // From L2's first op the quiet run reaches the iteration's first branch:
  // 4 + 8 loads + 1 parameter load + 11 arithmetic + 2 setp (no load is in
  // the ordinary runs).
  size_t l2 = 0;
  while (p.ops[l2].code / 16 != LD || static_cast<MSpace>(p.ops[l2].aux) != MSpace::Shared) ++l2;
  l2 -= 4;
  EXPECT_EQ(p.quiet[l2], 1u + 4u + 9u + 11u + 2u);
  EXPECT_EQ(p.fused[l2], 4u);
}

TEST(QuietEpochs, LoadsInRunsGiveTheOldTurnsResults) {
  for (uint32_t spin : {0u, 1u, 2u, 9u}) {
    const Outcome a = run_runs("interp", 0, spin, 100'000'000),
                  b = run_runs("jit", 0, spin, 100'000'000);
    EXPECT_EQ(a.error, "") << spin;
    EXPECT_GT(b.quiet_rounds, 0u) << spin;
    EXPECT_EQ(a.mem, b.mem) << spin;
    EXPECT_EQ(a.warp_instructions, b.warp_instructions) << spin;
    EXPECT_EQ(a.lane_instructions, b.lane_instructions) << spin;
  }
}

TEST(QuietEpochs, FaultsInsideRunsAreTheOldTurns) {
  // Warps 0-2 out of bounds in iterations 0-39 (their old turns 6-7 per
  // iteration, past the quiet turn's 256 from iteration 32), alone or
  // after another warp's spin.
  for (uint32_t spin : {9u, 0u, 2u})
    for (uint32_t warp : {1u, 2u, 3u})
      for (uint32_t iter : {0u, 3u, 4u, 31u, 32u, 39u}) {
        const uint32_t bad = iter << 2 | warp;
        const Outcome a = run_runs("interp", bad, spin, 100'000'000),
                      b = run_runs("jit", bad, spin, 100'000'000);
        EXPECT_NE(a.error, "") << bad << " " << spin;
        EXPECT_EQ(a.error, b.error) << bad << " " << spin;
        EXPECT_EQ(a.warp_instructions, b.warp_instructions) << bad << " " << spin;
        EXPECT_EQ(a.lane_instructions, b.lane_instructions) << bad << " " << spin;
      }
}

// A lone warp (quiet_epochs.h): after a barrier, warps below `nrun` run
// 100 iterations of a shared load, a shared store to another lane's word and
// a global store (300 old turns: two quiet rounds), the others wait at the
// next barrier. With nrun 1 the warp is alone and keeps its turns whatever
// it stores; with nrun 2 the two warps race on shared and global words (the
// result is the order of the turns), so the block is not quiet. Lane 5 of
// each running warp stores out of bounds in iteration bad - 1.
const char* kLonePtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k3(.param .u64 out, .param .u32 nrun, .param .u32 bad)
{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 t3[96];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r20, [nrun];
  ld.param.u32 %r21, [bad];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  mov.u32 %r4, t3;
  shl.b32 %r5, %r1, 2;
  add.u32 %r6, %r4, %r5;
  mad.lo.u32 %r7, %r1, 3, 1;
  st.shared.u32 [%r6], %r7;
  bar.sync 0;
  setp.ge.u32 %p1, %r2, %r20;
  @%p1 bra WAIT;
  mov.u32 %r8, 0;
  mov.u32 %r9, 0;
LONE:
  add.u32 %r10, %r3, %r8;
  rem.u32 %r10, %r10, 96;
  shl.b32 %r10, %r10, 2;
  add.u32 %r10, %r4, %r10;
  ld.shared.u32 %r11, [%r10];
  mad.lo.u32 %r9, %r9, 33, %r11;
  add.u32 %r9, %r9, %r2;
  mad.lo.u32 %r12, %r3, 7, %r8;
  rem.u32 %r12, %r12, 96;
  shl.b32 %r12, %r12, 2;
  add.u32 %r12, %r4, %r12;
  add.u32 %r13, %r8, 1;
  setp.eq.u32 %p2, %r13, %r21;
  setp.eq.and.u32 %p2, %r3, 5, %p2;
  @%p2 add.u32 %r12, %r12, 1048576;
  st.shared.u32 [%r12], %r9;
  rem.u32 %r14, %r8, 3;
  mad.lo.u32 %r14, %r14, 32, %r3;
  mul.wide.u32 %rd2, %r14, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
  add.u32 %r8, %r8, 1;
  setp.lt.u32 %p3, %r8, 100;
  @%p3 bra LONE;
WAIT:
  bar.sync 0;
  ld.shared.u32 %r15, [%r6];
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  st.global.u32 [%rd5+384], %r15;
  ret;
}
)";

Outcome run_lone(const char* tier, uint32_t nrun, uint32_t bad, uint64_t budget) {
  return run_block(tier, kLonePtx, "lone.ptx", "k3", 2 * kThreads, budget, [&](Device&) {
    return std::tuple{nrun, bad};
  });
}

TEST(QuietEpochs, LoneWarpKeepsItsTurnsWithStores) {
  const Outcome a = run_lone("interp", 1, 0, 100'000'000), b = run_lone("jit", 1, 0, 100'000'000);
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.quiet_rounds, 0u);
  EXPECT_GE(b.quiet_rounds, 2u);  // (300 old turns: the lone warp's)
  EXPECT_EQ(a.mem, b.mem);
  EXPECT_EQ(a.warp_instructions, b.warp_instructions);
  EXPECT_EQ(a.lane_instructions, b.lane_instructions);
}

TEST(QuietEpochs, TwoWarpsThatStoreAreNotQuiet) {
  // (With the lone rule taken for two warps, warp 0's 256 old turns run
  // before warp 1's: the shared and global words come out otherwise.)
  const Outcome a = run_lone("interp", 2, 0, 100'000'000), b = run_lone("jit", 2, 0, 100'000'000);
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(a.mem, b.mem);
  EXPECT_EQ(a.warp_instructions, b.warp_instructions);
  EXPECT_EQ(a.lane_instructions, b.lane_instructions);
}

TEST(QuietEpochs, LoneWarpFaultsAndBudgetAreTheOldTurns) {
  for (uint32_t nrun : {1u, 2u})
    for (uint32_t bad : {1u, 40u, 85u, 86u, 100u}) {
      const Outcome a = run_lone("interp", nrun, bad, 100'000'000),
                    b = run_lone("jit", nrun, bad, 100'000'000);
      EXPECT_NE(a.error, "") << nrun << " " << bad;
      EXPECT_EQ(a.error, b.error) << nrun << " " << bad;
      EXPECT_EQ(a.mem, b.mem) << nrun << " " << bad;
      EXPECT_EQ(a.warp_instructions, b.warp_instructions) << nrun << " " << bad;
      EXPECT_EQ(a.lane_instructions, b.lane_instructions) << nrun << " " << bad;
    }
  for (uint64_t budget : {500u, 1500u, 2400u}) {  // (of 2,462)
    const Outcome a = run_lone("interp", 1, 0, budget), b = run_lone("jit", 1, 0, budget);
    EXPECT_NE(a.error, "") << budget;
    EXPECT_EQ(a.error, b.error) << budget;
    EXPECT_EQ(a.warp_instructions, b.warp_instructions) << budget;
  }
}

// Message passing between blocks through a lone warp's stores: block 0's
// warp 0 (its other warps at the barrier) writes data[lane] = i, then the
// flag = i, for i = 1..300; block 1's warp 0 (alone too) reads the flag,
// then the data, 1,000 times, counting data older than the flag (the GPU,
// with the fence, never shows one), then waits for the last message. Two
// host threads, so the blocks run at once.
const char* kMessagePtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k4(.param .u64 data, .param .u64 flag, .param .u64 seen)
{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [flag];
  ld.param.u64 %rd3, [seen];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  mov.u32 %r4, %ctaid.x;
  mul.wide.u32 %rd4, %r3, 4;
  add.s64 %rd5, %rd1, %rd4;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra WAIT;
  setp.ne.u32 %p2, %r4, 0;
  @%p2 bra CONSUMER;
  mov.u32 %r5, 1;
SEND:
  st.volatile.global.u32 [%rd5], %r5;
  membar.gl;
  setp.eq.u32 %p3, %r3, 0;
  @%p3 st.volatile.global.u32 [%rd2], %r5;
  add.u32 %r5, %r5, 1;
  setp.le.u32 %p4, %r5, 300;
  @%p4 bra SEND;
  bra.uni WAIT;
CONSUMER:
  mov.u32 %r6, 0;
  mov.u32 %r7, 0;
READ:
  ld.volatile.global.u32 %r8, [%rd2];
  membar.gl;
  ld.volatile.global.u32 %r9, [%rd5];
  setp.lt.u32 %p5, %r9, %r8;
  selp.u32 %r10, 1, 0, %p5;
  add.u32 %r7, %r7, %r10;
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p6, %r6, 1000;
  @%p6 bra READ;
POLL:
  ld.volatile.global.u32 %r8, [%rd2];
  setp.lt.u32 %p7, %r8, 300;
  @%p7 bra POLL;
  membar.gl;
  ld.volatile.global.u32 %r9, [%rd5];
  add.s64 %rd6, %rd3, %rd4;
  st.global.u32 [%rd6], %r9;
  st.global.u32 [%rd6+128], %r7;
WAIT:
  bar.sync 0;
  ret;
}
)";

TEST(QuietEpochs, LoneWarpsPassMessagesBetweenBlocks) {
  for (const char* tier : {"interp", "jit"}) {
    setenv("SMEMLAB_TIER", tier, 1);
    Device dev;
    auto m = Module::load_text(dev, kMessagePtx, "message.ptx");
    uint64_t data = dev.malloc(32 * 4), flag = dev.malloc(4), seen = dev.malloc(64 * 4);
    LaunchConfig cfg{{2}, {kThreads}};
    cfg.threads = 2;
    const uint64_t before = quiet_rounds_run();
    auto st = launch(*m, "k4", cfg, data, flag, seen);
    unsetenv("SMEMLAB_TIER");
    ASSERT_FALSE(st.error) << tier << ": " << st.error->what();
    if (std::string(tier) == "jit") {
      EXPECT_GT(quiet_rounds_run() - before, 0u);
    }
    std::vector<uint32_t> got(64);
    dev.copy_from(got.data(), seen, 64 * 4);
    for (uint32_t l = 0; l < 32; ++l) {
      EXPECT_EQ(got[l], 300u) << tier << " lane " << l;
      EXPECT_EQ(got[32 + l], 0u) << tier << " lane " << l << ": data older than the flag";
    }
  }
}

}  // namespace
}  // namespace smemlab::emu
