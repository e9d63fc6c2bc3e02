// Constant loads ptxas folds away (the time model's load/store issue, issue
// 31): a PTX `ld.const` or `ld.param` whose address is a symbol plus an
// offset (no register computed at run time) does not become a per-thread
// load in the SASS. ptxas reads the constant as a c[bank][offset] operand
// of the instruction that uses it, or once per warp into a uniform
// register (ULDC, the uniform datapath): kernels/filter.cu's
// fir_one_per_thread has 21 `ld.const [c_fir+4k]` in its PTX and no LDC of
// c_fir in its sm_90 SASS (its FFMAs take them from uniform registers).
// Such loads issue on no pipe the model counts.
#pragma once

#include <cstdint>
#include <vector>

#include "emu/program.h"

namespace smemlab::timing {

// By pc: 1 for a constant- or parameter-space load whose address base is a
// register no op of the program writes (a symbol's or an immediate's
// constant register), else 0. An op whose register operands
// emu/reg_operands.h does not know counts as writing its destination
// fields (constant_loads.cc).
std::vector<uint8_t> folded_constant_loads(const emu::Program& p);

}  // namespace smemlab::timing
