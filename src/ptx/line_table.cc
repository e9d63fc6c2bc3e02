#include "ptx/line_table.h"

#include <fmt/format.h>

namespace smemlab::ptx {

int LineTable::add(int file, int line, int col, const std::string& function, bool has_site, int sf,
                   int sl, int sc) {
  int parent = -1;
  if (has_site) {
    auto it = last_inlined_.find({sf, sl, sc});
    if (it != last_inlined_.end()) {
      parent = it->second;
    } else {
      // The call site is in the outermost function: a plain location.
      auto key = std::make_tuple(sf, sl, sc, -1);
      auto d = dedup_.find(key);
      if (d != dedup_.end()) {
        parent = d->second;
      } else {
        locs_.push_back(SourceLoc{sf, sl, sc, -1, {}});
        parent = static_cast<int>(locs_.size()) - 1;
        dedup_[key] = parent;
      }
    }
  }
  if (!has_site) {
    // A later unrolled copy of inlined code: nvcc repeats the position
    // without its inlined_at.
    auto it = last_inlined_.find({file, line, col});
    if (it != last_inlined_.end()) return it->second;
  }
  auto key = std::make_tuple(file, line, col, parent);
  if (function.empty() || !has_site) {
    auto d = dedup_.find(key);
    if (d != dedup_.end()) return d->second;
  }
  locs_.push_back(SourceLoc{file, line, col, parent, function});
  int idx = static_cast<int>(locs_.size()) - 1;
  if (has_site) {
    last_inlined_[{file, line, col}] = idx;
  } else {
    dedup_[key] = idx;
  }
  return idx;
}

const std::string& LineTable::file(int index) const {
  static const std::string unknown = "?";
  auto it = files_.find(index);
  return it == files_.end() ? unknown : it->second;
}

std::vector<const SourceLoc*> LineTable::chain(int i) const {
  std::vector<const SourceLoc*> out;
  for (int guard = 0; i >= 0 && guard < 64; ++guard) {
    out.push_back(&locs_[static_cast<size_t>(i)]);
    i = locs_[static_cast<size_t>(i)].inlined_at;
  }
  return out;
}

std::string LineTable::describe(int i) const {
  if (i < 0) return "";
  auto c = chain(i);
  const SourceLoc* outer = c.back();
  std::string s = fmt::format("{}:{}", file(outer->file), outer->line);
  if (c.size() > 1) s += fmt::format(" (inlined {}:{})", file(c.front()->file), c.front()->line);
  return s;
}

int LineTable::append(const LineTable& other) {
  int file_shift = files_.empty() ? 0 : files_.rbegin()->first + 1;
  int loc_shift = static_cast<int>(locs_.size());
  for (const auto& [index, path] : other.files_) files_[index + file_shift] = path;
  for (SourceLoc l : other.locs_) {
    l.file += file_shift;
    if (l.inlined_at >= 0) l.inlined_at += loc_shift;
    locs_.push_back(std::move(l));
  }
  return loc_shift;
}

}  // namespace smemlab::ptx
