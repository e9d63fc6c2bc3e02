#include "runtime/options.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "session/program_protocol.h"

namespace smemlab::runtime {
namespace {

namespace protocol = session::protocol;

// Sets the protocol's variables for one test and removes them after it.
struct Environment {
  std::vector<const char*> names;
  void set(const char* name, const char* value) {
    setenv(name, value, 1);
    names.push_back(name);
  }
  ~Environment() {
    for (const char* n : names) unsetenv(n);
  }
};

// What smemlab sets (cli/program_command.cc) is what the runtime reads: both
// spell the names through session/program_protocol.h.
TEST(Options, ReadsTheProtocolsEnvironment) {
  Environment env;
  env.set(protocol::kMode, "check");
  env.set(protocol::kArch, "sm_80,sm_35:8");
  env.set(protocol::kKernel, "tile.*");
  env.set(protocol::kLaunchSkip, "2");
  env.set(protocol::kLaunchCount, "5");
  env.set(protocol::kJson, "1");
  env.set(protocol::kLevel, "ptx");
  env.set(protocol::kOutput, "/tmp/out.log");
  env.set(protocol::kStatus, "/tmp/status.json");
  env.set(protocol::kHtml, "/tmp/sections.jsonl");
  env.set(protocol::kRecords, "/tmp/records.jsonl");
  env.set(protocol::kQuiet, "1");
  env.set(protocol::kStallSeconds, "3");
  env.set(protocol::kSchedule, "serial");
  env.set(protocol::kCompareSchedules, "gpu,random:4");
  Options o = options_from_env();
  EXPECT_EQ(o.mode, Mode::Check);
  EXPECT_EQ(o.archs, "sm_80,sm_35:8");
  EXPECT_EQ(o.kernel_regex, "tile.*");
  EXPECT_EQ(o.launch_skip, 2u);
  EXPECT_EQ(o.launch_count, 5u);
  EXPECT_TRUE(o.json);
  EXPECT_EQ(o.level, sass::Level::Ptx);
  EXPECT_EQ(o.output, "/tmp/out.log");
  EXPECT_EQ(o.status, "/tmp/status.json");
  EXPECT_EQ(o.html, "/tmp/sections.jsonl");
  EXPECT_EQ(o.records, "/tmp/records.jsonl");
  EXPECT_TRUE(o.quiet);
  EXPECT_EQ(o.stall_seconds, 3u);
  EXPECT_EQ(emu::to_string(o.schedule), "serial");
  ASSERT_EQ(o.compare_schedules.size(), 2u);
  EXPECT_EQ(emu::to_string(o.compare_schedules[1]), "random:4");
}

// A program started without smemlab (or with values set by hand that make
// no sense) runs plainly rather than stop.
TEST(Options, DefaultsWithoutOrWithBadValues) {
  Environment env;
  env.set(protocol::kLaunchSkip, "many");
  env.set(protocol::kStallSeconds, "0");
  env.set(protocol::kSchedule, "fastest");
  env.set(protocol::kMode, "profile");
  Options o = options_from_env();
  EXPECT_EQ(o.mode, Mode::Run);
  EXPECT_EQ(o.archs, "sm_90");
  EXPECT_EQ(o.launch_skip, 0u);
  EXPECT_EQ(o.stall_seconds, 1u);  // at least a second
  EXPECT_EQ(emu::to_string(o.schedule), "gpu");
  EXPECT_TRUE(o.records.empty());
}

// The CLI writes mode_name(mode); the runtime reads the same mode back.
TEST(Options, EveryModeCrossesTheEnvironment) {
  for (Mode m : {Mode::Run, Mode::Analyze, Mode::Check}) {
    Environment env;
    env.set(protocol::kMode, protocol::mode_name(m));
    EXPECT_EQ(options_from_env().mode, m) << protocol::mode_name(m);
  }
  EXPECT_EQ(protocol::parse_mode("Check"), std::nullopt);
  EXPECT_EQ(protocol::parse_mode(""), std::nullopt);
}

}  // namespace
}  // namespace smemlab::runtime
