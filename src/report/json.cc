#include <fmt/format.h>

#include "report/hopper.h"
#include "report/report.h"
#include "report/timing.h"

namespace smemlab::report {

using nlohmann::json;

double scale(const RunInfo& run) {
  if (run.blocks_observed == 0 || run.blocks_observed == run.blocks_total) return 1.0;
  return double(run.blocks_total) / double(run.blocks_observed);
}

namespace {

json dims(emu::Dim3 d) { return json::array({d.x, d.y, d.z}); }

json bank_json(const check::BankCounts& c) {
  json j = {{"requests", c.requests},
            {"wavefronts", c.wavefronts},
            {"ideal", c.ideal},
            {"bank_conflicts", c.bank_conflicts},
            {"excess", c.wavefronts - c.ideal},
            {"max_ways", c.max_ways}};
  if (c.requests) j["avg_ways"] = double(c.wavefronts) / double(std::max<uint64_t>(c.ideal, 1));
  if (c.worst_wavefronts != c.wavefronts) j["worst_case_wavefronts"] = c.worst_wavefronts;
  if (c.unmodelled) j["unmodelled_requests"] = c.unmodelled;
  return j;
}

json sectors_json(const check::SectorCounts& c) {
  json j = {{"requests", c.requests},
            {"sectors", c.sectors},
            {"ideal_sectors", c.ideal_sectors},
            {"bytes", c.bytes}};
  if (c.sectors) j["efficiency"] = double(c.bytes) / (32.0 * double(c.sectors));
  if (c.requests) j["sectors_per_request"] = double(c.sectors) / double(c.requests);
  return j;
}

json worst_json(const check::WorstRequest& w) {
  json lanes = json::array();
  for (unsigned i = 0; i < 32; ++i)
    lanes.push_back((w.request.mask >> i & 1u) ? json(w.request.addr[i]) : json(nullptr));
  return {{"block", dims(w.block)},   {"warp", w.warp},
          {"width", w.request.width}, {"mask", fmt::format("{:#010x}", w.request.mask)},
          {"addresses", lanes},       {"wavefronts", w.result.wavefronts},
          {"ideal", w.result.ideal}};
}

json model_json(const check::ModelCounts& m) {
  json j;
  for (int op = 0; op < check::kSharedOps; ++op) {
    // ldmatrix/stmatrix only where a kernel has them (a document without
    // them is unchanged).
    const auto sop = static_cast<check::SharedOp>(op);
    const bool matrix = sop == check::SharedOp::LdMatrix || sop == check::SharedOp::StMatrix;
    if (!matrix || m.op[op].requests) j[check::shared_op_name(sop)] = bank_json(m.op[op]);
  }
  if (m.worst && m.worst->result.wavefronts > m.worst->result.ideal)
    j["worst"] = worst_json(*m.worst);
  return j;
}

// Per source line: memory classes and branches from AccessAnalysis.
struct AccessLine {
  check::SectorCounts cls[check::kAccessClasses];
  check::BranchCounts branches;
  check::ExecCounts exec;
  bool any = false;
};

std::map<check::SourceLine, AccessLine> access_lines(const check::AccessAnalysis& a) {
  std::map<check::SourceLine, AccessLine> out;
  for (const auto& [pc, s] : a.accesses())
    for (const auto& where : check::lines_of(a.kernel().lines, s.instr->loc)) {
      out[where].cls[static_cast<int>(s.cls)].add(s.counts);
      out[where].any = true;
    }
  for (const auto& [pc, b] : a.branches())
    for (const auto& where : check::lines_of(a.kernel().lines, b.instr->loc)) {
      out[where].branches.add(b.counts);
      out[where].any = true;
    }
  for (const auto& [pc, e] : a.executed())
    for (const auto& where : check::lines_of(a.kernel().lines, e.first->loc)) {
      out[where].exec.add(e.second);
      out[where].any = true;
    }
  return out;
}

void add_access(json& j, const AccessLine& l) {
  for (int c = 0; c < check::kAccessClasses; ++c)
    if (l.cls[c].requests)
      j[check::access_class_name(static_cast<check::AccessClass>(c))] = sectors_json(l.cls[c]);
  if (l.branches.uniform + l.branches.divergent)
    j["branches"] = {{"uniform", l.branches.uniform}, {"divergent", l.branches.divergent}};
  if (l.exec.steps) {
    j["warp_instructions"] = l.exec.steps;
    j["simt_efficiency"] = l.exec.efficiency();
  }
}

}  // namespace

json level_json(const RunInfo& run) {
  json unmapped = json::array();
  for (const auto& n : run.unmapped)
    unmapped.push_back({{"where", n.where},
                        {"ptx_line", n.ptx_line},
                        {"instruction", n.instr},
                        {"reason", n.reason}});
  json j = {{"name", sass::level_name(run.level)}, {"reason", run.level_reason}};
  if (run.level == sass::Level::Sass) {
    j["unmapped"] = unmapped;
    j["regroup_fallbacks"] = run.regroup_fallbacks;
  }
  return j;
}

std::string level_text(const RunInfo& run) {
  std::string out = fmt::format("level {} ({})\n", sass::level_name(run.level), run.level_reason);
  for (const auto& n : run.unmapped)
    out += fmt::format("  counted at PTX level: {} {} (PTX line {}): {}\n", n.where, n.instr,
                       n.ptx_line, n.reason);
  if (run.regroup_fallbacks)
    out += fmt::format(
        "  {} warp executions of merged SASS instructions did not match the map and "
        "were counted at PTX level\n",
        run.regroup_fallbacks);
  return out;
}

json findings_json(const std::vector<check::Finding>& findings) {
  json arr = json::array();
  for (const auto& f : findings) {
    json inv = json::array();
    for (const auto& v : f.involved)
      inv.push_back({{"role", v.role},
                     {"file", v.where.file},
                     {"line", v.where.line},
                     {"ptx_line", v.ptx_line},
                     {"instruction", v.instr},
                     {"block", dims(v.block)},
                     {"thread", v.thread}});
    arr.push_back({{"kind", check::name(f.kind)},
                   {"severity", check::severity_name(f.severity)},
                   {"message", f.message},
                   {"file", f.where.file},
                   {"line", f.where.line},
                   {"count", f.count},
                   {"accesses", inv}});
  }
  return arr;
}

json api_error_json(const check::Finding& f) { return {{"api_error", findings_json({f}).at(0)}}; }

json check_launch_json(const RunInfo& run, uint64_t blocks_checked,
                       const std::vector<check::Finding>& findings, int64_t launch) {
  json j = {{"kernel", run.kernel},
            {"mangled", run.mangled},
            {"source", run.source},
            {"grid", dims(run.grid)},
            {"block", dims(run.block)},
            {"shared_bytes", run.dynamic_shared},
            {"blocks_checked", blocks_checked},
            {"blocks_total", run.blocks_total},
            {"findings", findings_json(findings)}};
  if (launch >= 0) {
    j["launch"] = launch;
    j["module"] = run.source;
  }
  return j;
}

json analyze_json(const Analysis& a) {
  const auto& models = a.banks->models();
  json j;
  j["kernel"] = a.run.kernel;
  j["mangled"] = a.run.mangled;
  j["source"] = a.run.source;
  j["arch"] = models.front()->name();
  json archs = json::array();
  for (const auto& m : models) archs.push_back(m->name());
  j["archs"] = archs;
  j["launch"] = {{"grid", dims(a.run.grid)},
                 {"block", dims(a.run.block)},
                 {"dynamic_shared", a.run.dynamic_shared},
                 {"blocks_total", a.run.blocks_total},
                 {"blocks_observed", a.run.blocks_observed},
                 {"scale", scale(a.run)}};
  if (!a.run.sampling.empty()) j["launch"]["sampling"] = a.run.sampling;
  j["level"] = level_json(a.run);

  auto totals = a.banks->totals();
  j["totals"] = model_json(totals[0]);
  std::map<check::SourceLine, AccessLine> acc;
  if (a.access) {
    acc = access_lines(*a.access);
    AccessLine all;
    for (const auto& [pc, s] : a.access->accesses()) all.cls[static_cast<int>(s.cls)].add(s.counts);
    for (const auto& [pc, b] : a.access->branches()) all.branches.add(b.counts);
    for (const auto& [pc, e] : a.access->executed()) all.exec.add(e.second);
    add_access(j["totals"], all);
    if (!j["totals"].contains("branches"))
      j["totals"]["branches"] = {{"uniform", 0}, {"divergent", 0}};
    for (const char* k : {"global_load", "global_store", "global_atomic", "global_reduction"})
      if (!j["totals"].contains(k)) j["totals"][k] = sectors_json({});
  }

  // Hopper's families, where the kernel has their requests (a classic
  // kernel's document is unchanged).
  std::map<check::SourceLine, check::HopperLine> hopper;
  if (a.hopper) {
    add_hopper_json(j["totals"], a.hopper->totals());
    hopper = a.hopper->lines();
  }

  // Lines: union of the bank, access and Hopper lines.
  auto bank_lines = a.banks->lines();
  std::map<check::SourceLine, json> lines;
  for (const auto& l : bank_lines) {
    json& o = lines[l.where];
    json m = model_json(l.models[0]);
    o.update(m);
  }
  for (const auto& [where, l] : acc) add_access(lines[where], l);
  for (const auto& [where, l] : hopper)
    if (l.any()) add_hopper_json(lines[where], l);
  json arr = json::array();
  json empty_banks = model_json(check::ModelCounts{});
  for (auto& [where, o] : lines) {
    for (const char* k : {"load", "store", "atomic"})
      if (!o.contains(k)) o[k] = empty_banks[k];
    if (a.access) {
      for (const char* k : {"global_load", "global_store"})
        if (!o.contains(k)) o[k] = sectors_json({});
      if (!o.contains("branches")) o["branches"] = {{"uniform", 0}, {"divergent", 0}};
    }
    o["file"] = where.file;
    o["line"] = where.line;
    arr.push_back(std::move(o));
  }
  j["lines"] = arr;

  if (models.size() > 1) {
    json what_if;
    for (size_t m = 1; m < models.size(); ++m) {
      json per_line = json::array();
      for (const auto& l : bank_lines) {
        json o = model_json(l.models[m]);
        o["file"] = l.where.file;
        o["line"] = l.where.line;
        per_line.push_back(std::move(o));
      }
      what_if[models[m]->name()] = {{"description", models[m]->description()},
                                    {"totals", model_json(totals[m])},
                                    {"lines", per_line}};
    }
    j["what_if"] = what_if;
  }
  if (a.access) {
    // The main GPU's prediction, then each other --arch's GPUs (report/timing.h).
    const std::vector<GpuPrediction> gpus = predict_gpus(a);
    j["timing"] = timing_json(gpus.front());
    if (gpus.size() > 1) {
      json others = json::array();
      for (size_t i = 1; i < gpus.size(); ++i) others.push_back(timing_json(gpus[i]));
      j["timing_what_if"] = std::move(others);
    }
  }
  if (a.swizzle) {
    json w = swizzle_json(*a.swizzle);
    // The launch's predicted time under each mode (report/timing.h).
    std::vector<SwizzleTimes> times = swizzle_times_ns(a);
    for (size_t i = 0; i < w.size() && i < times.size(); ++i) {
      json t = json::object();
      for (int m = 0; m < check::kSwizzleModes; ++m)
        t[check::swizzle_mode_name(m)] = times[i][m] ? json(*times[i][m]) : json(nullptr);
      w[i]["predicted_ns"] = std::move(t);
    }
    if (!w.empty()) j["swizzle_what_if"] = std::move(w);
    if (json d = descriptor_json(*a.swizzle); !d.empty()) j["descriptor_what_if"] = std::move(d);
  }
  if (a.padding) {
    json w = padding_json(*a.padding);
    if (!w.empty()) j["padding_what_if"] = std::move(w);
  }
  if (a.banks->cp_async_requests())
    j["unmodelled"] = {{"cp_async_shared_requests", a.banks->cp_async_requests()}};
  if (a.findings) {
    j["findings"] = findings_json(*a.findings);
    j["defects_checked"] = a.run.defects_checked;
  }
  return j;
}

}  // namespace smemlab::report
