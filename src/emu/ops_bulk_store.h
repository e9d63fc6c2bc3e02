// cp.async.bulk.global.shared::cta and cp.reduce.async.bulk.global.shared::cta
// (1-D bulk copies from shared to global memory in a bulk async-group):
// their decoder (reached through decode_tensor_or_async) and executor
// (BULK_ST, declared from instructions.def).
#pragma once

#include "emu/decode_context.h"

namespace smemlab::emu {

// cp{.reduce}.async.bulk.global...: the 1-D shared -> global forms.
bool is_bulk_store(const ptx::Instruction& in);
// `op` carries the guard and the instruction's InstrInfo.
void decode_bulk_store(DecodeContext& c, const ptx::Instruction& in, const Op& op);

}  // namespace smemlab::emu
