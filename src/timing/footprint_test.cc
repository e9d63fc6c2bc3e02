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

// Re-read distances on the warps' own clocks: the emulator runs warp 0's
// whole loop before warp 1's, but warp 1 re-reads each sector at the same
// point of its own loop (distance 0, the nearest octave), while warp 0's
// re-read of its first sector after 15 other requests is 15/16 of the span
// back (octave 0).
TEST(Footprint, ReuseDistanceOnWarpClocks) {
  emu::GlobalMemory mem;
  uint64_t buf = mem.allocate(1 << 16);
  emu::InstrInfo ld{};
  ld.text = "ld.global.f32";
  Footprint f;
  auto b = f.make_block_observer({0, 0, 0});
  for (uint32_t warp = 0; warp < 2; ++warp) {
    for (int i = 0; i < 16; ++i) {
      emu::MemAccess a = access(buf + 128u * uint64_t(i), 4, 4);  // 4 sectors each
      a.instr = &ld;
      a.warp = warp;
      b->on_memory(a);
    }
    if (warp == 0) {
      emu::MemAccess again = access(buf, 4, 4);
      again.instr = &ld;
      b->on_memory(again);  // clock 17, the sectors' stamp 1
    }
  }
  f.finish_block({0, 0, 0}, std::move(b));
  const L1Reuse& r = f.l1_reuse();
  EXPECT_EQ(r.requested, 4u * 33);
  EXPECT_EQ(r.block_distinct, 4u * 16);
  // Warp 1's 64 re-reads: 60 at distance 0, 4 (its first request, stamped
  // 17 by warp 0's re-read) at distance 16 of a span of 17.
  EXPECT_EQ(r.rereads[kReuseOctaves - 1], 60u);
  EXPECT_EQ(r.rereads[0], 4u + 4u);
  const ReuseProfile p = r.profile();
  EXPECT_DOUBLE_EQ(p.within[0], r.hit_fraction());
  EXPECT_DOUBLE_EQ(p.within[1], 60.0 / 132);
  EXPECT_DOUBLE_EQ(p.within[kReuseOctaves - 1], 60.0 / 132);
  EXPECT_DOUBLE_EQ(p.at(0.25), 60.0 / 132);
}

// Store requests' partially written sectors: a column store writes 4 of
// 32 bytes in each of 32 sectors; a coalesced one fills its 4 sectors;
// two lanes writing one address leave the sector partial; loads and L1
// bypassing make no difference.
TEST(Footprint, PartialStoreSectors) {
  emu::GlobalMemory mem;
  uint64_t buf = mem.allocate(1 << 16);
  emu::InstrInfo st{};
  st.text = "st.global.f32";
  Footprint f;
  auto b = f.make_block_observer({0, 0, 0});
  auto store = [&](uint64_t base, uint64_t stride, uint8_t width, uint32_t mask) {
    emu::MemAccess a = access(base, stride, width);
    a.op = emu::MemOp::Store;
    a.instr = &st;
    a.mask = mask;
    b->on_memory(a);
  };
  store(buf, 128, 4, ~0u);           // 32 partial
  store(buf + 8192, 4, 4, ~0u);      // 4 whole sectors
  store(buf + 8192, 4, 4, 0xffffu);  // 2 whole sectors
  store(buf + 8192 + 4, 4, 4, ~0u);  // misaligned: first and last sector partial
  store(buf + 16384, 0, 4, 3u);      // two lanes, one word: 1 partial
  store(buf + 20000, 16, 16, ~0u);   // 16-byte lanes, 512 bytes from byte 32 of a line: whole
  emu::MemAccess load = access(buf, 128, 4);
  b->on_memory(load);  // loads write nothing
  f.finish_block({0, 0, 0}, std::move(b));
  EXPECT_EQ(f.partial_store_sectors(), 32u + 2u + 1u);
}

// Loads that wait for L2 (model.cc's lsu_wait_extra): per cached load
// request, how many of its warp's memory instructions back the newest of
// its sectors was first loaded by the block. A naive matmul's column: the
// block's warps read one row at the same clock, the first one's request
// misses (0), the others find the line just loaded (distance 0 on their
// own clocks: in flight); a row read again 20 instructions after its first
// load is an L1 hit by then (octave 5: [16, 32)), however recently another
// warp re-read it.
TEST(Footprint, LoadsWaitingForL2) {
  emu::GlobalMemory mem;
  uint64_t buf = mem.allocate(1 << 16);
  emu::InstrInfo ld{};
  ld.text = "ld.global.nc.f32";
  Footprint f;
  auto b = f.make_block_observer({0, 0, 0});
  auto load = [&](uint32_t warp, uint64_t addr) {
    emu::MemAccess a = access(addr, 4, 4);
    a.instr = &ld;
    a.warp = warp;
    b->on_memory(a);
  };
  for (uint32_t w = 0; w < 4; ++w) load(w, buf);  // clock 1 each: one miss, three in flight
  for (int k = 0; k < 19; ++k) load(0, buf + 4096 + 128 * k);  // warp 0: clocks 2-20
  for (int k = 0; k < 14; ++k) load(1, buf + 8192 + 128 * k);  // warp 1: clocks 2-15
  load(1, buf);  // clock 16: first loaded 15 back (octave 4: [8, 16))
  load(0, buf);  // clock 21: last loaded 5 back, first 20 back (octave 5)
  f.finish_block({0, 0, 0}, std::move(b));
  const L1Reuse& r = f.l1_reuse();
  EXPECT_EQ(r.load_requests, 39u);
  EXPECT_EQ(r.since_first[0], 4u + 19u + 14u);  // misses, and the row read at the same clock
  EXPECT_EQ(r.since_first[4], 1u);
  EXPECT_EQ(r.since_first[5], 1u);  // from the first load, not the last
  const ReuseProfile p = r.profile();
  EXPECT_DOUBLE_EQ(p.waiting[0], 37.0 / 39);
  EXPECT_DOUBLE_EQ(p.waiting[4], 38.0 / 39);
  EXPECT_DOUBLE_EQ(p.waiting[5], 1.0);
  EXPECT_DOUBLE_EQ(p.waiting_within(8), 37.0 / 39);
}

}  // namespace
}  // namespace smemlab::timing
