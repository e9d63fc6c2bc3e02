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

// The prediction for the launch `a` describes (invalid without access
// counts); `wavefront_delta` shared wavefronts more (or fewer): a what-if.
timing::Prediction predict_launch(const Analysis& a, double wavefront_delta = 0);
std::string timing_text(const timing::Prediction& p);
nlohmann::json timing_json(const timing::Prediction& p);

// The swizzle what-if's buffers (check::SwizzleWhatIf, those swizzle_json
// lists, in its order) with the launch's predicted duration under each
// swizzle mode: the launch's wavefronts with the buffer's reads costed
// under that mode (nullopt: the mode cannot hold the box, or no prediction).
using SwizzleTimes = std::array<std::optional<double>, check::kSwizzleModes>;
std::vector<SwizzleTimes> swizzle_times_ns(const Analysis& a);
std::string swizzle_times_text(const Analysis& a);

}  // namespace smemlab::report
