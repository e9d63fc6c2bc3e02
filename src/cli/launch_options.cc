#include "cli/launch_options.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>

#include "cli/commands.h"
#include "emu/launch.h"
#include "session/schedule_compare.h"

namespace smemlab::cli {

static_assert(kInterrupted == session::kInterruptedStatus);

// CLI11 reads "-1" into an unsigned option as 2^64-1; digits only.
const CLI::Validator kUnsigned(
    [](std::string& s) {
      return !s.empty() && std::isdigit(static_cast<unsigned char>(s[0]))
                 ? std::string()
                 : "expected a non-negative integer, got '" + s + "'";
    },
    "UINT");

const CLI::Validator kSchedule(
    [](std::string& s) {
      return emu::parse_schedule(s)
                 ? std::string()
                 : "expected gpu, serial, random or random:SEED, got '" + s + "'";
    },
    "SCHEDULE");

const CLI::Validator kScheduleList(
    [](std::string& s) {
      std::string error;
      return session::parse_schedule_list(s, &error).empty() ? error : std::string();
    },
    "LIST");

void add_launch_options(CLI::App* cmd, LaunchOptions& o) {
  cmd->add_option("file", o.file,
                  "kernel source (.cu, compiled with nvcc -ptx -lineinfo) or PTX (.ptx)")
      ->required();
  cmd->add_option(
      "--kernel", o.kernel,
      "kernel: mangled, demangled, or demangled without parameters (optional with one kernel)");
  cmd->add_option("--grid", o.grid, "grid size X[,Y[,Z]]");
  cmd->add_option("--block", o.block, "block size X[,Y[,Z]]");
  cmd->add_option("--shared", o.shared, "dynamic shared memory in bytes")
      ->check(kUnsigned)
      ->check(CLI::Range(uint32_t{0}, emu::kMaxSharedPerBlock));
  cmd->add_option(
      "--arg", o.args,
      "kernel argument in parameter order: int=64 unsigned=7 float=1.5 double=.. long=.. or a "
      "buffer "
      "TYPE[N]=zeros|iota|random(SEED)|file:PATH (random: floats in [0,1), integers in [0,1000)), "
      "or a texture/surface object over such a buffer: tex2d:float4[W,H]=INIT/linear,wrap,"
      "normalized,nfloat, surf2d:float[W,H]=INIT (also 1d, 3d)");
  // Not --arch: analyze's --arch names bank models.
  cmd->add_option("--nvcc-arch", o.arch, "nvcc -arch for .cu input")->capture_default_str();
  cmd->add_option("--threads", o.threads,
                  fmt::format("host threads running blocks (0 = all cores, at most {})",
                              emu::kMaxHostThreads))
      ->check(kUnsigned)
      ->check(CLI::Range(0u, emu::kMaxHostThreads));
  cmd->add_option("--schedule", o.schedule,
                  "how a block's warps take turns: gpu (interleaved at every memory op, as on "
                  "the GPU), serial (each warp runs until it blocks), random[:SEED]")
      ->check(kSchedule)
      ->capture_default_str();
  cmd->add_option("--budget", o.budget, "warp-instructions allowed per block")
      ->check(kUnsigned)
      ->check(CLI::Range(uint64_t{1}, UINT64_MAX))
      ->capture_default_str();
  // nvcc pass-through for .cu input (also accepted in recipes).
  cmd->add_option_function<std::vector<std::string>>(
      "-I",
      [&o](const std::vector<std::string>& v) {
        for (const auto& d : v) o.nvcc_args.push_back("-I" + d);
      },
      "nvcc: include directory");
  cmd->add_option_function<std::vector<std::string>>(
      "-D",
      [&o](const std::vector<std::string>& v) {
        for (const auto& d : v) o.nvcc_args.push_back("-D" + d);
      },
      "nvcc: macro NAME[=VALUE]");
  cmd->add_option_function<std::string>(
      "--std", [&o](const std::string& v) { o.nvcc_args.push_back("-std=" + v); },
      "nvcc: C++ standard (c++17, c++20)");
  cmd->add_flag_callback(
      "--use_fast_math", [&o]() { o.nvcc_args.push_back("--use_fast_math"); },
      "nvcc: --use_fast_math");
  cmd->add_flag_callback(
      "--rdc", [&o]() { o.nvcc_args.push_back("-rdc=true"); }, "nvcc: -rdc=true");
  cmd->add_option_function<std::vector<std::string>>(
      "--Xnvcc",
      [&o](const std::vector<std::string>& v) {
        for (const auto& a : v) o.nvcc_args.push_back(a);
      },
      "nvcc: any argument, passed as is (repeatable)");
  cmd->add_option("--keep-ptx", o.keep_ptx,
                  "keep the PTX compiled from a .cu in this directory (errors then name it)");
  cmd->add_flag("--quiet,-q", o.quiet,
                "no progress line (shown on a terminal's stderr when a launch takes over 1 s)");
}

void stop_if_interrupted() {
  if (!session::interrupted()) return;
  fmt::print(stderr, "smemlab: interrupted\n");
  throw ExitCode{kInterrupted};  // unwinding removes the temporary files
}

}  // namespace smemlab::cli
