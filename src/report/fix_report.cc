#include "report/fix_report.h"

#include <fmt/format.h>

namespace smemlab::report {

using nlohmann::json;

namespace {

// ", predicted H100 12.3 -> 8.1 us (-34%)" for a proven candidate whose run
// and the original's both have a predicted duration (the time model's
// saving beside the proven wavefront one); "" otherwise.
std::string predicted_saving(double before_ns, double after_ns) {
  if (before_ns <= 0 || after_ns <= 0) return "";
  return fmt::format(", predicted H100 {:.3g} -> {:.3g} us ({:+.0f}%)", before_ns / 1e3,
                     after_ns / 1e3, 100.0 * (after_ns / before_ns - 1.0));
}

const char* verdict_name(const fix::Candidate& c) {
  switch (c.verdict) {
    case fix::Candidate::Verdict::Verified:
      return "yes";
    case fix::Candidate::Verdict::Rejected:
      return "no";
    case fix::Candidate::Verdict::NotTried:
      break;
  }
  return c.edits ? "not tried" : "cannot write";
}

std::string shape(const fix::ArrayInfo& a) {
  std::string s;
  for (uint64_t e : a.extents) s += fmt::format("[{}]", e);
  return fmt::format("{} x {} B{}", s.empty() ? "?" : s, a.elem,
                     a.dynamic ? " (implied rows)" : "");
}

std::string where(const FixReport& r, const fix::ArrayInfo& a) {
  if (a.source_index < 0) return r.path;
  return fmt::format("{}:{}", r.path, r.source->arrays[a.source_index].line);
}

// "void k<int>(int*)" -> "k"; "transposeCoalesced" stays.
std::string bare_name(std::string d) {
  if (d.rfind("void ", 0) == 0) d = d.substr(5);
  std::string out;
  int depth = 0;
  for (char c : d) {
    if (c == '(' || c == '<') ++depth;
    if (depth == 0) out += c;
    if (c == ')' || c == '>') --depth;
  }
  auto colon = out.rfind("::");
  return colon == std::string::npos ? out : out.substr(colon + 2);
}

std::string cost(const fix::Cost& c) { return fmt::format("{:.2f}", c.per_request()); }

json cost_json(const fix::Cost& c) {
  return {{"requests", c.requests},
          {"wavefronts", c.wavefronts},
          {"ideal", c.ideal},
          {"per_request", c.per_request()},
          {"ideal_per_request", c.ideal_per_request()}};
}

std::vector<const fix::Candidate*> of_array(const fix::Result& res, size_t a) {
  std::vector<const fix::Candidate*> out;
  for (const auto& c : res.candidates)
    if (c.array == a) out.push_back(&c);
  return out;
}

std::string header(const FixReport& r) {
  const RunInfo& run = r.run;
  std::string program;
  if (!r.program.empty())
    program = fmt::format("program {}: {} launch{} of the kernel ({}), accesses merged{}\n",
                          fmt::join(r.program, " "), r.launches.size(),
                          r.launches.size() == 1 ? "" : "es",
                          "launch " + fmt::format("{}", fmt::join(r.launches, ", ")),
                          r.grids_differ ? "; grids differ, the first is shown" : "");
  return program +
         fmt::format(
             "kernel {} ({})\nlaunch grid ({},{},{}) block ({},{},{}), dynamic shared {} B; "
             "{} B of shared memory per block: {} blocks/SM on sm_90\n",
             run.kernel, r.path, run.grid.x, run.grid.y, run.grid.z, run.block.x, run.block.y,
             run.block.z, run.dynamic_shared, r.result->shared_bytes, r.result->blocks_per_sm);
}

}  // namespace

namespace {

std::string arrays_text(const FixReport& r) {
  const fix::Result& res = *r.result;
  std::string out = header(r);
  if (!res.anything_to_fix()) {
    out += fmt::format("nothing to fix: no shared array costs excess wavefronts on {}\n",
                       fmt::join(res.models, ", "));
    for (const auto& a : res.arrays)
      out += fmt::format("  {} ({}): {} wavefronts/request on {}\n", a.name, where(r, a),
                         cost(a.before[0]), res.models[0]);
    return out;
  }
  for (size_t ai = 0; ai < res.arrays.size(); ++ai) {
    const fix::ArrayInfo& a = res.arrays[ai];
    std::vector<std::string> costs;
    for (size_t m = 0; m < res.models.size(); ++m)
      costs.push_back(fmt::format("{} {} (ideal {:.2f})", res.models[m], cost(a.before[m]),
                                  a.before[m].ideal_per_request()));
    out += fmt::format("\nshared array {} ({}, {}, {} B): wavefronts/request {}\n", a.name,
                       where(r, a), shape(a), a.span.bytes, fmt::join(costs, ", "));
    if (!a.skipped.empty()) {
      out += fmt::format("  not searched: {}\n", a.skipped);
      continue;
    }
    if (a.source_index >= 0) {
      const std::string& fn = r.source->arrays[a.source_index].function;
      if (fn != bare_name(r.run.kernel))
        out += fmt::format(
            "  note: declared in {}, which other kernels may share: a change applies to them "
            "too, and the proof ran {} only\n",
            fn, bare_name(r.run.kernel));
    }
    auto cands = of_array(res, ai);
    if (cands.empty()) {
      out += "  no padding or swizzle lowers its cost\n";
      continue;
    }
    std::string cols;
    for (const auto& m : res.models) cols += fmt::format("  {:<14}", m + " wf/req");
    out += fmt::format("  {:>4}  {:<58}{}  {:>8}  {:>9}  {}\n", "rank", "change", cols, "shared",
                       "blocks/SM", "verified");
    size_t shown = 0;
    for (size_t i = 0; i < cands.size(); ++i) {
      const fix::Candidate& c = *cands[i];
      bool interesting = c.verdict != fix::Candidate::Verdict::NotTried;
      if (shown >= r.shown && !interesting) continue;
      ++shown;
      std::string per;
      for (size_t m = 0; m < res.models.size(); ++m)
        per += fmt::format("  {:<14}", cost(a.before[m]) + " -> " + cost(c.after[m]));
      std::string change = c.layout.describe();
      if (a.dynamic && c.dynamic_shared != res.dynamic_shared)
        change += fmt::format(", --shared {}", c.dynamic_shared);
      std::string verdict = verdict_name(c);
      if (c.verdict != fix::Candidate::Verdict::NotTried && c.measured.requests)
        verdict += fmt::format(" (rebuilt: kernel {} -> {} wf/req{})", cost(res.original.measured),
                               cost(c.measured),
                               predicted_saving(res.original.predicted_ns, c.predicted_ns));
      out += fmt::format("  {:>4}  {:<58}{}  {:>6} B  {:>9}  {}\n", i + 1, change, per,
                         c.shared_bytes, c.blocks_per_sm, verdict);
      if (!c.why_not.empty() && c.verdict != fix::Candidate::Verdict::Verified)
        out += fmt::format("        {}: {}\n",
                           c.verdict == fix::Candidate::Verdict::Rejected ? "rejected" : "why",
                           c.why_not);
    }
    if (cands.size() > shown)
      out += fmt::format("  ... {} more candidates (--json lists all)\n", cands.size() - shown);
    if (const fix::Candidate* best = res.best_verified(ai)) {
      out += fmt::format(
          "  best verified: {} (outputs bit-identical, check clean; --patch prints it)\n",
          best->layout.describe());
      if (a.dynamic && best->dynamic_shared != res.dynamic_shared)
        out += fmt::format("  {} {} B of dynamic shared memory (was {} B{})\n",
                           r.program.empty() ? "launch it with" : "the program's launch must pass",
                           best->dynamic_shared, res.dynamic_shared,
                           best->recipe_shared  ? "; the patch updates the recipe's --shared"
                           : !r.program.empty() ? "; the proof launched it so"
                                                : "");
    } else {
      out += "  no verified fix: every candidate proven was rejected or could not be written\n";
    }
  }
  if (!res.patch_note.empty()) out += "\nnote: " + res.patch_note + "\n";
  return out;
}

// A swizzle proposal's predicted saving: the launch's predicted time under
// the buffer's swizzle as launched and under the proposal's (analyze's
// `predicted_ns` per mode); "" where either is missing.
std::string proposal_time_saving(const json& b) {
  if (!b.contains("predicted_ns")) return "";
  const json& t = b["predicted_ns"];
  const std::string now = b["swizzle"].get<std::string>();
  const std::string to = b["proposal"]["swizzle"].get<std::string>();
  if (!t.contains(now) || !t.contains(to) || !t[now].is_number() || !t[to].is_number()) return "";
  return predicted_saving(t[now].get<double>(), t[to].get<double>());
}

// What fix did with a proposal: the pair applied and proven (the rebuilt
// readers' wavefronts beside the prediction), rejected by the proof, or
// not written and why.
std::string applied_text(const json& b) {
  const json& a = b["applied"];
  const std::string verdict = a.value("verdict", "");
  if (verdict == "not applied") return fmt::format("    not applied: {}\n", a.value("why", ""));
  if (verdict == "rejected")
    return fmt::format("    applied, rejected by the proof: {}\n", a.value("why", ""));
  const json& p = b["proposal"];
  const std::string proven = a.contains("proven_wavefronts") && a["proven_wavefronts"].is_number()
                                 ? fmt::format("{}", a["proven_wavefronts"].get<uint64_t>())
                                 : "n/a";
  return fmt::format(
      "    applied and verified (host field and {} reader offset(s) rewritten; outputs "
      "bit-identical, check clean): readers {} -> {} wavefronts as rebuilt (predicted {})\n",
      a["edits"].size() - 1, p["wavefronts"].get<uint64_t>(), proven,
      p["predicted_wavefronts"].get<uint64_t>());
}

// Program mode: analyze's swizzle proposals for the kernel's TMA tiles, and
// what fix did with each (docs/fix.md, "TMA tiles").
std::string proposals_text(const FixReport& r) {
  std::string out;
  for (const json& b : r.swizzle_proposals) {
    const json& p = b["proposal"];
    const std::string reader =
        p["reader_swizzle"].get<std::string>().empty()
            ? fmt::format("rows {} B apart, no XOR", p["row_pitch"].get<unsigned>())
            : fmt::format("o -> {} (CuTe {}) from a {}-byte aligned box, rows {} B apart",
                          p["reader_xor"].get<std::string>(),
                          p["reader_swizzle"].get<std::string>(), p["alignment"].get<unsigned>(),
                          p["row_pitch"].get<unsigned>());
    out += fmt::format(
        "  {}:{} (launch {}, shared offset {}, {} rows of {} B, swizzle {}): host "
        "cuTensorMapEncodeTiled(..., {}, ...); readers' shared byte offsets {}: {} -> {} "
        "wavefronts (predicted){}\n",
        b["file"].get<std::string>(), b["line"].get<int>(), b["launch"].get<int64_t>(),
        b["shared_offset"].get<uint64_t>(), b["rows"].get<uint64_t>(),
        b["row_bytes"].get<uint64_t>(), b["swizzle"].get<std::string>(),
        p["tensor_map_swizzle"].get<std::string>(), reader, p["wavefronts"].get<uint64_t>(),
        p["predicted_wavefronts"].get<uint64_t>(), proposal_time_saving(b));
    if (b.contains("host_change"))
      out += fmt::format("    host: {}\n", b["host_change"].get<std::string>());
    if (b.contains("applied")) out += applied_text(b);
  }
  if (out.empty()) return "";
  return "\nTMA tiles read with bank conflicts: the swizzle what-if's proposal (a tensor-map "
         "field and the readers' address XOR), applied and proven where fix can write it\n" +
         out;
}

}  // namespace

std::string fix_text(const FixReport& r) { return arrays_text(r) + proposals_text(r); }

json fix_json(const FixReport& r) {
  const fix::Result& res = *r.result;
  json arrays = json::array();
  for (size_t ai = 0; ai < res.arrays.size(); ++ai) {
    const fix::ArrayInfo& a = res.arrays[ai];
    json before = json::object(), cands = json::array();
    for (size_t m = 0; m < res.models.size(); ++m) before[res.models[m]] = cost_json(a.before[m]);
    for (const fix::Candidate* c : of_array(res, ai)) {
      json after = json::object();
      for (size_t m = 0; m < res.models.size(); ++m) after[res.models[m]] = cost_json(c->after[m]);
      cands.push_back(
          {{"change", c->layout.describe()},
           {"kind", c->layout.change == fix::Change::Pad ? "pad" : "swizzle"},
           {"row_elements", c->layout.width},
           {"pad_elements", c->layout.pad},
           {"swizzle_unit", c->layout.unit},
           {"after", after},
           {"shared_bytes", c->shared_bytes},
           {"dynamic_shared", c->dynamic_shared},
           {"recipe_shared_updated", c->recipe_shared},
           {"blocks_per_sm", c->blocks_per_sm},
           {"verified", verdict_name(*c)},
           {"measured_sm_90", cost_json(c->measured)},
           {"predicted_ns", c->predicted_ns > 0 ? json(c->predicted_ns) : json(nullptr)},
           {"predicted_saving_ns", c->predicted_ns > 0 && res.original.predicted_ns > 0
                                       ? json(res.original.predicted_ns - c->predicted_ns)
                                       : json(nullptr)},
           {"reason", c->why_not}});
    }
    arrays.push_back({{"name", a.name},
                      {"ptx_name", a.ptx_name},
                      {"dynamic", a.dynamic},
                      {"declared_at", where(r, a)},
                      {"extents", a.extents},
                      {"element_bytes", a.elem},
                      {"bytes", a.span.bytes},
                      {"before", before},
                      {"skipped", a.skipped},
                      {"candidates", cands}});
  }
  json out = {{"kernel", r.run.kernel},
              {"source", r.path},
              {"models", res.models},
              {"shared_bytes", res.shared_bytes},
              {"blocks_per_sm", res.blocks_per_sm},
              {"nothing_to_fix", !res.anything_to_fix()},
              {"measured_sm_90", cost_json(res.original.measured)},
              {"predicted_ns",
               res.original.predicted_ns > 0 ? json(res.original.predicted_ns) : json(nullptr)},
              {"arrays", arrays},
              {"patch_note", res.patch_note}};
  if (!r.program.empty()) {
    out["program"] = r.program;
    out["launches"] = r.launches;
  }
  if (!r.swizzle_proposals.empty()) out["swizzle_proposals"] = r.swizzle_proposals;
  return out;
}

json fix_sarif(const FixReport& r) {
  const fix::Result& res = *r.result;
  const std::string& text = r.source->text;
  auto position = [&](unsigned off) {
    int line = 1, col = 1;
    for (unsigned i = 0; i < off && i < text.size(); ++i) {
      if (text[i] == '\n')
        ++line, col = 1;
      else
        ++col;
    }
    return std::pair(line, col);
  };
  json rules = json::array({{{"id", "bank-conflict-fix"},
                             {"shortDescription",
                              {{"text",
                                "A shared array's layout costs excess wavefronts; a "
                                "verified padding or swizzle removes them"}}}}});
  json results = json::array();
  for (size_t ai = 0; ai < res.arrays.size(); ++ai) {
    const fix::ArrayInfo& a = res.arrays[ai];
    const fix::Candidate* best = res.best_verified(ai);
    if (!a.skipped.empty() || !best) continue;
    json replacements = json::array();
    for (const fix::Edit& e : *best->edits) {
      auto [l1, c1] = position(e.range.begin);
      auto [l2, c2] = position(e.range.end);
      replacements.push_back(
          {{"deletedRegion",
            {{"startLine", l1}, {"startColumn", c1}, {"endLine", l2}, {"endColumn", c2}}},
           {"insertedContent", {{"text", e.text}}}});
    }
    const int line = a.source_index >= 0 ? r.source->arrays[a.source_index].line : 1;
    results.push_back(
        {{"ruleId", "bank-conflict-fix"},
         {"level", "warning"},
         {"message",
          {{"text",
            fmt::format(
                "shared array {}: {:.2f} wavefronts/request on {}; {} gives {:.2f} "
                "(outputs bit-identical in the emulator, check clean){}",
                a.name, a.before[0].per_request(), res.models[0], best->layout.describe(),
                best->after[0].per_request(),
                a.dynamic && best->dynamic_shared != res.dynamic_shared
                    ? fmt::format("; the launch needs {} B of dynamic shared "
                                  "memory (was {} B){}",
                                  best->dynamic_shared, res.dynamic_shared,
                                  best->recipe_shared ? ", the recipe's --shared is updated" : "")
                    : "")}}},
         {"locations", json::array({{{"physicalLocation",
                                      {{"artifactLocation", {{"uri", r.path}}},
                                       {"region", {{"startLine", line}}}}}}})},
         {"fixes",
          json::array({{{"description", {{"text", best->layout.describe()}}},
                        {"artifactChanges", json::array({{{"artifactLocation", {{"uri", r.path}}},
                                                          {"replacements", replacements}}})}}})}});
    // The launch's new dynamic shared size where the change grows it, and
    // the time model's saving beside the proven one.
    json props = json::object();
    if (a.dynamic && best->dynamic_shared != res.dynamic_shared)
      props["dynamic_shared"] = best->dynamic_shared;
    if (res.original.predicted_ns > 0 && best->predicted_ns > 0) {
      props["predicted_gpu"] = "H100";
      props["predicted_before_ns"] = res.original.predicted_ns;
      props["predicted_after_ns"] = best->predicted_ns;
      props["predicted_saving_ns"] = res.original.predicted_ns - best->predicted_ns;
    }
    if (!props.empty()) results.back()["properties"] = std::move(props);
  }
  return sarif_log(std::move(rules), std::move(results),
                   r.swizzle_proposals.empty() ? json(nullptr)
                                               : json{{"swizzle_proposals", r.swizzle_proposals}});
}

}  // namespace smemlab::report
