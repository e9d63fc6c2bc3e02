// Warp collectives and SIMT: shuffles with clamps and segments, votes,
// redux, match, activemask under divergence, collectives that wait for their
// member mask, and barriers.
#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

TEST(OpsWarp, ShuffleModes) {
  auto r = run_snippet(R"(
  shfl.sync.up.b32 %r1|%p1, %r15, 3, 0, -1;
  shfl.sync.down.b32 %r2|%p2, %r15, 3, 31, -1;
  shfl.sync.bfly.b32 %r3, %r15, 5, 31, -1;
  shfl.sync.idx.b32 %r4, %r15, 2, 0x181F, -1;
  selp.u32 %r5, 1, 0, %p1;
  selp.u32 %r6, 1, 0, %p2;
  st.global.u32 [%rd14], %r1;
  st.global.u32 [%rd14+8], %r2;
  st.global.u32 [%rd14+16], %r3;
  st.global.u32 [%rd14+24], %r4;
  st.global.u32 [%rd14+32], %r5;
  st.global.u32 [%rd14+40], %r6;)",
                       32);
  SNIPPET_OK(r);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(r.u32(0, l), l >= 3 ? l - 3 : l);
    EXPECT_EQ(r.u32(1, l), l + 3 <= 31 ? l + 3 : l);
    EXPECT_EQ(r.u32(2, l), l ^ 5);
    EXPECT_EQ(r.u32(3, l), (l & 0x18) | 2);  // segments of 8 lanes: lane 2 of each
    EXPECT_EQ(r.u32(4, l), l >= 3 ? 1u : 0u);
    EXPECT_EQ(r.u32(5, l), l + 3 <= 31 ? 1u : 0u);
  }
}

TEST(OpsWarp, VotesReduxMatch) {
  auto r = run_snippet(R"(
  and.b32 %r1, %r15, 1;
  setp.eq.u32 %p1, %r1, 1;
  vote.sync.ballot.b32 %r2, %p1, -1;
  vote.sync.any.pred %p2, %p1, -1;
  vote.sync.all.pred %p3, %p1, -1;
  selp.u32 %r3, 1, 0, %p2;
  selp.u32 %r4, 1, 0, %p3;
  redux.sync.add.u32 %r5, %r15, -1;
  redux.sync.max.s32 %r6, %r15, 0xffff;
  shr.u32 %r7, %r15, 3;
  match.any.sync.b32 %r8, %r7, -1;
  st.global.u32 [%rd14], %r2;
  st.global.u32 [%rd14+8], %r3;
  st.global.u32 [%rd14+16], %r4;
  st.global.u32 [%rd14+24], %r5;
  st.global.u32 [%rd14+32], %r6;
  st.global.u32 [%rd14+40], %r8;)",
                       32);
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0, 0), 0xAAAAAAAAu);
  EXPECT_EQ(r.u32(1, 0), 1u);
  EXPECT_EQ(r.u32(2, 0), 0u);
  EXPECT_EQ(r.u32(3, 7), 496u);
  EXPECT_EQ(r.u32(4, 0), 15u);  // redux over lanes 0..15 (member mask 0xffff; lanes 16+ use it too)
  EXPECT_EQ(r.u32(5, 9), 0xFF00u);
}

TEST(OpsWarp, CollectivesOfAPartialMaskMatchAReference) {
  // Lanes l % 3 != 0 execute the collectives with that member mask
  // (0xB6DB6DB6): the warp-wide paths (one member mask, one instruction)
  // against the PTX definitions computed here lane by lane. Slot 7: a
  // redux whose lanes name two different masks (each half its own), which
  // must not take the one-mask path.
  auto r = run_snippet(R"(
  mul.lo.u32 %r1, %r15, -1640531535;
  shr.u32 %r2, %r1, 7;
  setp.lt.u32 %p8, %r15, 16;
  selp.b32 %r11, 0xFFFF, 0xFFFF0000, %p8;
  redux.sync.add.u32 %r12, %r1, %r11;
  st.global.u32 [%rd14+56], %r12;
  rem.u32 %r3, %r15, 3;
  setp.eq.u32 %p5, %r3, 0;
  @%p5 bra $L_done;
  and.b32 %r4, %r2, 1;
  setp.eq.u32 %p1, %r4, 1;
  vote.sync.ballot.b32 %r5, %p1, 0xB6DB6DB6;
  vote.sync.any.pred %p2, !%p1, 0xB6DB6DB6;
  vote.sync.all.pred %p3, %p1, 0xB6DB6DB6;
  vote.sync.uni.pred %p4, %p1, 0xB6DB6DB6;
  redux.sync.min.s32 %r6, %r1, 0xB6DB6DB6;
  redux.sync.xor.b32 %r7, %r1, 0xB6DB6DB6;
  redux.sync.max.u32 %r8, %r1, 0xB6DB6DB6;
  shfl.sync.idx.b32 %r9|%p6, %r1, %r2, 0x1f, 0xB6DB6DB6;
  shfl.sync.up.b32 %r10|%p7, %r1, 3, 0x1800, 0xB6DB6DB6;
  selp.u32 %r13, 1, 0, %p2;
  selp.u32 %r14, 2, 0, %p3;
  or.b32 %r13, %r13, %r14;
  selp.u32 %r14, 4, 0, %p4;
  or.b32 %r13, %r13, %r14;
  selp.u32 %r14, 8, 0, %p6;
  or.b32 %r13, %r13, %r14;
  selp.u32 %r14, 16, 0, %p7;
  or.b32 %r13, %r13, %r14;
  st.global.u32 [%rd14], %r5;
  st.global.u32 [%rd14+8], %r13;
  st.global.u32 [%rd14+16], %r6;
  st.global.u32 [%rd14+24], %r7;
  st.global.u32 [%rd14+32], %r8;
  st.global.u32 [%rd14+40], %r9;
  st.global.u32 [%rd14+48], %r10;
$L_done:
  ret;)",
                       32);
  SNIPPET_OK(r);
  auto hash = [](uint32_t l) { return l * 0x9E3779B1u; };
  const uint32_t members = 0xB6DB6DB6u;
  uint32_t ballot = 0, xr = 0, mx = 0;
  int32_t mn = INT32_MAX;
  bool any_not = false;
  for (uint32_t l = 0; l < 32; ++l) {
    if (!((members >> l) & 1u)) continue;
    ASSERT_NE(l % 3, 0u);
    ballot |= ((hash(l) >> 7) & 1u) << l;
    any_not = any_not || !((hash(l) >> 7) & 1u);
    xr ^= hash(l);
    mx = std::max(mx, hash(l));
    mn = std::min(mn, static_cast<int32_t>(hash(l)));
  }
  uint32_t half_sum[2] = {0, 0};
  for (uint32_t l = 0; l < 32; ++l) half_sum[l / 16] += hash(l);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(r.u32(7, l), half_sum[l / 16]) << l;
    if (l % 3 == 0) continue;
    EXPECT_EQ(r.u32(0, l), ballot) << l;
    bool up_ok = l % 8 >= 3;  // segments of 8 lanes (c = 0x1800)
    uint32_t preds = (any_not ? 1u : 0u) | (ballot == members ? 2u : 0u) |
                     (ballot == 0 || ballot == members ? 4u : 0u) | 8u | (up_ok ? 16u : 0u);
    EXPECT_EQ(r.u32(1, l), preds) << l;
    EXPECT_EQ(r.u32(2, l), static_cast<uint32_t>(mn)) << l;
    EXPECT_EQ(r.u32(3, l), xr) << l;
    EXPECT_EQ(r.u32(4, l), mx) << l;
    EXPECT_EQ(r.u32(5, l), hash((hash(l) >> 7) & 31)) << l;
    EXPECT_EQ(r.u32(6, l), hash(up_ok ? l - 3 : l)) << l;
  }
}

TEST(OpsWarp, DivergentLanesWaitForTheirMemberMask) {
  // Odd lanes reach the shuffle first (lowest PC runs first) and must wait
  // for the even lanes, which come back to the same shuffle later.
  auto r = run_snippet(R"(
  and.b32 %r1, %r15, 1;
  setp.eq.u32 %p1, %r1, 1;
  add.u32 %r2, %r15, 200;
  @%p1 bra $L_shfl;
  bra.uni $L_even;
$L_shfl:
  activemask.b32 %r9;
  shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
  bra.uni $L_done;
$L_even:
  add.u32 %r2, %r15, 100;
  bra.uni $L_shfl;
$L_done:
  st.global.u32 [%rd14], %r3;
  st.global.u32 [%rd14+8], %r9;)",
                       32);
  SNIPPET_OK(r);
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t partner = l ^ 1;
    EXPECT_EQ(r.u32(0, l), partner + ((partner & 1) ? 200u : 100u)) << l;
    EXPECT_EQ(r.u32(1, l), (l & 1) ? 0xAAAAAAAAu : 0x55555555u);
  }
}

TEST(OpsWarp, ShufflesInBothBranchesExchange) {
  // A full-mask shuffle in each branch of an if/else: the two instructions
  // execute together, each lane with its own operands.
  auto r = run_snippet(R"(
  and.b32 %r1, %r15, 1;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 bra $L_odd;
  add.u32 %r2, %r15, 100;
  shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
  vote.sync.ballot.b32 %r4, %p1, -1;
  bra.uni $L_done;
$L_odd:
  add.u32 %r5, %r15, 200;
  shfl.sync.bfly.b32 %r3, %r5, 1, 31, -1;
  vote.sync.ballot.b32 %r4, %p1, -1;
$L_done:
  st.global.u32 [%rd14], %r3;
  st.global.u32 [%rd14+8], %r4;)",
                       32);
  SNIPPET_OK(r);
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t partner = l ^ 1;
    EXPECT_EQ(r.u32(0, l), partner + ((partner & 1) ? 200u : 100u)) << l;
    EXPECT_EQ(r.u32(1, l), 0xAAAAAAAAu) << l;
  }
}

TEST(OpsWarp, VotesInBothBranchesTakeEachSidesPredicate) {
  // Full-mask ballot/any/all in each branch of an if/else (legal on sm_70+):
  // one joint vote whose bits come from both sides, each lane voting its own
  // side's predicate (even lanes: lane % 4 == 0, odd lanes: lane % 3 == 0).
  auto r = run_snippet(R"(
  and.b32 %r1, %r15, 1;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 bra $L_odd;
  rem.u32 %r2, %r15, 4;
  setp.eq.u32 %p2, %r2, 0;
  vote.sync.ballot.b32 %r4, %p2, -1;
  vote.sync.any.pred %p3, %p2, -1;
  vote.sync.all.pred %p4, %p2, -1;
  bra.uni $L_done;
$L_odd:
  rem.u32 %r2, %r15, 3;
  setp.eq.u32 %p2, %r2, 0;
  vote.sync.ballot.b32 %r4, %p2, -1;
  vote.sync.any.pred %p3, %p2, -1;
  vote.sync.all.pred %p4, %p2, -1;
$L_done:
  selp.u32 %r5, 1, 0, %p3;
  selp.u32 %r6, 1, 0, %p4;
  st.global.u32 [%rd14], %r4;
  st.global.u32 [%rd14+8], %r5;
  st.global.u32 [%rd14+16], %r6;)",
                       32);
  SNIPPET_OK(r);
  uint32_t want = 0;
  for (uint32_t l = 0; l < 32; ++l)
    want |= static_cast<uint32_t>(l % 2 ? l % 3 == 0 : l % 4 == 0) << l;
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(r.u32(0, l), want) << l;
    EXPECT_EQ(r.u32(1, l), 1u) << l;
    EXPECT_EQ(r.u32(2, l), 0u) << l;
  }
}

TEST(OpsWarp, DifferentCollectivesDeadlock) {
  // A shuffle in one branch and a vote in the other never meet.
  auto r = run_snippet(R"(
  and.b32 %r1, %r15, 1;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 bra $L_odd;
  shfl.sync.bfly.b32 %r3, %r15, 1, 31, -1;
  bra.uni $L_done;
$L_odd:
  vote.sync.ballot.b32 %r3, %p1, -1;
$L_done:)",
                       32);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("deadlock"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("lanes 0x55555555 wait at shfl.sync.bfly.b32"), std::string::npos)
      << r.error;
}

TEST(OpsWarp, SyncwarpInBothBranchesMatches) {
  // __syncwarp() in both branches of an if/else: different bar.warp.sync
  // instructions release each other; shared data written before is visible after.
  auto r = run_snippet(R"(
  .shared .align 4 .b8 buf[128];
  mov.u32 %r1, buf;
  shl.b32 %r2, %r15, 2;
  add.u32 %r3, %r1, %r2;
  and.b32 %r4, %r15, 1;
  setp.eq.u32 %p1, %r4, 1;
  @%p1 bra $L_odd;
  st.shared.u32 [%r3], 100;
  bar.warp.sync -1;
  bra.uni $L_done;
$L_odd:
  st.shared.u32 [%r3], 200;
  bar.warp.sync -1;
$L_done:
  xor.b32 %r5, %r15, 1;
  shl.b32 %r6, %r5, 2;
  add.u32 %r7, %r1, %r6;
  ld.shared.u32 %r8, [%r7];
  st.global.u32 [%rd14], %r8;)",
                       32);
  SNIPPET_OK(r);
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(r.u32(0, l), (l ^ 1) & 1 ? 200u : 100u) << l;
}

TEST(OpsWarp, ExitedLanesReleaseAWaitingShuffle) {
  // Lanes 0-15 wait at a full-mask shuffle; lanes 16-31 exit instead of
  // arriving. Exited lanes count as arrived, so the shuffle completes.
  auto r = run_snippet(R"(
  setp.lt.u32 %p1, %r15, 16;
  @%p1 bra $L_shfl;
  bra.uni $L_exit;
$L_shfl:
  shfl.sync.idx.b32 %r1, %r15, 3, 31, -1;
  st.global.u32 [%rd14], %r1;
  ret;
$L_exit:
  exit;)",
                       32);
  SNIPPET_OK(r);
  for (int l = 0; l < 16; ++l) EXPECT_EQ(r.u32(0, l), 3u);
}

TEST(OpsWarp, BarrierReductionAndCountedBarrier) {
  auto r = run_snippet(R"(
  setp.lt.u32 %p1, %r15, 10;
  bar.red.popc.u32 %r1, 0, %p1;
  bar.red.or.pred %p2, 1, %p1;
  selp.u32 %r2, 1, 0, %p2;
  st.global.u32 [%rd14], %r1;
  st.global.u32 [%rd14+8], %r2;)",
                       64);
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0, 63), 10u);
  EXPECT_EQ(r.u32(1, 40), 1u);
}

TEST(OpsWarp, EarlyExitDoesNotBlockBarrier) {
  auto r = run_snippet(R"(
  setp.ge.u32 %p1, %r15, 40;
  @%p1 bra $L_end;
  bar.sync 0;
  st.global.u32 [%rd14], 1;
$L_end:)",
                       64);
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0, 0), 1u);
}

}  // namespace
}  // namespace smemlab::emu::test
