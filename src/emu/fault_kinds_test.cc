#include "emu/fault_kinds.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace smemlab::emu {
namespace {

TEST(FaultKinds, EveryRowIsItsOwnKindAndNamesItOnce) {
  std::set<std::string_view> names;
  size_t i = 0;
  for (const FaultKindInfo& k : fault_kinds()) {
    EXPECT_EQ(static_cast<size_t>(k.kind), i++) << k.name;  // info(kind) indexes the table
    EXPECT_EQ(&info(k.kind), &k);
    EXPECT_TRUE(names.insert(k.name).second) << "declared twice: " << k.name;
    EXPECT_FALSE(k.description.empty()) << k.name;
    ASSERT_TRUE(fault_kind(k.name).has_value()) << k.name;
    EXPECT_EQ(*fault_kind(k.name), k.kind);
  }
  EXPECT_EQ(name(FaultKind::OutOfBounds), "out-of-bounds");
  EXPECT_EQ(name(FaultKind::IllegalInstruction), "illegal-instruction");
  EXPECT_FALSE(fault_kind("race").has_value());  // a finding's kind, not a fault's
  EXPECT_FALSE(fault_kind("").has_value());
}

// Only launches refused before a block ran are the user's input errors (and
// leave the CUDA context usable); every fault of a running kernel is not.
TEST(FaultKinds, ExitClasses) {
  for (const FaultKindInfo& k : fault_kinds()) {
    const bool refused = k.kind == FaultKind::Launch || k.kind == FaultKind::Decode;
    EXPECT_EQ(refused_launch(k.kind), refused) << k.name;
    EXPECT_EQ(exit_class(k.kind) == FaultExit::Interrupted, k.kind == FaultKind::Interrupted)
        << k.name;
  }
}

}  // namespace
}  // namespace smemlab::emu
