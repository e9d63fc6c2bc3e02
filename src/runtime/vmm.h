// Virtual memory management: physical allocations (cuMemCreate), address
// reservations (cuMemAddressReserve), mappings (cuMemMap) and their access
// (cuMemSetAccess). A mapped, accessible range is ordinary device memory for
// kernels, copies, check and analyze; the rest of a reservation is unmapped
// and an access there faults. Refused by name (not registered here):
// cuMemMapArrayAsync (sparse arrays), cuMemExportToShareableHandle and
// cuMemImportFromShareableHandle (inter-process sharing).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/api.h"

namespace smemlab::runtime {

// The entry points, for cuGetProcAddress (find_entry).
const std::vector<EntryPoint>& vmm_entries();

// Physical allocations whose handle the program still holds at exit
// (cuMemCreate or cuMemRetainAllocationHandle without its cuMemRelease), as
// (handle, bytes): leaks, like an unfreed cudaMalloc. The caller holds the
// driver's lock.
std::vector<std::pair<uint64_t, uint64_t>> vmm_unreleased();

}  // namespace smemlab::runtime
