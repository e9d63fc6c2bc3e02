// The time model's prediction of one launch given as launch flags (FILE,
// --kernel, --grid, ...): analyze's default blocks and level, counts only.
// `run --gpu --time` and `bench --predict` print it beside the GPU's
// measured time (docs/timing.md).
#pragma once

#include <optional>
#include <string>

#include "cli/launch_options.h"
#include "report/timing.h"

namespace smemlab::cli {

// The main prediction (the first GPU of report::predict_gpus), or nullopt
// with `why_not` set: the emulated launch failed, or nothing was counted.
// Bad flags throw UsageError as analyze does.
std::optional<report::GpuPrediction> predict_flags(const LaunchOptions& o, std::string* why_not);

}  // namespace smemlab::cli
