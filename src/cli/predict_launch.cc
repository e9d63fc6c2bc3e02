#include "cli/predict_launch.h"

#include "cli/analysis_run.h"

namespace smemlab::cli {

std::optional<report::GpuPrediction> predict_flags(const LaunchOptions& o, std::string* why_not) {
  LaunchOptions quiet = o;
  quiet.quiet = true;
  session::RecipeAnalyses with;
  with.what = session::Analyses::Counts;
  AnalysisRun run;
  run_analyses(quiet, with, &run);
  if (run.status.error) {
    *why_not = "the emulated launch failed";
    return std::nullopt;
  }
  report::Analysis a{run.info, run.banks.get(), &run.access, nullptr, &run.hopper};
  std::vector<report::GpuPrediction> all = report::predict_gpus(a);
  if (all.empty()) {
    *why_not = "no access counts";
    return std::nullopt;
  }
  return all.front();
}

}  // namespace smemlab::cli
