#include "session/launch_analysis.h"

#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <sstream>

#include "check/observer_set.h"
#include "check/source_lines.h"
#include "sass/regroup.h"
#include "session/schedule_compare.h"
#include "timing/constant_loads.h"
#include "timing/dependence.h"
#include "timing/gpu.h"
#include "timing/phases.h"

namespace smemlab::session {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep))
    if (!part.empty()) out.push_back(part);
  return out;
}

check::MemoryLayout layout_of(const emu::Program& prog) {
  check::MemoryLayout l;
  for (const auto& v : prog.shared_vars) l.shared.push_back({v.name, v.offset, v.size});
  l.dynamic_offset = prog.static_shared;
  l.frame_bytes = prog.frame_bytes;
  return l;
}

}  // namespace

std::vector<std::unique_ptr<bank::Model>> parse_models(const std::string& archs) {
  if (archs == "all") return bank::all_generations();
  std::vector<std::unique_ptr<bank::Model>> models;
  for (const auto& a : split(archs, ',')) {
    try {
      models.push_back(bank::make_model(a));
    } catch (const bank::Error& e) {
      throw OptionError(fmt::format("--arch: {}", e.what()));
    }
  }
  if (models.empty()) throw OptionError("--arch: no architecture given");
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
      throw OptionError(
          fmt::format("--blocks: expected 'all' or a positive count, got '{}'", spec));
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

// The emulator stops on errors a GPU would trap on or hang at; they are
// findings of `check` too.
check::FindingKind finding_kind_of(emu::FaultKind kind) {
  switch (kind) {
#define SMEMLAB_FAULT(id, name, cuda_error, exit, finding, description) \
  case emu::FaultKind::id:                                              \
    return check::FindingKind::finding;
#include "emu/fault_kinds.def"
  }
  return check::FindingKind::Internal;  // (not reached: the switch covers every row)
}

check::FindingKind finding_kind_of(const emu::LaunchError& e) {
  // A warp collective that never completes has a member mask naming lanes
  // that do not come: the warp-level form of a divergent barrier.
  if (e.kind == emu::FaultKind::Deadlock && e.op_class == emu::OpClass::Collective)
    return check::FindingKind::DivergentBarrier;
  return finding_kind_of(e.kind);
}

check::Finding finding_from(const emu::LaunchError& e, emu::Dim3 dim) {
  check::Finding f;
  f.kind = finding_kind_of(e);
  f.severity = check::Severity::Error;
  f.message = check::shown_paths_in(e.message);  // where it happened is in `involved`
  if (e.source_line > 0) f.where = {check::shown_path(e.source_file), e.source_line};
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

void analyze_launch(emu::Module& m, const std::string& kernel, emu::LaunchConfig cfg,
                    const std::vector<emu::ArgBytes>& args,
                    std::vector<std::unique_ptr<bank::Model>> models, LaunchAnalysis* out,
                    sass::Level level, const std::string& ptx_text, emu::KernelObserver* extra,
                    Analyses what, const std::vector<emu::Schedule>& compare) {
  // The level only matters to the counts: findings are always of the PTX.
  if (what == Analyses::FindingsOnly) level = sass::Level::Ptx;
  analyze_launch(m, kernel, std::move(cfg), args, std::move(models), out,
                 sass::choose_level(level, ptx_text, m.ptx(), kernel, m.kernel(kernel)), extra,
                 what, compare);
}

namespace {

// The padding what-if's buffers: the kernel's .shared variables and the
// launch's dynamic window.
std::vector<check::PaddingBuffer> padding_spans(const emu::Program& p,
                                                const emu::LaunchConfig& cfg) {
  std::vector<check::PaddingBuffer> spans;
  for (const auto& v : p.shared_vars)
    spans.push_back(check::padding_span(v.name, v.offset, v.size));
  if (cfg.dynamic_shared)
    spans.push_back(check::padding_span("", p.static_shared, cfg.dynamic_shared));
  return spans;
}

}  // namespace

void analyze_launch(emu::Module& m, const std::string& kernel, emu::LaunchConfig cfg,
                    const std::vector<emu::ArgBytes>& args,
                    std::vector<std::unique_ptr<bank::Model>> models, LaunchAnalysis* out,
                    sass::KernelLevel level, emu::KernelObserver* extra, Analyses what,
                    const std::vector<emu::Schedule>& compare) {
  bool counts = what != Analyses::FindingsOnly, checks = what != Analyses::Counts;
  if (counts) {
    out->banks = std::make_unique<check::BankAnalysis>(std::move(models));
    out->swizzle = std::make_unique<check::SwizzleWhatIf>(out->banks->models().front().get());
    out->padding = std::make_unique<check::PaddingWhatIf>(out->banks->models().front().get(),
                                                          padding_spans(m.kernel(kernel), cfg));
  }
  if (checks) out->defects = std::make_unique<check::DefectCheck>(layout_of(m.kernel(kernel)));
  out->level = std::move(level);
  check::ObserverSet counted;
  if (counts) {
    counted.add(out->banks.get());
    counted.add(&out->access);
    counted.add(&out->hopper);
    counted.add(out->swizzle.get());
    counted.add(out->padding.get());
    counted.add(&out->footprint);
  }
  sass::Regroup regroup(&counted, &out->level.map);
  check::ObserverSet set;
  if (counts && out->level.map.regroups())
    set.add(&regroup);
  else if (counts)
    set.add(&counted);
  if (checks) set.add(out->defects.get());
  if (extra) set.add(extra);
  cfg.observer = &set;
  std::optional<ScheduleComparison> comparison;
  if (!compare.empty()) comparison.emplace(m.device().memory(), compare);
  out->status = emu::launch_raw(m, kernel, cfg, args);

  if (checks) out->findings = out->defects->findings();
  if (out->status.error) out->findings.push_back(finding_from(*out->status.error, cfg.block));
  if (comparison)
    for (check::Finding& f : comparison->compare(m, kernel, cfg, args, out->status))
      out->findings.push_back(std::move(f));

  report::RunInfo& r = out->info;
  r.mangled = kernel;
  r.kernel = demangle(kernel);
  r.grid = cfg.grid;
  r.block = cfg.block;
  r.dynamic_shared = cfg.dynamic_shared;
  r.defects_checked = checks;
  r.blocks_total = cfg.grid.count();
  r.blocks_observed = counts ? out->banks->blocks_observed() : out->status.blocks_run;
  r.level = out->level.level;
  r.level_reason = out->level.reason;
  r.unmapped = out->level.map.notes;
  r.regroup_fallbacks = regroup.fallbacks();
  r.static_shared = m.kernel(kernel).static_shared;
  r.registers = out->level.registers;
  if (!cfg.only_blocks.empty()) {
    r.sampling = fmt::format(
        "{} blocks spread evenly over the grid{}; counts scaled by {:.3f}", cfg.only_blocks.size(),
        r.blocks_observed > cfg.only_blocks.size()
            ? fmt::format(" (with the rest of their clusters: {} blocks)", r.blocks_observed)
            : "",
        report::scale(r));
    if (counts) {
      out->banks->scale(report::scale(r));
      out->access.scale(report::scale(r));
      out->hopper.scale(report::scale(r));
      out->swizzle->scale(report::scale(r));
      out->padding->scale(report::scale(r));
    }
  }
  if (counts) {
    r.footprint_bytes =
        out->footprint.bytes(m.device().memory(), report::scale(r), timing::h100().dram_granule);
    r.l1_reuse = out->footprint.l1_reuse().profile();
    r.l1_block_bytes = out->footprint.l1_reuse().bytes_per_block();
    r.partial_store_sectors = double(out->footprint.partial_store_sectors()) * report::scale(r);
    r.dependent_issue =
        timing::dependent_issue_cycles(m.kernel(kernel), timing::h100().latency_alu);
    r.phase = timing::barrier_phases(m.kernel(kernel));
    r.folded_constant_loads = timing::folded_constant_loads(m.kernel(kernel));
  }
}

}  // namespace smemlab::session
