#include <fmt/format.h>

#include <string>

#include "check/finding_kinds.h"
#include "report/hopper.h"
#include "report/report.h"
#include "report/timing.h"

namespace smemlab::report {

using nlohmann::json;

namespace {

json location(const check::SourceLine& where) {
  return json::array({{{"physicalLocation",
                        {{"artifactLocation", {{"uri", where.file}}},
                         {"region", {{"startLine", std::max(where.line, 1)}}}}}}});
}

}  // namespace

json sarif_log(json rules, json results, json properties) {
  json run = {
      {"tool",
       {{"driver", {{"name", "smemlab"}, {"version", "0.1.0"}, {"rules", std::move(rules)}}}}},
      {"results", std::move(results)}};
  if (!properties.is_null()) run["properties"] = std::move(properties);
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({std::move(run)})}};
}

namespace {

// analyze's own rules (its hints; findings have finding_rules).
json analyze_rules() {
  return json::array(
      {{{"id", "bank-conflict"},
        {"shortDescription", {{"text", "Shared-memory bank conflicts: wavefronts above ideal"}}}},
       {{"id", "uncoalesced"},
        {"shortDescription",
         {{"text", "Global or local accesses move more 32-byte sectors than needed"}}}},
       {{"id", "divergent-branch"},
        {"shortDescription", {{"text", "A branch splits warps: each side runs in turn"}}}}});
}

// analyze's hints of one launch: a result per line with excess wavefronts,
// excess sectors or divergent branches.
json analyze_results(const Analysis& a) {
  json results = json::array();
  const std::string arch = a.banks->models().front()->name();
  for (const auto& l : a.banks->lines()) {
    const auto& m = l.models[0];
    uint64_t excess = 0, wf = 0, ideal = 0, req = 0;
    for (const auto& c : m.op) {
      excess += c.wavefronts - c.ideal;
      wf += c.wavefronts;
      ideal += c.ideal;
      req += c.requests;
    }
    if (!excess) continue;
    results.push_back(
        {{"ruleId", "bank-conflict"},
         {"level", "warning"},
         {"message",
          {{"text",
            fmt::format("{} excess shared-memory wavefronts on {} ({} wavefronts for {} requests, "
                        "ideal {}; worst request {}-way)",
                        excess, arch, wf, req, ideal, m.worst ? m.worst->result.ways : 0u)}}},
         {"locations", location(l.where)},
         {"properties", {{"excess_wavefronts", excess}, {"arch", arch}}}});
  }
  if (a.access) {
    std::map<check::SourceLine, check::SectorCounts> by_line;
    for (const auto& [pc, s] : a.access->accesses())
      for (const auto& where : check::lines_of(a.access->kernel().lines, s.instr->loc))
        by_line[where].add(s.counts);
    for (const auto& [where, c] : by_line) {
      if (c.sectors <= c.ideal_sectors) continue;
      results.push_back(
          {{"ruleId", "uncoalesced"},
           {"level", "note"},
           {"message",
            {{"text", fmt::format("{} sectors moved where {} would carry the {} bytes requested "
                                  "({:.1f} sectors per request)",
                                  c.sectors, c.ideal_sectors, c.bytes,
                                  double(c.sectors) / double(std::max<uint64_t>(c.requests, 1)))}}},
           {"locations", location(where)},
           {"properties", {{"excess_sectors", c.sectors - c.ideal_sectors}}}});
    }
  }
  if (a.access) {
    std::map<check::SourceLine, check::BranchCounts> by_line;
    for (const auto& [pc, b] : a.access->branches())
      if (b.counts.divergent)
        for (const auto& where : check::lines_of(a.access->kernel().lines, b.instr->loc))
          by_line[where].add(b.counts);
    for (const auto& [where, c] : by_line)
      results.push_back(
          {{"ruleId", "divergent-branch"},
           {"level", "note"},
           {"message",
            {{"text", fmt::format("{} of {} warp executions of this line's branches split the warp",
                                  c.divergent, c.divergent + c.uniform)}}},
           {"locations", location(where)},
           {"properties", {{"divergent", c.divergent}, {"uniform", c.uniform}}}});
  }
  return results;
}

// The run's properties: the counting level, the Hopper totals, the
// swizzle and padding what-ifs and the predicted times (analyze --json's).
json analyze_properties(const Analysis& a) {
  json properties = {{"level", level_json(a.run)}};
  // Hopper's counter families have no rule to break yet (their wavefront
  // rules are being measured): the kernel's totals ride in the run's
  // properties, where the kernel has any.
  if (a.hopper) {
    json h = json::object();
    add_hopper_json(h, a.hopper->totals());
    if (!h.empty()) properties["hopper"] = h;
  }
  if (a.swizzle) {
    if (json w = swizzle_json(*a.swizzle); !w.empty()) properties["swizzle_what_if"] = w;
    if (json d = descriptor_json(*a.swizzle); !d.empty()) properties["descriptor_what_if"] = d;
  }
  if (a.padding)
    if (json w = padding_json(*a.padding); !w.empty()) properties["padding_what_if"] = w;
  // The predicted time, as analyze --json's `timing` and `timing_what_if`.
  const std::vector<GpuPrediction> gpus = predict_gpus(a);
  if (!gpus.empty()) properties["timing"] = timing_json(gpus.front());
  for (size_t i = 1; i < gpus.size(); ++i)
    properties["timing_what_if"].push_back(timing_json(gpus[i]));
  return properties;
}

}  // namespace

json analyze_sarif(const Analysis& a) {
  return sarif_log(analyze_rules(), analyze_results(a), analyze_properties(a));
}

namespace {

// Every finding kind's rule (finding_kinds.def): a result's ruleId always
// names one.
json finding_rules() {
  json rules = json::array();
  for (const check::FindingKindInfo& k : check::finding_kinds())
    rules.push_back({{"id", k.name}, {"shortDescription", {{"text", k.description}}}});
  return rules;
}

json finding_result(const check::Finding& f) {
  return {{"ruleId", check::name(f.kind)},
          {"level", f.severity == check::Severity::Error ? "error" : "warning"},
          {"message", {{"text", f.message}}},
          {"locations", location(f.where)},
          {"properties", {{"count", f.count}}}};
}

}  // namespace

json check_sarif(const RunInfo&, const std::vector<check::Finding>& findings) {
  json results = json::array();
  for (const auto& f : findings) results.push_back(finding_result(f));
  return sarif_log(finding_rules(), std::move(results));
}

namespace {

// A program-mode result names its launch: index, kernel, grid, block, module.
void add_launch(json& r, const RunInfo& run, int64_t launch) {
  for (json& loc : r["locations"])
    loc["logicalLocations"] = json::array({{{"name", run.kernel}, {"kind", "function"}}});
  r["properties"]["launch"] = launch;
  r["properties"]["kernel"] = run.kernel;
  r["properties"]["grid"] = {run.grid.x, run.grid.y, run.grid.z};
  r["properties"]["block"] = {run.block.x, run.block.y, run.block.z};
  r["properties"]["module"] = run.source;
}

json program_command_line(const std::vector<std::string>& program) {
  json commandLine = json::array();
  for (const auto& a : program) commandLine.push_back(a);
  return commandLine;
}

}  // namespace

json program_check_sarif(const std::vector<CheckedLaunch>& launches,
                         const std::vector<std::string>& program,
                         const std::vector<check::Finding>& api_errors) {
  json results = json::array();
  for (const check::Finding& f : api_errors) {
    json r = finding_result(f);
    r.erase("locations");  // the program's, not a line's
    r["properties"]["api"] = true;
    results.push_back(std::move(r));
  }
  for (const CheckedLaunch& l : launches)
    for (const auto& f : l.findings) {
      json r = finding_result(f);
      add_launch(r, l.run, l.launch);
      results.push_back(std::move(r));
    }
  return sarif_log(finding_rules(), std::move(results),
                   {{"program", program_command_line(program)},
                    {"launches_checked", launches.size()},
                    {"api_errors", api_errors.size()}});
}

json analyze_launch_sarif_results(const Analysis& a, int64_t launch) {
  json results = analyze_results(a);
  if (a.findings)
    for (const auto& f : *a.findings) results.push_back(finding_result(f));
  for (json& r : results) add_launch(r, a.run, launch);
  return results;
}

json program_analyze_sarif(const std::vector<json>& launches,
                           const std::vector<std::string>& program) {
  json rules = analyze_rules();
  for (json& r : finding_rules()) rules.push_back(std::move(r));
  json results = json::array();
  for (const json& l : launches)
    for (const json& r : l) results.push_back(r);
  return sarif_log(
      std::move(rules), std::move(results),
      {{"program", program_command_line(program)}, {"launches_analyzed", launches.size()}});
}

}  // namespace smemlab::report
