// The emulator's mbarrier records and spin detector (mbar_watch.h): hangs in
// polling loops become deadlocks naming the barrier, announced bytes that
// never come (a wait that hangs) are tx-mismatch; bytes beyond the
// announced ones end no block and hold no phase back (as on the GPU);
// uses before init and inits of barriers in use are faults; correct loops
// (and a polling loop that gives up by itself) run to their end.
#include <gtest/gtest.h>

#include "emu/launch.h"

namespace smemlab::emu {
namespace {

struct Stop {
  bool ok = false;
  FaultKind kind = FaultKind::Internal;
  std::string message;
};

// Runs `body` in one block of `threads` with `.shared .b64 bar` declared
// (%r1 holds its address).
Stop run_bar(const std::string& body, int threads = 64) {
  const std::string text =
      ".version 9.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry t()\n{\n  .shared .align 8 .b64 bar;\n"
      "  .reg .pred %p<8>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<8>;\n"
      "  mov.u32 %r0, %tid.x;\n  mov.u32 %r1, bar;\n" +
      body + "\n  ret;\n}\n";
  Device dev;
  auto m = Module::load_text(dev, text, "mbar.ptx");
  LaunchConfig cfg{{1}, {static_cast<uint32_t>(threads)}, 0};
  cfg.budget = 2'000'000;
  auto st = launch(*m, "t", cfg);
  Stop s;
  s.ok = st.ok();
  if (!s.ok) {
    s.kind = st.error->kind;
    s.message = st.error->message;
  }
  return s;
}

const std::string kInit =
    "  setp.eq.u32 %p0, %r0, 0;\n"
    "  @%p0 mbarrier.init.shared::cta.b64 [%r1], 1;\n"
    "  bar.sync 0;\n";
const std::string kWait0 =
    "WAIT:\n  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;\n"
    "  @!%p1 bra WAIT;\n";

TEST(MbarWatch, PollingAPhaseNoOneCompletesIsADeadlock) {
  Stop s = run_bar(kInit + kWait0);  // nobody arrives
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.kind, FaultKind::MbarrierDeadlock);
  EXPECT_NE(s.message.find("warp 0 lanes 0xffffffff poll at mbarrier.try_wait.parity"),
            std::string::npos)
      << s.message;
  EXPECT_NE(s.message.find("warp 1 lanes 0xffffffff"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("`bar`"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("in phase 0 (parity 0), 0 of 1 arrivals made, 0 transaction bytes "
                           "pending"),
            std::string::npos)
      << s.message;
}

TEST(MbarWatch, ACompletedPhaseRunsToTheEnd) {
  Stop s = run_bar(kInit + "  @%p0 mbarrier.arrive.shared::cta.b64 _, [%r1];\n" + kWait0);
  EXPECT_TRUE(s.ok) << name(s.kind) << ": " << s.message;
}

TEST(MbarWatch, APollingLoopThatGivesUpIsNoDeadlock) {
  // 300 polls, then on: the counter changes the state every round.
  Stop s = run_bar(
      kInit +
      "  mov.u32 %r2, 0;\n"
      "POLL:\n  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;\n"
      "  add.u32 %r2, %r2, 1;\n  setp.lt.u32 %p2, %r2, 300;\n"
      "  @!%p1 bra.uni NEXT;\n  bra.uni DONE;\n"
      "NEXT:\n  @%p2 bra.uni POLL;\nDONE:\n  @%p0 mbarrier.arrive.shared::cta.b64 _, [%r1];\n");
  EXPECT_TRUE(s.ok) << name(s.kind) << ": " << s.message;
}

TEST(MbarWatch, AnnouncedBytesThatNeverComeAreATxMismatch) {
  Stop s =
      run_bar(kInit + "  @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 64;\n" + kWait0);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.kind, FaultKind::TxMismatch);
  EXPECT_NE(s.message.find("every arrival is made but 64 announced bytes never come"),
            std::string::npos)
      << s.message;
}

// Bytes beyond those announced (the second complete_tx: 16 more than the
// expect_tx) end no block, as on the GPU (run 15), and hold no phase back:
// phase 0 completes at the first complete_tx, the excess lands in phase 1,
// which completes at its arrival (the H200, run 16: tx_carry.cu's "late").
const std::string kExcess =
    "  @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 16;\n"
    "  @%p0 mbarrier.complete_tx.shared::cta.b64 [%r1], 16;\n"
    "  @%p0 mbarrier.complete_tx.shared::cta.b64 [%r1], 16;\n";

TEST(MbarWatch, BytesBeyondTheAnnouncedOnesHoldNoPhaseBackAndTheBlockRunsOn) {
  Stop s = run_bar(kInit + kExcess + kWait0 +
                   "  bar.sync 0;\n"
                   "  @%p0 mbarrier.arrive.shared::cta.b64 _, [%r1];\n"
                   "  bar.sync 0;\n"
                   "  mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r1], 1;\n"
                   "  @!%p2 trap;\n");
  EXPECT_TRUE(s.ok) << name(s.kind) << ": " << s.message;
}

TEST(MbarWatch, UseBeforeInitAndInitOfAValidBarrierAreFaults) {
  Stop s = run_bar(kWait0, 32);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.kind, FaultKind::Mbarrier);
  EXPECT_NE(s.message.find("which no mbarrier.init has initialized"), std::string::npos)
      << s.message;
  // An init while a phase is under way (one of two arrivals made).
  s = run_bar(
      "  setp.eq.u32 %p0, %r0, 0;\n"
      "  @%p0 mbarrier.init.shared::cta.b64 [%r1], 2;\n"
      "  @%p0 mbarrier.arrive.shared::cta.b64 _, [%r1];\n"
      "  @%p0 mbarrier.init.shared::cta.b64 [%r1], 2;\n",
      32);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.kind, FaultKind::Mbarrier);
  EXPECT_NE(s.message.find("while it is in use: it is in phase 0 (parity 0), 1 of 2 arrivals"),
            std::string::npos)
      << s.message;
  // An idle one (its phase complete, nothing under way) may be initialized again.
  s = run_bar(kInit + "  @%p0 mbarrier.arrive.shared::cta.b64 _, [%r1];\n" +
                  "  @%p0 mbarrier.init.shared::cta.b64 [%r1], 1;\n",
              32);
  EXPECT_TRUE(s.ok) << name(s.kind) << ": " << s.message;
  // After mbarrier.inval it may be initialized again.
  s = run_bar(kInit + "  @%p0 mbarrier.inval.shared::cta.b64 [%r1];\n" +
                  "  @%p0 mbarrier.init.shared::cta.b64 [%r1], 1;\n",
              32);
  EXPECT_TRUE(s.ok) << name(s.kind) << ": " << s.message;
}

}  // namespace
}  // namespace smemlab::emu
