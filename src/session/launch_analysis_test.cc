#include "session/launch_analysis.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "report/report.h"

namespace smemlab::session {
namespace {

using emu::FaultKind;

emu::LaunchError error(FaultKind kind, emu::OpClass cls = emu::OpClass::Alu) {
  emu::LaunchError e;
  e.kind = kind;
  e.op_class = cls;
  return e;
}

// The emulator's stops become findings by one mapping: deadlocks by the
// class of the instruction the warps wait at, never by its text.
TEST(FindingKindOf, DeadlockAtACollectiveIsADivergentBarrier) {
  using K = check::FindingKind;
  EXPECT_EQ(finding_kind_of(error(FaultKind::Deadlock, emu::OpClass::Collective)),
            K::DivergentBarrier);
  EXPECT_EQ(finding_kind_of(error(FaultKind::Deadlock, emu::OpClass::Barrier)), K::BarrierDeadlock);
  EXPECT_EQ(finding_kind_of(error(FaultKind::Deadlock, emu::OpClass::Async)), K::BarrierDeadlock);
  EXPECT_EQ(finding_kind_of(error(FaultKind::Barrier)), K::DivergentBarrier);
  // A shfl's text with another class is not a collective (and the text is not read).
  emu::LaunchError e = error(FaultKind::Deadlock, emu::OpClass::Barrier);
  e.instruction = "shfl.sync.bfly.b32";
  EXPECT_EQ(finding_kind_of(e), K::BarrierDeadlock);
}

// Every row of emu/fault_kinds.def becomes a finding of its own name, but
// the two kinds of stuck barrier, which findings tell apart by what waits.
TEST(FindingKindOf, EveryFaultKindIsAFindingOfItsName) {
  for (const emu::FaultKindInfo& k : emu::fault_kinds()) {
    check::FindingKind f = finding_kind_of(k.kind);
    if (k.kind == FaultKind::Deadlock)
      EXPECT_EQ(f, check::FindingKind::BarrierDeadlock);
    else if (k.kind == FaultKind::Barrier)
      EXPECT_EQ(f, check::FindingKind::DivergentBarrier);
    else
      EXPECT_EQ(check::name(f), k.name);
  }
}

// A SARIF log declares a rule for every finding an emulator stop becomes
// (a result whose ruleId names no rule is what code-scanning UIs reject).
TEST(FindingKindOf, SarifDeclaresARuleForEveryFault) {
  std::vector<check::Finding> findings;
  for (const emu::FaultKindInfo& k : emu::fault_kinds())
    findings.push_back(finding_from(error(k.kind), {32, 1, 1}));
  nlohmann::json log = report::check_sarif(report::RunInfo{}, findings);
  std::set<std::string> rules;
  for (const auto& r : log["runs"][0]["tool"]["driver"]["rules"])
    if (!r.value("properties", nlohmann::json::object()).value("undeclared", false))
      rules.insert(r["id"].get<std::string>());
  ASSERT_EQ(log["runs"][0]["results"].size(), findings.size());
  for (const auto& r : log["runs"][0]["results"])
    EXPECT_TRUE(rules.count(r["ruleId"].get<std::string>())) << r["ruleId"];
}

TEST(FindingFrom, KeepsThePlaceAndTheKind) {
  emu::LaunchError e = error(FaultKind::Deadlock, emu::OpClass::Collective);
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
