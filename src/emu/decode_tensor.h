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

}  // namespace smemlab::emu
