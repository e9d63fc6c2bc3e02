#include "runtime/options.h"

#include <algorithm>
#include <cstdlib>

#include "session/program_protocol.h"
#include "session/schedule_compare.h"

namespace smemlab::runtime {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

uint64_t env_u64(const char* name, uint64_t fallback) {
  std::string v = env(name);
  if (v.empty()) return fallback;
  char* end = nullptr;
  uint64_t n = std::strtoull(v.c_str(), &end, 10);
  return end && *end == 0 ? n : fallback;
}

}  // namespace

Options options_from_env() {
  namespace env_name = session::protocol;
  Options o;
  // Unset or not a mode (set by hand): the program runs, unanalyzed.
  o.mode = env_name::parse_mode(env(env_name::kMode)).value_or(Mode::Run);
  if (!env(env_name::kArch).empty()) o.archs = env(env_name::kArch);
  o.kernel_regex = env(env_name::kKernel);
  o.launch_skip = env_u64(env_name::kLaunchSkip, 0);
  o.launch_count = env_u64(env_name::kLaunchCount, o.launch_count);
  o.json = env(env_name::kJson) == "1";
  if (env(env_name::kLevel) == "ptx") o.level = sass::Level::Ptx;
  o.output = env(env_name::kOutput);
  o.status = env(env_name::kStatus);
  o.html = env(env_name::kHtml);
  o.records = env(env_name::kRecords);
  o.quiet = env(env_name::kQuiet) == "1";
  o.sync = env(env_name::kSync) == "1";
  o.analyze_check = env(env_name::kAnalyzeCheck) == "1";
  o.stall_seconds = std::max<uint64_t>(1, env_u64(env_name::kStallSeconds, o.stall_seconds));
  // The CLI checked both; a value set by hand that is no schedule keeps the
  // default (and compares nothing) rather than stop the program.
  if (auto s = emu::parse_schedule(env(env_name::kSchedule))) o.schedule = *s;
  std::string ignored;
  if (std::string list = env(env_name::kCompareSchedules); !list.empty())
    o.compare_schedules = session::parse_schedule_list(list, &ignored);
  return o;
}

}  // namespace smemlab::runtime
