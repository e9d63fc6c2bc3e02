// One emulated launch with every analysis attached (bank statistics,
// memory-access statistics, defect checks), shared by `smemlab analyze`,
// `check` and `report`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "check/access_stats.h"
#include "check/bank_stats.h"
#include "check/defects.h"
#include "cli/launch_options.h"
#include "report/report.h"
#include "sass/level.h"

namespace smemlab::cli {

struct AnalysisRun {
  Prepared prepared;
  std::unique_ptr<check::BankAnalysis> banks;
  check::AccessAnalysis access;
  sass::KernelLevel level;  // the PTX -> SASS map the counts went through
  std::unique_ptr<check::DefectCheck> defects;
  emu::LaunchStatus status;
  report::RunInfo info;
  std::vector<std::string> source_lines;  // the user's .cu, for annotated output
  // Findings of the checkers plus the error the emulator stopped on, if any.
  std::vector<check::Finding> findings;
};

// "sm_90,sm_35:4" or "all" -> models; throws UsageError for unknown names.
std::vector<std::unique_ptr<bank::Model>> parse_models(const std::string& archs);

// Which blocks to emulate: "all", a count N (a deterministic sample of N
// blocks spread evenly over the grid, first and last included), or "" for
// the default: all blocks up to kDefaultSample, else that many.
inline constexpr uint64_t kDefaultSample = 64;

// Runs the launch described by `o` with all analyses; a kernel that fails
// (out-of-bounds, deadlock, ...) leaves its error in status and in findings.
// Sampled counts are scaled to the whole grid (RunInfo says by how much).
// At the SASS level (where the tools exist, else PTX with the reason in
// RunInfo) the bank and access analyses count SASS requests; the defect
// checkers always see the PTX accesses.
void run_analyses(const LaunchOptions& o, const std::string& archs, AnalysisRun* out,
                  const std::string& blocks = "", sass::Level level = sass::Level::Sass);

// A file's `// smemlab:` recipe lines (without the prefix), in order, with
// the kernel each names (for `report`).
struct Recipe {
  std::string kernel, line;
};
std::vector<Recipe> recipes_of(const std::string& file);

}  // namespace smemlab::cli
