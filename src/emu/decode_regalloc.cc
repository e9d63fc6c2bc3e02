// Decode-time register coalescing: PTX from nvcc is close to SSA (a tiled
// matmul declares 57 float registers, each live for one or two ops), and
// every register costs a 64-bit x 32-lane slot per warp. Registers whose live
// ranges never overlap share a slot, so a block's working set stays in the
// host's caches (the suite's 16x16 matmul: 116 registers in 31 slots, 62 KiB
// per block of eight warps instead of 232 KiB).
//
// Sharing is decided per thread: each lane follows its own path through the
// control-flow graph and only reads its own lane of a slot, so classic
// liveness on the CFG is exact for it. Cross-lane readers (shuffles, votes,
// bar.red) and every op whose register operands are not all plain fields of
// Op::r are left alone: each register such an op names keeps its own slot
// ("pinned"), as do constants, special registers and anything that may be
// read before it is written (it must read zero).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "emu/decode_context.h"
#include "emu/liveness.h"
#include "emu/reg_operands.h"

namespace smemlab::emu {
namespace {

using Bits = RegBits;
inline void set(Bits& b, uint32_t i) { set_bit(b, i); }
inline void clear(Bits& b, uint32_t i) { clear_bit(b, i); }
inline bool test(const Bits& b, uint32_t i) { return test_bit(b, i); }

}  // namespace

void coalesce_registers(Program& p) {
  const uint32_t n = p.num_regs;
  const size_t nops = p.ops.size();
  // The interference matrix is n x n bits and liveness n bits per block.
  // A program with real calls keeps every slot: a callee's registers are
  // saved and restored as one range per call (Program::Callee).
  if (n < 2 || nops == 0 || n > 4096 || !p.callees.empty()) return;
  std::vector<RegOperands> opnd(nops);
  std::vector<bool> pinned(n, false);
  auto pin = [&](uint32_t r) {
    if (r < n) pinned[r] = true;
  };
  // Constants and special registers are never written, so they are live
  // at the entry and pinned below with everything else that is.
  for (const auto& [r, kind] : p.specials) pin(r);
  for (const TensorOp& t : p.tensor_ops) t.for_each_register(pin);
  for (const TexOp& t : p.tex_ops)
    for (uint32_t r : t.coord) pin(r);
  for (const TmaOp& t : p.tma_ops)
    for (uint32_t r : t.regs) pin(r);
  for (size_t pc = 0; pc < nops; ++pc) {
    opnd[pc] = reg_operands(p.ops[pc]);
    if (!opnd[pc].known)
      for (uint32_t r : p.ops[pc].r) pin(r);
  }

  std::optional<BasicBlocks> g = basic_blocks(p.ops);
  if (!g) return;  // not a CFG this pass understands
  const size_t nb = g->count(), words = (n + 63) / 64;
  const std::vector<uint32_t>& start = g->start;
  auto is_free = [&](uint32_t r) { return r < n && !pinned[r]; };
  Liveness L = liveness(p, *g, opnd, is_free);
  const std::vector<Bits>&live_in = L.live_in, &live_out = L.live_out;
  // A register that may be read before any write must read zero: it keeps
  // its own (zeroed) slot.
  for (uint32_t r = 0; r < n; ++r)
    if (test(live_in[0], r)) pinned[r] = true;

  // Interference: a write interferes with everything live after it.
  std::vector<Bits> conflict(n, Bits(words, 0));
  std::vector<bool> used(n, false);
  for (size_t b = 0; b < nb; ++b) {
    Bits live = live_out[b];
    for (uint32_t pc = start[b + 1]; pc-- > start[b];) {
      const Op& op = p.ops[pc];
      const RegOperands& o = opnd[pc];
      for (uint8_t i = 0; i < o.ndef; ++i) {
        uint32_t d = op.r[o.def[i]];
        if (!is_free(d)) continue;
        used[d] = true;
        for (size_t w = 0; w < words; ++w) conflict[d][w] |= live[w];
        // Destinations of one op (ld.v4) are written together.
        for (uint8_t j = 0; j < o.ndef; ++j)
          if (op.r[o.def[j]] < n) set(conflict[d], op.r[o.def[j]]);
      }
      if (op.guard < 0)
        for (uint8_t i = 0; i < o.ndef; ++i)
          if (is_free(op.r[o.def[i]])) clear(live, op.r[o.def[i]]);
      for (uint8_t i = 0; i < o.nuse; ++i) {
        uint32_t r = op.r[o.use[i]];
        if (is_free(r)) {
          set(live, r);
          used[r] = true;
        }
      }
    }
  }
  // Symmetric, and pinned registers never take part.
  std::vector<uint32_t> slots;  // the unpinned indices, lowest first: slot c
  for (uint32_t r = 0; r < n; ++r) {
    if (pinned[r]) continue;
    slots.push_back(r);
    for (size_t w = 0; w < words; ++w) {
      uint64_t bits = conflict[r][w];
      while (bits) {
        uint32_t o = static_cast<uint32_t>(w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits)));
        bits &= bits - 1;
        if (o < n && !pinned[o]) set(conflict[o], r);
      }
    }
  }
  // Greedy colouring in register order (nvcc numbers registers roughly in
  // program order, so neighbours in time get low slots).
  std::vector<uint32_t> color(n, UINT32_MAX);
  Bits taken((slots.size() + 63) / 64 + 1, 0);
  for (uint32_t r : slots) {
    if (!used[r]) continue;
    std::fill(taken.begin(), taken.end(), 0);
    for (size_t w = 0; w < words; ++w) {
      uint64_t bits = conflict[r][w];
      while (bits) {
        uint32_t o = static_cast<uint32_t>(w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits)));
        bits &= bits - 1;
        if (o != r && o < n && color[o] != UINT32_MAX) set(taken, color[o]);
      }
    }
    uint32_t c = 0;
    while (test(taken, c)) ++c;
    color[r] = c;
  }
  std::vector<uint32_t> map(n);
  for (uint32_t r = 0; r < n; ++r) map[r] = color[r] == UINT32_MAX ? r : slots[color[r]];
  for (size_t pc = 0; pc < nops; ++pc) {
    Op& op = p.ops[pc];
    const RegOperands& o = opnd[pc];
    for (uint8_t i = 0; i < o.ndef; ++i)
      if (is_free(op.r[o.def[i]])) op.r[o.def[i]] = map[op.r[o.def[i]]];
    for (uint8_t i = 0; i < o.nuse; ++i)
      if (is_free(op.r[o.use[i]])) op.r[o.use[i]] = map[op.r[o.use[i]]];
  }
}

}  // namespace smemlab::emu
