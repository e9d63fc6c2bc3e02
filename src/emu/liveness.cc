#include "emu/liveness.h"

namespace smemlab::emu {

std::optional<BasicBlocks> basic_blocks(const std::vector<Op>& ops) {
  const size_t nops = ops.size();
  std::vector<bool> leader(nops + 1, false);
  leader[0] = true;
  for (size_t pc = 0; pc < nops; ++pc) {
    Base b = static_cast<Base>(ops[pc].code / 16);
    if (b == BRA) {
      uint64_t t = static_cast<uint64_t>(ops[pc].imm);
      if (t > nops) return std::nullopt;
      leader[t] = true;
    }
    if (b == BRA || b == EXIT || b == TRAP) leader[pc + 1] = true;
  }
  BasicBlocks g;
  g.block_of.resize(nops);
  for (size_t pc = 0; pc < nops; ++pc) {
    if (leader[pc]) g.start.push_back(static_cast<uint32_t>(pc));
    g.block_of[pc] = static_cast<uint32_t>(g.start.size() - 1);
  }
  const size_t nb = g.start.size();
  g.start.push_back(static_cast<uint32_t>(nops));
  g.succ.resize(nb);
  for (size_t b = 0; b < nb; ++b) {
    const Op& last = ops[g.start[b + 1] - 1];
    if (b + 1 < nb) g.succ[b].push_back(static_cast<uint32_t>(b + 1));
    if (static_cast<Base>(last.code / 16) == BRA && static_cast<uint64_t>(last.imm) < nops)
      g.succ[b].push_back(g.block_of[static_cast<size_t>(last.imm)]);
  }
  return g;
}

Liveness liveness(const Program& p, const BasicBlocks& g, const std::vector<RegOperands>& opnd,
                  const std::function<bool(uint32_t)>& tracked) {
  const size_t nb = g.count(), words = (p.num_regs + 63) / 64;
  // Per block: read before an unguarded write (gen), written unguarded (kill).
  std::vector<RegBits> gen(nb, RegBits(words, 0)), kill = gen;
  for (size_t b = 0; b < nb; ++b)
    for (uint32_t pc = g.start[b]; pc < g.start[b + 1]; ++pc) {
      const Op& op = p.ops[pc];
      const RegOperands& o = opnd[pc];
      for (uint8_t i = 0; i < o.nuse; ++i) {
        uint32_t r = op.r[o.use[i]];
        if (tracked(r) && !test_bit(kill[b], r)) set_bit(gen[b], r);
      }
      if (op.guard < 0)
        for (uint8_t i = 0; i < o.ndef; ++i)
          if (tracked(op.r[o.def[i]])) set_bit(kill[b], op.r[o.def[i]]);
    }
  Liveness L{std::vector<RegBits>(nb, RegBits(words, 0)),
             std::vector<RegBits>(nb, RegBits(words, 0))};
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      RegBits out(words, 0);
      for (uint32_t s : g.succ[b])
        for (size_t w = 0; w < words; ++w) out[w] |= L.live_in[s][w];
      RegBits in(words);
      for (size_t w = 0; w < words; ++w) in[w] = gen[b][w] | (out[w] & ~kill[b][w]);
      if (in != L.live_in[b]) {
        L.live_in[b] = std::move(in);
        changed = true;
      }
      L.live_out[b] = std::move(out);
    }
  }
  return L;
}

}  // namespace smemlab::emu
