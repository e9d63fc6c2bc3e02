// What the CLI asks of the runtime, read from the program's environment
// (the names and their meaning: session/program_protocol.h).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "emu/schedule.h"
#include "sass/level.h"

namespace smemlab::runtime {

enum class Mode { Run, Analyze, Check };

struct Options {
  Mode mode = Mode::Run;
  std::string archs = "sm_90";
  std::string kernel_regex;
  uint64_t launch_skip = 0;
  uint64_t launch_count = std::numeric_limits<uint64_t>::max();
  bool json = false;
  sass::Level level = sass::Level::Sass;
  std::string output, status, html;
  std::string records;  // check: the launch records' file (protocol::kRecords)
  uint64_t stall_seconds = 10;
  bool quiet = false;
  bool sync = false;           // SMEMLAB_SYNC=1: launches complete before they return
  bool analyze_check = false;  // `analyze --check`: the defect checkers too
  emu::Schedule schedule;
  std::vector<emu::Schedule> compare_schedules;
};

Options options_from_env();

}  // namespace smemlab::runtime
