#include "bank/bank_map.h"

#include <fmt/core.h>

#include <bit>
#include <set>
#include <vector>

namespace smemlab::bank {

std::string lane_list(uint32_t lanes) {
  std::string out;
  for (unsigned i = 0; i < 32;) {
    if (!(lanes >> i & 1u)) {
      ++i;
      continue;
    }
    unsigned j = i;
    while (j + 1 < 32 && (lanes >> (j + 1) & 1u)) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", i) : fmt::format("{}-{}", i, j);
    i = j + 1;
  }
  return out.empty() ? "none" : out;
}

namespace {

// Legend entries past this are summarized: a 32-way broadcast pattern would
// otherwise list every cell.
constexpr size_t kMaxLegend = 8;

}  // namespace

std::string render_bank_map(const bank::Result& result, unsigned banks) {
  std::set<unsigned> groups;
  for (const auto& wf : result.passes) groups.insert(wf.group);
  bool show_group = groups.size() > 1;

  // Row label: "wf 12", plus " g3" when the request was served in several
  // lane groups (half-warps, quarter-warps); every cell is 3 characters.
  std::string out = fmt::format("{:<{}}", "bank", show_group ? 8 : 5);
  for (unsigned b = 0; b < banks; ++b) out += fmt::format("{:>3}", b);
  out += '\n';

  std::vector<std::string> legend;
  size_t legend_total = 0;
  for (size_t p = 0; p < result.passes.size(); ++p) {
    const bank::Wavefront& wf = result.passes[p];
    std::string line =
        show_group ? fmt::format("wf{:>3} g{:<1}", p + 1, wf.group) : fmt::format("wf{:>3}", p + 1);
    for (unsigned b = 0; b < banks; ++b) {
      uint32_t lanes = 0;
      std::vector<const bank::Slot*> slots;
      for (const bank::Slot& s : wf.slots)
        if (s.bank == b) {
          lanes |= s.lanes;
          slots.push_back(&s);
        }
      if (!lanes) {
        line += "  .";
        continue;
      }
      bool several = std::popcount(lanes) > 1;
      // The marker goes before the number so that it reads as part of its cell.
      line +=
          fmt::format("{:>3}", fmt::format("{}{}", several ? "*" : "", std::countr_zero(lanes)));
      if (several) {
        ++legend_total;
        if (legend.size() < kMaxLegend) {
          std::string what;
          for (const bank::Slot* s : slots) {
            if (!what.empty()) what += "; ";
            what += fmt::format("word {} to lanes {}", s->word, lane_list(s->lanes));
          }
          legend.push_back(fmt::format("  wf {} bank {}: {}", p + 1, b, what));
        }
      }
    }
    out += line + '\n';
  }
  if (result.passes.empty()) out += "(no wavefront: no active lane)\n";
  if (legend_total) {
    out += "*N = lane N and others in one cell:\n";
    for (const std::string& l : legend) out += l + '\n';
    if (legend_total > legend.size())
      out += fmt::format("  ... and {} more such cells\n", legend_total - legend.size());
  }
  return out;
}

}  // namespace smemlab::bank
