// cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col and
// cuTensorMapReplaceAddress (tensor_map.cc): the driver's documented
// constraints checked field by field (a refused map returns
// CUDA_ERROR_INVALID_VALUE and a ==smemlab== line naming the field), the map
// written in smemlab's encoding (emu/tma.h) for the emulator's
// cp.async.bulk.tensor to read back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emu/tma.h"
#include "runtime/api.h"

namespace smemlab::runtime {

// The first constraint `m` breaks, as "FIELD: why" (empty: a valid map).
// `m.address` and the other fields are the driver's arguments; for im2col
// maps m.channels, m.pixels, m.lower and m.upper too.
std::string tensor_map_error(const emu::tma::TensorMap& m);

// The entry points, for cuGetProcAddress (find_entry).
const std::vector<EntryPoint>& tensor_map_entries();

}  // namespace smemlab::runtime
