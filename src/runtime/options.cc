#include "runtime/options.h"

#include <algorithm>
#include <cstdlib>

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
  Options o;
  std::string mode = env("SMEMLAB_MODE");
  o.mode = mode == "analyze" ? Mode::Analyze : mode == "check" ? Mode::Check : Mode::Run;
  if (!env("SMEMLAB_ARCH").empty()) o.archs = env("SMEMLAB_ARCH");
  o.kernel_regex = env("SMEMLAB_KERNEL");
  o.launch_skip = env_u64("SMEMLAB_LAUNCH_SKIP", 0);
  o.launch_count = env_u64("SMEMLAB_LAUNCH_COUNT", o.launch_count);
  o.json = env("SMEMLAB_JSON") == "1";
  if (env("SMEMLAB_LEVEL") == "ptx") o.level = sass::Level::Ptx;
  o.output = env("SMEMLAB_OUTPUT");
  o.status = env("SMEMLAB_STATUS");
  o.html = env("SMEMLAB_HTML");
  o.quiet = env("SMEMLAB_QUIET") == "1";
  o.analyze_check = env("SMEMLAB_ANALYZE_CHECK") == "1";
  o.stall_seconds = std::max<uint64_t>(1, env_u64("SMEMLAB_STALL_SECONDS", o.stall_seconds));
  // The CLI checked both; a value set by hand that is no schedule keeps the
  // default (and compares nothing) rather than stop the program.
  if (auto s = emu::parse_schedule(env("SMEMLAB_SCHEDULE"))) o.schedule = *s;
  std::string ignored;
  if (std::string list = env("SMEMLAB_COMPARE_SCHEDULES"); !list.empty())
    o.compare_schedules = session::parse_schedule_list(list, &ignored);
  return o;
}

}  // namespace smemlab::runtime
