#include "session/program_launch.h"

#include <fmt/format.h>

namespace smemlab::session {

std::vector<std::unique_ptr<bank::Model>> parse_models(const std::string& archs, BankWidth first) {
  auto models = parse_models(archs);
  std::string name = archs.substr(0, archs.find(','));
  if (first == BankWidth::Default || archs == "all" || name.find(':') != std::string::npos)
    return models;
  try {
    models.front() = bank::make_model(name, first == BankWidth::EightBytes ? 8 : 4);
  } catch (const bank::Error& e) {
    throw OptionError(fmt::format("--arch: {}", e.what()));
  }
  return models;
}

ProgramLaunches::ProgramLaunches(ProgramPolicy policy) : policy_(std::move(policy)) {
  if (policy_.kernel_regex.empty()) return;
  try {
    regex_.emplace(policy_.kernel_regex);
  } catch (const std::regex_error&) {
    bad_regex_ = true;
  }
}

bool ProgramLaunches::select(const std::string& mangled) {
  if (policy_.mode == ProgramMode::Run || bad_regex_) return false;
  if (regex_ && !std::regex_search(demangle(mangled), *regex_) &&
      !std::regex_search(mangled, *regex_))
    return false;
  uint64_t n = seen_++;
  return n >= policy_.launch_skip && n - policy_.launch_skip < policy_.launch_count;
}

Analyses ProgramLaunches::analyses() const {
  if (policy_.mode == ProgramMode::Check) return Analyses::FindingsOnly;
  return policy_.analyze_check ? Analyses::All : Analyses::Counts;
}

void ProgramLaunches::analyze(const ProgramLaunch& l, LaunchAnalysis* out) const {
  const std::vector<emu::Schedule> none;
  analyze_launch(*l.module, l.kernel, l.config, *l.args, parse_models(policy_.archs, l.bank_width),
                 out, *l.level, l.extra, analyses(),
                 policy_.mode == ProgramMode::Check ? policy_.compare_schedules : none);
}

}  // namespace smemlab::session
