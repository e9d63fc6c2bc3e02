// `smemlab fix FILE.cu --kernel K`: find a padding or swizzle that removes a
// shared array's bank conflicts and prove it keeps the outputs (src/fix,
// docs/fix.md). Exit 0 when nothing needs fixing or every conflicted array
// has a verified fix, 1 when one has none, 4 when the kernel itself fails.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "cli/analysis_run.h"
#include "cli/commands.h"
#include "fix/fix.h"
#include "report/fix_report.h"
#include "report/timing.h"

namespace smemlab::cli {

// The path as the patch and reports show it: relative to the working
// directory (where `patch -p1` runs) when the file lies below it.
std::string shown_path(const std::string& file) {
  if (file.empty() || file[0] != '/') return file.rfind("./", 0) == 0 ? file.substr(2) : file;
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return file;
  std::string dir = std::string(cwd) + "/";
  return file.rfind(dir, 0) == 0 ? file.substr(dir.size()) : file;
}

int print_fix_report(const report::FixReport& rep, bool patch, bool json, bool sarif) {
  const fix::Result& result = *rep.result;
  if (patch && result.patch.empty() && !rep.swizzle_patch.empty())  // a TMA tile's pair
    fmt::print("{}", fix::unified_diff(rep.path, rep.source->text, rep.swizzle_patch));
  else if (patch)
    fmt::print("{}", result.patch.empty()
                         ? ""
                         : fix::unified_diff(rep.path, rep.source->text, result.patch));
  else if (json)
    fmt::print("{}\n", report::fix_json(rep).dump(1));
  else if (sarif)
    fmt::print("{}\n", report::fix_sarif(rep).dump(1));
  else
    fmt::print("{}", report::fix_text(rep));
  for (size_t a = 0; a < result.arrays.size(); ++a)
    if (result.arrays[a].skipped.empty() && !result.best_verified(a)) return kFindings;
  return kOk;
}

namespace {

struct FixOptions {
  LaunchOptions launch;
  std::string archs = "sm_90";
  bool json = false, sarif = false, patch = false;
  unsigned max_pad = 8, prove = 3, shown = 8;
};

// One launch of `path` with the original launch's arguments; what the proof compares.
// `extra` observes the launch too (the original's run records its accesses).
fix::RunResult run_for_proof(LaunchOptions o, const std::string& path, uint32_t dynamic_shared,
                             AnalysisRun& run, emu::KernelObserver* extra = nullptr) {
  fix::RunResult r;
  o.file = path;
  o.shared = dynamic_shared;
  try {
    // PTX level: the rebuilt kernel is measured the way the candidates were costed.
    session::RecipeAnalyses with;
    with.blocks = "all";
    with.level = sass::Level::Ptx;
    with.extra = extra;
    run_analyses(o, with, &run);
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
  // The predicted saving beside the proven one: the time model on this run.
  report::Analysis a{run.info, run.banks.get(), &run.access, nullptr, &run.hopper, nullptr};
  if (timing::Prediction pred = report::predict_launch(a); pred.valid)
    r.predicted_ns = pred.duration_ns;
  const auto totals = run.banks->totals();
  for (const auto& c : totals.front().op) {
    r.measured.requests += c.requests - c.unmodelled;
    r.measured.wavefronts += c.wavefronts;
    r.measured.ideal += c.ideal;
  }
  if (run.status.error) r.error = "the kernel failed: " + run.status.error->what();
  return r;
}

// The edit that makes the recipe line the launch came from ask for `bytes`
// of dynamic shared memory: its `--shared N` value replaced, or the option
// added. nullopt when no recipe line names the kernel.
std::optional<fix::Edit> recipe_shared_edit(const std::string& text, const std::string& kernel,
                                            uint32_t bytes) {
  auto bare = [](std::string s) {
    std::erase_if(s, [](unsigned char c) { return std::isspace(c); });
    return s;
  };
  for (const session::Recipe& r : session::parse_recipes(text, "")) {
    if (r.kernel().empty() || (!kernel.empty() && bare(r.kernel()) != bare(kernel))) continue;
    auto at = [&](size_t offset) { return static_cast<unsigned>(r.offset + offset); };
    for (size_t k = 0; k + 1 < r.words.size(); ++k)
      if (r.words[k].text == "--shared") {
        const session::RecipeWord& v = r.words[k + 1];
        return fix::Edit{{at(v.at), at(v.at + v.length)}, std::to_string(bytes)};
      }
    const session::RecipeWord& last = r.words.back();
    return fix::Edit{{at(last.at + last.length), at(last.at + last.length)},
                     fmt::format(" --shared {}", bytes)};
  }
  return std::nullopt;
}

// A padded dynamic array needs a larger launch: the recipe's `--shared`
// grows with it in the candidate's edits (so --patch, SARIF and JSON carry
// it) and in the patch, else the patched file's own recipe launches with
// too little shared memory. The kernel is unchanged by it: no new proof.
void grow_recipe_shared(const std::string& text, const std::string& kernel, fix::Result& result) {
  for (size_t a = 0; a < result.arrays.size(); ++a) {
    if (!result.arrays[a].dynamic) continue;
    for (fix::Candidate& c : result.candidates) {
      if (c.array != a || c.verdict != fix::Candidate::Verdict::Verified || !c.edits) continue;
      if (c.dynamic_shared == result.dynamic_shared) break;
      auto e = recipe_shared_edit(text, kernel, c.dynamic_shared);
      if (!e) break;
      bool in_patch =
          !c.edits->empty() &&
          std::any_of(result.patch.begin(), result.patch.end(), [&](const fix::Edit& p) {
            return p.range == c.edits->front().range && p.text == c.edits->front().text;
          });
      auto by_start = [](const fix::Edit& x, const fix::Edit& y) {
        return x.range.begin < y.range.begin;
      };
      c.edits->push_back(*e);
      std::sort(c.edits->begin(), c.edits->end(), by_start);
      c.recipe_shared = true;
      if (in_patch) {
        result.patch.push_back(*e);
        std::sort(result.patch.begin(), result.patch.end(), by_start);
      }
      break;
    }
  }
}

void fix_kernel(FixOptions& o) {
  if (!o.launch.file.ends_with(".cu"))
    throw UsageError(fmt::format("{}: fix needs the CUDA source (.cu), not PTX", o.launch.file));
  // The launch as the recipe completes it, kept for the proof's runs.
  const bool from_recipe = !o.launch.launch_flags_given();
  const std::string asked_kernel = o.launch.kernel;
  {
    PreparedInput in;
    in.recipes = session::read_recipes(o.launch.file);
    // (fix's launches are of recipes naming their kernel)
    std::erase_if(in.recipes, [](const session::Recipe& r) { return r.kernel().empty(); });
    apply_recipe(o.launch, in);
  }
  auto models = parse_models(o.archs);

  fix::SourceModel source;
  try {
    source = fix::parse_source(o.launch.file, {});
  } catch (const fix::Error& e) {
    throw UsageError(e.what());
  }
  // A file the front end could not parse has arrays it cannot see: that is
  // a failure to read the input, never "nothing to fix".
  if (!source.diagnostics.empty())
    throw UsageError(
        fmt::format("{}: the C++ front end could not parse it ({} error(s); first: {})",
                    o.launch.file, source.diagnostics.size(), source.diagnostics.front()));

  // One launch of the original, all blocks: the what-if data (every shared
  // access) and the proof's reference (outputs, check's findings).
  fix::AccessRecorder recorder;
  AnalysisRun original_run;
  fix::RunResult original =
      run_for_proof(o.launch, o.launch.file, o.launch.shared, original_run, &recorder);
  // An error without a failed launch: the input could not be prepared.
  if (!original.error.empty() && !original_run.status.error) throw UsageError(original.error);
  if (original_run.status.error) {
    if (emu::refused_launch(original_run.status.error->kind)) throw UsageError(original.error);
    fmt::print(stderr, "smemlab: {}\n", original.error);
    throw ExitCode{exit_status(original_run.status.error->kind)};
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

  if (from_recipe) grow_recipe_shared(source.text, asked_kernel, result);

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
  if (print_fix_report(rep, o.patch, o.json, o.sarif) != kOk) throw ExitCode{kFindings};
}

}  // namespace

#ifndef SMEMLAB_HAVE_PROGRAMS
// Program mode runs the program on the emulated driver (src/runtime), which
// this build lacks (no CUDA toolkit).
int fix_program_mode(int, char**, int) {
  fmt::print(stderr,
             "smemlab fix: error: program mode (fix FILE.cu --kernel K -- APP) needs the emulated "
             "CUDA driver, which this smemlab was built without (no CUDA toolkit)\n");
  return kUsage;
}
#endif

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
