// Stream-ordered allocation and memory pools (cudaMallocAsync, cudaFreeAsync,
// cudaMallocFromPoolAsync, cudaMemPool*): each allocation is a Driver
// allocation of exactly the bytes asked for, so check's bounds tracking,
// use-after-free, double-free and leak reports treat it as cudaMalloc's; the
// pool keeps the bookkeeping its attributes report (used, reserved, release
// threshold).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/api.h"

namespace smemlab::runtime {

struct MemPool;

// An allocation from `pool` was freed (cuMemFreeAsync or cuMemFree): its
// bytes stay reserved by the pool until a synchronization trims it.
void pool_released(MemPool* pool, uint64_t bytes);
// Stream, event and context synchronization: each pool gives back what it
// holds above its release threshold, as the driver does at those points.
void pools_synchronized();
// A short description of the pool an allocation came from, for messages.
const char* pool_origin(const MemPool* pool);

// The entry points, for cuGetProcAddress (find_entry).
const std::vector<EntryPoint>& pool_entries();

}  // namespace smemlab::runtime
