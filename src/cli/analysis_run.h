// A recipe's launch (`smemlab analyze|check|report FILE.cu`) run with every
// analysis attached: the orchestration is session/recipe_launch.h; this turns
// its errors into the CLI's exit codes (UsageError, Ctrl-C).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli/launch_options.h"
#include "session/recipe_launch.h"
#include "session/recipe_lines.h"

namespace smemlab::cli {

using AnalysisRun = session::RecipeRun;

// "sm_90,sm_35:4" or "all" -> models; throws UsageError for unknown names.
std::vector<std::unique_ptr<bank::Model>> parse_models(const std::string& archs);

// session::run_recipe_launch with the analyses of `with`; a bad --arch or
// --blocks throws UsageError, Ctrl-C ExitCode{kInterrupted}.
void run_analyses(const LaunchOptions& o, const session::RecipeAnalyses& with, AnalysisRun* out);

}  // namespace smemlab::cli
