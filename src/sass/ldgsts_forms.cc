// Which SASS form each cp.async.cg with a src-size operand took: LDGSTS.ZFILL
// or the predicated LDGSTS, and that one's predicate operand (mapping.h,
// map_ldgsts_forms).
#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

#include "sass/mapping.h"

namespace smemlab::sass {

namespace {

using SourceKey = std::pair<std::string, int>;  // file, line

// One .BYPASS LDGSTS's form. The predicated form splits by its predicate
// operand: Nsight Compute costs `P0` and every other operand differently
// (docs/bank-model.md, run 10).
emu::LdgstsForm form_of(const LdgstsInstr& g) {
  if (g.zfill) return emu::LdgstsForm::Zfill;
  if (!g.predicated) return emu::LdgstsForm::Unknown;
  return g.predicate == "P0" ? emu::LdgstsForm::PredicatedP0 : emu::LdgstsForm::Predicated;
}

// The form of a set of .BYPASS LDGSTS: one shared by all, else Unknown.
emu::LdgstsForm common_form(const std::vector<const LdgstsInstr*>& instrs) {
  std::set<emu::LdgstsForm> forms;
  for (const LdgstsInstr* g : instrs) forms.insert(form_of(*g));
  return forms.size() == 1 ? *forms.begin() : emu::LdgstsForm::Unknown;
}

bool has_src_size(const ptx::Instruction& in) {
  return in.opcode == "cp" && !in.mods.empty() && in.mods[0] == "async" && in.has_mod("cg") &&
         in.operands.size() > 3 && in.operands[3].kind != ptx::Operand::Kind::Vector;
}

// The src-size cp.async of the kernel, by source line, in PTX order.
std::map<SourceKey, std::vector<const ptx::Instruction*>> src_size_copies(const ptx::Module& module,
                                                                          const ptx::Function& f) {
  std::map<SourceKey, std::vector<const ptx::Instruction*>> out;
  for (const ptx::Instruction& in : f.body) {
    if (!has_src_size(in)) continue;
    SourceKey key;
    if (in.loc >= 0) {
      const ptx::SourceLoc& loc = module.lines.at(in.loc);
      key = {module.lines.file(loc.file), loc.line};
    }
    out[key].push_back(&in);
  }
  return out;
}

}  // namespace

void map_ldgsts_forms(const ptx::Module& module, const std::string& kernel,
                      const emu::Program& program, const std::vector<LdgstsInstr>& ldgsts,
                      KernelMap* map) {
  const ptx::Function* f = module.find(kernel);
  if (!f) return;
  // Only the LDGSTS that can stand for a src-size operand: .BYPASS, with
  // .ZFILL or a predicate operand (the plain form is cp.async without one).
  std::map<SourceKey, std::vector<const LdgstsInstr*>> by_line;
  std::vector<const LdgstsInstr*> all;
  for (const LdgstsInstr& g : ldgsts)
    if (g.bypass && (g.zfill || g.predicated)) {
      by_line[{g.file, g.line}].push_back(&g);
      all.push_back(&g);
    }
  const emu::LdgstsForm kernel_wide = common_form(all);
  std::map<std::pair<int, int>, std::vector<uint32_t>> pcs_at;
  for (uint32_t pc = 0; pc < program.info.size(); ++pc)
    pcs_at[{program.info[pc].ptx_line, program.info[pc].ptx_col}].push_back(pc);
  for (const auto& [key, copies] : src_size_copies(module, *f)) {
    auto line = by_line.find(key);
    const bool on_line = line != by_line.end();
    const emu::LdgstsForm shared_form = on_line ? common_form(line->second) : kernel_wide;
    // Where a line's LDGSTS differ (sgemm_async's predicate operands), the
    // k-th cp.async of the line in PTX order is the line's k-th LDGSTS in
    // SASS order, when the counts agree (ptxas keeps their order: run 10's
    // 24 instructions of sgemm_async_*_vec).
    const bool paired =
        shared_form == emu::LdgstsForm::Unknown && on_line && line->second.size() == copies.size();
    for (size_t k = 0; k < copies.size(); ++k) {
      const ptx::Instruction& in = *copies[k];
      const emu::LdgstsForm form = paired ? form_of(*line->second[k]) : shared_form;
      auto pcs = pcs_at.find({in.pos.line, in.pos.col});
      if (pcs == pcs_at.end()) continue;  // not decoded: never executed
      if (form == emu::LdgstsForm::Unknown) {
        map->notes.push_back(
            {key.first.empty() ? "" : fmt::format("{}:{}", key.first, key.second), in.pos.line,
             in.text(),
             !on_line ? "no LDGSTS.BYPASS with .ZFILL or a predicate operand on its line, and the "
                        "kernel's are not all one form: its src-size form is not counted"
                      : fmt::format("its line's {} LDGSTS.BYPASS of the src-size forms differ and "
                                    "the line has {} such cp.async: its form is not counted",
                                    line->second.size(), copies.size())});
        continue;
      }
      if (map->ldgsts_form.empty())
        map->ldgsts_form.assign(program.ops.size(), emu::LdgstsForm::Unknown);
      for (uint32_t pc : pcs->second) map->ldgsts_form[pc] = form;
    }
  }
}

}  // namespace smemlab::sass
