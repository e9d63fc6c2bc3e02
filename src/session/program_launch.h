// Program mode's orchestration of one launch (`smemlab analyze|check -- APP`):
// the runtime's driver marshals a cuLaunchKernel's arguments, enforces its
// limits and answers CUresults; which launches are analysed (--kernel-name,
// --launch-skip, --launch-count), with which bank models (the Kepler bank
// width the program chose travels as a value, never as an "sm_35:8" string)
// and which analyses, is decided here. Recipe launches: recipe_launch.h.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "emu/launch.h"
#include "emu/schedule.h"
#include "sass/level.h"
#include "session/launch_analysis.h"
#include "session/program_protocol.h"

namespace smemlab::session {

using protocol::ProgramMode;

// The shared-memory bank width a program asked for (cuFuncSetSharedMemConfig,
// cuCtxSetSharedMemConfig). Only Kepler's banks have a choice.
enum class BankWidth : uint8_t { Default, FourBytes, EightBytes };

// `archs` as parse_models; when the first names no width ("sm_35", not
// "sm_35:8"), `first` (other than Default) sets it: the caller passes one
// for a Kepler device only, elsewhere the width is fixed (OptionError).
std::vector<std::unique_ptr<bank::Model>> parse_models(const std::string& archs, BankWidth first);

// What the CLI asked of the program's launches (read by the runtime from the
// environment, session/program_protocol.h).
struct ProgramPolicy {
  ProgramMode mode = ProgramMode::Run;
  std::string archs = "sm_90";
  bool analyze_check = false;                    // `analyze --check`: the defect checkers too
  std::vector<emu::Schedule> compare_schedules;  // check --compare-schedules
  std::string kernel_regex;                      // --kernel-name ("" = every kernel)
  uint64_t launch_skip = 0;
  uint64_t launch_count = std::numeric_limits<uint64_t>::max();
};

// One launch the driver made ready: the kernel looked up and decoded once
// by the driver (`program`), its configuration and argument bytes.
struct ProgramLaunch {
  emu::Module* module = nullptr;
  std::string kernel;  // mangled
  emu::LaunchConfig config;
  const std::vector<emu::ArgBytes>* args = nullptr;
  BankWidth bank_width = BankWidth::Default;
  const sass::KernelLevel* level = nullptr;  // chosen once per kernel
  emu::KernelObserver* extra = nullptr;      // `fix -- APP` records accesses
};

class ProgramLaunches {
 public:
  explicit ProgramLaunches(ProgramPolicy policy);
  const ProgramPolicy& policy() const { return policy_; }
  // Whether this launch of `mangled` is analysed; counts the launches
  // --kernel-name selects, for --launch-skip/--launch-count. In run mode none
  // is. An invalid regex selects none (the CLI refused it before).
  bool select(const std::string& mangled);
  // The analyses of the mode: check the findings alone, analyze the counts
  // (and findings under --check).
  Analyses analyses() const;
  // Runs a selected launch with them. Every block runs: the program reads
  // the launch's results (no sampling).
  void analyze(const ProgramLaunch& l, LaunchAnalysis* out) const;

 private:
  ProgramPolicy policy_;
  std::optional<std::regex> regex_;
  bool bad_regex_ = false;
  uint64_t seen_ = 0;  // launches selected by name so far
};

}  // namespace smemlab::session
