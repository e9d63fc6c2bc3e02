// Internal to report/: the shapes of Hopper's counter families (tma, gmma,
// dshared; check/hopper_stats.h) in JSON and text, shared by the formats.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "check/hopper_stats.h"
#include "check/swizzle_whatif.h"

namespace smemlab::report {

// Adds the families a line (or the kernel) has requests in to `j`:
// "tma": {"loads": {...}, ...}, "gmma": {...}, "dshared": {"stores": {...}}.
void add_hopper_json(nlohmann::json& j, const check::HopperLine& l);
// The text report's notes for a line: one line per row with requests.
std::string hopper_note(const check::HopperLine& l);
// The summary's line ("" when the kernel has none of these requests).
std::string hopper_summary(const check::HopperLine& totals);
// The swizzle what-if: one object per TMA-filled buffer its readers read
// (an empty array when none), and the text report's section ("" for none).
nlohmann::json swizzle_json(const check::SwizzleWhatIf& w);
std::string swizzle_text(const check::SwizzleWhatIf& w);

}  // namespace smemlab::report
