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

// Distinct lines of the chain of location `loc`, outermost first; empty for
// loc < 0 or line 0 (compiler-generated code).
std::vector<SourceLine> lines_of(const ptx::LineTable* table, int loc);

}  // namespace smemlab::check
