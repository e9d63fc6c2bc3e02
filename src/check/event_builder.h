// Test helper: synthetic emulator events, so the analyses are tested
// without running the emulator.
#pragma once

#include <functional>
#include <string>

#include "emu/observer.h"

namespace smemlab::check::testing {

inline emu::MemAccess access(emu::Space space, emu::MemOp op, unsigned width,
                             const emu::InstrInfo* instr, uint32_t warp,
                             const std::function<uint64_t(unsigned)>& addr,
                             uint32_t mask = 0xffffffffu) {
  emu::MemAccess a{};
  a.space = space;
  a.op = op;
  a.width = static_cast<uint8_t>(width);
  a.mask = mask;
  for (unsigned i = 0; i < 32; ++i) a.addr[i] = addr(i);
  a.instr = instr;
  a.warp = warp;
  return a;
}

// `trait`: what the decoder would say of `text` (atom.cas, bar.warp.sync).
inline emu::InstrInfo instr(uint32_t pc, int ptx_line, std::string text, int loc = -1,
                            emu::InstrTrait trait = emu::InstrTrait::None) {
  emu::InstrInfo i;
  i.trait = trait;
  i.pc = pc;
  i.ptx_line = ptx_line;
  i.text = std::move(text);
  i.loc = loc;
  return i;
}

}  // namespace smemlab::check::testing
