// `smemlab fix FILE.cu --kernel K`: find a padding or swizzle that removes a
// shared array's bank conflicts and prove it keeps the outputs (src/fix,
// docs/fix.md). Exit 0 when nothing needs fixing or every conflicted array
// has a verified fix, 1 when one has none, 4 when the kernel itself fails.
#include <fmt/format.h>
#include <unistd.h>

#include "cli/analysis_run.h"
#include "cli/commands.h"
#include "fix/fix.h"
#include "report/fix_report.h"

namespace smemlab::cli {
namespace {

struct FixOptions {
  LaunchOptions launch;
  std::string archs = "sm_90";
  bool json = false, sarif = false, patch = false;
  unsigned max_pad = 8, prove = 3, shown = 8;
};

// The path as the patch and reports show it: relative to the working
// directory (where `patch -p1` runs) when the file lies below it.
std::string shown_path(const std::string& file) {
  if (file.empty() || file[0] != '/') return file.rfind("./", 0) == 0 ? file.substr(2) : file;
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return file;
  std::string dir = std::string(cwd) + "/";
  return file.rfind(dir, 0) == 0 ? file.substr(dir.size()) : file;
}

// One launch of `path` with the original launch's arguments; what the proof compares.
// `extra` observes the launch too (the original's run records its accesses).
fix::RunResult run_for_proof(LaunchOptions o, const std::string& path, uint32_t dynamic_shared,
                             AnalysisRun& run, emu::KernelObserver* extra = nullptr) {
  fix::RunResult r;
  o.file = path;
  o.shared = dynamic_shared;
  try {
    // PTX level: the rebuilt kernel is measured the way the candidates were costed.
    run_analyses(o, "sm_90", &run, "all", sass::Level::Ptx, extra);
  } catch (const UsageError& e) {
    r.error = e.what();
    return r;
  }
  const Prepared& p = run.prepared;
  for (size_t i = 0; i < p.specs.size(); ++i) {
    if (!p.specs[i].buffer) continue;
    std::vector<uint8_t> bytes(p.specs[i].count * p.specs[i].elem_size);
    p.device.copy_from(bytes.data(), p.args.buffer[i], bytes.size());
    r.buffers.push_back(std::move(bytes));
  }
  r.findings = run.findings;
  const auto totals = run.banks->totals();
  for (const auto& c : totals.front().op) {
    r.measured.requests += c.requests - c.unmodelled;
    r.measured.wavefronts += c.wavefronts;
    r.measured.ideal += c.ideal;
  }
  if (run.status.error) r.error = "the kernel failed: " + run.status.error->what();
  return r;
}

void fix_kernel(FixOptions& o) {
  if (!o.launch.file.ends_with(".cu"))
    throw UsageError(fmt::format("{}: fix needs the CUDA source (.cu), not PTX", o.launch.file));
  // The launch as the recipe completes it, kept for the proof's runs.
  {
    PreparedInput in;
    for (const auto& r : recipes_of(o.launch.file)) in.recipes.push_back(r.line);
    apply_recipe(o.launch, in);
  }
  auto models = parse_models(o.archs);

  fix::SourceModel source;
  try {
    source = fix::parse_source(o.launch.file, {});
  } catch (const fix::Error& e) {
    throw UsageError(e.what());
  }
  if (!source.diagnostics.empty())
    fmt::print(stderr,
               "smemlab: note: the C++ front end reported {} error(s) in {} (first: {}); shared "
               "arrays in code it could not parse are not found\n",
               source.diagnostics.size(), o.launch.file, source.diagnostics.front());

  // One launch of the original, all blocks: the what-if data (every shared
  // access) and the proof's reference (outputs, check's findings).
  fix::AccessRecorder recorder;
  AnalysisRun original_run;
  fix::RunResult original =
      run_for_proof(o.launch, o.launch.file, o.launch.shared, original_run, &recorder);
  // An error without a failed launch: the input could not be prepared.
  if (!original.error.empty() && !original_run.status.error) throw UsageError(original.error);
  if (original_run.status.error) {
    if (original_run.status.error->kind == "decode") throw UsageError(original.error);
    fmt::print(stderr, "smemlab: {}\n", original.error);
    throw ExitCode{kRuntime};
  }
  const Prepared& p = original_run.prepared;

  fix::Options fo;
  fo.max_pad = o.max_pad;
  fo.prove = o.prove;
  fo.threads_per_block = static_cast<unsigned>(p.config.block.count());
  const LaunchOptions launch = o.launch;
  fix::Runner runner = [&launch](const std::string& path, uint32_t dynamic_shared) {
    AnalysisRun run;
    return run_for_proof(launch, path, dynamic_shared, run);
  };
  fix::Result result =
      fix::find_fixes(source, p.module->kernel(p.kernel), p.config.dynamic_shared,
                      recorder.accesses(), original, models, runner, fo, recorder.kernel().lines);

  report::FixReport rep;
  rep.run.source = o.launch.file;
  rep.run.kernel = demangle(p.kernel);
  rep.run.mangled = p.kernel;
  rep.run.grid = p.config.grid;
  rep.run.block = p.config.block;
  rep.run.dynamic_shared = p.config.dynamic_shared;
  rep.path = shown_path(o.launch.file);
  rep.source = &source;
  rep.result = &result;
  rep.shown = o.shown;
  if (o.patch)
    fmt::print("{}",
               result.patch.empty() ? "" : fix::unified_diff(rep.path, source.text, result.patch));
  else if (o.json)
    fmt::print("{}\n", report::fix_json(rep).dump(1));
  else if (o.sarif)
    fmt::print("{}\n", report::fix_sarif(rep).dump(1));
  else
    fmt::print("{}", report::fix_text(rep));

  for (size_t a = 0; a < result.arrays.size(); ++a)
    if (result.arrays[a].skipped.empty() && !result.best_verified(a)) throw ExitCode{kFindings};
}

}  // namespace

// Program mode needs what the recipe mode gets from the launch options, from
// the program instead: its launches of K (arguments, the buffers they read
// and write), a way to run them again with the kernel rebuilt from the
// rewritten FILE.cu, and the comparison of every buffer the launch writes.
// The emulated driver has none of that yet, so rather than a fix that cannot
// be proven, say what is missing and how to get there by hand.
int fix_program_mode(int argc, char** argv, int dashdash) {
  std::string app = dashdash + 1 < argc ? argv[dashdash + 1] : "APP";
  std::string kernel = "K";
  for (int i = 2; i + 1 < dashdash; ++i)
    if (std::string(argv[i]) == "--kernel" || std::string(argv[i]) == "-k") kernel = argv[i + 1];
  fmt::print(stderr,
             "smemlab fix: error: program mode (fix FILE.cu --kernel K -- APP) is not supported "
             "yet.\n"
             "  fix proves a change by re-running the launch with the kernel rebuilt from the "
             "rewritten source; for a whole program that needs the emulated driver to replace "
             "one kernel of the program's module with the rebuilt PTX and to compare every "
             "buffer the program's launches of K write, which it cannot do yet (docs/fix.md, "
             "\"Program mode\").\n"
             "  Meanwhile: `smemlab analyze -k {0} --launch-count 1 --json -- {1} ...` prints the "
             "launch's grid, block and dynamic shared bytes; give them with the arguments to "
             "`smemlab fix FILE.cu --kernel {0} --grid ... --block ... [--shared N] --arg ...` "
             "(or a `// smemlab:` recipe line in FILE.cu).\n",
             kernel, app);
  return kUsage;
}

void add_fix_command(CLI::App& app) {
  auto o = std::make_shared<FixOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fix", "Find and prove a padding or swizzle that removes a shared array's bank conflicts");
  add_launch_options(cmd, o->launch);
  cmd->add_option("--arch", o->archs,
                  "bank models, target first: sm_90,sm_35:4,... or all (what-if generations)")
      ->capture_default_str();
  cmd->add_option("--max-pad", o->max_pad, "padding tried: 1..N elements per row")
      ->capture_default_str();
  cmd->add_option("--prove", o->prove, "candidates proven per array, best first")
      ->capture_default_str();
  cmd->add_option("--show", o->shown, "candidates listed per array in the text output")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "JSON output: every candidate of every array");
  cmd->add_flag("--sarif", o->sarif, "SARIF 2.1.0 output with the verified change as `fixes`");
  cmd->add_flag("--patch", o->patch,
                "print the verified change as a unified diff (apply with patch -p1)");
  cmd->callback([o] {
    if (int(o->json) + int(o->sarif) + int(o->patch) > 1)
      throw UsageError("--json, --sarif and --patch exclude each other");
    if (o->max_pad == 0 || o->max_pad > 64) throw UsageError("--max-pad: expected 1..64");
    fix_kernel(*o);
  });
}

}  // namespace smemlab::cli
