// `smemlab report`: the main job. Analyzes every launch recipe of the bundled
// suite (kernels/*.cu) in the emulator and prints the table the classic texts
// build up: per kernel, shared requests and wavefronts per request on sm_90
// beside Fermi and Kepler (4- and 8-byte modes), global sectors per request,
// divergence and the checkers' findings; with the GPU's measured time and
// bandwidth when `smemlab bench --json` results are given (per topic: bench
// names start with the kernel file's stem).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/analysis_run.h"
#include "cli/commands.h"
#include "cli/html_output.h"

namespace smemlab::cli {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::string kernels = "kernels";
  std::string bench;  // JSON written by `smemlab bench --json`
  std::string filter;
  bool json = false;
  std::string html;  // also write the chart page here
};

constexpr const char* kArchs = "sm_90,sm_20,sm_35:4,sm_35:8";

using Row = report::SuiteRow;

Row analyze_recipe(const std::string& file, const session::Recipe& recipe) {
  Row row;
  row.file = file;
  row.kernel = recipe.kernel();
  LaunchOptions o;
  o.file = file;
  AnalysisRun run;
  try {
    // This recipe line, not the first one naming the kernel.
    PreparedInput only;
    only.recipes = {recipe};
    apply_recipe(o, only);
    session::RecipeAnalyses with;
    with.archs = kArchs;
    run_analyses(o, with, &run);
  } catch (const std::exception& e) {
    row.error = e.what();
    return row;
  }
  if (run.status.error)
    row.error = fmt::format("{}: {}", emu::name(run.status.error->kind), run.status.error->message);
  auto totals = run.banks->totals();
  const int ld = static_cast<int>(check::SharedOp::Load),
            st = static_cast<int>(check::SharedOp::Store);
  row.ld_requests = totals[0].op[ld].requests;
  row.st_requests = totals[0].op[st].requests;
  row.atom_requests = totals[0].op[static_cast<int>(check::SharedOp::Atomic)].requests;
  auto per = [](const check::BankCounts& c) {
    return c.requests ? double(c.wavefronts) / double(c.requests) : -1.0;
  };
  for (const auto& m : totals) {
    row.ld_per.push_back(per(m.op[ld]));
    row.st_per.push_back(per(m.op[st]));
  }
  check::SectorCounts g;
  for (const auto& [pc, s] : run.access.accesses())
    if (s.cls == check::AccessClass::GlobalLoad || s.cls == check::AccessClass::GlobalStore)
      g.add(s.counts);
  if (g.requests) {
    row.sectors = double(g.sectors) / double(g.requests);
    row.ideal_sectors = double(g.ideal_sectors) / double(g.requests);
  }
  for (const auto& [pc, b] : run.access.branches()) {
    row.divergent += b.counts.divergent;
    row.branches += b.counts.divergent + b.counts.uniform;
  }
  row.findings = run.findings.size() - (run.status.error ? 1 : 0);
  return row;
}

// The GPU measurements of a topic (`smemlab bench --json`: benchmark names
// start with the kernel file's stem), printed under its emulated rows.
void print_gpu_rows(const nlohmann::json& bench, const std::string& file) {
  if (!bench.is_array()) return;
  std::string topic = fs::path(file).stem().string() + "/";
  for (const auto& b : bench) {
    std::string name = b.value("name", "");
    if (name.rfind(topic, 0) != 0) continue;
    double gbs = b["gb_per_s"].is_number() ? b["gb_per_s"].get<double>() : 0.0;
    double gfl = b["gflop_per_s"].is_number() ? b["gflop_per_s"].get<double>() : 0.0;
    double pct = b["percent_of_anchor"].is_number() ? b["percent_of_anchor"].get<double>() : 0.0;
    std::string rate =
        gfl > 0 ? fmt::format("{:.0f} GFLOP/s", gfl) : fmt::format("{:.0f} GB/s", gbs);
    fmt::print("    GPU {:<40} {:>9.4f} ms {:>15} {:>7}{}\n", name, b.value("ms", 0.0), rate,
               pct > 0 ? fmt::format("{:.1f}%", pct) : "",
               b.value("verified", false) ? "" : "  NOT VERIFIED");
  }
}

void report(ReportOptions& o) {
  if (!fs::is_directory(o.kernels))
    throw UsageError(fmt::format("{}: no such directory", o.kernels));
  nlohmann::json bench;
  if (!o.bench.empty()) {
    std::ifstream in(o.bench);
    if (!in) throw UsageError(fmt::format("{}: cannot read", o.bench));
    try {
      bench = nlohmann::json::parse(in);
    } catch (const std::exception& e) {
      throw UsageError(fmt::format("{}: {}", o.bench, e.what()));
    }
  }
  std::vector<std::string> files;
  // (Hidden files are skipped: `smemlab fix` writes its rewritten copies
  // beside the original as .smemlab-fix-*.cu while it runs.)
  for (const auto& e : fs::directory_iterator(o.kernels))
    if (e.path().extension() == ".cu" && e.path().filename().string()[0] != '.')
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());

  std::vector<Row> rows;
  for (const auto& f : files)
    for (const session::Recipe& r : session::read_recipes(f)) {
      if (r.kernel().empty()) continue;  // (`report` lists recipes by kernel)
      if (!o.filter.empty() && r.kernel().find(o.filter) == std::string::npos) continue;
      rows.push_back(analyze_recipe(f, r));
      if (rows.size() > 1 && rows[rows.size() - 2].kernel == r.kernel() &&
          rows[rows.size() - 2].file == f)
        rows.back().variant = rows[rows.size() - 2].variant + 1;
    }

  if (rows.empty())
    throw UsageError(o.filter.empty() ? fmt::format("{}: no `// smemlab:` recipes found", o.kernels)
                                      : fmt::format("--filter '{}': no kernel matches", o.filter));
  auto models = parse_models(kArchs);
  if (!o.html.empty()) {
    std::vector<std::string> archs;
    for (const auto& m : models) archs.push_back(m->name());
    write_html(o.html, report::suite_html(rows, archs, bench));
  }
  if (o.json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const Row& r : rows) {
      nlohmann::json j = {
          {"file", r.file},
          {"kernel", r.kernel},
          {"recipe", r.variant},
          {"shared_requests",
           {{"load", r.ld_requests}, {"store", r.st_requests}, {"atomic", r.atom_requests}}},
          {"global_sectors_per_request", r.sectors},
          {"global_ideal_sectors_per_request", r.ideal_sectors},
          {"divergent_branches", r.divergent},
          {"branches", r.branches},
          {"findings", r.findings}};
      for (size_t m = 0; m < models.size() && m < r.ld_per.size(); ++m) {
        auto value = [](double v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); };
        j["wavefronts_per_request"]["load"][models[m]->name()] = value(r.ld_per[m]);
        j["wavefronts_per_request"]["store"][models[m]->name()] = value(r.st_per[m]);
      }
      if (!r.error.empty()) j["error"] = r.error;
      arr.push_back(j);
    }
    fmt::print("{}\n", nlohmann::json{{"kernels", arr}}.dump(1));
  } else {
    if (bench.is_array() && !bench.empty())
      fmt::print(
          "GPU rows: {} from `smemlab bench` on {}, {} (time, rate, % of the anchor measured in "
          "that "
          "run)\n\n",
          o.bench, bench[0].value("device", "?"), bench[0].value("date", "?"));
    fmt::print("{:<30} {:>11} | {:^31} | {:^15} | {:>13} | {:>9} | {:>4}\n",
               "kernel (emulated recipe)", "shared", "load wavefronts / request", "store wf / req",
               "global sect.", "divergent", "find");
    fmt::print("{:<30} {:>11} | {:>7}{:>8}{:>8}{:>8} | {:>7}{:>8} | {:>13} | {:>9} | {:>4}\n", "",
               "ld/st req", "sm_90", "sm_20", "sm_35:4", "sm_35:8", "sm_90", "sm_35:4",
               "per req (ideal)", "branches", "ings");
    auto cell = [](double v) { return v < 0 ? std::string("-") : fmt::format("{:.2f}", v); };
    std::string last_file;
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      if (r.file != last_file) fmt::print("{}\n", r.file);
      last_file = r.file;
      if (!r.error.empty() && r.ld_per.empty()) {
        fmt::print("  {:<28} error: {}\n", r.kernel.substr(0, 28), r.error);
        continue;
      }
      std::string label = r.variant > 1 ? fmt::format("{} #{}", r.kernel, r.variant) : r.kernel;
      std::string sectors =
          r.sectors > 0 ? fmt::format("{:.2f} ({:.2f})", r.sectors, r.ideal_sectors) : "-";
      fmt::print("  {:<28} {:>11} | {:>7}{:>8}{:>8}{:>8} | {:>7}{:>8} | {:>13} | {:>9} | {:>4}{}\n",
                 label.substr(0, 28), fmt::format("{}/{}", r.ld_requests, r.st_requests),
                 cell(r.ld_per[0]), cell(r.ld_per[1]), cell(r.ld_per[2]), cell(r.ld_per[3]),
                 cell(r.st_per[0]), cell(r.st_per[2]), sectors,
                 fmt::format("{}/{}", r.divergent, r.branches), r.findings,
                 r.error.empty() ? "" : "  (stopped: " + r.error + ")");
      if (i + 1 == rows.size() || rows[i + 1].file != r.file) print_gpu_rows(bench, r.file);
    }
    fmt::print(
        "\nwavefronts per request: 1 = conflict-free for 4-byte accesses (2 and 4 are the floors "
        "for 8 and 16\n"
        "bytes on sm_90). Counts come from the PTX emulator on each kernel's recipe line; sm_90 is "
        "measured\n"
        "on an H100, the others follow the CUDA guides (docs/bank-model.md).\n");
  }
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd =
      app.add_subcommand("report", "Analyze every kernel of the bundled suite (the main job)");
  cmd->add_option("--kernels", o->kernels, "folder of .cu files with `// smemlab:` recipes")
      ->capture_default_str();
  cmd->add_option("--bench", o->bench,
                  "results of `smemlab bench --json` to show beside the analysis");
  cmd->add_option("--filter", o->filter, "only kernels whose name contains this");
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->add_option("--html", o->html,
                  "also write the table as a chart page (one self-contained file) to FILE");
  cmd->callback([o] { report(*o); });
}

}  // namespace smemlab::cli
