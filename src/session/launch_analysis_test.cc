#include "session/launch_analysis.h"

#include <gtest/gtest.h>

namespace smemlab::session {
namespace {

emu::LaunchError error(const char* kind, emu::OpClass cls = emu::OpClass::Alu) {
  emu::LaunchError e;
  e.kind = kind;
  e.op_class = cls;
  return e;
}

// The emulator's stops become findings by one mapping: deadlocks by the
// class of the instruction the warps wait at, never by its text.
TEST(FindingKindOf, DeadlockAtACollectiveIsADivergentBarrier) {
  using K = check::FindingKind;
  EXPECT_EQ(finding_kind_of(error("deadlock", emu::OpClass::Collective)), K::DivergentBarrier);
  EXPECT_EQ(finding_kind_of(error("deadlock", emu::OpClass::Barrier)), K::BarrierDeadlock);
  EXPECT_EQ(finding_kind_of(error("deadlock", emu::OpClass::Async)), K::BarrierDeadlock);
  EXPECT_EQ(finding_kind_of(error("barrier")), K::DivergentBarrier);
  // A shfl's text with another class is not a collective (and the text is not read).
  emu::LaunchError e = error("deadlock", emu::OpClass::Barrier);
  e.instruction = "shfl.sync.bfly.b32";
  EXPECT_EQ(finding_kind_of(e), K::BarrierDeadlock);
}

TEST(FindingKindOf, EveryFaultKindOfTheEmulatorIsDeclared) {
  // The kinds src/emu raises (fault(), Fault{...}, LaunchError::kind).
  for (const char* k :
       {"out-of-bounds", "misaligned", "budget", "trap", "assert", "invalid-free", "printf",
        "mbarrier", "texture", "surface", "unsupported", "divergent", "launch", "decode",
        "interrupted", "internal", "tma", "illegal-instruction"}) {
    auto declared = check::finding_kind(k);
    ASSERT_TRUE(declared.has_value()) << k;
    EXPECT_EQ(finding_kind_of(error(k)), *declared) << k;
  }
  EXPECT_EQ(finding_kind_of(error("no-such-kind")), check::FindingKind::Internal);
}

TEST(FindingFrom, KeepsThePlaceAndTheKind) {
  emu::LaunchError e = error("deadlock", emu::OpClass::Collective);
  e.message = "warps wait";
  e.ptx_line = 12;
  e.instruction = "bar.warp.sync";
  check::Finding f = finding_from(e, {32, 1, 1});
  EXPECT_EQ(f.kind, check::FindingKind::DivergentBarrier);
  EXPECT_EQ(f.severity, check::Severity::Error);
  ASSERT_EQ(f.involved.size(), 1u);
  EXPECT_EQ(f.involved[0].ptx_line, 12);
  EXPECT_EQ(f.involved[0].role, "stopped");
}

}  // namespace
}  // namespace smemlab::session
