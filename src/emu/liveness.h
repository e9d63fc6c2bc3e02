// Per-thread register liveness on a decoded program's control-flow graph,
// for the decode-time register passes: which registers some thread may read
// before writing them (block.cc's read_first: only those need their template
// value when a block starts) and which live ranges overlap (decode_regalloc.cc:
// registers that never do share a slot). Each lane follows its own path and
// reads only its own lane of a register, so classic liveness is exact per
// thread; ops whose operands reg_operands does not know are the callers' to
// exclude.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "emu/program.h"
#include "emu/reg_operands.h"

namespace smemlab::emu {

// Basic blocks: leaders are the entry, branch targets and the op after a
// branch, exit or trap. Successors: the next block always (a guarded or
// divergent branch falls through; an extra edge only makes ranges longer)
// and a branch's target.
struct BasicBlocks {
  std::vector<uint32_t> start;     // each block's first pc, then ops.size()
  std::vector<uint32_t> block_of;  // by pc
  std::vector<std::vector<uint32_t>> succ;
  size_t count() const { return start.size() - 1; }
};

// nullopt: a branch to a target outside the program (a CFG these passes do
// not understand).
std::optional<BasicBlocks> basic_blocks(const std::vector<Op>& ops);

using RegBits = std::vector<uint64_t>;  // one bit per register
inline void set_bit(RegBits& b, uint32_t i) { b[i >> 6] |= 1ull << (i & 63); }
inline void clear_bit(RegBits& b, uint32_t i) { b[i >> 6] &= ~(1ull << (i & 63)); }
inline bool test_bit(const RegBits& b, uint32_t i) { return (b[i >> 6] >> (i & 63)) & 1; }

struct Liveness {
  std::vector<RegBits> live_in, live_out;  // by block
};

// Liveness of the registers `tracked` accepts (the others never enter the
// sets), `opnd[pc]` being reg_operands(p.ops[pc]). A guarded write writes
// only some lanes, so it kills nothing.
Liveness liveness(const Program& p, const BasicBlocks& g, const std::vector<RegOperands>& opnd,
                  const std::function<bool(uint32_t)>& tracked);

}  // namespace smemlab::emu
