#include "cli/analysis_run.h"

namespace smemlab::cli {

std::vector<std::unique_ptr<bank::Model>> parse_models(const std::string& archs) {
  try {
    return session::parse_models(archs);
  } catch (const session::OptionError& e) {
    throw UsageError(e.what());
  }
}

void run_analyses(const LaunchOptions& o, const session::RecipeAnalyses& with, AnalysisRun* out) {
  try {
    session::run_recipe_launch(o, with, out);
  } catch (const session::OptionError& e) {
    throw UsageError(e.what());
  }
  stop_if_interrupted();
}

}  // namespace smemlab::cli
