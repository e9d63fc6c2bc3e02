#include "check/finding_kinds.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace smemlab::check {
namespace {

TEST(FindingKinds, EveryRowIsItsOwnKindAndNamesItOnce) {
  std::set<std::string_view> names;
  size_t i = 0;
  for (const FindingKindInfo& k : finding_kinds()) {
    EXPECT_EQ(static_cast<size_t>(k.kind), i++) << k.name;  // info(kind) indexes the table
    EXPECT_EQ(&info(k.kind), &k);
    EXPECT_TRUE(names.insert(k.name).second) << "declared twice: " << k.name;
    EXPECT_FALSE(k.description.empty()) << k.name;
    ASSERT_TRUE(finding_kind(k.name).has_value()) << k.name;
    EXPECT_EQ(*finding_kind(k.name), k.kind);
  }
  EXPECT_EQ(name(FindingKind::WarpRace), "warp-race");
  EXPECT_EQ(name(FindingKind::ScheduleDependent), "schedule-dependent");
  EXPECT_FALSE(finding_kind("deadlock").has_value());  // a fault kind, not a finding's
  EXPECT_FALSE(finding_kind("").has_value());
}

}  // namespace
}  // namespace smemlab::check
