// The source change for a TMA tile's swizzle (docs/fix.md, "TMA tiles"): a
// tile that cp.async.bulk.tensor fills is laid out by its tensor map, so its
// swizzle is a pair of edits — the host's CUtensorMapSwizzle argument of the
// one encode in the file, and the XOR of the mode (CuTe's Swizzle<B,4,3> on
// byte offsets) in every reader's offset from the tile's base. This finds
// both in the source model, or says exactly why not (naming the line).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fix/rewrite.h"
#include "fix/source_model.h"

namespace smemlab::fix {

struct TileSwizzle {
  int from = 0, to = 0;  // CU_TENSOR_MAP_SWIZZLE_* values (0 none .. 3 128B)
  uint32_t row_bytes = 0;
  uint32_t shared_base = 0;       // the tile's shared offset in the launch
  std::vector<int> reader_lines;  // lines of the source holding the readers
  bool wgmma_reads = false;       // read through wgmma descriptors too
};

// The CU_TENSOR_MAP_SWIZZLE_* enumerator of mode m.
const char* swizzle_enumerator(int mode);

// `offset` (an expression counting elements of elem_bytes) rewritten so that
// the byte offset it gives moves from mode `from`'s layout to `to`'s:
// o ^ ((o >> 7 & (mask(from) ^ mask(to))) << 4), both modes' XORs of
// address bits 4..6 by bits 7..9 (each its own inverse).
std::string swizzled_offset(const std::string& offset, unsigned elem_bytes, int from, int to);

// The edits, or nullopt with the reason in *why.
std::optional<Edits> tile_swizzle_edits(const SourceModel& source, const TileSwizzle& t,
                                        std::string* why);

}  // namespace smemlab::fix
