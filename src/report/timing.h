// The time model's prediction (src/timing) in analyze's outputs: the text
// summary's "predicted ... on an H100 (limited by ...)" with each line's
// share, and the JSON `timing` object (docs/json-schema.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/report.h"
#include "timing/model.h"

namespace smemlab::report {

// The prediction for the launch `a` describes (invalid without access counts).
timing::Prediction predict_launch(const Analysis& a);
std::string timing_text(const timing::Prediction& p);
nlohmann::json timing_json(const timing::Prediction& p);

}  // namespace smemlab::report
