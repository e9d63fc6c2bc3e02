// Recipe mode's orchestration of one launch (`smemlab analyze|check|report|fix
// FILE.cu`): the launch made ready from the flags and the file's recipe
// (launch_spec.h), the blocks sampled, and the run with the analyses
// (launch_analysis.h). The CLI keeps its flags and exit codes; program
// launches are program_launch.h.
#pragma once

#include <string>
#include <vector>

#include "session/launch_analysis.h"
#include "session/launch_spec.h"

namespace smemlab::session {

struct RecipeRun : LaunchAnalysis {
  Prepared prepared;
  std::vector<std::string> source_lines;  // the user's .cu, for annotated output
};

// What a recipe launch is analysed with (see analyze_launch).
struct RecipeAnalyses {
  std::string archs = "sm_90";  // bank models, as parse_models
  std::string blocks;           // as sample_blocks
  sass::Level level = sass::Level::Sass;
  emu::KernelObserver* extra = nullptr;  // `fix` records accesses
  Analyses what = Analyses::All;
  std::vector<emu::Schedule> compare;  // check --compare-schedules
};

// Prepares the launch `o` describes (with the progress line on a terminal
// unless o.quiet) and runs it; a kernel that fails leaves its error in
// status and findings. Throws UsageError for bad input, OptionError for a
// bad --arch or --blocks.
void run_recipe_launch(const LaunchOptions& o, const RecipeAnalyses& with, RecipeRun* out);

// session::prepare_launch plus the progress line unless o.quiet.
void prepare_launch_with_progress(const LaunchOptions& o, Prepared* p);

}  // namespace smemlab::session
