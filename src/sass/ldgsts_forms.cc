// Which SASS form each cp.async.cg with a src-size operand took: LDGSTS.ZFILL
// or the predicated LDGSTS (mapping.h, map_ldgsts_forms).
#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

#include "sass/mapping.h"

namespace smemlab::sass {

namespace {

using SourceKey = std::pair<std::string, int>;  // file, line

// The form of a set of .BYPASS LDGSTS: one shared by all, else Unknown.
emu::LdgstsForm common_form(const std::vector<const LdgstsInstr*>& instrs) {
  std::set<emu::LdgstsForm> forms;
  for (const LdgstsInstr* g : instrs)
    forms.insert(g->zfill        ? emu::LdgstsForm::Zfill
                 : g->predicated ? emu::LdgstsForm::Predicated
                                 : emu::LdgstsForm::Unknown);
  return forms.size() == 1 ? *forms.begin() : emu::LdgstsForm::Unknown;
}

bool has_src_size(const ptx::Instruction& in) {
  return in.opcode == "cp" && !in.mods.empty() && in.mods[0] == "async" && in.has_mod("cg") &&
         in.operands.size() > 3 && in.operands[3].kind != ptx::Operand::Kind::Vector;
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
  for (const ptx::Instruction& in : f->body) {
    if (!has_src_size(in)) continue;
    auto pcs = pcs_at.find({in.pos.line, in.pos.col});
    if (pcs == pcs_at.end()) continue;  // not decoded: never executed
    SourceKey key;
    if (in.loc >= 0) {
      const ptx::SourceLoc& loc = module.lines.at(in.loc);
      key = {module.lines.file(loc.file), loc.line};
    }
    auto line = by_line.find(key);
    const emu::LdgstsForm form = line != by_line.end() ? common_form(line->second) : kernel_wide;
    if (form == emu::LdgstsForm::Unknown) {
      map->notes.push_back(
          {key.first.empty() ? "" : fmt::format("{}:{}", key.first, key.second), in.pos.line,
           in.text(),
           line == by_line.end()
               ? "no LDGSTS.BYPASS with .ZFILL or a predicate operand on its line, and the "
                 "kernel's are not all one form: its src-size form is not counted"
               : "its line's LDGSTS.BYPASS mix .ZFILL and predicated forms: its src-size form "
                 "is not counted"});
      continue;
    }
    if (map->ldgsts_form.empty())
      map->ldgsts_form.assign(program.ops.size(), emu::LdgstsForm::Unknown);
    for (uint32_t pc : pcs->second) map->ldgsts_form[pc] = form;
  }
}

}  // namespace smemlab::sass
