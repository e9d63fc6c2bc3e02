#include <fmt/format.h>

#include <string>

#include "check/finding_kinds.h"
#include "report/hopper.h"
#include "report/report.h"

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

json analyze_sarif(const Analysis& a) {
  json rules = json::array(
      {{{"id", "bank-conflict"},
        {"shortDescription", {{"text", "Shared-memory bank conflicts: wavefronts above ideal"}}}},
       {{"id", "uncoalesced"},
        {"shortDescription",
         {{"text", "Global or local accesses move more 32-byte sectors than needed"}}}},
       {{"id", "divergent-branch"},
        {"shortDescription", {{"text", "A branch splits warps: each side runs in turn"}}}}});
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
  json properties = {{"level", level_json(a.run)}};
  // Hopper's counter families have no rule to break yet (their wavefront
  // rules are being measured): the kernel's totals ride in the run's
  // properties, where the kernel has any.
  if (a.hopper) {
    json h = json::object();
    add_hopper_json(h, a.hopper->totals());
    if (!h.empty()) properties["hopper"] = h;
  }
  return sarif_log(std::move(rules), std::move(results), std::move(properties));
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

json program_check_sarif(const std::vector<CheckedLaunch>& launches,
                         const std::vector<std::string>& program) {
  json results = json::array();
  for (const CheckedLaunch& l : launches)
    for (const auto& f : l.findings) {
      json r = finding_result(f);
      r["locations"][0]["logicalLocations"] =
          json::array({{{"name", l.run.kernel}, {"kind", "function"}}});
      r["properties"]["launch"] = l.launch;
      r["properties"]["kernel"] = l.run.kernel;
      r["properties"]["grid"] = {l.run.grid.x, l.run.grid.y, l.run.grid.z};
      r["properties"]["block"] = {l.run.block.x, l.run.block.y, l.run.block.z};
      r["properties"]["module"] = l.run.source;
      results.push_back(std::move(r));
    }
  json commandLine;
  for (const auto& a : program) commandLine.push_back(a);
  return sarif_log(finding_rules(), std::move(results),
                   {{"program", commandLine.is_null() ? json::array() : commandLine},
                    {"launches_checked", launches.size()}});
}

}  // namespace smemlab::report
