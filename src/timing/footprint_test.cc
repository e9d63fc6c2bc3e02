// The DRAM footprint observer: distinct sectors per buffer, scaled by the
// sampling factor and capped by the buffer's size.
#include "timing/footprint.h"

#include <gtest/gtest.h>

namespace smemlab::timing {
namespace {

emu::MemAccess access(uint64_t base, uint64_t stride, uint8_t width) {
  emu::MemAccess a{};
  a.space = emu::Space::Global;
  a.width = width;
  a.mask = 0xffffffffu;
  for (int l = 0; l < 32; ++l) a.addr[l] = base + uint64_t(l) * stride;
  return a;
}

TEST(Footprint, DistinctSectorsScaledAndCapped) {
  emu::GlobalMemory mem;
  uint64_t small = mem.allocate(4096), big = mem.allocate(1 << 20);
  Footprint f;
  auto b = f.make_block_observer({0, 0, 0});
  b->on_memory(access(small, 4, 4));  // 128 bytes: 4 sectors
  b->on_memory(access(small, 4, 4));  // the same again: no new sector
  b->on_memory(access(big, 128, 4));  // 32 lanes, a sector each
  b->on_memory(access(
      big + 60, 0, 8));  // bytes 60..67: sectors 1 and 2 of big, both new (lanes hit 0, 4, 8, ...)
  f.finish_block({0, 0, 0}, std::move(b));
  EXPECT_EQ(f.sectors(), 4u + 32u + 2u);
  EXPECT_DOUBLE_EQ(f.bytes(mem, 1.0), (4 + 34) * 32.0);
  // Sampled 1 in 100: big scales (34 x 32 x 100 < 1 MiB), small is capped at 4096.
  EXPECT_DOUBLE_EQ(f.bytes(mem, 100.0), 4096.0 + 34 * 32.0 * 100);
}

TEST(Footprint, BlocksMerge) {
  emu::GlobalMemory mem;
  uint64_t buf = mem.allocate(1 << 16);
  Footprint f;
  for (uint32_t blk = 0; blk < 2; ++blk) {
    auto b = f.make_block_observer({blk, 0, 0});
    b->on_memory(access(buf + blk * 64, 4, 4));  // overlapping halves
    f.finish_block({blk, 0, 0}, std::move(b));
  }
  EXPECT_EQ(f.sectors(), 6u);
}

}  // namespace
}  // namespace smemlab::timing
