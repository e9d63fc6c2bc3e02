// The source change for a layout: the declaration's last extent for padding
// an N-D array, every subscript for a swizzle or for a 1-D array's implied
// rows, as byte-range edits found by the front end (source_model.h). Also
// applying edits and writing them as a unified diff for `patch -p1`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fix/layout.h"
#include "fix/source_model.h"

namespace smemlab::fix {

struct Edit {
  Range range;
  std::string text;
};
using Edits = std::vector<Edit>;  // sorted, not overlapping

// The edits that give `array` the layout, or nullopt with the reason in *why.
std::optional<Edits> edits_for(const SourceModel& source, const SourceArray& array,
                               const Layout& layout, std::string* why);

std::string apply(const std::string& text, const Edits& edits);

// A unified diff (3 lines of context) turning `text` into apply(text, edits),
// with headers "--- a/PATH" and "+++ b/PATH".
std::string unified_diff(const std::string& path, const std::string& text, const Edits& edits);

}  // namespace smemlab::fix
