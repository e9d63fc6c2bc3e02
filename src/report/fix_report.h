// Output formats of `smemlab fix`: the ranked table of candidate layouts per
// shared array as text, JSON, and SARIF results whose `fixes` carry the
// verified source change (code-scanning UIs offer it). The search and proof
// are src/fix's; this only shapes them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fix/fix.h"
#include "report/report.h"

namespace smemlab::report {

struct FixReport {
  RunInfo run;
  std::string path;  // the source as shown (and in the patch/SARIF)
  const fix::SourceModel* source = nullptr;
  const fix::Result* result = nullptr;
  unsigned shown = 8;  // candidates listed per array
  // Program mode (`fix ... -- APP`): the program and its launches of the
  // kernel whose accesses were merged (one configuration; grids may differ).
  std::vector<std::string> program;
  std::vector<uint64_t> launches;
  bool grids_differ = false;
  // Program mode, a kernel with TMA loads: analyze's swizzle what-if entries
  // that carry a `proposal` (docs/json-schema.md), each with its `launch`
  // and, where fix applied and proved it, `applied` (docs/fix.md, "TMA
  // tiles"); the first verified pair's edits (--patch when no array has one).
  nlohmann::json swizzle_proposals = nlohmann::json::array();
  fix::Edits swizzle_patch;
};

std::string fix_text(const FixReport& r);
nlohmann::json fix_json(const FixReport& r);
nlohmann::json fix_sarif(const FixReport& r);

}  // namespace smemlab::report
