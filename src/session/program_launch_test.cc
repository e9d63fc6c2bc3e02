#include "session/program_launch.h"

#include <gtest/gtest.h>

namespace smemlab::session {
namespace {

TEST(ProgramLaunches, RunModeAnalysesNothing) {
  ProgramLaunches l(ProgramPolicy{});
  EXPECT_FALSE(l.select("_Z1kv"));
}

TEST(ProgramLaunches, KernelNameThenSkipAndCount) {
  ProgramPolicy p;
  p.mode = ProgramMode::Check;
  p.kernel_regex = "^tile";
  p.launch_skip = 1;
  p.launch_count = 2;
  ProgramLaunches l(p);
  // Demangled or mangled names match; others are not counted.
  EXPECT_FALSE(l.select("_Z4tilev"));  // the first selected, skipped
  EXPECT_FALSE(l.select("_Z5otherv"));
  EXPECT_TRUE(l.select("_Z4tilev"));
  EXPECT_TRUE(l.select("_Z5tile2v"));
  EXPECT_FALSE(l.select("_Z4tilev"));  // past the count
  EXPECT_EQ(l.analyses(), Analyses::FindingsOnly);
}

TEST(ProgramLaunches, BadRegexSelectsNone) {
  ProgramPolicy p;
  p.mode = ProgramMode::Analyze;
  p.kernel_regex = "(";
  EXPECT_FALSE(ProgramLaunches(p).select("_Z1kv"));
  p.kernel_regex = "";
  EXPECT_EQ(ProgramLaunches(p).analyses(), Analyses::Counts);
  p.analyze_check = true;
  EXPECT_EQ(ProgramLaunches(p).analyses(), Analyses::All);
}

TEST(ProgramLaunches, BankWidthIsAValueForTheFirstModel) {
  // Against the models named with their width.
  EXPECT_EQ(parse_models("sm_35", BankWidth::EightBytes).front()->name(),
            bank::make_model("sm_35", 8)->name());
  EXPECT_EQ(parse_models("sm_35,sm_90", BankWidth::FourBytes).front()->name(),
            bank::make_model("sm_35", 4)->name());
  // A width given in --arch wins.
  EXPECT_EQ(parse_models("sm_35:4", BankWidth::EightBytes).front()->name(),
            bank::make_model("sm_35", 4)->name());
  EXPECT_EQ(parse_models("sm_90", BankWidth::Default).front()->name(), "sm_90");
  EXPECT_THROW(parse_models("sm_90", BankWidth::EightBytes), OptionError);
}

}  // namespace
}  // namespace smemlab::session
