#include "report/hopper.h"

#include <fmt/format.h>

#include <set>
#include <string>

namespace smemlab::report {

using nlohmann::json;

namespace {

// What a row carries beyond its requests: its class's fields
// (check/hopper_classes.def).
json counts_json(check::HopperClass c, const check::HopperCounts& h) {
  json j = {{"requests", h.requests}};
  const uint8_t fields = check::hopper_fields(c);
  if (fields & check::kWavefronts) j["wavefronts"] = h.wavefronts;
  if (fields & check::kBankConflicts) j["bank_conflicts"] = h.bank_conflicts;
  if (fields & check::kSectors) {
    j["sectors"] = h.sectors;
    j["bytes"] = h.bytes;
  }
  if (fields & check::kSharedBytes) j["shared_bytes"] = h.shared_bytes;
  if (h.unmodelled) j["unmodelled_requests"] = h.unmodelled;
  return j;
}

std::string row_name(check::HopperClass c) {
  const std::string row = check::hopper_row(c);
  return row.empty() ? check::hopper_family(c) : fmt::format("{} {}", check::hopper_family(c), row);
}

}  // namespace

void add_hopper_json(json& j, const check::HopperLine& l) {
  for (int i = 0; i < check::kHopperClasses; ++i) {
    const auto c = static_cast<check::HopperClass>(i);
    if (!l.cls[i].requests) continue;
    const std::string row = check::hopper_row(c);
    if (row.empty())
      j[check::hopper_family(c)] = counts_json(c, l.cls[i]);
    else
      j[check::hopper_family(c)][row] = counts_json(c, l.cls[i]);
  }
}

std::string hopper_note(const check::HopperLine& l) {
  std::string out;
  for (int i = 0; i < check::kHopperClasses; ++i) {
    const auto c = static_cast<check::HopperClass>(i);
    const check::HopperCounts& h = l.cls[i];
    if (!h.requests) continue;
    std::string what;
    switch (check::hopper_family_of(c)) {
      case check::HopperFamily::Gmma:
        what = fmt::format("{} wavefronts ({} bank conflicts), {} shared bytes read", h.wavefronts,
                           h.bank_conflicts, h.shared_bytes);
        break;
      case check::HopperFamily::Ldgsts:
        what = fmt::format("{} shared wavefronts ({} bank conflicts), {} global sectors",
                           h.wavefronts, h.bank_conflicts, h.sectors);
        break;
      case check::HopperFamily::Mbarrier:
        what = fmt::format("{} op_misc wavefronts (mbarrier.init)", h.wavefronts);
        break;
      case check::HopperFamily::Dshared:
        what = fmt::format("{} sectors, {} bytes", h.sectors, h.bytes);
        break;
      case check::HopperFamily::Tma:
        what = fmt::format("{} global sectors, {} shared bytes", h.sectors, h.shared_bytes);
        break;
    }
    out += fmt::format("        {:<16} {:>6} req, {}\n", row_name(c), h.requests, what);
  }
  return out;
}

std::string hopper_summary(const check::HopperLine& totals) {
  std::string parts;
  for (int i = 0; i < check::kHopperClasses; ++i)
    if (totals.cls[i].requests)
      parts += fmt::format(
          "  {} {} req{}", row_name(static_cast<check::HopperClass>(i)), totals.cls[i].requests,
          check::hopper_fields(static_cast<check::HopperClass>(i)) & check::kBankConflicts
              ? fmt::format(" / {} wavefronts", totals.cls[i].wavefronts)
              : "");
  return parts.empty() ? "" : fmt::format("  Hopper{}\n", parts);
}

}  // namespace smemlab::report

namespace smemlab::report {

namespace {

std::string load_line(const check::SwizzleWhatIf& w, const emu::InstrInfo* instr) {
  auto lines = check::lines_of(w.kernel().lines, instr->loc);
  if (lines.empty()) return fmt::format("PTX line {}", instr->ptx_line);
  return fmt::format("{}:{}", lines.front().file, lines.front().line);
}

// What to change for mode `best`: the host's tensor-map field and the
// kernel's reader addresses (fix does not rewrite these yet: docs/fix.md).
std::string proposal_text(const check::SwizzleBuffer& b, int best) {
  const check::SwizzleProposal p = check::swizzle_proposal(b, best);
  const std::string readers =
      best ? fmt::format(
                 "; the readers' shared byte offsets o (from a {}-byte aligned box) become {} "
                 "(CuTe {}), rows {} B apart",
                 p.alignment, p.reader_xor, p.cute_swizzle, p.row_pitch)
           : fmt::format("; the readers address row r at r * {} without an XOR", p.row_pitch);
  return fmt::format("    proposal: cuTensorMapEncodeTiled's swizzle {}{}: {} -> {} wavefronts\n",
                     p.tensor_map_swizzle, readers, *b.wavefronts[b.swizzle], *b.wavefronts[best]);
}

// The source lines of a buffer's readers (the innermost line of each, where
// an inlined helper's load is its own line), each once, in order: fix
// rewrites the addresses there.
json reader_lines(const check::SwizzleWhatIf& w, const check::SwizzleBuffer& b) {
  std::set<std::pair<std::string, int>> seen;
  for (const emu::InstrInfo* i : b.readers)
    if (auto lines = check::lines_of(w.kernel().lines, i->loc); !lines.empty())
      seen.emplace(lines.back().file, lines.back().line);
  json out = json::array();
  for (const auto& [file, line] : seen) out.push_back({{"file", file}, {"line", line}});
  return out;
}

}  // namespace

json swizzle_json(const check::SwizzleWhatIf& w) {
  json arr = json::array();
  for (const auto& [key, b] : w.buffers()) {
    if (!b.reads && !b.gmma_reads) continue;
    json modes = json::object();
    for (int m = 0; m < check::kSwizzleModes; ++m)
      modes[check::swizzle_mode_name(m)] = b.wavefronts[m] ? json(*b.wavefronts[m]) : json(nullptr);
    auto lines = check::lines_of(w.kernel().lines, b.load->loc);
    json o = {{"file", lines.empty() ? "" : lines.front().file},
              {"line", lines.empty() ? 0 : lines.front().line},
              {"ptx_line", b.load->ptx_line},
              {"shared_offset", b.shared_base},
              {"swizzle", check::swizzle_mode_name(b.swizzle)},
              {"row_bytes", b.row_bytes},
              {"rows", b.rows},
              {"arch", w.model().name()},
              {"read_requests", b.reads},
              {"wavefronts", modes}};
    if (b.unmodelled) o["unmodelled_requests"] = b.unmodelled;
    o["readers"] = reader_lines(w, b);
    if (const int best = check::best_swizzle(b); best != b.swizzle) {
      const check::SwizzleProposal p = check::swizzle_proposal(b, best);
      o["proposal"] = {{"swizzle", check::swizzle_mode_name(best)},
                       {"tensor_map_swizzle", p.tensor_map_swizzle},
                       {"reader_swizzle", p.cute_swizzle},
                       {"reader_xor", p.reader_xor},
                       {"row_pitch", p.row_pitch},
                       {"alignment", p.alignment},
                       {"wavefronts", *b.wavefronts[b.swizzle]},
                       {"predicted_wavefronts", *b.wavefronts[best]}};
    }
    if (b.gmma_reads) {  // the same in every mode (1 wavefront per core matrix)
      o["wgmma_reads"] = b.gmma_reads;
      o["wgmma_wavefronts"] = b.gmma_wavefronts;
    }
    arr.push_back(std::move(o));
  }
  return arr;
}

json descriptor_json(const check::SwizzleWhatIf& w) {
  json arr = json::array();
  for (const auto& [key, d] : w.descriptor_buffers()) {
    json modes = json::object();
    for (int m = 0; m < check::kSwizzleModes; ++m)
      modes[check::swizzle_mode_name(m)] = d.wavefronts[m] ? json(*d.wavefronts[m]) : json(nullptr);
    auto lines = check::lines_of(w.kernel().lines, d.wgmma->loc);
    json o = {{"file", lines.empty() ? "" : lines.front().file},
              {"line", lines.empty() ? 0 : lines.front().line},
              {"ptx_line", d.wgmma->ptx_line},
              {"operand", d.operand_a ? "A" : "B"},
              {"shared_offset", d.shared_base},
              {"layout", check::swizzle_mode_name(d.swizzle)},
              {"major", d.mn_major ? "MN" : "K"},
              {"rows", d.rows},
              {"wgmma_reads", d.reads},
              {"wavefronts", modes}};
    if (d.unmodelled) o["unmodelled_reads"] = d.unmodelled;
    arr.push_back(std::move(o));
  }
  return arr;
}

std::string descriptor_text(const check::SwizzleWhatIf& w) {
  std::string out;
  for (const auto& [key, d] : w.descriptor_buffers()) {
    std::string modes;
    for (int m = 0; m < check::kSwizzleModes; ++m)
      modes += fmt::format("  {}{} {}", check::swizzle_mode_name(m), m == d.swizzle ? "*" : "",
                           d.wavefronts[m] ? fmt::format("{}", *d.wavefronts[m]) : "n/a");
    out += fmt::format("  {} operand {} (shared offset {}, {}-major, {} rows): {} reads;{}\n",
                       load_line(w, d.wgmma), d.operand_a ? "A" : "B", d.shared_base,
                       d.mn_major ? "MN" : "K", d.rows, d.reads, modes);
  }
  if (out.empty()) return "";
  return "\ndescriptor what-if: wavefronts of the wgmma operand reads of each buffer no TMA load "
         "fills under each descriptor layout (* the descriptor's; 1 per core matrix under "
         "every layout, as measured on the H100)\n" +
         out;
}

std::string swizzle_text(const check::SwizzleWhatIf& w) {
  std::string out;
  for (const auto& [key, b] : w.buffers()) {
    if (!b.reads && !b.gmma_reads) continue;
    std::string modes;
    for (int m = 0; b.reads && m < check::kSwizzleModes; ++m)
      modes += fmt::format("  {}{} {}", check::swizzle_mode_name(m), m == b.swizzle ? "*" : "",
                           b.wavefronts[m] ? fmt::format("{}", *b.wavefronts[m]) : "n/a");
    // wgmma's operand reads cost 1 wavefront per core matrix in every mode.
    const std::string gmma =
        b.gmma_reads ? fmt::format("; {} wgmma operand reads: {} wavefronts under every mode",
                                   b.gmma_reads, b.gmma_wavefronts)
                     : "";
    // (";" before the modes only when there are some: a buffer only wgmma
    // reads printed "0 reads;; N wgmma operand reads".)
    out += fmt::format("  {} (shared offset {}, {} rows of {} B): {} reads{}{}\n",
                       load_line(w, b.load), b.shared_base, b.rows, b.row_bytes, b.reads,
                       modes.empty() ? "" : ";" + modes, gmma);
    if (const int best = check::best_swizzle(b); best != b.swizzle) out += proposal_text(b, best);
  }
  if (out.empty()) return "";
  return fmt::format(
             "\nswizzle what-if: wavefronts on {} of the ld.shared/ldmatrix reads of each "
             "TMA-filled buffer under each tensor-map swizzle (* the map's)\n",
             w.model().name()) +
         out;
}

}  // namespace smemlab::report
