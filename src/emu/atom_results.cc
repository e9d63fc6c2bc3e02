#include "emu/atom_results.h"

#include <vector>

#include "emu/liveness.h"
#include "emu/reg_operands.h"

namespace smemlab::emu {
namespace {

bool candidate(const Op& op) {
  return static_cast<Base>(op.code / 16) == ATOM && op.t2 == kAtomUnreadCandidate;
}

void clear_all(Program& p) {
  for (Op& op : p.ops)
    if (candidate(op)) op.t2 = 0;
}

// ATOM's registers (program.h): r0 = d, r1 = b, r2 = c (cas), r4 = address.
RegOperands atom_operands(const Op& op) {
  RegOperands o;
  o.known = true;
  o.def[o.ndef++] = 0;
  o.use[o.nuse++] = 1;
  if (op.aux2 == A_CAS) o.use[o.nuse++] = 2;
  o.use[o.nuse++] = 4;
  return o;
}

}  // namespace

void mark_unread_atom_results(Program& p) {
  const uint32_t n = p.num_regs;
  const size_t nops = p.ops.size();
  bool any = false;
  for (const Op& op : p.ops) any = any || candidate(op);
  if (!any) return;
  std::optional<BasicBlocks> g = basic_blocks(p.ops);
  if (!g || !p.callees.empty() || n == 0) return clear_all(p);
  // Registers an op names without the liveness knowing how: taken as read.
  std::vector<bool> named(n, false);
  auto name = [&](uint32_t r) {
    if (r < n) named[r] = true;
  };
  for (const TensorOp& t : p.tensor_ops) t.for_each_register(name);
  for (const TexOp& t : p.tex_ops)
    for (uint32_t r : t.coord) name(r);
  for (const TmaOp& t : p.tma_ops)
    for (uint32_t r : t.regs) name(r);
  std::vector<RegOperands> opnd(nops);
  for (size_t pc = 0; pc < nops; ++pc) {
    const Op& op = p.ops[pc];
    opnd[pc] = static_cast<Base>(op.code / 16) == ATOM ? atom_operands(op) : reg_operands(op);
    if (!opnd[pc].known)
      for (uint32_t r : op.r) name(r);
  }
  Liveness L = liveness(p, *g, opnd, [n](uint32_t r) { return r < n; });
  // Backwards through each block from its live-out set: the destination of
  // a candidate must be dead right after it.
  for (size_t b = 0; b < g->count(); ++b) {
    RegBits live = L.live_out[b];
    for (uint32_t pc = g->start[b + 1]; pc-- > g->start[b];) {
      Op& op = p.ops[pc];
      const RegOperands& o = opnd[pc];
      if (candidate(op) && (op.r[0] >= n || named[op.r[0]] || test_bit(live, op.r[0]))) op.t2 = 0;
      if (op.guard < 0)
        for (uint8_t i = 0; i < o.ndef; ++i)
          if (op.r[o.def[i]] < n) clear_bit(live, op.r[o.def[i]]);
      for (uint8_t i = 0; i < o.nuse; ++i)
        if (op.r[o.use[i]] < n) set_bit(live, op.r[o.use[i]]);
    }
  }
}

}  // namespace smemlab::emu
