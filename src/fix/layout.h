// A candidate layout for one shared array and the address remap it implies:
// padding the last dimension (rows of W elements become rows of W + P) or
// XOR-swizzling the column by the row (W a power of two; the column moves in
// units of G elements so that vector accesses stay contiguous). The remap
// maps a byte offset inside the array to its offset under the new layout;
// the what-if search applies it to recorded shared accesses before the bank
// model, so no recompilation is needed to cost a candidate.
#pragma once

#include <cstdint>
#include <string>

namespace smemlab::fix {

enum class Change { Pad, Swizzle };

struct Layout {
  Change change = Change::Pad;
  uint32_t elem = 4;   // element bytes
  uint32_t width = 0;  // W: elements per row (the last dimension, or the implied one)
  uint32_t pad = 0;    // P: elements added per row (Pad)
  uint32_t unit = 1;   // G: elements moved together (Swizzle)
  uint32_t rows =
      0;  // rows the row index wraps at (Swizzle of an N-D array's last two dims; 0: none)

  // Byte offset within the array -> byte offset under this layout.
  uint64_t remap(uint64_t offset) const;
  // Bytes the array needs under this layout, from its current size.
  uint64_t bytes(uint64_t old_bytes) const;
  // "pad last dimension by 1 (32 -> 33 elements)", "xor-swizzle columns by row (32 wide)".
  std::string describe() const;
};

}  // namespace smemlab::fix
