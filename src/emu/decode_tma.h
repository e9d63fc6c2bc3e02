// Decoding of the Tensor Memory Accelerator's instructions (decode_tma.cc):
// cp.async.bulk.tensor, cp.reduce.async.bulk.tensor,
// cp.async.bulk.prefetch.tensor, cp.async.bulk.commit_group and
// cp.async.bulk.wait_group{.read}.
#pragma once

#include "emu/decode_context.h"

namespace smemlab::emu {

// Whether `in` is one of those (cp.reduce.async.bulk without .tensor too:
// decode_tma names it as unsupported).
bool is_tma(const ptx::Instruction& in);
// `op` carries the guard and the instruction's InstrInfo.
void decode_tma(DecodeContext& c, const ptx::Instruction& in, const Op& op);

}  // namespace smemlab::emu
