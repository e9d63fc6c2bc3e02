// What the CLI asks of the runtime, passed through the program's environment:
//   SMEMLAB_MODE      run | analyze | check
//   SMEMLAB_ARCH      bank models as in `analyze --arch` (first: the device)
//   SMEMLAB_KERNEL    regex over kernel names (-k), SMEMLAB_LAUNCH_SKIP/_COUNT
//   SMEMLAB_JSON      1: JSON Lines reports
//   SMEMLAB_LEVEL     sass (default) | ptx: the counting level (docs/sass.md)
//   SMEMLAB_OUTPUT    file for the reports (default: stderr)
//   SMEMLAB_STATUS    file the runtime writes its exit summary to (JSON)
//   SMEMLAB_HTML      file the runtime appends each analyzed launch's HTML
//                     section to (JSON Lines; the CLI makes the page of them)
//   SMEMLAB_QUIET     1: no progress line for long launches (--quiet)
//   SMEMLAB_STALL_SECONDS  a cooperative launch with no progress this long
//                     (default 10) ends as a deadlock (emu::LaunchConfig)
//   SMEMLAB_SCHEDULE  gpu (default) | serial | random[:SEED]: how a block's
//                     warps take turns (emu/schedule.h)
//   SMEMLAB_COMPARE_SCHEDULES  check: run each checked launch again under
//                     these schedules (comma-separated) and report differences
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
  uint64_t stall_seconds = 10;
  bool quiet = false;
  bool analyze_check = false;  // `analyze --check`: the defect checkers too
  emu::Schedule schedule;
  std::vector<emu::Schedule> compare_schedules;
};

Options options_from_env();

}  // namespace smemlab::runtime
