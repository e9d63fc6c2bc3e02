// `smemlab check FILE.cu|FILE.ptx`: synchronization and memory defects of one
// emulated launch (races, divergent barriers, out-of-bounds, misaligned,
// uninitialized reads, races between blocks). Exit 1 when there are findings.
#include <fmt/format.h>

#include <algorithm>

#include "cli/analysis_run.h"
#include "cli/commands.h"
#include "cli/html_output.h"
#include "session/schedule_compare.h"

namespace smemlab::cli {
namespace {

struct CheckOptions {
  LaunchOptions launch;
  bool json = false, sarif = false;
  std::string html;            // also write the HTML source view here
  std::string blocks = "all";  // as analyze's --blocks
  std::string compare;         // --compare-schedules LIST
};

void check_kernel(CheckOptions& o) {
  std::string bad;
  std::vector<emu::Schedule> compare;
  if (!o.compare.empty()) {
    compare = session::parse_schedule_list(o.compare, &bad);
    if (compare.empty()) throw UsageError("--compare-schedules " + o.compare + ": " + bad);
  }
  AnalysisRun run;
  session::RecipeAnalyses with;
  with.blocks = o.blocks;
  with.level = sass::Level::Ptx;
  with.what = session::Analyses::FindingsOnly;
  with.compare = std::move(compare);
  run_analyses(o.launch, with, &run);
  // A sample is said: a clean result then covers only those blocks.
  const report::RunInfo& r = run.info;
  // (A sampled cluster kernel runs the whole clusters of the blocks sampled.)
  const uint64_t sample = run.prepared.config.only_blocks.size(),
                 checked = sample ? std::max(sample, r.blocks_observed) : r.blocks_total;
  // A launch refused before it ran (bad input) is not a kernel's failure.
  if (run.status.error && emu::refused_launch(run.status.error->kind))
    throw UsageError(run.status.error->what());
  if (o.json) {
    fmt::print("{}\n", report::check_launch_json(r, checked, run.findings).dump(1));
  } else if (o.sarif) {
    fmt::print("{}\n", report::check_sarif(run.info, run.findings).dump(1));
  } else {
    fmt::print("{}", report::findings_text(run.findings));
    if (sample)
      fmt::print("checked {} of {} blocks (--blocks {}): defects in the others are not seen\n",
                 checked, r.blocks_total, o.blocks);
  }
  if (!o.html.empty()) {
    // Findings only: the page shows them at every line they involve.
    report::Analysis a{run.info, nullptr, nullptr, &run.findings};
    write_html(o.html,
               report::analyze_html({{report::launch_heading(run.info), a, run.source_lines}},
                                    "smemlab check: " + run.info.kernel));
  }
  if (!run.findings.empty()) throw ExitCode{kFindings};
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Find races, barrier misuse, out-of-bounds, misaligned and uninitialized accesses");
  add_launch_options(cmd, o->launch);
  cmd->add_option("--blocks", o->blocks,
                  "blocks to check: 'all' (default), or N spread evenly over the grid (faster; "
                  "defects in the other blocks are not seen)")
      ->capture_default_str();
  cmd->add_option("--compare-schedules", o->compare,
                  "also run the launch under these warp schedules (comma-separated, e.g. "
                  "serial,random:1,random:2), each from the same device memory, and report a "
                  "result or control flow that differs from the checked run's "
                  "(schedule-dependent)");
  cmd->add_flag("--json", o->json, "JSON output: {\"findings\": [...]}");
  cmd->add_flag("--sarif", o->sarif, "SARIF 2.1.0 output");
  cmd->add_option("--html", o->html, "also write the HTML source view with the findings to FILE");
  cmd->callback([o] {
    if (o->json && o->sarif) throw UsageError("--json and --sarif exclude each other");
    check_kernel(*o);
  });
}

}  // namespace smemlab::cli
