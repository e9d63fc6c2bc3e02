// Shared by the tensor-core executors (ops_tensor_exec.cc, ops_wgmma_exec.cc).
#pragma once

#include <cstdint>

#include "emu/exec.h"

namespace smemlab::emu {

// Faults (kind `divergent`) unless all 32 threads of the warp execute `op`
// together: the .sync.aligned rule of the tensor instructions.
void require_warp(const Warp& w, const Op& op, const BlockCtx& b, uint32_t pc, uint32_t exec);

}  // namespace smemlab::emu
