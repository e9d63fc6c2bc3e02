#include "sass/mapping.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace smemlab::sass {
namespace {

// What one PTX or SASS access is compared by.
using Key = std::tuple<std::string, int, Space, bool>;  // file, line, space, store

struct PtxMem {
  const ptx::Instruction* instr = nullptr;
  std::vector<uint32_t> pcs;
  std::string base;
  int64_t offset = 0;
  unsigned width = 0;
};

struct Interval {
  int64_t begin, end;
  bool operator<(const Interval& o) const {
    return std::tie(begin, end) < std::tie(o.begin, o.end);
  }
  bool operator==(const Interval& o) const = default;
  bool contains(const Interval& o) const { return begin <= o.begin && o.end <= end; }
};

bool is_type(const std::string& m) {
  if (m == "f16x2" || m == "bf16x2") return true;
  return m.size() >= 2 && std::string("busf").find(m[0]) != std::string::npos &&
         std::all_of(m.begin() + 1, m.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// ld/st of shared, global, local or generic memory: its space and width.
bool ptx_access(const ptx::Instruction& in, Space* space, unsigned* width) {
  if (in.opcode != "ld" && in.opcode != "st") return false;
  *space = Space::Generic;
  unsigned vec = 1, size = 0;
  for (const auto& m : in.mods) {
    if (m.rfind("shared", 0) == 0)
      *space = Space::Shared;
    else if (m == "global")
      *space = Space::Global;
    else if (m == "local")
      *space = Space::Local;
    else if (m == "param" || m.rfind("const", 0) == 0 || m == "tex")
      return false;
    else if (m == "v2" || m == "v4" || m == "v8")
      vec = static_cast<unsigned>(m[1] - '0');
    else if (is_type(m))
      size = static_cast<unsigned>(ptx::type_size(m));
  }
  *width = vec * size;
  return *width > 0;
}

struct Mapper {
  const ptx::Module& module;
  const emu::Program& program;
  KernelMap out;

  std::string where(const Key& k) const {
    return fmt::format("{}:{}", std::get<0>(k), std::get<1>(k));
  }

  void note(const Key& k, const PtxMem& p, std::string reason) {
    out.notes.push_back({where(k), p.instr->pos.line, p.instr->text(), std::move(reason)});
  }

  uint32_t new_group(const PtxMem& first, unsigned width, unsigned members,
                     const std::string& sass_op) {
    Group g;
    g.info = program.info[first.pcs.front()];
    g.info.pc = static_cast<uint32_t>(program.ops.size() + out.groups.size());
    g.info.text = members > 1
                      ? fmt::format("{} x{} (SASS {})", first.instr->text(), members, sass_op)
                      : fmt::format("{} (SASS {})", first.instr->text(), sass_op);
    g.width = static_cast<uint8_t>(width);
    g.members = static_cast<uint8_t>(members);
    out.groups.push_back(std::move(g));
    return static_cast<uint32_t>(out.groups.size() - 1);
  }

  void add_part(const PtxMem& p, Part part) {
    for (uint32_t pc : p.pcs) out.parts[pc].push_back(part);
  }

  // A PTX access shifted by d, explained by the SASS intervals of one base.
  struct Explained {
    const MemInstr* outer = nullptr;     // SASS access containing it (merged or identical)
    std::vector<const MemInstr*> inner;  // SASS accesses inside it (narrowed or split)
  };

  static bool explain(const PtxMem& p, int64_t d, const std::vector<const MemInstr*>& sass,
                      Explained* e) {
    Interval pi{p.offset + d, p.offset + d + p.width};
    *e = {};
    // The smallest SASS access containing it: an identical one when there is.
    for (const MemInstr* s : sass) {
      Interval si{s->offset, s->offset + s->width};
      if (si.contains(pi) && (!e->outer || s->width < e->outer->width)) e->outer = s;
    }
    if (e->outer) return true;
    std::set<Interval> seen;
    for (const MemInstr* s : sass) {
      Interval si{s->offset, s->offset + s->width};
      if (pi.contains(si) && seen.insert(si).second) e->inner.push_back(s);
    }
    // The parts of a split or narrowed access must not overlap.
    int64_t end = INT64_MIN;
    for (const Interval& i : seen) {
      if (i.begin < end) return false;
      end = i.end;
    }
    return !e->inner.empty();
  }

  void map_key(const Key& k, std::vector<PtxMem>& ptx, const std::vector<const MemInstr*>& sass) {
    std::map<unsigned, int> pw, sw;
    for (const auto& p : ptx) ++pw[p.width];
    for (const auto* s : sass) ++sw[s->width];
    bool same_widths = true, fewer = false;
    for (auto [w, n] : sw) same_widths &= pw.count(w) > 0;
    for (auto [w, n] : pw) fewer |= sw[w] < n;
    if (sass.empty()) {
      for (const auto& p : ptx)
        note(k, p,
             fmt::format("no {} {} SASS instruction on this line", space_name(std::get<2>(k)),
                         std::get<3>(k) ? "store" : "load"));
      return;
    }
    if (same_widths && !fewer) return;  // one SASS instruction per PTX one (or copies of it)
    if (same_widths) {
      for (const auto& p : ptx)
        note(k, p,
             fmt::format("ptxas emitted fewer accesses of this width than the PTX has "
                         "({} PTX, {} SASS): which ones it removed is not known",
                         pw[p.width], sw[p.width]));
      return;
    }
    if (std::any_of(ptx.begin(), ptx.end(), [](const PtxMem& p) { return p.pcs.size() != 1; })) {
      for (const auto& p : ptx) note(k, p, "inlined .func copies are not mapped");
      return;
    }
    std::map<std::string, std::vector<const MemInstr*>> sass_by_base;
    for (const auto* s : sass) sass_by_base[s->base].push_back(s);
    std::map<std::string, std::vector<PtxMem*>> ptx_by_base;
    for (auto& p : ptx) ptx_by_base[p.base].push_back(&p);

    // SASS instruction -> the PTX accesses it merges.
    std::map<const MemInstr*, std::vector<PtxMem*>> merged;
    std::map<const MemInstr*, int64_t> merged_delta;
    for (auto& [pbase, group] : ptx_by_base) {
      std::vector<PtxMem*> left = group;
      while (!left.empty()) {
        // The (SASS base, delta) explaining most accesses; then most exact
        // matches; then delta 0 (same base value), then the first found.
        std::tuple<size_t, size_t, bool> best{0, 0, false};
        const std::vector<const MemInstr*>* best_base = nullptr;
        int64_t best_d = 0;
        for (const auto& [sbase, ss] : sass_by_base) {
          std::set<int64_t> deltas{0};
          for (const PtxMem* p : left)
            for (const MemInstr* s : ss) {
              deltas.insert(s->offset - p->offset);
              deltas.insert(s->offset + s->width - p->offset - p->width);
            }
          for (int64_t d : deltas) {
            size_t n = 0, exact = 0;
            Explained e;
            for (const PtxMem* p : left)
              if (explain(*p, d, ss, &e)) {
                ++n;
                exact += e.outer && e.outer->width == p->width;
              }
            std::tuple<size_t, size_t, bool> score{n, exact, d == 0};
            if (score > best) {
              best = score;
              best_base = &ss;
              best_d = d;
            }
          }
        }
        if (!best_base) {
          for (const PtxMem* p : left) note(k, *p, "no SASS access of this line covers its bytes");
          break;
        }
        std::vector<PtxMem*> still;
        for (PtxMem* p : left) {
          Explained e;
          if (!explain(*p, best_d, *best_base, &e)) {
            still.push_back(p);
            continue;
          }
          if (e.outer && e.outer->width == p->width) continue;  // as in the PTX
          if (e.outer) {
            merged[e.outer].push_back(p);
            merged_delta[e.outer] = best_d;
            continue;
          }
          for (const MemInstr* s : e.inner) {
            uint32_t g = new_group(*p, s->width, 1, s->opcode);
            add_part(*p, {g, static_cast<int32_t>(s->offset - best_d - p->offset),
                          static_cast<uint8_t>(s->width), 0});
          }
        }
        left = std::move(still);
      }
    }
    for (auto& [s, members] : merged) {
      int64_t d = merged_delta[s];
      std::sort(members.begin(), members.end(),
                [](const PtxMem* a, const PtxMem* b) { return a->offset < b->offset; });
      // The members must load exactly the SASS instruction's bytes, once.
      int64_t at = s->offset;
      bool exact = true;
      for (const PtxMem* p : members) {
        exact &= p->offset + d == at;
        at = p->offset + d + p->width;
      }
      exact &= at == s->offset + s->width && members.size() > 1 && members.size() <= 32;
      if (!exact) {
        for (const PtxMem* p : members)
          note(k, *p,
               fmt::format("lies inside SASS {} at 0x{:04x}, whose bytes the PTX accesses "
                           "of this line do not load exactly once",
                           s->text, s->address));
        continue;
      }
      std::sort(members.begin(), members.end(), [](const PtxMem* a, const PtxMem* b) {
        return a->instr->pos.line < b->instr->pos.line;
      });
      uint32_t g =
          new_group(*members.front(), s->width, static_cast<unsigned>(members.size()), s->opcode);
      for (size_t i = 0; i < members.size(); ++i)
        add_part(*members[i], {g, static_cast<int32_t>(s->offset - d - members[i]->offset),
                               static_cast<uint8_t>(s->width), static_cast<uint8_t>(i)});
    }
  }
};

}  // namespace

KernelMap map_kernel(const ptx::Module& module, const std::string& kernel,
                     const emu::Program& program, const std::vector<MemInstr>& sass) {
  Mapper m{module, program, {}};
  m.out.parts.resize(program.ops.size());
  const ptx::Function* f = module.find(kernel);
  if (!f) return m.out;
  std::map<std::pair<int, int>, std::vector<uint32_t>> pcs_at;
  for (uint32_t pc = 0; pc < program.info.size(); ++pc)
    pcs_at[{program.info[pc].ptx_line, program.info[pc].ptx_col}].push_back(pc);

  std::map<Key, std::vector<PtxMem>> ptx;
  for (const auto& in : f->body) {
    Space space;
    unsigned width;
    if (!ptx_access(in, &space, &width)) continue;
    const ptx::Operand* addr = nullptr;
    for (const auto& op : in.operands)
      if (op.kind == ptx::Operand::Kind::Addr) addr = &op;
    auto pcs = pcs_at.find({in.pos.line, in.pos.col});
    if (!addr || pcs == pcs_at.end()) continue;  // not decoded: never executed
    std::string file;
    int line = 0;
    if (in.loc >= 0) {
      const ptx::SourceLoc& loc = module.lines.at(in.loc);
      file = module.lines.file(loc.file);
      line = loc.line;
    }
    bool store = in.opcode == "st";
    ptx[{file, line, space, store}].push_back({&in, pcs->second, addr->name, addr->offset, width});
  }
  std::map<Key, std::vector<const MemInstr*>> by_key;
  for (const MemInstr& s : sass) by_key[{s.file, s.line, s.space, s.store}].push_back(&s);
  // ptxas sometimes gives an access another line than the PTX's .loc (line
  // 0, a neighbouring statement). A PTX access without SASS of its kind on
  // its line is one-to-one when, kernel-wide for its space and direction,
  // the SASS has no other widths than the PTX and at least as many accesses
  // of each width; otherwise it is named in a note.
  using Kind = std::pair<Space, bool>;
  std::map<Kind, std::map<unsigned, size_t>> ptx_widths, sass_widths;
  for (const auto& [k, accesses] : ptx)
    for (const auto& p : accesses) ++ptx_widths[{std::get<2>(k), std::get<3>(k)}][p.width];
  for (const MemInstr& s : sass) ++sass_widths[{s.space, s.store}][s.width];
  auto one_to_one = [&](const Kind& kind) {
    auto& pw = ptx_widths[kind];
    auto& sw = sass_widths[kind];
    bool same = !sw.empty();
    for (auto [w, n] : sw) same &= pw.count(w) > 0;
    for (auto [w, n] : pw) same &= sw[w] >= n;
    return same;
  };
  for (auto& [k, accesses] : ptx)
    if (!by_key[k].empty() || !one_to_one({std::get<2>(k), std::get<3>(k)}))
      m.map_key(k, accesses, by_key[k]);
  return m.out;
}

}  // namespace smemlab::sass
