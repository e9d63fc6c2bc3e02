// `out-of-bounds` and `misaligned` findings of a block's accesses: shared
// accesses outside every declared variable (static arrays by their declared
// size, the dynamic window by the launch's size), local ones outside the
// thread's frame, any access not aligned to its width. (Global
// out-of-bounds accesses are the emulator's faults.)
#pragma once

#include <cstdint>
#include <string>

#include "check/defect_state.h"

namespace smemlab::check::detail {

class BoundsCheck {
 public:
  BoundsCheck(const BlockState& s, BlockFindings& out) : s_(s), out_(out) {}

  // [addr, addr + width) inside one shared variable or the dynamic window.
  // Written so that no sum wraps: addresses near 2^64 are out of bounds.
  bool in_shared_bounds(uint64_t addr, uint64_t width) const {
    auto inside = [&](uint64_t start, uint64_t size) {
      return addr >= start && width <= size && addr - start <= size - width;
    };
    const MemoryLayout& L = s_.layout;
    for (const SharedVar& v : L.shared)
      if (inside(v.offset, v.size)) return true;
    return s_.kernel.dynamic_shared > 0 && inside(L.dynamic_offset, s_.kernel.dynamic_shared);
  }
  // A lane's shared access: reported unless inside (then true).
  bool shared(const emu::MemAccess& a, uint32_t thread, uint64_t addr);
  // A lane's local access: reported when outside its frame.
  void local(const emu::MemAccess& a, uint32_t thread, uint64_t addr);
  // A lane's access at `addr`, not aligned to a.width.
  void misaligned(const emu::MemAccess& a, uint32_t thread, uint64_t addr);

 private:
  std::string nearest(uint64_t addr) const;

  const BlockState& s_;
  BlockFindings& out_;
};

}  // namespace smemlab::check::detail
