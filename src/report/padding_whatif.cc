// The padding what-if's shapes (check/padding_whatif.h): JSON for --json,
// SARIF's properties and the HTML view, and the text report's section.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check/source_lines.h"
#include "ptx/demangle.h"
#include "report/hopper.h"

namespace smemlab::report {

using nlohmann::json;

namespace {

const char* const kPadOps[] = {"load", "store", "atomic"};

std::string buffer_name(const check::PaddingBuffer& b) {
  return b.name.empty() ? "the dynamic window" : ptx::demangle(b.name);
}

// Where the buffer's costliest conflicted request is, "" when not known.
check::SourceLine worst_line(const check::PaddingWhatIf& w, const check::PaddingBuffer& b) {
  if (!b.worst) return {};
  auto lines = check::lines_of(w.kernel().lines, b.worst->loc);
  return lines.empty() ? check::SourceLine{} : lines.front();
}

}  // namespace

json padding_json(const check::PaddingWhatIf& w) {
  json arr = json::array();
  for (const check::PaddingBuffer& b : w.buffers()) {
    const check::SourceLine at = worst_line(w, b);
    json o = {{"buffer", b.name.empty() ? json(nullptr) : json(b.name)},
              {"variable", b.name.empty() ? json(nullptr) : json(ptx::demangle(b.name))},
              {"dynamic", b.name.empty()},
              {"shared_offset", b.base},
              {"bytes", b.bytes},
              {"arch", w.model().name()},
              {"file", at.file},
              {"line", at.line},
              {"row_pitch", b.pitch},
              {"pad_words", b.pad_words},
              {"removes_conflicts", b.removes}};
    if (b.pad_words) o["padded_bytes"] = b.padded_bytes;
    for (int op = 0; op < 3; ++op)
      if (b.ops[op].requests)
        o[kPadOps[op]] = {{"requests", b.ops[op].requests},
                          {"wavefronts", b.ops[op].wavefronts},
                          {"ideal", b.ops[op].ideal},
                          {"padded_wavefronts", b.ops[op].padded_wavefronts}};
    if (b.unmodelled) o["unmodelled_requests"] = b.unmodelled;
    if (b.incomplete) o["incomplete"] = true;
    arr.push_back(std::move(o));
  }
  return arr;
}

std::string padding_text(const check::PaddingWhatIf& w) {
  std::string out;
  for (const check::PaddingBuffer& b : w.buffers()) {
    const check::SourceLine at = worst_line(w, b);
    const std::string where = at.line ? fmt::format("; worst at {}:{}", at.file, at.line) : "";
    std::string what;
    if (b.incomplete)
      what = "too many distinct requests to replay: no prediction";
    else if (!b.pitch)
      what = "no row pitch in its conflicted requests' lane steps: no prediction";
    else if (!b.pad_words)
      what =
          fmt::format("rows {} B apart; no padding up to 32 words lowers its wavefronts", b.pitch);
    else
      what = fmt::format("rows {} B apart; pad {} word{} per row -> {} B{}", b.pitch, b.pad_words,
                         b.pad_words == 1 ? "" : "s", b.padded_bytes,
                         b.removes ? "" : " (the fewest wavefronts; conflicts remain)");
    std::vector<std::string> ops;
    for (int op = 0; op < 3; ++op)
      if (b.ops[op].requests)
        ops.push_back(fmt::format("{} {} -> {} (ideal {})", kPadOps[op], b.ops[op].wavefronts,
                                  b.ops[op].padded_wavefronts, b.ops[op].ideal));
    out += fmt::format("  {} (shared offset {}, {} B{}): {}; {}\n", buffer_name(b), b.base, b.bytes,
                       where, what, fmt::join(ops, ", "));
  }
  if (out.empty()) return "";
  return fmt::format(
             "\npadding what-if: wavefronts on {} of each conflicted shared buffer no TMA copy "
             "fills, with its rows padded (row pitch: the lanes' commonest address step in "
             "its conflicted requests)\n",
             w.model().name()) +
         out;
}

}  // namespace smemlab::report
