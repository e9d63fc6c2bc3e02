// cp.async.bulk.global.shared::cta and cp.reduce.async.bulk.global.shared::cta
// (1-D bulk copies from shared to global memory in a bulk async-group):
// their decoder (reached through decode_tensor_or_async) and executor
// (BULK_ST, declared from instructions.def).
#pragma once

#include <cstddef>
#include <cstdint>

#include "emu/decode_context.h"
#include "emu/exec.h"

namespace smemlab::emu {

// The lanes of `exec` that issue a copy to global memory (a TMA tensor store
// or a 1-D bulk store, not a reduction): each lane whose registers `regs`
// all equal an earlier issuing lane's is dropped. Measured on the H100 (run
// 15, docs/bank-model.md "Stores issued once per distinct operands"): ptxas
// serializes a warp's copy over its lanes, and for a store (idempotent) it
// takes every lane with the elected lane's operands at once; reductions and
// loads it issues once per lane. ptxas gives a tensor prefetch the store's
// loop (its R2UR yields the predicate that drops every lane with the
// elected lane's operands), so exec_tma issues prefetches through this too.
inline uint32_t store_issuing_lanes(const Warp& w, const uint32_t* regs, size_t n, uint32_t exec) {
  uint32_t issuing = 0;
  SMEMLAB_FOR_LANES(exec, {
    bool repeat = false;
    for (uint32_t m = issuing; m != 0 && !repeat; m &= m - 1) {
      const uint32_t k = static_cast<uint32_t>(__builtin_ctz(m));
      repeat = true;
      for (size_t i = 0; i < n; ++i) repeat = repeat && reg(w, regs[i])[l] == reg(w, regs[i])[k];
    }
    if (!repeat) issuing |= 1u << l;
  });
  return issuing;
}

// cp{.reduce}.async.bulk.global...: the 1-D shared -> global forms.
bool is_bulk_store(const ptx::Instruction& in);
// `op` carries the guard and the instruction's InstrInfo.
void decode_bulk_store(DecodeContext& c, const ptx::Instruction& in, const Op& op);

}  // namespace smemlab::emu
