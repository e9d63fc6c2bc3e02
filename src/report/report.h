// Output formats of `smemlab analyze` and `smemlab check`: per source line
// and per kernel, as annotated text, JSON, SARIF 2.1.0 (for code-scanning
// UIs). The analyses (src/check) gather the
// numbers; this module only shapes them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "check/access_stats.h"
#include "check/bank_stats.h"
#include "check/finding.h"
#include "sass/level.h"

namespace smemlab::report {

// What was run, for the report's header.
struct RunInfo {
  std::string source;  // the .cu/.ptx the user gave
  std::string kernel;  // demangled name
  std::string mangled;
  emu::Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  uint64_t blocks_total = 0;     // blocks in the grid
  uint64_t blocks_observed = 0;  // blocks emulated with observers (== total unless sampled)
  std::string sampling;          // how blocks were chosen, "" when all were run
  // Counting level (docs/sass.md): SASS requests or PTX ones, and why.
  sass::Level level = sass::Level::Ptx;
  std::string level_reason;
  std::vector<sass::Note> unmapped;  // PTX accesses kept at PTX level at the SASS level
  uint64_t regroup_fallbacks = 0;    // merged-group executions counted at PTX level
};

// The counting level as JSON ({"name", "reason", "unmapped": [...]}) and as
// text lines (for the text report's header).
nlohmann::json level_json(const RunInfo& run);
std::string level_text(const RunInfo& run);

struct Analysis {
  RunInfo run;
  const check::BankAnalysis* banks = nullptr;
  const check::AccessAnalysis* access = nullptr;
  const std::vector<check::Finding>* findings = nullptr;  // may be null (analyze without check)
};

// Factor that scales sampled counts up to the whole grid (1 when all blocks ran).
double scale(const RunInfo& run);

nlohmann::json analyze_json(const Analysis& a);
nlohmann::json findings_json(const std::vector<check::Finding>& findings);
nlohmann::json analyze_sarif(const Analysis& a);
nlohmann::json check_sarif(const RunInfo& run, const std::vector<check::Finding>& findings);
// Annotated source: every line of the user's file with its costs beside it,
// then the kernel summary and the worst lines ranked. `source_lines` is the
// user's file split into lines (empty: numbers only).
std::string analyze_text(const Analysis& a, const std::vector<std::string>& source_lines);
std::string findings_text(const std::vector<check::Finding>& findings);

}  // namespace smemlab::report
