#include "fix/rewrite.h"

#include <fmt/format.h>

#include <algorithm>

namespace smemlab::fix {
namespace {

std::string text_of(const SourceModel& s, Range r) {
  return s.text.substr(r.begin, r.end - r.begin);
}

// The XOR operand: ((ROW) & (units - 1)) * unit, spelled without a no-op multiply.
std::string xor_term(const std::string& row, const Layout& l) {
  uint32_t units = l.width / l.unit;
  std::string t = fmt::format("(({}) & {})", row, units - 1);
  return l.unit == 1 ? t : fmt::format("({} * {})", t, l.unit);
}

}  // namespace

std::optional<Edits> edits_for(const SourceModel& source, const SourceArray& array,
                               const Layout& layout, std::string* why) {
  Edits edits;
  const size_t dims = array.is_extern ? 1 : array.extents.size();
  bool direct = false, aliased = false;
  for (const Subscript& s : array.subscripts) (s.via_alias ? aliased : direct) = true;
  if (direct && aliased && array.is_extern) {
    *why = "the array is subscripted both directly and through a pointer of another type";
    return std::nullopt;
  }
  const bool subscripts_change = dims == 1 || layout.change == Change::Swizzle;
  if (dims >= 2 && layout.change == Change::Pad) {
    const Range last = array.extents.back();
    edits.push_back({last, fmt::format("{} + {}", text_of(source, last), layout.pad)});
  }
  if (dims == 1 && !array.is_extern && layout.change == Change::Pad) {
    if (array.extents.empty()) {
      *why = "the array's extent is not spelled in the declaration";
      return std::nullopt;
    }
    const std::string n = text_of(source, array.extents.back());
    edits.push_back({array.extents.back(),
                     fmt::format("({0}) + ({0}) / {1} * {2}", n, layout.width, layout.pad)});
  }
  if (subscripts_change) {
    for (const Subscript& s : array.subscripts) {
      if (!s.rewritable) {
        *why = fmt::format("a subscript on line {} is written inside a macro", s.line);
        return std::nullopt;
      }
      if (s.index.size() != dims) {
        *why = fmt::format("line {} uses the array with {} of its {} subscripts", s.line,
                           s.index.size(), dims);
        return std::nullopt;
      }
      if (s.side_effects) {
        *why = fmt::format("a subscript on line {} has side effects (it would be evaluated twice)",
                           s.line);
        return std::nullopt;
      }
      const Range col = s.index.back();
      const std::string c = text_of(source, col);
      std::string repl;
      if (dims == 1 && layout.change == Change::Pad)
        repl = fmt::format("({0}) + ({0}) / {1} * {2}", c, layout.width, layout.pad);
      else if (dims == 1)
        repl = fmt::format("({}) ^ {}", c,
                           xor_term(fmt::format("({}) / {}", c, layout.width), layout));
      else
        repl = fmt::format("({}) ^ {}", c, xor_term(text_of(source, s.index[dims - 2]), layout));
      edits.push_back({col, repl});
    }
  }
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.range.begin < b.range.begin; });
  edits.erase(std::unique(edits.begin(), edits.end(),
                          [](const Edit& a, const Edit& b) { return a.range == b.range; }),
              edits.end());
  for (size_t i = 1; i < edits.size(); ++i)
    if (edits[i].range.begin < edits[i - 1].range.end) {
      *why = "subscripts of the array nest inside each other";
      return std::nullopt;
    }
  if (edits.empty()) {
    *why = "nothing in the source to change";
    return std::nullopt;
  }
  return edits;
}

std::string apply(const std::string& text, const Edits& edits) {
  std::string out;
  size_t at = 0;
  for (const Edit& e : edits) {
    out.append(text, at, e.range.begin - at);
    out += e.text;
    at = e.range.end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size() - 1;
    lines.push_back(text.substr(at, nl + 1 - at));
    at = nl + 1;
  }
  return lines;
}

// One changed region: old lines [first, last] (0-based) become `lines`.
struct Region {
  size_t first, last;
  std::vector<std::string> lines;
};

void emit_line(std::string& out, char tag, const std::string& line) {
  out += tag;
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

}  // namespace

std::string unified_diff(const std::string& path, const std::string& text, const Edits& edits) {
  const std::vector<std::string> old_lines = split_lines(text);
  std::vector<size_t> starts;  // byte offset of each old line
  for (size_t i = 0, at = 0; i < old_lines.size(); at += old_lines[i++].size())
    starts.push_back(at);
  auto line_at = [&](size_t off) {
    return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), off) -
                               starts.begin() - 1);
  };
  // Edits grouped by the old lines they touch.
  std::vector<Region> regions;
  std::vector<std::vector<Edit>> region_edits;
  for (const Edit& e : edits) {
    size_t first = line_at(e.range.begin);
    size_t last = line_at(e.range.end > e.range.begin ? e.range.end - 1 : e.range.begin);
    if (!regions.empty() && first <= regions.back().last) {
      regions.back().last = std::max(regions.back().last, last);
      region_edits.back().push_back(e);
    } else {
      regions.push_back({first, last, {}});
      region_edits.push_back({e});
    }
  }
  for (size_t r = 0; r < regions.size(); ++r) {
    Region& g = regions[r];
    size_t begin = starts[g.first];
    size_t end = g.last + 1 < starts.size() ? starts[g.last + 1] : text.size();
    Edits local;
    for (Edit e : region_edits[r]) {
      e.range.begin -= static_cast<unsigned>(begin);
      e.range.end -= static_cast<unsigned>(begin);
      local.push_back(e);
    }
    g.lines = split_lines(fix::apply(text.substr(begin, end - begin), local));
  }
  std::string out = fmt::format("--- a/{0}\n+++ b/{0}\n", path);
  constexpr size_t kContext = 3;
  long shift = 0;  // new line number minus old line number before the current hunk
  for (size_t r = 0; r < regions.size();) {
    // A hunk: regions whose contexts touch.
    size_t end_r = r + 1;
    while (end_r < regions.size() && regions[end_r].first <= regions[end_r - 1].last + 2 * kContext)
      ++end_r;
    size_t from = regions[r].first >= kContext ? regions[r].first - kContext : 0;
    size_t to = std::min(old_lines.size() - 1, regions[end_r - 1].last + kContext);
    std::string body;
    size_t old_count = 0, new_count = 0, at = from;
    for (size_t k = r; k < end_r; ++k) {
      for (; at < regions[k].first; ++at, ++old_count, ++new_count)
        emit_line(body, ' ', old_lines[at]);
      for (size_t i = regions[k].first; i <= regions[k].last; ++i, ++old_count)
        emit_line(body, '-', old_lines[i]);
      for (const auto& l : regions[k].lines) {
        emit_line(body, '+', l);
        ++new_count;
      }
      at = regions[k].last + 1;
    }
    for (; at <= to; ++at, ++old_count, ++new_count) emit_line(body, ' ', old_lines[at]);
    out += fmt::format("@@ -{},{} +{},{} @@\n", from + 1, old_count,
                       static_cast<long>(from + 1) + shift, new_count);
    out += body;
    shift += static_cast<long>(new_count) - static_cast<long>(old_count);
    r = end_r;
  }
  return out;
}

}  // namespace smemlab::fix
