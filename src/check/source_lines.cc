#include "check/source_lines.h"

#include <algorithm>

#include "ptx/line_table.h"

namespace smemlab::check {

std::vector<SourceLine> lines_of(const ptx::LineTable* table, int loc) {
  std::vector<SourceLine> out;
  if (!table || loc < 0 || static_cast<size_t>(loc) >= table->size()) return out;
  auto chain = table->chain(loc);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if ((*it)->line <= 0) continue;
    SourceLine l{table->file((*it)->file), (*it)->line};
    if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(std::move(l));
  }
  return out;
}

}  // namespace smemlab::check
