// The `smemlab` subcommands. Each add_*_command registers its options on the
// app and sets the callback that runs it; the callback throws ExitCode to end
// the program with a documented status (see README: exit codes).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "emu/fault_kinds.h"

namespace smemlab::report {
struct FixReport;
}

namespace smemlab::cli {

// Exit codes shared by all subcommands.
enum Exit : int {
  kOk = 0,
  kFindings =
      1,       // check found defects, analyze --fail-on-excess was passed, run --compare differed
  kUsage = 2,  // bad command line or bad input (message on stderr)
  kNoDevice = 3,       // `bench` without a CUDA device
  kRuntime = 4,        // the kernel under emulation failed (trap, deadlock, budget)
  kInterrupted = 130,  // stopped by Ctrl-C (SIGINT) or SIGTERM; temporary files removed
};

struct ExitCode {
  int code;
};

// The exit status after a launch stopped by a fault of `kind`: its exit
// class in emu/fault_kinds.def.
inline int exit_status(emu::FaultKind kind) {
  switch (emu::exit_class(kind)) {
    case emu::FaultExit::Usage:
      return kUsage;
    case emu::FaultExit::Interrupted:
      return kInterrupted;
    case emu::FaultExit::Runtime:
      break;
  }
  return kRuntime;
}

// --schedule's value: gpu, serial, random or random:SEED (emu/schedule.h).
extern const CLI::Validator kSchedule;
// --compare-schedules' value: a comma-separated list of those.
extern const CLI::Validator kScheduleList;

void add_bank_command(CLI::App& app);
void add_run_command(CLI::App& app);      // defined in run_command.cc (emulator)
void add_analyze_command(CLI::App& app);  // the analyses over the emulator
void add_check_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_fix_command(CLI::App& app);  // defined in fix_command.cc (needs libclang)
// `smemlab fix FILE.cu --kernel K ... -- APP`: fix in program mode
// (fix_program.cc); returns the exit code.
int fix_program_mode(int argc, char** argv, int dashdash);
// FILE as fix's reports and patches show it: relative to the working
// directory (where `patch -p1` runs) when it lies below it.
std::string shown_path(const std::string& file);
// Prints fix's report in the chosen format (--patch, --json, --sarif, else
// text; recipe and program mode alike) and returns fix's exit code: kFindings
// when a conflicted array has no verified change, else kOk.
int print_fix_report(const report::FixReport& rep, bool patch, bool json, bool sarif);
void add_bench_command(CLI::App& app);
// Program mode (`smemlab CMD [OPTIONS] -- APP ...`): parses argv[2] up to
// argv[dashdash] with `app`; returns -1 when parsed, else the exit code
// (0 after --help, kUsage after an error CLI11 has printed).
int parse_options_before_dashdash(CLI::App& app, char** argv,
                                  int dashdash);  // defined in bench_command.cc (CUDA builds only)

}  // namespace smemlab::cli
