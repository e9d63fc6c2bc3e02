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

TEST(Footprint, DramGranules) {
  emu::GlobalMemory mem;
  uint64_t buf = mem.allocate(1 << 16);
  Footprint f;
  auto b = f.make_block_observer({0, 0, 0});
  b->on_memory(access(buf, 128, 4));            // one word per 128-byte line: sector 0 of 32 lines
  b->on_memory(access(buf + 4096, 0, 4));       // sectors 0 and 1 of line 32:
  b->on_memory(access(buf + 4096 + 32, 0, 4));  // one 64-byte granule
  f.finish_block({0, 0, 0}, std::move(b));
  EXPECT_DOUBLE_EQ(f.bytes(mem, 1.0, 32), 34 * 32.0);
  EXPECT_DOUBLE_EQ(f.bytes(mem, 1.0, 64), 33 * 64.0);
  EXPECT_DOUBLE_EQ(f.bytes(mem, 1.0, 128), 33 * 128.0);
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

TEST(Footprint, L1ReuseWithinBlocks) {
  emu::GlobalMemory mem;
  uint64_t buf = mem.allocate(1 << 16);
  emu::InstrInfo ld{}, cg{}, st{};
  ld.text = "ld.global.f32";
  cg.text = "ld.global.cg.f32";
  st.text = "st.global.f32";
  Footprint f;
  for (uint32_t blk = 0; blk < 2; ++blk) {
    auto b = f.make_block_observer({blk, 0, 0});
    emu::MemAccess a = access(buf, 4, 4);  // 4 sectors, the same in both blocks
    a.instr = &ld;
    b->on_memory(a);
    b->on_memory(a);        // re-read: 4 more requested, no new distinct
    a = access(buf, 0, 4);  // broadcast: one sector
    a.instr = &ld;
    b->on_memory(a);
    a = access(buf + 4096, 4, 4);  // bypasses L1, and a store: not counted
    a.instr = &cg;
    b->on_memory(a);
    a.op = emu::MemOp::Store;
    a.instr = &st;
    b->on_memory(a);
    f.finish_block({blk, 0, 0}, std::move(b));
  }
  const L1Reuse& r = f.l1_reuse();
  EXPECT_EQ(r.blocks, 2u);
  EXPECT_EQ(r.requested, 2u * 9);
  // Per block: the other block's loads of the same sectors do not count.
  EXPECT_EQ(r.block_distinct, 2u * 4);
  EXPECT_DOUBLE_EQ(r.hit_fraction(), 10.0 / 18);
  EXPECT_DOUBLE_EQ(r.bytes_per_block(), 4 * 32.0);
  EXPECT_EQ(f.sectors(), 8u);
}

}  // namespace
}  // namespace smemlab::timing
