// HopperAnalysis from synthetic Hopper events: what counts as a request of
// each family (a copy once, at its issuer's issue; a wgmma per warp; a
// DSMEM access per instruction and peer, the issuer's side only), the bytes
// each carries, and the merge of blocks.
#include "check/hopper_stats.h"

#include <gtest/gtest.h>

#include <vector>

#include "check/event_builder.h"

namespace smemlab::check {
namespace {

emu::BulkCopy copy(emu::BulkKind kind, emu::BulkPhase phase, bool incoming,
                   const emu::InstrInfo* instr, const std::vector<uint32_t>& chunks,
                   const std::vector<emu::GlobalChunk>& global) {
  emu::BulkCopy c{};
  c.kind = kind;
  c.phase = phase;
  c.incoming = incoming;
  c.tensor = true;
  c.unit_strides = true;
  c.instr = instr;
  c.chunks = chunks;
  c.global_chunks = global;
  return c;
}

TEST(HopperAnalysis, CopiesCountOnceAtTheIssuersIssue) {
  emu::InstrInfo ld = testing::instr(3, 20, "cp.async.bulk.tensor.2d...");
  emu::InstrInfo st = testing::instr(5, 22, "cp.async.bulk.tensor.2d.global...");
  std::vector<uint32_t> box(64);  // a 1024-byte box: 8 rows of 128 bytes
  for (uint32_t i = 0; i < 64; ++i) box[i] = 1024 + 16 * i;
  // Its global side: rows 256 bytes apart, the last two outside the tensor.
  std::vector<emu::GlobalChunk> rows;
  for (uint32_t r = 0; r < 8; ++r)
    for (uint32_t j = 0; j < 8; ++j) rows.push_back({0x1000 + r * 256 + j * 16, r < 6 ? 16u : 0u});
  HopperAnalysis h;
  h.on_kernel_begin({});
  for (uint32_t b = 0; b < 2; ++b) {
    auto obs = h.make_block_observer({b, 0, 0});
    using P = emu::BulkPhase;
    obs->on_bulk_copy(copy(emu::BulkKind::Load, P::Issue, false, &ld, box, rows));
    obs->on_bulk_copy(copy(emu::BulkKind::Load, P::Complete, false, &ld, box, rows));
    // A multicast copy's event in a destination block: the issuer counted it.
    obs->on_bulk_copy(copy(emu::BulkKind::Load, P::Issue, true, &ld, box, rows));
    obs->on_bulk_copy(copy(emu::BulkKind::Store, P::Issue, false, &st, box, rows));
    obs->on_bulk_copy(copy(emu::BulkKind::Store, P::Complete, false, &st, box, rows));
    h.finish_block({b, 0, 0}, std::move(obs));
  }
  const auto tl = static_cast<int>(HopperClass::TmaLoad),
             ts = static_cast<int>(HopperClass::TmaStore);
  const HopperCounts& l = h.instructions().at(3).counts.cls[tl];
  // A row is one group of 8 chunks: 4 sectors. Loads fetch the whole box
  // (8 rows), stores write the 6 rows inside (docs/bank-model.md, "TMA").
  EXPECT_EQ(l.requests, 2u);
  EXPECT_EQ(l.sectors, 2u * 32);
  EXPECT_EQ(l.bytes, 2u * 32 * 32);
  EXPECT_EQ(l.shared_bytes, 2u * 1024);
  const HopperCounts& s = h.instructions().at(5).counts.cls[ts];
  EXPECT_EQ(s.requests, 2u);
  EXPECT_EQ(s.sectors, 2u * 24);
  EXPECT_EQ(h.totals().cls[tl].requests + h.totals().cls[ts].requests, 4u);
  EXPECT_EQ(h.instructions().at(3).counts.cls[ts].requests, 0u);
}

TEST(HopperAnalysis, WgmmaPerWarpAndItsOperandChunks) {
  emu::InstrInfo mma = testing::instr(7, 30, "wgmma.mma_async...");
  emu::InstrInfo commit = testing::instr(8, 31, "wgmma.commit_group...");
  std::vector<uint32_t> a(32), b(16);
  HopperAnalysis h;
  h.on_kernel_begin({});
  auto obs = h.make_block_observer({0, 0, 0});
  for (uint32_t w = 0; w < 4; ++w) {
    emu::Wgmma g;
    g.kind = emu::WgmmaKind::Mma;
    g.a_shared = w != 3;  // the last warp: A from registers (its chunks not read)
    g.n = 8;
    g.a.chunks = a;
    g.b.chunks = b;
    g.a.elem_bytes = g.b.elem_bytes = 2;
    g.instr = &mma;
    g.warp = w;
    obs->on_wgmma(g);
    g.kind = emu::WgmmaKind::Commit;
    g.instr = &commit;
    obs->on_wgmma(g);
  }
  h.finish_block({0, 0, 0}, std::move(obs));
  const HopperCounts& g = h.instructions().at(7).counts.cls[static_cast<int>(HopperClass::Gmma)];
  EXPECT_EQ(g.requests, 4u);
  EXPECT_EQ(g.shared_bytes, 4u * 16 * 16 + 3u * 32 * 16);
  // The warpgroup's operands once, at warp 0 (A from shared memory there):
  // a core matrix per 8 rows x 32 bytes of K, one wavefront each
  // (docs/bank-model.md, "wgmma operand reads"): A 64 rows -> 16, B 8 -> 2.
  EXPECT_EQ(g.wavefronts, 18u);
  EXPECT_EQ(g.bank_conflicts, 0u);
  EXPECT_EQ(h.instructions().size(), 1u);  // commit_group reads nothing
}

// The SASS level's HGMMA that ptxas adds for a commit (sass/regroup.cc):
// a request per warp and, once per warpgroup, the SS m64nNk16 shape's core
// matrices (H100: 18 for N = 8), at the commit's line; no operand is read.
TEST(HopperAnalysis, SassOnlyHgmmaCountsItsShape) {
  emu::InstrInfo commit = testing::instr(8, 31, "wgmma.commit_group...");
  HopperAnalysis h;
  h.on_kernel_begin({});
  auto obs = h.make_block_observer({0, 0, 0});
  for (uint32_t w = 0; w < 8; ++w) {  // two warpgroups
    emu::Wgmma g;
    g.kind = emu::WgmmaKind::Mma;
    g.sass_only = true;
    g.a_shared = true;
    g.n = 8;
    g.instr = &commit;
    g.warp = w;
    obs->on_wgmma(g);
  }
  h.finish_block({0, 0, 0}, std::move(obs));
  const HopperCounts& g = h.instructions().at(8).counts.cls[static_cast<int>(HopperClass::Gmma)];
  EXPECT_EQ(g.requests, 8u);
  EXPECT_EQ(g.wavefronts, 2u * 18);
  EXPECT_EQ(g.shared_bytes, 0u);
}

// A .multicast::cluster load: its global sectors once per block of its
// ctaMask (H100, tests/programs/tma_multicast: 0x3 -> 2x, 0x7 -> 3x).
TEST(HopperAnalysis, MulticastLoadSectorsPerDestination) {
  emu::InstrInfo ld = testing::instr(3, 20, "cp.async.bulk.tensor.2d...multicast::cluster");
  std::vector<uint32_t> box(8);
  std::vector<emu::GlobalChunk> row;
  for (uint32_t j = 0; j < 8; ++j) row.push_back({0x1000 + j * 16, 16u});  // 4 sectors
  HopperAnalysis h;
  h.on_kernel_begin({});
  auto obs = h.make_block_observer({0, 0, 0});
  emu::BulkCopy c = copy(emu::BulkKind::Load, emu::BulkPhase::Issue, false, &ld, box, row);
  c.multicast = 0x7;
  obs->on_bulk_copy(c);
  h.finish_block({0, 0, 0}, std::move(obs));
  const HopperCounts& l = h.instructions().at(3).counts.cls[static_cast<int>(HopperClass::TmaLoad)];
  EXPECT_EQ(l.requests, 1u);
  EXPECT_EQ(l.sectors, 3u * 4);
  EXPECT_EQ(l.bytes, 3u * 4 * 32);
}

TEST(HopperAnalysis, DsharedPerIssuedInstruction) {
  emu::InstrInfo st = testing::instr(9, 40, "st.shared::cluster.u32");
  emu::InstrInfo at = testing::instr(10, 41, "atom.shared::cluster.add.u32");
  emu::InstrInfo mc = testing::instr(11, 42, "cp.async.bulk.tensor...multicast::cluster");
  HopperAnalysis h;
  h.on_kernel_begin({});
  auto obs = h.make_block_observer({0, 0, 0});
  auto d = [](emu::MemOp op, unsigned width, const emu::InstrInfo* i, uint32_t mask,
              bool incoming) {
    emu::DsharedAccess x{};
    x.access = testing::access(
        emu::Space::Shared, op, width, i, 0, [](unsigned l) { return 4ull * l; }, mask);
    x.incoming = incoming;
    return x;
  };
  // One instruction whose lanes reach two peers (two events, lanes
  // disjoint): one request; the next execution (a lane again): another.
  obs->on_dshared(d(emu::MemOp::Store, 4, &st, 0xffff0000u, false));
  obs->on_dshared(d(emu::MemOp::Store, 4, &st, 0x0000ffffu, false));
  obs->on_dshared(d(emu::MemOp::Store, 4, &st, 0xffffffffu, false));
  obs->on_dshared(d(emu::MemOp::Store, 4, &st, 0xffffffffu, true));  // a peer's, into us
  obs->on_dshared(d(emu::MemOp::Atomic, 8, &at, 0x1u, false));
  obs->on_dshared(d(emu::MemOp::BulkStore, 16, &mc, 0x1u, false));  // a copy's chunk: tma's
  h.finish_block({0, 0, 0}, std::move(obs));
  const auto& s = h.instructions().at(9).counts.cls[static_cast<int>(HopperClass::DsharedStore)];
  EXPECT_EQ(s.requests, 2u);
  EXPECT_EQ(s.bytes, 4u * 64);
  // Distinct 32-byte sectors in each peer: 64 bytes, 64 bytes, then 128.
  EXPECT_EQ(s.sectors, 2u + 2u + 4u);
  const auto& a = h.instructions().at(10).counts.cls[static_cast<int>(HopperClass::DsharedAtomic)];
  EXPECT_EQ(a.requests, 1u);
  EXPECT_EQ(a.bytes, 8u);
  EXPECT_EQ(a.sectors, 1u);
  EXPECT_THROW(h.instructions().at(11), std::out_of_range);
  // A remote mbarrier.arrive (its lanes reaching two peers, then once more):
  // mbarrier requests, one per instruction, and no dshared atomic (Nsight
  // Compute: 0 op_dshared_atom on fast.cu kernels 9 and 12, run 12).
  {
    emu::InstrInfo arr = testing::instr(12, 43, "mbarrier.arrive.shared::cluster.b64");
    HopperAnalysis h2;
    h2.on_kernel_begin({});
    auto o2 = h2.make_block_observer({0, 0, 0});
    for (uint32_t mask : {0x1u, 0x2u, 0x1u}) {
      emu::DsharedAccess x = d(emu::MemOp::Atomic, 8, &arr, mask, false);
      x.access.mbarrier = true;
      o2->on_dshared(x);
    }
    h2.finish_block({0, 0, 0}, std::move(o2));
    const auto& c = h2.instructions().at(12).counts;
    EXPECT_EQ(c.cls[static_cast<int>(HopperClass::Mbarrier)].requests, 2u);
    EXPECT_EQ(c.cls[static_cast<int>(HopperClass::DsharedAtomic)].requests, 0u);
    EXPECT_EQ(c.cls[static_cast<int>(HopperClass::DsharedAtomic)].sectors, 0u);
  }
  h.scale(2.5);
  EXPECT_EQ(h.instructions().at(9).counts.cls[static_cast<int>(HopperClass::DsharedStore)].requests,
            5u);
}

// cp.async by the LDGSTS rule (docs/bank-model.md, "cp.async"): .ca with
// 4-byte lanes is one group of the warp costing the most lanes on one bank
// (shared or global side); sectors are the distinct 32-byte sectors read.
TEST(HopperAnalysis, LdgstsCostsBothSides) {
  emu::InstrInfo cp = testing::instr(12, 50, "cp.async.ca.shared.global");
  HopperAnalysis h;
  h.on_kernel_begin({});
  auto obs = h.make_block_observer({0, 0, 0});
  emu::CpAsyncCopy c{};
  c.mask = ~0u;
  c.width = 4;
  c.instr = &cp;
  for (unsigned l = 0; l < 32; ++l) c.shared[l] = 4 * l, c.global[l] = 0x1000 + 4 * l;
  obs->on_cp_async(c);  // every lane its own bank: 1 wavefront, 4 sectors
  for (unsigned l = 0; l < 32; ++l) c.shared[l] = 128 * l;
  obs->on_cp_async(c);  // every lane on bank 0: 32 wavefronts, the same 4 sectors
  h.finish_block({0, 0, 0}, std::move(obs));
  const HopperCounts& g = h.instructions().at(12).counts.cls[static_cast<int>(HopperClass::Ldgsts)];
  EXPECT_EQ(g.requests, 2u);
  EXPECT_EQ(g.wavefronts, 1u + 32u);
  EXPECT_EQ(g.sectors, 8u);
  EXPECT_EQ(g.bytes, 2u * 128);
  EXPECT_EQ(g.unmodelled, 0u);
}

// mbarrier operations: one request per warp instruction; op_misc
// wavefronts only for mbarrier.init, one per distinct 8-byte object (the
// H100's probes: 32 lanes on one barrier 1, on 32 barriers 32; arrive 0).
TEST(HopperAnalysis, MbarrierInitCostsItsDistinctObjects) {
  emu::InstrInfo init = testing::instr(14, 60, "mbarrier.init.shared::cta.b64");
  emu::InstrInfo arrive = testing::instr(15, 61, "mbarrier.arrive.shared::cta.b64");
  HopperAnalysis h;
  h.on_kernel_begin({});
  auto obs = h.make_block_observer({0, 0, 0});
  emu::MemAccess a{};
  a.space = emu::Space::Shared;
  a.width = 8;
  a.mask = ~0u;
  a.mbarrier = true;
  a.op = emu::MemOp::Store;
  a.instr = &init;
  for (unsigned l = 0; l < 32; ++l) a.addr[l] = 64;  // one barrier
  obs->on_memory(a);
  for (unsigned l = 0; l < 32; ++l) a.addr[l] = 64 + 8 * (l / 2);  // 16 barriers
  obs->on_memory(a);
  a.op = emu::MemOp::Atomic;
  a.instr = &arrive;
  obs->on_memory(a);
  a.mbarrier = false;  // an ordinary atomic: not this family's
  obs->on_memory(a);
  h.finish_block({0, 0, 0}, std::move(obs));
  const auto m = static_cast<int>(HopperClass::Mbarrier);
  EXPECT_EQ(h.instructions().at(14).counts.cls[m].requests, 2u);
  EXPECT_EQ(h.instructions().at(14).counts.cls[m].wavefronts, 1u + 16u);
  EXPECT_EQ(h.instructions().at(15).counts.cls[m].requests, 1u);
  EXPECT_EQ(h.instructions().at(15).counts.cls[m].wavefronts, 0u);
}

}  // namespace
}  // namespace smemlab::check
