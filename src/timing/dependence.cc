#include "timing/dependence.h"

#include <algorithm>
#include <unordered_map>

#include "emu/liveness.h"
#include "emu/reg_operands.h"
#include "timing/classify.h"
#include "timing/short_circuit.h"

namespace smemlab::timing {

namespace {

bool alu_pipe(Pipe p) {
  return p == Pipe::Fp32 || p == Pipe::Int || p == Pipe::Fp64 || p == Pipe::Sfu;
}

}  // namespace

std::vector<double> dependent_issue_cycles(const emu::Program& p, double alu_latency) {
  if (kShortCircuit) return {};  // the cost harness (short_circuit.h)
  std::vector<double> cycles(p.ops.size(), 1.0);
  auto blocks = emu::basic_blocks(p.ops);
  if (!blocks) return cycles;
  const size_t n = blocks->count();
  std::vector<std::vector<uint32_t>> pred(n);
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t s : blocks->succ[b]) pred[s].push_back(b);
  // Per block, the registers whose ALU result is still in flight when it
  // ends: cycles left after its last issue. A loop's next iteration (the
  // back edge) and a branch target wait for them too: a block starts with
  // the most any predecessor leaves. Two passes reach a loop's steady state
  // (an ALU result is never in flight longer than alu_latency).
  using Pending = std::unordered_map<uint32_t, double>;
  std::vector<Pending> leaves(n);
  Pending ready;  // register -> cycle its value is ready
  for (int pass = 0; pass < 2; ++pass)
    for (size_t b = 0; b < n; ++b) {
      ready.clear();
      for (uint32_t q : pred[b])
        for (const auto& [reg, left] : leaves[q]) ready[reg] = std::max(ready[reg], left);
      double last = -1;  // the previous op's issue cycle
      for (uint32_t pc = blocks->start[b]; pc < blocks->start[b + 1]; ++pc) {
        const emu::Op& op = p.ops[pc];
        const emu::RegOperands o = emu::reg_operands(op);
        double issue = last + 1;
        if (o.known)
          for (uint8_t u = 0; u < o.nuse; ++u)
            if (auto it = ready.find(op.r[o.use[u]]); it != ready.end())
              issue = std::max(issue, it->second);
        cycles[pc] = issue - last;
        last = issue;
        if (!o.known) continue;
        const bool alu = op.info < p.info.size() && alu_pipe(pipe_of(p.info[op.info].text));
        for (uint8_t d = 0; d < o.ndef; ++d)
          ready[op.r[o.def[d]]] = issue + (alu ? alu_latency : 1);
      }
      leaves[b].clear();
      for (const auto& [reg, at] : ready)
        if (at > last + 1) leaves[b][reg] = at - (last + 1);
    }
  return cycles;
}

}  // namespace smemlab::timing
