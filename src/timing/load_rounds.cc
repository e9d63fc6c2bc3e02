#include "timing/load_rounds.h"

#include <algorithm>
#include <map>

#include "emu/liveness.h"
#include "emu/reg_operands.h"

namespace smemlab::timing {

namespace {

// Global, local and generic loads go to the memory system; shared, const
// and param loads do not wait on it.
bool memory_load(const emu::Op& op) {
  if (op.code / 16 != emu::LD) return false;
  const auto space = static_cast<emu::MSpace>(op.aux);
  return space == emu::MSpace::Global || space == emu::MSpace::Local ||
         space == emu::MSpace::Generic;
}

// Outstanding loads: register -> the load's issue order (larger: later).
using Outstanding = std::map<uint32_t, uint64_t>;

// Reading or writing `reg` waits for its load and every load issued before.
void wait_for(Outstanding& out, uint32_t reg) {
  auto it = out.find(reg);
  if (it == out.end()) return;
  const uint64_t order = it->second;
  std::erase_if(out, [&](const auto& e) { return e.second <= order; });
}

}  // namespace

std::vector<uint8_t> load_round_starts(const emu::Program& p) {
  auto blocks = emu::basic_blocks(p.ops);
  if (!blocks) return {};
  std::vector<uint8_t> starts(p.ops.size(), 0);
  const size_t n = blocks->count();
  std::vector<std::vector<uint32_t>> pred(n);
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t s : blocks->succ[b]) pred[s].push_back(b);
  // Two passes, as dependence.cc: the second sees what a loop's back edge
  // leaves outstanding.
  std::vector<Outstanding> leaves(n);
  uint64_t order = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t b = 0; b < n; ++b) {
      Outstanding out;
      for (uint32_t q : pred[b])
        for (const auto& [reg, at] : leaves[q]) out[reg] = std::max(out[reg], at);
      for (uint32_t pc = blocks->start[b]; pc < blocks->start[b + 1]; ++pc) {
        const emu::Op& op = p.ops[pc];
        const emu::RegOperands o = emu::reg_operands(op);
        if (!o.known) continue;
        for (uint8_t u = 0; u < o.nuse; ++u) wait_for(out, op.r[o.use[u]]);
        for (uint8_t d = 0; d < o.ndef; ++d) wait_for(out, op.r[o.def[d]]);
        if (!memory_load(op)) continue;
        starts[pc] = out.empty() ? 1 : 0;
        for (uint8_t d = 0; d < o.ndef; ++d) out[op.r[o.def[d]]] = ++order;
      }
      leaves[b] = std::move(out);
    }
  return starts;
}

}  // namespace smemlab::timing
