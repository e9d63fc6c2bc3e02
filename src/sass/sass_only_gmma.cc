// The HGMMA ptxas adds for a wgmma.commit_group that has no HGMMA of its
// own: which PTX commit each null HGMMA of the SASS stands for.
#include <fmt/format.h>

#include <map>
#include <set>

#include "sass/mapping.h"

namespace smemlab::sass {

namespace {

// The commits of `f` whose basic block (from the last label, branch, return
// or commit) has no wgmma.mma_async before them, in code order.
std::vector<const ptx::Instruction*> uncarried_commits(const ptx::Function& f) {
  std::set<int> starts;
  for (const auto& [name, at] : f.labels) starts.insert(at);
  std::vector<const ptx::Instruction*> out;
  bool carried = false;
  for (size_t i = 0; i < f.body.size(); ++i) {
    const ptx::Instruction& in = f.body[i];
    if (starts.count(static_cast<int>(i))) carried = false;
    const bool wgmma = in.opcode == "wgmma" && !in.mods.empty();
    if (wgmma && in.mods[0] == "mma_async" && in.guard.empty()) carried = true;
    if (wgmma && in.mods[0] == "commit_group") {
      if (!carried) out.push_back(&in);
      carried = false;
    }
    if (in.opcode == "bra" || in.opcode == "ret" || in.opcode == "exit" || in.opcode == "brx")
      carried = false;
  }
  return out;
}

}  // namespace

void map_sass_only_gmma(const ptx::Module& module, const std::string& kernel,
                        const emu::Program& program, const std::vector<unsigned>& nulls,
                        KernelMap* map) {
  const ptx::Function* f = module.find(kernel);
  if (!f) return;
  const std::vector<const ptx::Instruction*> commits = uncarried_commits(*f);
  if (commits.empty() && nulls.empty()) return;
  if (commits.size() != nulls.size()) {
    map->notes.push_back({"", commits.empty() ? 0 : commits.front()->pos.line, "wgmma.commit_group",
                          fmt::format("the SASS has {} predicated-off HGMMA for {} commit(s) "
                                      "without a wgmma.mma_async in their block: not counted",
                                      nulls.size(), commits.size())});
    return;
  }
  std::map<std::pair<int, int>, std::vector<uint32_t>> pcs_at;
  for (uint32_t pc = 0; pc < program.info.size(); ++pc)
    pcs_at[{program.info[pc].ptx_line, program.info[pc].ptx_col}].push_back(pc);
  map->sass_only_gmma.assign(program.ops.size(), 0);
  for (size_t i = 0; i < commits.size(); ++i) {
    auto it = pcs_at.find({commits[i]->pos.line, commits[i]->pos.col});
    if (it == pcs_at.end()) continue;  // not decoded: never executed
    for (uint32_t pc : it->second) map->sass_only_gmma[pc] = static_cast<uint16_t>(nulls[i]);
    map->any_sass_only_gmma = true;
  }
}

}  // namespace smemlab::sass
