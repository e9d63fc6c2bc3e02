// Decoders of the tensor-core and asynchronous-barrier families
// (decode_tensor.cc): ldmatrix, stmatrix, movmatrix, mma.sync, wmma.*,
// mbarrier.*, cp.async.mbarrier.arrive, cp.async.bulk.
#pragma once

#include "emu/decode_context.h"

namespace smemlab::emu {

// Whether this decoder family takes `in` (it checks its own modifiers,
// .satfinite included).
bool is_tensor_or_async(const ptx::Instruction& in);
// `op` carries the guard and the instruction's InstrInfo (DecodeContext::make).
void decode_tensor_or_async(DecodeContext& c, const ptx::Instruction& in, const Op& op);

// Shared by the tensor, async and TMA decoders (decode_tma.cc):
// "unsupported instruction 'TEXT' (WHY)" at the instruction's position.
[[noreturn]] void unsupported_form(DecodeContext& c, const ptx::Instruction& in,
                                   const std::string& why = "");
// [reg + off], [symbol + off] or [off]: base register (a constant for a
// symbol) and the byte offset; a symbol also fixes a generic space.
void address_operand(DecodeContext& c, const ptx::Operand& a, uint32_t* reg, int64_t* imm,
                     MSpace* space);

}  // namespace smemlab::emu
