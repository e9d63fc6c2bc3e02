#include "check/source_lines.h"

#include <algorithm>
#include <filesystem>

#include "ptx/line_table.h"

namespace smemlab::check {
namespace {

const std::string& cwd_prefix() {
  static const std::string cwd = [] {
    std::error_code ec;
    std::string d = std::filesystem::current_path(ec).string();
    return ec ? std::string() : d + "/";
  }();
  return cwd;
}

}  // namespace

std::string shown_path(const std::string& path) {
  const std::string& cwd = cwd_prefix();
  if (!cwd.empty() && path.rfind(cwd, 0) == 0) return path.substr(cwd.size());
  return path;
}

std::string shown_paths_in(std::string text) {
  const std::string& cwd = cwd_prefix();
  if (cwd.empty()) return text;
  for (size_t at; (at = text.find(cwd)) != std::string::npos;) text.erase(at, cwd.size());
  return text;
}

std::vector<SourceLine> lines_of(const ptx::LineTable* table, int loc) {
  std::vector<SourceLine> out;
  if (!table || loc < 0 || static_cast<size_t>(loc) >= table->size()) return out;
  auto chain = table->chain(loc);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if ((*it)->line <= 0) continue;
    SourceLine l{shown_path(table->file((*it)->file)), (*it)->line};
    if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(std::move(l));
  }
  return out;
}

}  // namespace smemlab::check
