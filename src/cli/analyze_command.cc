// `smemlab analyze FILE.cu|FILE.ptx`: per source line, the shared-memory
// bank conflicts (per chosen generation), global/local sectors per request
// and branch divergence of one emulated launch; the emulator's stops
// (faults, deadlocks) as findings, and with --check also the checkers'.
#include <fmt/format.h>

#include <limits>

#include "cli/analysis_run.h"
#include "cli/commands.h"
#include "cli/html_output.h"

namespace smemlab::cli {
namespace {

struct AnalyzeOptions {
  LaunchOptions launch;
  std::string archs = "sm_90";
  std::string blocks = "all";
  std::string level = "sass";
  bool json = false, sarif = false;
  bool check = false;  // also run `check`'s defect checkers
  std::string html;    // also write the HTML source view here
  uint64_t fail_on_excess = std::numeric_limits<uint64_t>::max();
};

uint64_t excess_wavefronts(const check::BankAnalysis& b) {
  uint64_t e = 0;
  auto totals = b.totals();  // kept alive: the loop reads into it
  for (const auto& c : totals.front().op) e += c.wavefronts - c.ideal;
  return e;
}

void analyze(AnalyzeOptions& o) {
  AnalysisRun run;
  session::RecipeAnalyses with;
  with.archs = o.archs;
  with.blocks = o.blocks;
  with.level = o.level == "ptx" ? sass::Level::Ptx : sass::Level::Sass;
  with.what = o.check ? session::Analyses::All : session::Analyses::Counts;
  run_analyses(o.launch, with, &run);
  // A launch refused before it ran (bad input) is not a kernel's failure.
  if (run.status.error && emu::refused_launch(run.status.error->kind))
    throw UsageError(run.status.error->what());
  report::Analysis a{run.info,    run.banks.get(),   &run.access,      &run.findings,
                     &run.hopper, run.swizzle.get(), run.padding.get()};
  if (o.json)
    fmt::print("{}\n", report::analyze_json(a).dump(1));
  else if (o.sarif)
    fmt::print("{}\n", report::analyze_sarif(a).dump(1));
  else {
    fmt::print("{}", report::analyze_text(a, run.source_lines));
    if (!run.findings.empty()) fmt::print("\nfindings\n{}", report::findings_text(run.findings));
  }
  if (!o.html.empty())
    write_html(o.html,
               report::analyze_html({{report::launch_heading(run.info), a, run.source_lines}},
                                    "smemlab analyze: " + run.info.kernel));
  if (run.status.error) {
    fmt::print(stderr, "smemlab: the kernel stopped early, counts are partial: {}\n",
               run.status.error->what());
    throw ExitCode{exit_status(run.status.error->kind)};
  }
  if (excess_wavefronts(*run.banks) > o.fail_on_excess) throw ExitCode{kFindings};
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      "Per-line shared-memory bank conflicts, sectors and divergence of one emulated launch");
  add_launch_options(cmd, o->launch);
  cmd->add_option(
         "--arch", o->archs,
         "bank models, comma-separated (sm_90,sm_35:4,sm_35:8,sm_20,sm_13) or 'all'; the first is "
         "the main one")
      ->capture_default_str();
  cmd->add_option(
         "--blocks", o->blocks,
         "blocks to emulate: 'all' (exact counts, as Nsight Compute), or N spread evenly over "
         "the grid (faster; counts scaled to the grid, exact when the access pattern does not "
         "depend on blockIdx)")
      ->capture_default_str();
  cmd->add_option("--level", o->level,
                  "count the requests of the SASS the GPU runs (ptxas + nvdisasm; falls back to "
                  "ptx, saying why, where they are missing) or of the PTX as written")
      ->check(CLI::IsMember({"sass", "ptx"}))
      ->capture_default_str();
  cmd->add_flag("--check", o->check,
                "also run check's defect checkers (races, barriers, bounds, initialization) on "
                "the same blocks and list their findings; costs about what `check` costs");
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->add_flag("--sarif", o->sarif,
                "SARIF 2.1.0 output (one result per line with excess wavefronts)");
  cmd->add_option("--html", o->html,
                  "also write the HTML source view (one self-contained file) to FILE");
  cmd->add_option("--fail-on-excess", o->fail_on_excess,
                  "exit 1 when the kernel's excess wavefronts on the first model exceed N")
      ->check(CLI::Validator(
          [](std::string& v) {
            return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos
                       ? std::string()
                       : "expected a non-negative integer, got '" + v + "'";
          },
          "N"));
  cmd->callback([o] {
    if (o->json && o->sarif) throw UsageError("--json and --sarif exclude each other");
    analyze(*o);
  });
}

}  // namespace smemlab::cli
