// Internal to report/: the shapes of Hopper's counter families (tma, gmma,
// dshared; check/hopper_stats.h) and of the swizzle and padding what-ifs in
// JSON and text, shared by the formats.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "check/hopper_stats.h"
#include "check/padding_whatif.h"
#include "check/source_lines.h"
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
// The same what-if for buffers no TMA load fills that wgmma reads through
// descriptors (check::DescriptorBuffer): per descriptor layout.
nlohmann::json descriptor_json(const check::SwizzleWhatIf& w);
std::string descriptor_text(const check::SwizzleWhatIf& w);
// The padding what-if (padding_whatif.cc): one object per conflicted buffer
// no bulk copy fills, and the text report's section ("" for none).
nlohmann::json padding_json(const check::PaddingWhatIf& w);
// The HTML view's figure of each TMA-filled buffer (swizzle_figure.cc), at
// its load's source line: its 16-byte chunks over the banks, per 128-byte
// line (at most 8: the swizzles repeat every 1,024 bytes), under the map's
// mode and the best one: {"title", "modes": [{"mode", "actual", "best",
// "wavefronts", "lines": [[[box row, chunk] | null] x 8, ...]}, ...],
// "wavefronts": [[mode, wavefronts | null], ...], "proposal": text when
// another mode is better}.
std::vector<std::pair<check::SourceLine, nlohmann::json>> swizzle_figures(
    const check::SwizzleWhatIf& w);
std::string padding_text(const check::PaddingWhatIf& w);

}  // namespace smemlab::report
