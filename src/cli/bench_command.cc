// `smemlab bench`: options only; the work is in bench/runner.cc.
#include <fmt/core.h>

#include <chrono>
#include <cstdint>

#include "bench/runner.h"
#include "cli/commands.h"

namespace smemlab::cli {

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "bench", "Run the CUDA kernel suite: verify each kernel, time it, compare with anchors");
  struct Opts {
    bench::RunOptions run;
    uint64_t seed = 0;
    bool no_anchors = false;
  };
  auto opts = std::make_shared<Opts>();
  cmd->add_flag("--list", opts->run.list, "List the benchmarks (name, then description) and stop");
  cmd->add_option("--filter", opts->run.filter,
                  "Run only benchmarks whose name contains this text or matches this regex");
  cmd->add_option("--json", opts->run.json_path,
                  "Also write the results as JSON to FILE (- = stdout)");
  cmd->add_option("--reps", opts->run.reps, "Timed runs per benchmark (median reported)")
      ->check(CLI::Range(20, 100000))
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "Seed of the random inputs (default: from the clock)");
  cmd->add_flag("--quick", opts->run.quick, "Smaller problem sizes (a smoke run)");
  cmd->add_flag("--verify-only", opts->run.verify_only,
                "Verify every benchmark but skip the timing (one launch each)");
  cmd->add_flag("--no-anchors", opts->no_anchors,
                "Do not run the anchors automatically (no % column; e.g. under a sanitizer)");
  cmd->callback([cmd, opts]() {
    bench::RunOptions run = opts->run;
    run.anchors = !opts->no_anchors;
    if (cmd->count("--seed")) {
      run.seed = opts->seed;
    } else {
      run.seed = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch() /
                                       std::chrono::microseconds(1));
    }
    const int code = bench::run_benchmarks(run);
    if (code != kOk) throw ExitCode{code};
  });
}

}  // namespace smemlab::cli
