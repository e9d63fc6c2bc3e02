// The HTML view's drawing of a TMA-filled buffer: its 16-byte chunks over
// the 32 banks, one row per 128-byte line of shared memory, under the
// tensor map's swizzle and under the mode the what-if finds best. Which
// chunk of which box row sits in each slot is decided here, from the
// emulator's swizzle rule (SwizzleWhatIf::remap, emu/tma.h); the page's
// script only draws it (swizzleMap in html_assets.h).
#include <fmt/format.h>

#include "check/source_lines.h"
#include "report/hopper.h"

namespace smemlab::report {

using nlohmann::json;

namespace {

constexpr uint32_t kLine = 128, kChunk = 16, kMaxLines = 8;

// Mode `m`'s 128-byte lines from the box's base: per slot (16 bytes, banks
// 4s..4s+3) the [box row, chunk of the row] it holds, null for none.
json lines_under(const check::SwizzleBuffer& b, int m) {
  const uint32_t span = m ? (16u << m) : b.row_bytes;
  const uint64_t box = uint64_t{b.rows} * std::max(span, b.row_bytes);
  const uint32_t n =
      static_cast<uint32_t>(std::min<uint64_t>(kMaxLines, (box + kLine - 1) / kLine));
  json lines = json::array();
  for (uint32_t l = 0; l < n; ++l) {
    json slots = json::array();
    for (uint32_t s = 0; s < kLine / kChunk; ++s) {
      uint64_t logical = 0;
      const uint64_t at = uint64_t{b.shared_base} + l * kLine + s * kChunk;
      if (check::SwizzleWhatIf::remap(b.shared_base, b.row_bytes, m, 0, at, &logical) &&
          (logical - b.shared_base) / b.row_bytes < b.rows)
        slots.push_back({(logical - b.shared_base) / b.row_bytes,
                         (logical - b.shared_base) % b.row_bytes / kChunk});
      else
        slots.push_back(nullptr);
    }
    lines.push_back(std::move(slots));
  }
  return lines;
}

}  // namespace

std::vector<std::pair<check::SourceLine, json>> swizzle_figures(const check::SwizzleWhatIf& w) {
  std::vector<std::pair<check::SourceLine, json>> out;
  for (const auto& [key, b] : w.buffers()) {
    if (!b.reads && !b.gmma_reads) continue;
    auto where = check::lines_of(w.kernel().lines, b.load->loc);
    if (where.empty()) continue;  // no line to open it from
    const int best = check::best_swizzle(b);
    json modes = json::array();
    for (int m : {static_cast<int>(b.swizzle), best}) {
      if (!modes.empty() && m == b.swizzle) break;  // the map's mode is the best
      modes.push_back({{"mode", check::swizzle_mode_name(m)},
                       {"actual", m == b.swizzle},
                       {"best", m == best},
                       {"wavefronts", b.wavefronts[m] ? json(*b.wavefronts[m]) : json(nullptr)},
                       {"lines", lines_under(b, m)}});
    }
    json all = json::array();  // [mode, wavefronts] in mode order, for the table
    for (int m = 0; m < check::kSwizzleModes; ++m)
      all.push_back(
          {check::swizzle_mode_name(m), b.wavefronts[m] ? json(*b.wavefronts[m]) : json(nullptr)});
    json f = {{"title", fmt::format("TMA box at shared offset {}: {} rows of {} B, {} reads",
                                    b.shared_base, b.rows, b.row_bytes, b.reads)},
              {"shared_offset", b.shared_base},
              {"row_bytes", b.row_bytes},
              {"rows", b.rows},
              {"wavefronts", std::move(all)},
              {"modes", std::move(modes)}};
    if (best != b.swizzle) {
      const check::SwizzleProposal p = check::swizzle_proposal(b, best);
      f["proposal"] =
          best ? fmt::format(
                     "proposal: cuTensorMapEncodeTiled's swizzle {}; readers' shared byte "
                     "offsets o (box {}-byte aligned) become {} (CuTe {}), rows {} B apart",
                     p.tensor_map_swizzle, p.alignment, p.reader_xor, p.cute_swizzle, p.row_pitch)
               : fmt::format("proposal: cuTensorMapEncodeTiled's swizzle {}; rows {} B apart",
                             p.tensor_map_swizzle, p.row_pitch);
    }
    out.emplace_back(where.front(), std::move(f));
  }
  return out;
}

}  // namespace smemlab::report
