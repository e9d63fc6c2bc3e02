// The time model's prediction (src/timing) in analyze's outputs: the text
// summary's "predicted ... on an H100 (limited by ...)" with each line's
// share, and the JSON `timing` object (docs/json-schema.md).
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "check/swizzle_whatif.h"
#include "report/report.h"
#include "timing/model.h"

namespace smemlab::report {

// A prediction and the GPU (timing/gpus.def) it is for.
struct GpuPrediction {
  const timing::GpuSpec* gpu = nullptr;
  timing::Prediction p;
};
// The launch `a` describes on every GPU of every bank model it was counted
// with (--arch's order, then gpus.def's), each with that model's
// wavefronts; the first is the main prediction, the others are what-ifs.
// Without a model that names a GPU: the H100 with the first model's
// wavefronts. Empty without access counts. `wavefront_delta` shared
// wavefronts more (or fewer) on every GPU: a what-if of the code.
std::vector<GpuPrediction> predict_gpus(const Analysis& a, double wavefront_delta = 0);
// predict_gpus' main prediction (invalid without access counts).
timing::Prediction predict_launch(const Analysis& a, double wavefront_delta = 0);
// The main prediction's lines (duration, limiter, shares) and one line per
// what-if GPU; "" without access counts.
std::string timing_text(const Analysis& a);
nlohmann::json timing_json(const GpuPrediction& g);
// `run --gpu --time`: the main prediction beside a measured median (CUDA
// events, launch included, as the prediction's duration_ns), e.g.
// "predicted 68.6 µs on an H100 (limited by shared pipe), measured 71.2 µs
// on NVIDIA H100 80GB HBM3: predicted/measured 0.96".
std::string predicted_vs_measured(const GpuPrediction& g, double measured_ns,
                                  const std::string& device);

// The swizzle what-if's buffers (check::SwizzleWhatIf, those swizzle_json
// lists, in its order) with the launch's predicted duration under each
// swizzle mode: the launch's wavefronts with the buffer's reads costed
// under that mode (nullopt: the mode cannot hold the box, or no prediction).
using SwizzleTimes = std::array<std::optional<double>, check::kSwizzleModes>;
std::vector<SwizzleTimes> swizzle_times_ns(const Analysis& a);
std::string swizzle_times_text(const Analysis& a);

}  // namespace smemlab::report
