// Where an instruction's cost is reported: the source lines of its .loc
// chain. Code inlined from a header or a device function counts at the call
// site in the kernel's own file (the outermost frame) and at its own line.
#pragma once

#include <string>
#include <vector>

namespace smemlab::ptx {
class LineTable;
}

namespace smemlab::check {

struct SourceLine {
  std::string file;
  int line = 0;
  bool operator<(const SourceLine& o) const {
    return file != o.file ? file < o.file : line < o.line;
  }
  bool operator==(const SourceLine& o) const = default;
};

// nvcc records absolute paths; reports show them relative to the working
// directory when they lie under it, so output does not depend on where the
// checkout is. shown_paths_in does the same for every path inside a message.
std::string shown_path(const std::string& path);
std::string shown_paths_in(std::string text);

// Distinct lines of the chain of location `loc`, outermost first; empty for
// loc < 0 or line 0 (compiler-generated code).
std::vector<SourceLine> lines_of(const ptx::LineTable* table, int loc);

}  // namespace smemlab::check
