#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "bank/bank_map.h"
#include "report/hopper.h"
#include "report/report.h"
#include "report/timing.h"

namespace smemlab::report {
namespace {

std::string dim_text(emu::Dim3 d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

const char* kOpShort[] = {"ld", "st", "atom", "ldsm", "stsm"};
static_assert(std::size(kOpShort) == check::kSharedOps);

std::string bank_note(const check::LineStats& l,
                      const std::vector<std::unique_ptr<bank::Model>>& models) {
  std::string out;
  for (int op = 0; op < check::kSharedOps; ++op) {
    const check::BankCounts& c = l.models[0].op[op];
    if (!c.requests) continue;
    out += fmt::format(
        "        shared {:<4} {:>8} req {:>9} wavefronts (ideal {}, excess {}), {:.2f} avg / {} "
        "max ways",
        kOpShort[op], c.requests, c.wavefronts, c.ideal, c.wavefronts - c.ideal,
        double(c.wavefronts) / double(std::max<uint64_t>(c.ideal, 1)), c.max_ways);
    for (size_t m = 1; m < models.size(); ++m) {
      const check::BankCounts& o = l.models[m].op[op];
      if (o.unmodelled == o.requests)
        out += fmt::format(" | {} n/a", models[m]->name());
      else if (o.worst_wavefronts != o.wavefronts)
        out += fmt::format(" | {} {}-{}", models[m]->name(), o.wavefronts, o.worst_wavefronts);
      else
        out += fmt::format(" | {} {}", models[m]->name(), o.wavefronts);
    }
    out += "\n";
  }
  return out;
}

struct AccessNote {
  check::SectorCounts cls[check::kAccessClasses];
  check::BranchCounts branches;
  check::ExecCounts exec;
};

std::string access_note(const AccessNote& n) {
  std::string out;
  for (int c = 0; c < check::kAccessClasses; ++c) {
    const auto& s = n.cls[c];
    if (!s.requests) continue;
    out += fmt::format(
        "        {:<16} {:>6} req {:>6.2f} sectors/req (ideal {:.2f}), {:.0f}% of moved bytes "
        "used\n",
        check::access_class_name(static_cast<check::AccessClass>(c)), s.requests,
        double(s.sectors) / double(s.requests), double(s.ideal_sectors) / double(s.requests),
        s.sectors ? 100.0 * double(s.bytes) / (32.0 * double(s.sectors)) : 100.0);
  }
  if (n.exec.steps && n.exec.lanes < 32 * n.exec.steps)
    out += fmt::format(
        "        SIMT efficiency {:.0f}% ({:.1f} of 32 lanes on average over {} "
        "warp-instructions)\n",
        100.0 * n.exec.efficiency(), double(n.exec.lanes) / double(n.exec.steps), n.exec.steps);
  if (n.branches.divergent)
    out += fmt::format("        branch: {} divergent, {} uniform warp executions\n",
                       n.branches.divergent, n.branches.uniform);
  return out;
}

std::string where_of(const check::AccessAnalysis& a, const emu::InstrInfo* instr) {
  auto lines = check::lines_of(a.kernel().lines, instr->loc);
  if (lines.empty()) return fmt::format("PTX line {}", instr->ptx_line);
  return fmt::format("{}:{}", lines.front().file, lines.front().line);
}

// The accesses a user acts on: global/local instructions moving more sectors
// than their bytes need, ranked by the excess, with the lane -> sector map of
// the worst request; and branches that split warps, ranked by how often.
std::string access_findings(const check::AccessAnalysis& a) {
  // Per source line and access class (unrolled loops give one line several
  // instructions); the worst request is kept from the costliest instruction.
  struct Line {
    std::string where;
    check::AccessClass cls;
    check::SectorCounts counts;
    const check::AccessInstr* worst = nullptr;
  };
  std::map<std::pair<std::string, int>, Line> lines;
  for (const auto& [pc, s] : a.accesses()) {
    Line& l = lines[{where_of(a, s.instr), static_cast<int>(s.cls)}];
    l.where = where_of(a, s.instr);
    l.cls = s.cls;
    l.counts.add(s.counts);
    if (!l.worst || s.worst_excess > l.worst->worst_excess) l.worst = &s;
  }
  std::vector<const Line*> ranked;
  for (const auto& [k, l] : lines)
    if (l.counts.sectors > l.counts.ideal_sectors) ranked.push_back(&l);
  auto excess = [](const Line* l) { return l->counts.sectors - l->counts.ideal_sectors; };
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](auto x, auto y) { return excess(x) > excess(y); });
  std::string out;
  if (!ranked.empty()) {
    out += "\nuncoalesced accesses (32-byte sectors above the fewest that carry the bytes)\n";
    for (size_t i = 0; i < ranked.size() && i < 5; ++i) {
      const auto& c = ranked[i]->counts;
      out += fmt::format("  {:<28} {:<16} {} excess sectors: {:.2f} per request, ideal {:.2f}\n",
                         ranked[i]->where, check::access_class_name(ranked[i]->cls),
                         excess(ranked[i]), double(c.sectors) / double(c.requests),
                         double(c.ideal_sectors) / double(c.requests));
    }
    const check::AccessInstr& w = *ranked.front()->worst;
    std::map<uint64_t, uint32_t> by_sector;
    for (unsigned l = 0; l < 32; ++l)
      if (w.worst_mask >> l & 1u)
        for (uint64_t s = w.worst_addr[l] / 32; s <= (w.worst_addr[l] + w.width - 1) / 32; ++s)
          by_sector[s] |= 1u << l;
    out += fmt::format(
        "worst request at {} ({}-byte accesses): {} sectors\n  sector (bytes from the first)  "
        "lanes\n",
        where_of(a, w.instr), w.width, by_sector.size());
    uint64_t first = by_sector.empty() ? 0 : by_sector.begin()->first;
    size_t shown = 0;
    for (const auto& [sector, lanes] : by_sector) {
      if (shown++ == 16) {
        out += fmt::format("  ... and {} more sectors\n", by_sector.size() - 16);
        break;
      }
      out += fmt::format("  +{:<28} {}\n", (sector - first) * 32, bank::lane_list(lanes));
    }
  }
  std::map<std::string, check::BranchCounts> split;
  for (const auto& [pc, b] : a.branches())
    if (b.counts.divergent) split[where_of(a, b.instr)].add(b.counts);
  std::vector<std::pair<std::string, check::BranchCounts>> order(split.begin(), split.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
    return x.second.divergent > y.second.divergent;
  });
  if (!order.empty()) {
    out += "\ndivergent branches (warp executions that split / all)\n";
    for (size_t i = 0; i < order.size() && i < 5; ++i)
      out += fmt::format("  {:<28} {} / {}\n", order[i].first, order[i].second.divergent,
                         order[i].second.divergent + order[i].second.uniform);
  }
  return out;
}

}  // namespace

std::string analyze_text(const Analysis& a, const std::vector<std::string>& source_lines) {
  const auto& models = a.banks->models();
  std::string out = fmt::format("kernel {}\n", a.run.kernel);
  out += fmt::format("launch grid {} block {}, dynamic shared {} B; {} of {} block{} emulated{}\n",
                     dim_text(a.run.grid), dim_text(a.run.block), a.run.dynamic_shared,
                     a.run.blocks_observed, a.run.blocks_total, a.run.blocks_total == 1 ? "" : "s",
                     a.run.sampling.empty() ? "" : " (" + a.run.sampling + ")");
  for (const auto& m : models) out += fmt::format("model {}\n", m->description());
  out += level_text(a.run);
  out += "\n";

  auto lines = a.banks->lines();
  std::map<check::SourceLine, AccessNote> notes;
  if (a.access) {
    for (const auto& [pc, s] : a.access->accesses())
      for (const auto& w : check::lines_of(a.access->kernel().lines, s.instr->loc))
        notes[w].cls[static_cast<int>(s.cls)].add(s.counts);
    for (const auto& [pc, b] : a.access->branches())
      for (const auto& w : check::lines_of(a.access->kernel().lines, b.instr->loc))
        notes[w].branches.add(b.counts);
    for (const auto& [pc, e] : a.access->executed())
      for (const auto& w : check::lines_of(a.access->kernel().lines, e.first->loc))
        notes[w].exec.add(e.second);
  }
  // The user's file is the one most lines belong to... the source given.
  std::map<int, std::string> annotations;
  int first = 0, last = 0;
  auto in_source = [&](const check::SourceLine& w) {
    return !source_lines.empty() &&
           (w.file == a.run.source || w.file.ends_with("/" + a.run.source) ||
            a.run.source.ends_with(w.file));
  };
  for (const auto& l : lines)
    if (in_source(l.where)) annotations[l.where.line] += bank_note(l, models);
  for (const auto& [w, n] : notes)
    if (in_source(w)) annotations[w.line] += access_note(n);
  if (a.hopper)
    for (const auto& [w, h] : a.hopper->lines())
      if (in_source(w)) annotations[w.line] += hopper_note(h);
  if (!annotations.empty()) {
    first = std::max(1, annotations.begin()->first - 2);
    last = std::min<int>(static_cast<int>(source_lines.size()), annotations.rbegin()->first + 1);
    out += fmt::format("{}:\n", a.run.source);
    for (int i = first; i <= last; ++i) {
      out += fmt::format("{:>6} | {}\n", i, source_lines[static_cast<size_t>(i - 1)]);
      if (auto it = annotations.find(i); it != annotations.end() && !it->second.empty())
        out += it->second;
    }
    out += "\n";
  }
  // Lines outside the user's file (headers), or no source text at hand.
  for (const auto& l : lines)
    if (!in_source(l.where))
      out += fmt::format("{}:{}\n{}", l.where.file, l.where.line, bank_note(l, models));

  auto totals = a.banks->totals();
  out += "summary\n";
  for (size_t m = 0; m < models.size(); ++m) {
    uint64_t wf = 0, ideal = 0;
    std::string parts;
    for (int op = 0; op < check::kSharedOps; ++op) {
      const auto& c = totals[m].op[op];
      wf += c.wavefronts;
      ideal += c.ideal;
      if (c.requests)
        parts += fmt::format("  {} {} req / {} wavefronts / {} conflicts{}", kOpShort[op],
                             c.requests, c.wavefronts, c.bank_conflicts,
                             c.unmodelled ? fmt::format(" ({} unmodelled)", c.unmodelled) : "");
    }
    out += fmt::format("  {:<8} shared efficiency {:5.1f}%{}\n", models[m]->name(),
                       wf ? 100.0 * double(ideal) / double(wf) : 100.0, parts);
  }
  if (a.banks->cp_async_requests())
    out += fmt::format("  {} cp.async shared requests are not modelled\n",
                       a.banks->cp_async_requests());
  if (a.hopper) out += hopper_summary(a.hopper->totals());
  if (a.access) {
    check::ExecCounts all;
    for (const auto& [pc, e] : a.access->executed()) all.add(e.second);
    if (all.steps)
      out += fmt::format("  SIMT efficiency {:.1f}% ({} warp-instructions)\n",
                         100.0 * all.efficiency(), all.steps);
  }
  out += timing_text(a);
  if (a.run.blocks_observed != a.run.blocks_total)
    out += fmt::format("  counts scaled from {} emulated blocks to the grid's {} (x{:.2f})\n",
                       a.run.blocks_observed, a.run.blocks_total, scale(a.run));

  // Worst lines by excess wavefronts on the first model.
  std::vector<const check::LineStats*> ranked;
  for (const auto& l : lines) ranked.push_back(&l);
  auto excess = [](const check::LineStats* l) {
    uint64_t e = 0;
    for (const auto& c : l->models[0].op) e += c.wavefronts - c.ideal;
    return e;
  };
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](auto x, auto y) { return excess(x) > excess(y); });
  // Inlined code counts at its own line and at the call site: a line whose
  // instructions contain or are contained in a listed line's, with the same
  // excess, is the same cost and is not listed again.
  {
    std::vector<const check::LineStats*> unique;
    for (const auto* l : ranked) {
      bool seen = false;
      for (const auto* u : unique)  // pcs are in increasing order
        seen =
            seen || (excess(u) == excess(l) &&
                     (std::includes(u->pcs.begin(), u->pcs.end(), l->pcs.begin(), l->pcs.end()) ||
                      std::includes(l->pcs.begin(), l->pcs.end(), u->pcs.begin(), u->pcs.end())));
      if (!seen) unique.push_back(l);
    }
    ranked = std::move(unique);
  }
  if (!ranked.empty() && excess(ranked.front()) > 0) {
    out += fmt::format("\nworst lines on {} (excess wavefronts)\n", models[0]->name());
    for (size_t i = 0; i < ranked.size() && i < 5 && excess(ranked[i]) > 0; ++i)
      out += fmt::format("  {}:{}  {}\n", ranked[i]->where.file, ranked[i]->where.line,
                         excess(ranked[i]));
    const auto& w = ranked.front()->models[0].worst;
    if (w) {
      out += fmt::format("\nworst request at {}:{} (block {}, warp {}): {} wavefronts, ideal {}\n",
                         ranked.front()->where.file, ranked.front()->where.line, dim_text(w->block),
                         w->warp, w->result.wavefronts, w->result.ideal);
      out += bank::render_bank_map(w->result, models[0]->banks());
    }
  } else {
    uint64_t total_excess = 0;
    for (const auto& c : totals[0].op) total_excess += c.wavefronts - c.ideal;
    // A program built without -lineinfo has costs but no lines to put them on.
    out += total_excess ? fmt::format(
                              "\n{} excess wavefronts on {}, not attributed to lines: the PTX has "
                              "no line information (build with nvcc -lineinfo)\n",
                              total_excess, models[0]->name())
                        : "\nno bank conflicts on " + models[0]->name() + "\n";
  }
  if (a.access) out += access_findings(*a.access);
  if (a.swizzle) {
    std::string what_if = swizzle_text(*a.swizzle);
    if (!what_if.empty()) what_if += swizzle_times_text(a);
    out += what_if + descriptor_text(*a.swizzle);
  }
  if (a.padding) out += padding_text(*a.padding);
  return out;
}

std::string findings_text(const std::vector<check::Finding>& findings) {
  std::string out;
  for (const auto& f : findings) {
    // A finding of the whole launch (schedule-dependent) has no line.
    std::string at = f.where.line > 0 ? fmt::format("{}:{}: ", f.where.file, f.where.line) : "";
    out += fmt::format("{}{}: {} [{}]{}\n", at, check::severity_name(f.severity), f.message,
                       check::name(f.kind), f.count > 1 ? fmt::format(" ({} times)", f.count) : "");
    for (const auto& v : f.involved)
      out +=
          fmt::format("    {} at {}:{} (PTX line {}: {}), block {}, thread {}\n", v.role,
                      v.where.file, v.where.line, v.ptx_line, v.instr, dim_text(v.block), v.thread);
  }
  if (findings.empty()) out += "no findings\n";
  return out;
}

}  // namespace smemlab::report
