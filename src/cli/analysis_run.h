// A recipe's launch (`smemlab analyze|check|report FILE.cu`) run with every
// analysis attached: the recipe is prepared here (launch_options), the run
// itself is session::analyze_launch, shared with the CUDA runtime.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli/launch_options.h"
#include "session/launch_analysis.h"

namespace smemlab::cli {

struct AnalysisRun : session::LaunchAnalysis {
  Prepared prepared;
  std::vector<std::string> source_lines;  // the user's .cu, for annotated output
};

// "sm_90,sm_35:4" or "all" -> models; throws UsageError for unknown names.
std::vector<std::unique_ptr<bank::Model>> parse_models(const std::string& archs);

// Runs the launch described by `o` with all analyses; a kernel that fails
// (out-of-bounds, deadlock, ...) leaves its error in status and in findings.
// `blocks`: as session::sample_blocks; sampled counts are scaled to the grid.
// At the SASS level (where the tools exist, else PTX with the reason in
// RunInfo) the bank and access analyses count SASS requests. `extra`
// (optional) observes the same launch (`fix` records accesses).
void run_analyses(const LaunchOptions& o, const std::string& archs, AnalysisRun* out,
                  const std::string& blocks = "", sass::Level level = sass::Level::Sass,
                  emu::KernelObserver* extra = nullptr,
                  session::Analyses what = session::Analyses::All,
                  const std::vector<emu::Schedule>& compare = {});

// A file's `// smemlab:` recipe lines (without the prefix), in order, with
// the kernel each names (for `report`).
struct Recipe {
  std::string kernel, line;
};
std::vector<Recipe> recipes_of(const std::string& file);

}  // namespace smemlab::cli
