// `smemlab bench`: options only; the work is in bench/runner.cc.
#include <fmt/core.h>

#include <chrono>
#include <cstdint>

#include "bench/runner.h"
#include "cli/commands.h"
#ifdef SMEMLAB_HAVE_RUN
#include "cli/predict_launch.h"
#include "timing/model.h"
#endif

namespace smemlab::cli {

#ifdef SMEMLAB_HAVE_RUN
namespace {

// `bench --predict DIR`: a benchmark's launch emulated from DIR/<module>.ptx
// and predicted as `run --gpu --time` does. An emulated launch that fails
// leaves that benchmark without a prediction (the reason printed), not the
// run.
bench::Predicted predict_recipe(const std::string& ptx_dir, const bench::LaunchRecipe& r) {
  LaunchOptions o;
  o.file = ptx_dir + "/" + r.module + ".ptx";
  o.kernel = r.kernel;
  o.grid = r.grid;
  o.block = r.block;
  o.shared = r.shared;
  o.args = r.args;
  bench::Predicted out;
  try {
    std::optional<report::GpuPrediction> p = predict_flags(o, &out.why_not);
    if (!p) return out;
    if (!p->p.valid) {
      out.why_not = p->p.why_not;
      return out;
    }
    out.made = true;
    out.duration_ns = p->p.duration_ns;
    out.limiter = timing::resource_name(p->p.limiter);
    out.gpu = p->gpu->name;
  } catch (const std::exception& e) {
    out.why_not = e.what();
  }
  return out;
}

}  // namespace
#endif

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "bench", "Run the CUDA kernel suite: verify each kernel, time it, compare with anchors");
  struct Opts {
    bench::RunOptions run;
    uint64_t seed = 0;
    bool no_anchors = false;
    std::string predict_dir;
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
#ifdef SMEMLAB_HAVE_RUN
  cmd->add_option("--predict", opts->predict_dir,
                  "Print the time model's predicted duration beside each measured one, emulating "
                  "the benchmark's launch from DIR/<topic>.ptx (the suite's PTX, "
                  "build/kernels/ptx; docs/timing.md)")
      ->check(CLI::ExistingDirectory);
#endif
  cmd->callback([cmd, opts]() {
    bench::RunOptions run = opts->run;
#ifdef SMEMLAB_HAVE_RUN
    if (!opts->predict_dir.empty())
      run.predict = [dir = opts->predict_dir](const bench::LaunchRecipe& r) {
        return predict_recipe(dir, r);
      };
#endif
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
