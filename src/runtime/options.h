// What the CLI asks of the runtime, read from the program's environment
// (the names and their meaning: session/program_protocol.h).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "emu/schedule.h"
#include "sass/level.h"
#include "session/program_launch.h"

namespace smemlab::runtime {

using Mode = session::ProgramMode;

// The launch selection and analyses (ProgramPolicy) are the session's to
// apply (session/program_launch.h); the rest is how the runtime reports.
struct Options : session::ProgramPolicy {
  bool json = false;
  sass::Level level = sass::Level::Sass;
  std::string output, status, html;
  std::string records;  // check: the launch records' file (protocol::kRecords)
  uint64_t stall_seconds = 10;
  bool quiet = false;
  bool sync = false;           // SMEMLAB_SYNC=1: launches complete before they return
  emu::Schedule schedule;
};

Options options_from_env();

}  // namespace smemlab::runtime
