#include "fix/tile_swizzle.h"

#include <fmt/format.h>

#include <algorithm>

namespace smemlab::fix {
namespace {

// Bytes from one box row to the next under mode m: the mode's span (16 << m
// bytes) when swizzled, the row itself when not.
uint32_t pitch_of(int m, uint32_t row_bytes) { return m ? 16u << m : row_bytes; }

// The reader offsets on `line`: offset uses and 1-D subscripts of every
// shared array (or alias) whose expression covers the line.
struct ReaderUse {
  Range offset;
  unsigned elem_bytes = 0;
  bool side_effects = false, rewritable = true;
  int dims = 1;
};

std::vector<ReaderUse> uses_on(const SourceModel& s, int line) {
  std::vector<ReaderUse> out;
  for (const SourceArray& a : s.arrays) {
    for (const OffsetUse& u : a.offsets)
      if (u.line <= line && line <= u.end_line)
        out.push_back({u.offset, u.elem_bytes, u.side_effects, u.rewritable, 1});
    for (const Subscript& sub : a.subscripts) {
      if (sub.line != line) continue;
      out.push_back({sub.index.empty() ? Range{} : sub.index.back(), sub.elem_bytes,
                     sub.side_effects, sub.rewritable, static_cast<int>(sub.index.size())});
    }
  }
  return out;
}

// Why the encode's argument cannot carry the change; "" when it can.
std::string host_problem(const SourceModel& s, const TileSwizzle& t) {
  if (s.swizzle_arguments.empty()) return "no call with a CUtensorMapSwizzle argument in " + s.path;
  if (s.swizzle_arguments.size() > 1) {
    std::vector<int> lines;
    for (const SwizzleArgument& a : s.swizzle_arguments) lines.push_back(a.line);
    return fmt::format(
        "{} tensor-map encodes in {} (lines {}): which one maps this tile is not "
        "followed",
        s.swizzle_arguments.size(), s.path, fmt::join(lines, ", "));
  }
  const SwizzleArgument& a = s.swizzle_arguments.front();
  if (!a.value)
    return fmt::format("{}:{}:{}: the swizzle is `{}`, a value computed at run time: not rewritten",
                       s.path, a.line, a.column, a.text);
  if (!a.rewritable)
    return fmt::format("{}:{}:{}: the swizzle `{}` comes from a macro: not rewritten", s.path,
                       a.line, a.column, a.text);
  if (*a.value != t.from)
    return fmt::format(
        "{}:{}:{}: the encode's swizzle `{}` is not the mode this tile was loaded "
        "with ({}): it does not map this tile",
        s.path, a.line, a.column, a.text, swizzle_enumerator(t.from));
  return "";
}

// Why the readers cannot follow; "" when they can (their edits appended).
std::string reader_problem(const SourceModel& s, const TileSwizzle& t, Edits* edits) {
  if (t.wgmma_reads)
    return "the tile is also read by wgmma through shared-memory descriptors, whose layout bits "
           "fix does not rewrite";
  if (t.reader_lines.empty()) return "no reader of the tile is on a line of " + s.path;
  for (int line : t.reader_lines) {
    std::vector<ReaderUse> uses = uses_on(s, line);
    if (uses.empty())
      return fmt::format(
          "{}:{}: a reader's shared address is not an offset from a shared array or from a "
          "pointer initialised from one (`tile + o`, `tile[o]`): not rewritten",
          s.path, line);
    for (const ReaderUse& u : uses) {
      const std::string text = s.text.substr(u.offset.begin, u.offset.end - u.offset.begin);
      if (u.dims != 1)
        return fmt::format(
            "{}:{}: the reader subscripts a {}-D array: only a 1-D offset is "
            "rewritten for a TMA tile",
            s.path, line, u.dims);
      if (!u.rewritable)
        return fmt::format("{}:{}: the reader's offset `{}` comes from a macro: not rewritten",
                           s.path, line, text);
      if (u.side_effects)
        return fmt::format(
            "{}:{}: the reader's offset `{}` has side effects: it would be "
            "evaluated twice",
            s.path, line, text);
      if (u.elem_bytes == 0 || u.elem_bytes > 16 || (u.elem_bytes & (u.elem_bytes - 1)))
        return fmt::format(
            "{}:{}: the reader's offset `{}` counts elements of {} bytes: only 1, "
            "2, 4, 8 or 16 keep the 16-byte chunks whole",
            s.path, line, text, u.elem_bytes ? std::to_string(u.elem_bytes) : "unknown");
      edits->push_back({u.offset, swizzled_offset(text, u.elem_bytes, t.from, t.to)});
    }
  }
  return "";
}

}  // namespace

const char* swizzle_enumerator(int mode) {
  static const char* const names[] = {"CU_TENSOR_MAP_SWIZZLE_NONE", "CU_TENSOR_MAP_SWIZZLE_32B",
                                      "CU_TENSOR_MAP_SWIZZLE_64B", "CU_TENSOR_MAP_SWIZZLE_128B"};
  return mode >= 0 && mode < 4 ? names[mode] : "?";
}

std::string swizzled_offset(const std::string& offset, unsigned elem_bytes, int from, int to) {
  const unsigned mask = ((1u << from) - 1) ^ ((1u << to) - 1);
  const std::string o =
      elem_bytes == 1 ? fmt::format("({})", offset) : fmt::format("({}) * {}", offset, elem_bytes);
  const std::string x = fmt::format("({} ^ (({} >> 7 & {}) << 4))", o, o, mask);
  return elem_bytes == 1 ? x : fmt::format("{} / {}", x, elem_bytes);
}

std::optional<Edits> tile_swizzle_edits(const SourceModel& source, const TileSwizzle& t,
                                        std::string* why) {
  if (std::string p = host_problem(source, t); !p.empty()) {
    *why = p;
    return std::nullopt;
  }
  if (pitch_of(t.from, t.row_bytes) != pitch_of(t.to, t.row_bytes)) {
    *why = fmt::format(
        "rows of {} B are {} B apart under {} and {} B as loaded: the readers' row arithmetic is "
        "not rewritten",
        t.row_bytes, pitch_of(t.to, t.row_bytes), swizzle_enumerator(t.to),
        pitch_of(t.from, t.row_bytes));
    return std::nullopt;
  }
  const uint32_t align = 128u << std::max(t.from, t.to);
  if (t.shared_base % align) {
    *why = fmt::format(
        "the tile at shared offset {} is not {}-byte aligned: the XOR on offsets from its base "
        "would not be the one the hardware applies to addresses",
        t.shared_base, align);
    return std::nullopt;
  }
  const SwizzleArgument& a = source.swizzle_arguments.front();
  Edits edits = {{a.range, swizzle_enumerator(t.to)}};
  if (std::string p = reader_problem(source, t, &edits); !p.empty()) {
    *why = p;
    return std::nullopt;
  }
  std::sort(edits.begin(), edits.end(),
            [](const Edit& x, const Edit& y) { return x.range.begin < y.range.begin; });
  edits.erase(std::unique(edits.begin(), edits.end(),
                          [](const Edit& x, const Edit& y) { return x.range == y.range; }),
              edits.end());
  for (size_t i = 1; i < edits.size(); ++i)
    if (edits[i].range.begin < edits[i - 1].range.end) {
      *why = fmt::format("{}:{}: two reader offsets overlap (one inside the other): not rewritten",
                         source.path, line_of(source.text, edits[i].range.begin));
      return std::nullopt;
    }
  return edits;
}

}  // namespace smemlab::fix
