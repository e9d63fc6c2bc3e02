#include "cli/analysis_run.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "check/observer_set.h"
#include "sass/regroup.h"

namespace smemlab::cli {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep))
    if (!part.empty()) out.push_back(part);
  return out;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

check::MemoryLayout layout_of(const emu::Program& prog) {
  check::MemoryLayout l;
  for (const auto& v : prog.shared_vars) l.shared.push_back({v.name, v.offset, v.size});
  l.dynamic_offset = prog.static_shared;
  l.frame_bytes = prog.frame_bytes;
  return l;
}

// "file.cu:12 (inlined h.cuh:3)" -> {file.cu, 12}
check::SourceLine parse_source(const std::string& s) {
  std::string outer = s.substr(0, s.find(" ("));
  auto colon = outer.rfind(':');
  if (colon == std::string::npos) return {};
  try {
    return {outer.substr(0, colon), std::stoi(outer.substr(colon + 1))};
  } catch (const std::exception&) {
    return {};
  }
}

// The emulator stops on errors a GPU would trap on or hang at; they are
// findings of `check` too.
check::Finding finding_from(const emu::LaunchError& e, emu::Dim3 dim) {
  check::Finding f;
  // A warp collective that never completes has a member mask naming lanes
  // that do not come: the warp-level form of a divergent barrier.
  bool collective = e.instruction.rfind("shfl", 0) == 0 || e.instruction.rfind("vote", 0) == 0 ||
                    e.instruction.rfind("match", 0) == 0 || e.instruction.rfind("redux", 0) == 0 ||
                    e.instruction.rfind("bar.warp", 0) == 0 ||
                    e.instruction.rfind("activemask", 0) == 0;
  f.kind = e.kind == "deadlock"  ? (collective ? "divergent-barrier" : "barrier-deadlock")
           : e.kind == "barrier" ? "divergent-barrier"
                                 : e.kind;
  f.severity = check::Severity::Error;
  f.message = check::shown_paths_in(e.message);  // where it happened is in `involved`
  f.where = parse_source(check::shown_paths_in(e.source));
  check::Involved v;
  v.role = "stopped";
  v.where = f.where;
  v.ptx_line = e.ptx_line;
  v.instr = e.instruction;
  v.block = e.block;
  v.thread = e.has_thread ? e.thread.x + dim.x * (e.thread.y + dim.y * e.thread.z) : 0;
  f.involved.push_back(v);
  return f;
}

}  // namespace

std::vector<std::unique_ptr<bank::Model>> parse_models(const std::string& archs) {
  if (archs == "all") return bank::all_generations();
  std::vector<std::unique_ptr<bank::Model>> models;
  for (const auto& a : split(archs, ',')) {
    try {
      models.push_back(bank::make_model(a));
    } catch (const bank::Error& e) {
      throw UsageError(fmt::format("--arch: {}", e.what()));
    }
  }
  if (models.empty()) throw UsageError("--arch: no architecture given");
  return models;
}

std::vector<emu::Dim3> sample_blocks(emu::Dim3 grid, const std::string& spec) {
  uint64_t total = grid.count(), n = kDefaultSample;
  if (spec == "all") return {};
  if (!spec.empty()) {
    try {
      size_t pos = 0;
      n = std::stoull(spec, &pos);
      if (pos != spec.size() || n == 0) throw std::invalid_argument(spec);
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--blocks: expected 'all' or a positive count, got '{}'", spec));
    }
  }
  if (n >= total) return {};
  std::vector<emu::Dim3> out;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t b = n == 1 ? 0 : i * (total - 1) / (n - 1);
    out.push_back({static_cast<uint32_t>(b % grid.x), static_cast<uint32_t>(b / grid.x % grid.y),
                   static_cast<uint32_t>(b / (uint64_t{grid.x} * grid.y))});
  }
  return out;
}

void run_analyses(const LaunchOptions& o, const std::string& archs, AnalysisRun* out,
                  const std::string& blocks, sass::Level level) {
  auto models = parse_models(archs);
  prepare_launch(o, &out->prepared);
  Prepared& p = out->prepared;
  p.config.only_blocks = sample_blocks(p.config.grid, blocks);
  out->banks = std::make_unique<check::BankAnalysis>(std::move(models));
  out->defects = std::make_unique<check::DefectCheck>(layout_of(p.module->kernel(p.kernel)));
  out->level = sass::choose_level(level, read_text(p.input.ptx_path), p.module->ptx(), p.kernel,
                                  p.module->kernel(p.kernel));
  check::ObserverSet counted;
  counted.add(out->banks.get());
  counted.add(&out->access);
  sass::Regroup regroup(&counted, &out->level.map);
  check::ObserverSet set;
  if (out->level.map.regroups())
    set.add(&regroup);
  else
    set.add(&counted);
  set.add(out->defects.get());
  p.config.observer = &set;
  out->status = emu::launch_raw(*p.module, p.kernel, p.config, p.args.bytes);
  p.config.observer = nullptr;
  stop_if_interrupted();

  out->findings = out->defects->findings();
  if (out->status.error) out->findings.push_back(finding_from(*out->status.error, p.config.block));

  report::RunInfo& r = out->info;
  r.source = o.file;
  r.mangled = p.kernel;
  r.kernel = demangle(p.kernel);
  r.grid = p.config.grid;
  r.block = p.config.block;
  r.dynamic_shared = p.config.dynamic_shared;
  r.blocks_total = p.config.grid.count();
  r.blocks_observed = out->banks->blocks_observed();
  r.level = out->level.level;
  r.level_reason = out->level.reason;
  r.unmapped = out->level.map.notes;
  r.regroup_fallbacks = regroup.fallbacks();
  if (!p.config.only_blocks.empty()) {
    r.sampling = fmt::format("{} blocks spread evenly over the grid; counts scaled by {:.3f}",
                             p.config.only_blocks.size(), report::scale(r));
    out->banks->scale(report::scale(r));
    out->access.scale(report::scale(r));
  }
  if (o.file.ends_with(".cu")) out->source_lines = read_lines(o.file);
}

std::vector<Recipe> recipes_of(const std::string& file) {
  std::vector<Recipe> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    auto at = line.find("// smemlab:");
    if (at == std::string::npos) continue;
    Recipe r;
    r.line = line.substr(at + 11);
    auto words = split(r.line, ' ');
    for (size_t i = 0; i + 1 < words.size(); ++i)
      if (words[i] == "--kernel") r.kernel = words[i + 1];
    if (!r.kernel.empty()) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace smemlab::cli
