#include "check/access_stats.h"

#include <gtest/gtest.h>

#include "check/event_builder.h"

namespace smemlab::check {
namespace {

TEST(SectorCost, StrideGrowsSectorsUntil32) {
  uint64_t addr[32];
  for (unsigned s : {1u, 2u, 4u, 8u, 16u, 32u, 64u}) {
    for (unsigned i = 0; i < 32; ++i) addr[i] = 4ull * s * i;
    SectorCost c = sector_cost(0xffffffffu, addr, 4);
    EXPECT_EQ(c.sectors, std::min(32u, 4u * s)) << s;
    EXPECT_EQ(c.ideal, 4u);
    EXPECT_EQ(c.bytes, 128u);
  }
}

TEST(SectorCost, BroadcastAndMisalignedRows) {
  uint64_t addr[32];
  for (unsigned i = 0; i < 32; ++i) addr[i] = 100;
  SectorCost b = sector_cost(0xffffffffu, addr, 4);
  EXPECT_EQ(b.sectors, 1u);
  EXPECT_EQ(b.ideal, 1u);
  for (unsigned i = 0; i < 32; ++i) addr[i] = 16 + 4 * i;  // 128 bytes across 5 sectors
  SectorCost m = sector_cost(0xffffffffu, addr, 4);
  EXPECT_EQ(m.sectors, 5u);
  EXPECT_EQ(m.ideal, 4u);
  EXPECT_EQ(sector_cost(0, addr, 4).sectors, 0u);
}

TEST(AccessAnalysis, CountsPerInstructionAndBranches) {
  emu::InstrInfo ld = testing::instr(1, 10, "ld.global.f32");
  emu::InstrInfo br = testing::instr(2, 11, "@%p1 bra");
  AccessAnalysis a;
  a.on_kernel_begin({});
  for (uint32_t b = 0; b < 3; ++b) {
    auto obs = a.make_block_observer({b, 0, 0});
    obs->on_memory(testing::access(emu::Space::Global, emu::MemOp::Load, 4, &ld, 0,
                                   [](unsigned i) { return 4096 + 128ull * i; }));
    obs->on_branch({0x0000ffffu, 0xffff0000u, &br, {b, 0, 0}, 0});
    obs->on_branch({0xffffffffu, 0, &br, {b, 0, 0}, 1});
    a.finish_block({b, 0, 0}, std::move(obs));
  }
  const AccessInstr& s = a.accesses().at(1);
  EXPECT_EQ(s.cls, AccessClass::GlobalLoad);
  EXPECT_EQ(s.counts.requests, 3u);
  EXPECT_EQ(s.counts.sectors, 96u);
  EXPECT_EQ(s.counts.ideal_sectors, 12u);
  EXPECT_EQ(a.branches().at(2).counts.divergent, 3u);
  EXPECT_EQ(a.branches().at(2).counts.uniform, 3u);
}

}  // namespace
}  // namespace smemlab::check
