#include "check/access_stats.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

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

// sector_cost against the rule written plainly (the set of bytes asked
// for, and of the 32-byte sectors they lie in) on random requests: lanes
// at a unit stride (one range, the common case), with gaps, overlapping,
// descending or scattered; partial masks; every width.
TEST(SectorCost, MatchesThePlainRuleOnRandomRequests) {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  unsigned one_range = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const unsigned width = 1u << (rng() % 5);
    const uint32_t mask = rng() % 3 ? 0xffffffffu : static_cast<uint32_t>(rng() >> (rng() % 33));
    const uint64_t base = rng() % 4096;
    const unsigned shape = static_cast<unsigned>(rng() % 4);
    uint64_t addr[32], at = base;
    for (unsigned l = 0; l < 32; ++l) {
      if (shape == 0) {  // unit stride over the active lanes
        addr[l] = at;
        if (mask >> l & 1u) at += width;
      } else if (shape == 1) {  // unit stride, now and then a lane off it
        addr[l] = base + uint64_t{width} * l + (rng() % 16 == 0 ? rng() % 64 : 0);
      } else if (shape == 2) {  // descending
        addr[l] = base + uint64_t{width} * (31 - l);
      } else {
        addr[l] = base + rng() % 512;
      }
    }
    std::set<uint64_t> bytes, sectors;
    uint64_t asked = 0;
    for (unsigned l = 0; l < 32; ++l) {
      if (!(mask >> l & 1u)) continue;
      asked += width;
      for (uint64_t b = addr[l]; b < addr[l] + width; ++b) {
        bytes.insert(b);
        sectors.insert(b / 32);
      }
    }
    const SectorCost c = sector_cost(mask, addr, width);
    ASSERT_EQ(c.sectors, sectors.size()) << "seed " << seed << " trial " << trial;
    ASSERT_EQ(c.ideal, (bytes.size() + 31) / 32) << "seed " << seed << " trial " << trial;
    ASSERT_EQ(c.bytes, asked) << "seed " << seed << " trial " << trial;
    one_range += shape == 0 && mask != 0;
  }
  EXPECT_GT(one_range, 1000u);
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

// cp.async's global reads are not global loads (Nsight Compute files them
// under LDGSTS: HopperAnalysis's), nor are the async proxy's (TMA).
TEST(AccessAnalysis, CpAsyncAndTmaAreNoGlobalLoads) {
  emu::InstrInfo cp = testing::instr(1, 10, "cp.async.cg.shared.global");
  emu::InstrInfo tma = testing::instr(2, 11, "cp.async.bulk.tensor.2d");
  AccessAnalysis a;
  a.on_kernel_begin({});
  auto obs = a.make_block_observer({0, 0, 0});
  obs->on_memory(testing::access(emu::Space::Global, emu::MemOp::CpAsyncLoad, 16, &cp, 0,
                                 [](unsigned i) { return 4096 + 16ull * i; }));
  obs->on_memory(testing::access(
      emu::Space::Global, emu::MemOp::BulkLoad, 16, &tma, 0, [](unsigned) { return 8192; }, 1u));
  a.finish_block({0, 0, 0}, std::move(obs));
  EXPECT_TRUE(a.accesses().empty());
}

// The per-pc pattern memo gives what sector_cost of every request gives:
// fresh random global requests each run, most of them a few patterns
// shifted by random amounts (multiples of 32: hits; others: misses), some
// with lanes 2^31 bytes or more apart (not memoized); counts and the worst
// request's addresses must equal a recount of every request. The memo
// outlives a block and an analysis (PcStates): a launch met again, then a
// new one, count the same.
TEST(AccessAnalysis, MemoizedSectorsEqualARecount) {
  using testing::access;
  using testing::instr;
  const uint64_t seed = std::random_device{}();
  emu::InstrInfo ins[3] = {instr(0, 10, "ld.global"), instr(1, 11, "st.global.v2"),
                           instr(2, 12, "ld.global.v4")};
  const unsigned widths[3] = {4, 8, 16};
  struct Pattern {
    uint32_t pc, mask;
    uint64_t addr[32];
  };
  for (int launch = 0; launch < 3; ++launch) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " launch " + std::to_string(launch));
    std::mt19937_64 rng(launch < 2 ? seed : seed + 1);
    auto fresh = [&] {
      Pattern p;
      p.pc = static_cast<uint32_t>(rng() % 3);
      p.mask = rng() % 3 ? static_cast<uint32_t>(rng()) | 1u << (rng() % 32) : 0xffffffffu;
      uint64_t stride = widths[p.pc] * (1 + rng() % 40);
      uint64_t far = rng() % 10 == 0 ? uint64_t{1} << 32 : 0;
      for (unsigned l = 0; l < 32; ++l)
        p.addr[l] = 0x7f0000000000ull + (rng() % 2 ? l : rng() % 32) * stride + (l == 5 ? far : 0);
      return p;
    };
    AccessAnalysis a;
    a.on_kernel_begin({});
    std::vector<Pattern> patterns;
    for (int i = 0; i < 5; ++i) patterns.push_back(fresh());
    SectorCounts want[3];
    uint64_t worst_excess[3] = {};
    bool has_worst[3] = {};
    uint64_t worst_addr[3][32] = {};
    for (uint32_t b = 0; b < 3; ++b) {
      auto obs = a.make_block_observer({b, 1, 1});
      for (int e = 0; e < 500; ++e) {
        Pattern p = rng() % 6 ? patterns[rng() % patterns.size()] : fresh();
        uint64_t shift = rng() % 2 ? 32 * (rng() % 1000) : rng() % 100000;
        auto op = p.pc == 1 ? emu::MemOp::Store : emu::MemOp::Load;
        auto ev = access(
            emu::Space::Global, op, widths[p.pc], &ins[p.pc], 0,
            [&](unsigned l) { return p.addr[l] + shift; }, p.mask);
        obs->on_memory(ev);
        SectorCost c = sector_cost(ev.mask, ev.addr, ev.width);
        want[p.pc].add({1, c.sectors, c.ideal, c.bytes});
        if (!has_worst[p.pc] || c.sectors - c.ideal > worst_excess[p.pc]) {
          has_worst[p.pc] = true;
          worst_excess[p.pc] = c.sectors - c.ideal;
          std::copy(std::begin(ev.addr), std::end(ev.addr), worst_addr[p.pc]);
        }
      }
      a.finish_block({b, 1, 1}, std::move(obs));
    }
    for (uint32_t pc = 0; pc < 3; ++pc) {
      if (!want[pc].requests) continue;
      const AccessInstr& got = a.accesses().at(pc);
      EXPECT_EQ(got.counts.requests, want[pc].requests) << pc;
      EXPECT_EQ(got.counts.sectors, want[pc].sectors) << pc;
      EXPECT_EQ(got.counts.ideal_sectors, want[pc].ideal_sectors) << pc;
      EXPECT_EQ(got.counts.bytes, want[pc].bytes) << pc;
      EXPECT_EQ(got.worst_excess, worst_excess[pc]) << pc;
      for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(got.worst_addr[l], worst_addr[pc][l]) << pc;
    }
  }
}

// The memo keeps a pattern's sectors per first-lane residue mod 32: one
// random pattern per pc (strided, broadcast, scattered; misaligned wide
// lanes too), shifted by random amounts that are mostly not multiples of
// 32, must count as a recount of every request does.
TEST(AccessAnalysis, SectorsPerResidueEqualARecount) {
  using testing::access;
  using testing::instr;
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 20; ++round) {
    const unsigned width = 1u << (rng() % 5);
    emu::InstrInfo ins = instr(0, 10, "ld.global");
    const uint32_t mask =
        rng() % 2 ? 0xffffffffu : static_cast<uint32_t>(rng()) | 1u << (rng() % 32);
    const uint64_t stride = rng() % 3 == 0 ? 0 : 1 + rng() % 70;
    uint64_t addr[32];
    for (unsigned l = 0; l < 32; ++l) addr[l] = 0x10000 + (rng() % 4 ? l * stride : rng() % 256);
    AccessAnalysis a;
    a.on_kernel_begin({});
    SectorCounts want;
    auto obs = a.make_block_observer({0, 1, 1});
    uint64_t shift = 0;
    for (int e = 0; e < 300; ++e) {
      shift += rng() % 4 ? rng() % 8 * width : rng() % 100;
      auto ev = access(
          emu::Space::Global, emu::MemOp::Load, width, &ins, 0,
          [&](unsigned l) { return addr[l] + shift; }, mask);
      obs->on_memory(ev);
      SectorCost c = sector_cost(ev.mask, ev.addr, ev.width);
      want.add({1, c.sectors, c.ideal, c.bytes});
    }
    a.finish_block({0, 1, 1}, std::move(obs));
    const AccessInstr& got = a.accesses().at(0);
    ASSERT_EQ(got.counts.requests, want.requests) << "seed " << seed;
    ASSERT_EQ(got.counts.sectors, want.sectors) << "seed " << seed << " round " << round;
    ASSERT_EQ(got.counts.ideal_sectors, want.ideal_sectors) << "seed " << seed;
    ASSERT_EQ(got.counts.bytes, want.bytes) << "seed " << seed;
  }
}

// A copy of the analysis merges into its own maps, not the original's (the
// pc-indexed node pointers are not copied).
TEST(AccessAnalysis, ACopyMergesIntoItsOwnCounts) {
  using testing::access;
  using testing::instr;
  emu::InstrInfo ld = instr(3, 10, "ld.global");
  auto block = [&](AccessAnalysis& a, uint32_t b) {
    auto obs = a.make_block_observer({b, 1, 1});
    obs->on_memory(access(emu::Space::Global, emu::MemOp::Load, 4, &ld, 0,
                          [](unsigned l) { return 0x10000 + 4 * l; }));
    obs->on_branch({1u, 2u, &ld, {b, 1, 1}, 0});
    a.finish_block({b, 1, 1}, std::move(obs));
  };
  AccessAnalysis a;
  block(a, 0);
  AccessAnalysis copy = a;
  block(copy, 1);
  block(copy, 2);
  EXPECT_EQ(a.accesses().at(3).counts.requests, 1u);
  EXPECT_EQ(a.branches().at(3).counts.divergent, 1u);
  EXPECT_EQ(copy.accesses().at(3).counts.requests, 3u);
  EXPECT_EQ(copy.accesses().at(3).counts.sectors, 12u);
  EXPECT_EQ(copy.branches().at(3).counts.divergent, 3u);
}

// Eight global loads at pcs 0..7, and a block's coalesced load and branch
// at one of them (lane 0 jumps, lanes `not_taken` fall through: divergent
// unless none).
std::vector<emu::InstrInfo> loads_at_pcs() {
  std::vector<emu::InstrInfo> ld;
  for (uint32_t pc = 0; pc < 8; ++pc) ld.push_back(testing::instr(pc, 10, "ld.global"));
  return ld;
}
void load_and_branch(emu::BlockObserver& obs, const emu::InstrInfo& in, emu::Dim3 block,
                     uint32_t not_taken) {
  obs.on_memory(testing::access(emu::Space::Global, emu::MemOp::Load, 4, &in, 0,
                                [](unsigned l) { return 0x10000 + 4 * l; }));
  obs.on_branch({1u, not_taken, &in, block, 0});
}

// Entries stay in ascending pc order, each pc's counts summed, when later
// blocks meet pcs below, between and above the first block's (the table
// is re-sorted and its pc index rebuilt).
TEST(AccessAnalysis, PcsFirstMetByLaterBlocksStaySortedAndSummed) {
  const std::vector<emu::InstrInfo> ld = loads_at_pcs();
  AccessAnalysis a;
  const std::vector<std::vector<uint32_t>> blocks = {{5, 3}, {7, 1, 3}, {4, 0, 5}, {6, 2, 1}};
  std::map<uint32_t, uint64_t> want;
  for (uint32_t b = 0; b < blocks.size(); ++b) {
    auto obs = a.make_block_observer({b, 1, 1});
    for (uint32_t pc : blocks[b]) {
      load_and_branch(*obs, ld[pc], {b, 1, 1}, 2u);
      ++want[pc];
    }
    a.finish_block({b, 1, 1}, std::move(obs));
  }
  std::vector<uint32_t> got_pcs;
  for (const auto& [pc, s] : a.accesses()) {
    got_pcs.push_back(pc);
    EXPECT_EQ(s.counts.requests, want[pc]) << pc;
    EXPECT_EQ(a.accesses().at(pc).counts.requests, want[pc]) << pc;
    EXPECT_EQ(a.branches().at(pc).counts.divergent, want[pc]) << pc;
  }
  EXPECT_EQ(got_pcs, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(a.branches().size(), 8u);
  EXPECT_THROW(a.accesses().at(8), std::out_of_range);
}

// A launch's only block, its pcs met out of order (a loop's body below its
// test): its entries, taken whole, come out in ascending pc order too.
TEST(AccessAnalysis, AnOnlyBlockMetOutOfOrderIsSorted) {
  const std::vector<emu::InstrInfo> ld = loads_at_pcs();
  AccessAnalysis a;
  auto obs = a.make_block_observer({0, 1, 1});
  for (uint32_t pc : {6u, 2u, 4u, 6u, 1u}) load_and_branch(*obs, ld[pc], {0, 1, 1}, 0u);
  a.finish_block({0, 1, 1}, std::move(obs));
  std::vector<uint32_t> accesses, branches;
  for (const auto& [pc, s] : a.accesses()) accesses.push_back(pc);
  for (const auto& [pc, s] : a.branches()) branches.push_back(pc);
  EXPECT_EQ(accesses, (std::vector<uint32_t>{1, 2, 4, 6}));
  EXPECT_EQ(branches, (std::vector<uint32_t>{1, 2, 4, 6}));
  EXPECT_EQ(a.accesses().at(6).counts.requests, 2u);
  EXPECT_EQ(a.accesses().at(1).counts.requests, 1u);
  EXPECT_EQ(a.branches().at(6).counts.uniform, 2u);
  EXPECT_THROW(a.accesses().at(3), std::out_of_range);
}

}  // namespace
}  // namespace smemlab::check
