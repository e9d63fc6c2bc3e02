// Which pipe (pipes.def) a PTX instruction issues to, from its text
// ("fma.rn.f32", "ld.shared.v4.f32"): the counts are of PTX instructions,
// and ptxas maps most of them 1:1 onto SASS of the same pipe.
#pragma once

#include <string_view>

#include "timing/model.h"

namespace smemlab::timing {

Pipe pipe_of(std::string_view ptx_text);

// Of a load the caller knows reads global memory: whether L1 caches it
// (ld, ld.global.nc, ldu: cached in L1 by default since Volta), not one
// that bypasses it (.cg, .cv, .volatile) nor an atomic.
bool l1_cached_load(std::string_view ptx_text);

// A load, store or atomic on the own block's shared memory (ld/st/atom/red
// .shared, not a cluster peer's ::cluster; ldmatrix, stmatrix): the bank
// analysis counts these as the SASS requests ptxas made (counts.cc).
bool own_shared_access(std::string_view ptx_text);

// A tensor-core instruction's work per warp execution, in multiply-adds at
// the FP16 rate (h100.def tensor_fma): m x n x k of its shape ("m16n8k16"),
// a wgmma's shared by the 4 warps of its warpgroup; TF32 counts twice,
// 8-bit types half, FP64 at the FP64 tensor rate. 0 for other instructions.
double tensor_fma(std::string_view ptx_text);

// A block barrier (bar.sync, barrier.sync, bar.red).
bool block_barrier(std::string_view ptx_text);

}  // namespace smemlab::timing
