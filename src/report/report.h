// Output formats of `smemlab analyze`, `check` and `report`: per source line
// and per kernel, as annotated text, JSON, SARIF 2.1.0 (for code-scanning
// UIs) and a self-contained HTML source view. The analyses (src/check)
// gather the numbers; this module only shapes them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "check/access_stats.h"
#include "check/bank_stats.h"
#include "check/finding.h"
#include "check/hopper_stats.h"
#include "check/padding_whatif.h"
#include "check/swizzle_whatif.h"
#include "sass/level.h"
#include "timing/model.h"

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
  // Whether the defect checkers ran (`check`, `analyze --check`); without
  // them the findings are only the emulator's own stops (faults, deadlocks).
  bool defects_checked = false;
  // The time model's inputs beyond the counts (src/timing): static shared
  // bytes, registers per thread (0: unknown) and the DRAM footprint
  // estimate (timing/footprint.h; < 0: not measured).
  uint32_t static_shared = 0;
  uint32_t registers = 0;
  double footprint_bytes = -1;
  timing::ReuseProfile l1_reuse{};  // timing/footprint.h's L1Reuse
  double l1_block_bytes = 0;
  double partial_store_sectors = 0;              // scaled to the grid (timing/footprint.h)
  std::vector<double> dependent_issue{};         // by pc: timing/dependence.h
  std::vector<uint32_t> phase{};                 // by pc: timing/phases.h
  std::vector<uint8_t> folded_constant_loads{};  // by pc: timing/constant_loads.h
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
  const check::HopperAnalysis* hopper = nullptr;          // tma, gmma, dshared (null: not counted)
  const check::SwizzleWhatIf* swizzle = nullptr;          // TMA-filled buffers (null: not run)
  const check::PaddingWhatIf* padding = nullptr;          // the other buffers (null: not run)
};

// Factor that scales sampled counts up to the whole grid (1 when all blocks ran).
double scale(const RunInfo& run);

nlohmann::json analyze_json(const Analysis& a);
nlohmann::json findings_json(const std::vector<check::Finding>& findings);
// `check --json`'s object for one launch, the same in both modes
// (docs/json-schema.md): kernel, mangled, source, grid, block,
// shared_bytes, blocks_checked, blocks_total, findings; program mode adds
// the launch's index (`launch` >= 0) and `module` (= source).
nlohmann::json check_launch_json(const RunInfo& run, uint64_t blocks_checked,
                                 const std::vector<check::Finding>& findings, int64_t launch = -1);
// One launch as `check` saw it: check_launch_json's content, typed.
struct CheckedLaunch {
  RunInfo run;  // kernel, mangled, source (the module), grid, block, dynamic_shared, blocks_total
  uint64_t blocks_checked = 0;
  std::vector<check::Finding> findings;
  int64_t launch = -1;  // program mode: the launch's index in issue order
};
// The inverse of check_launch_json and findings_json (json_read.cc), for
// records crossing the program-mode process boundary: every field back.
// Throws std::exception (nlohmann's or std::runtime_error) for a record of
// another shape or a kind finding_kinds.def does not declare.
CheckedLaunch read_check_launch(const nlohmann::json& record);
std::vector<check::Finding> read_findings(const nlohmann::json& findings);
nlohmann::json analyze_sarif(const Analysis& a);
// The SARIF 2.1.0 envelope around one run of smemlab's rules and results.
nlohmann::json sarif_log(nlohmann::json rules, nlohmann::json results,
                         nlohmann::json properties = nullptr);
nlohmann::json check_sarif(const RunInfo& run, const std::vector<check::Finding>& findings);
// `check --sarif FILE -- APP`: one run for the whole program (`program`: its
// command line), a result per finding of every checked launch, each naming
// its launch (index, kernel, grid, block, module) in its properties and the
// kernel as its logical location.
// API errors (`api_errors`, program mode's leaks and bad copies or frees)
// are results too, of their kind's rule, with no source location.
nlohmann::json program_check_sarif(const std::vector<CheckedLaunch>& launches,
                                   const std::vector<std::string>& program,
                                   const std::vector<check::Finding>& api_errors = {});
// An API error as a JSON line of `check --json -- APP` and of the launch
// records: {"api_error": FINDING}, FINDING as findings_json writes one.
nlohmann::json api_error_json(const check::Finding& f);
// Its inverse (json_read.cc): nullopt for a line of another shape.
std::optional<check::Finding> read_api_error(const nlohmann::json& record);
// `analyze --sarif FILE -- APP`, in two halves across the process boundary:
// the runtime writes each analyzed launch's results (its hints, and its
// findings under --check), each naming its launch as above, as one JSON line;
// smemlab makes one run of them for the program, declaring analyze's rules
// and every finding kind's.
nlohmann::json analyze_launch_sarif_results(const Analysis& a, int64_t launch);
nlohmann::json program_analyze_sarif(const std::vector<nlohmann::json>& launches,
                                     const std::vector<std::string>& program);
// Annotated source: every line of the user's file with its costs beside it,
// then the kernel summary and the worst lines ranked. `source_lines` is the
// user's file split into lines (empty: numbers only).
std::string analyze_text(const Analysis& a, const std::vector<std::string>& source_lines);
std::string findings_text(const std::vector<check::Finding>& findings);

// One analyzed launch in an HTML page (a page holds one or more: program
// mode shows one section per launch).
struct HtmlSection {
  std::string heading;  // e.g. "transposeCoalesced<<<(32,32,1), (32,8,1)>>>"
  Analysis analysis;    // analysis.banks may be null (check: findings only)
  std::vector<std::string> source_lines;
  int64_t launch_index = -1;  // program mode: the launch's number in issue order
};
// A self-contained page (inline CSS/JS/SVG, no network): the source shaded
// by cost with the numbers in a gutter, the worst request's bank map and
// lane-to-sector map per line, generations switchable, findings inline at
// every line they involve, linked to each other.
std::string analyze_html(const std::vector<HtmlSection>& sections, const std::string& title);
// The same page in two steps, for program mode: the analyses live in the
// program's process (src/runtime), which serializes each launch's section as
// it is analyzed; smemlab assembles the page after the program has ended
// (so a program that crashes later still gets the launches it made).
nlohmann::json html_section_json(const HtmlSection& section);
std::string sections_html(const std::vector<nlohmann::json>& sections, const std::string& title);
// "kernel<<<(gx,gy,gz), (bx,by,bz), shared>>>", a section's heading.
std::string launch_heading(const RunInfo& run);

// One row of `smemlab report`: a kernel launch of the suite.
struct SuiteRow {
  std::string file, kernel;
  int variant = 1;  // n-th recipe of the same kernel (other sizes)
  uint64_t ld_requests = 0, st_requests = 0, atom_requests = 0;
  // Wavefronts per shared load / store request, per model; -1 for none.
  std::vector<double> ld_per, st_per;
  double sectors = 0, ideal_sectors = 0;  // per global request
  uint64_t divergent = 0, branches = 0;
  size_t findings = 0;
  std::string error;
};
// `report --html`: the table as a chart (wavefronts per request by kernel and
// generation) with the GPU's measurements (`bench --json`) when given.
std::string suite_html(const std::vector<SuiteRow>& rows, const std::vector<std::string>& archs,
                       const nlohmann::json& bench);

}  // namespace smemlab::report
