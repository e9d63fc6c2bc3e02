#include "check/bank_stats.h"

#include <gtest/gtest.h>

#include "check/event_builder.h"
#include "ptx/line_table.h"

namespace smemlab::check {
namespace {

using testing::access;
using testing::instr;

std::vector<std::unique_ptr<bank::Model>> models(std::initializer_list<const char*> archs) {
  std::vector<std::unique_ptr<bank::Model>> v;
  for (const char* a : archs) v.push_back(bank::make_model(a));
  return v;
}

TEST(BankAnalysis, ColumnReadPerLineAndPerModel) {
  ptx::LineTable table;
  table.add_file(1, "tile.cu");
  int store_loc = table.add(1, 10, 3, "", false, 0, 0, 0);
  int load_loc = table.add(1, 12, 3, "", false, 0, 0, 0);
  emu::InstrInfo st = instr(4, 40, "st.shared.u32", store_loc);
  emu::InstrInfo ld = instr(7, 44, "ld.shared.u32", load_loc);

  BankAnalysis a(models({"sm_90", "sm_35:4", "sm_20"}));
  emu::KernelInfo k;
  k.lines = &table;
  a.on_kernel_begin(k);
  // Two blocks of one 32x32 int tile each: rows stored, columns loaded.
  for (uint32_t b = 0; b < 2; ++b) {
    auto obs = a.make_block_observer({b, 1, 1});
    for (uint32_t ty = 0; ty < 32; ++ty) {
      obs->on_memory(access(emu::Space::Shared, emu::MemOp::Store, 4, &st, ty,
                            [&](unsigned tx) { return 4 * (ty * 32 + tx); }));
      obs->on_memory(access(emu::Space::Shared, emu::MemOp::Load, 4, &ld, ty,
                            [&](unsigned tx) { return 4 * (tx * 32 + ty); }));
    }
    a.finish_block({b, 1, 1}, std::move(obs));
  }
  auto totals = a.totals();
  ASSERT_EQ(totals.size(), 3u);
  const BankCounts& load90 = totals[0].op[int(SharedOp::Load)];
  EXPECT_EQ(load90.requests, 64u);
  EXPECT_EQ(load90.wavefronts, 64u * 32);
  EXPECT_EQ(load90.ideal, 64u);
  EXPECT_EQ(load90.bank_conflicts, 64u * 31);
  EXPECT_EQ(totals[0].op[int(SharedOp::Store)].wavefronts, 64u);
  EXPECT_EQ(totals[1].op[int(SharedOp::Load)].wavefronts, 64u * 16);  // Kepler 4-byte mode
  EXPECT_EQ(totals[2].op[int(SharedOp::Load)].wavefronts, 64u * 32);  // Fermi

  auto lines = a.lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].where.line, 10);
  EXPECT_EQ(lines[1].where.line, 12);
  EXPECT_EQ(lines[1].where.file, "tile.cu");
  EXPECT_EQ(lines[1].models[0].op[int(SharedOp::Load)].wavefronts, 64u * 32);
  ASSERT_TRUE(lines[1].models[0].worst);
  EXPECT_EQ(lines[1].models[0].worst->result.wavefronts, 32u);
  EXPECT_EQ(lines[0].models[0].op[int(SharedOp::Load)].requests, 0u);
}

TEST(BankAnalysis, InlinedCodeCountsAtTheCallSiteAndAtItsOwnLine) {
  ptx::LineTable table;
  table.add_file(1, "kernel.cu");
  table.add_file(2, "helpers.cuh");
  int loc = table.add(2, 5, 1, "helper", true, 1, 20, 7);
  emu::InstrInfo ld = instr(1, 30, "ld.shared.u32", loc);
  BankAnalysis a(models({"sm_90"}));
  emu::KernelInfo k;
  k.lines = &table;
  a.on_kernel_begin(k);
  auto obs = a.make_block_observer({0, 0, 0});
  obs->on_memory(
      access(emu::Space::Shared, emu::MemOp::Load, 4, &ld, 0, [](unsigned i) { return 8 * i; }));
  a.finish_block({0, 0, 0}, std::move(obs));
  auto lines = a.lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].where.file, "helpers.cuh");
  EXPECT_EQ(lines[1].where.file, "kernel.cu");
  EXPECT_EQ(lines[1].where.line, 20);
  EXPECT_EQ(lines[1].models[0].op[0].wavefronts, 2u);
  EXPECT_EQ(lines[0].models[0].op[0].wavefronts, 2u);
}

TEST(BankAnalysis, UnmodelledAndNonSharedAccesses) {
  emu::InstrInfo at = instr(2, 50, "atom.shared.add.u32");
  emu::InstrInfo gl = instr(3, 51, "ld.global.u32");
  BankAnalysis a(models({"sm_90", "sm_20"}));
  a.on_kernel_begin({});
  auto obs = a.make_block_observer({0, 0, 0});
  obs->on_memory(
      access(emu::Space::Shared, emu::MemOp::Atomic, 4, &at, 0, [](unsigned) { return 0; }));
  obs->on_memory(
      access(emu::Space::Global, emu::MemOp::Load, 4, &gl, 0, [](unsigned i) { return 4 * i; }));
  a.finish_block({0, 0, 0}, std::move(obs));
  auto t = a.totals();
  EXPECT_EQ(t[0].op[int(SharedOp::Atomic)].wavefronts, 32u);
  EXPECT_EQ(t[1].op[int(SharedOp::Atomic)].unmodelled, 1u);
  EXPECT_EQ(t[1].op[int(SharedOp::Atomic)].wavefronts, 0u);
  EXPECT_EQ(t[0].op[int(SharedOp::Load)].requests, 0u);
}


TEST(BankAnalysis, LdmatrixAndStmatrixByTheMatrixRule) {
  // ldmatrix.x4 with 128-byte rows: as a plain 16-byte load (quarter-warp
  // groups, loads merging) it would cost differently; the matrix rule says
  // 8 per matrix. stmatrix.x2 with 16-byte rows: 1 per matrix.
  emu::InstrInfo ld = instr(5, 60, "ldmatrix.sync.aligned.m8n8.x4.shared.b16");
  emu::InstrInfo st = instr(6, 61, "stmatrix.sync.aligned.m8n8.x2.shared.b16");
  BankAnalysis a(models({"sm_90", "sm_80", "sm_70"}));
  a.on_kernel_begin({});
  auto obs = a.make_block_observer({0, 0, 0});
  auto l = access(emu::Space::Shared, emu::MemOp::Load, 16, &ld, 0,
                  [](unsigned i) { return 128 * (i % 8); });
  l.matrices = 4;
  obs->on_memory(l);
  auto s = access(emu::Space::Shared, emu::MemOp::Store, 16, &st, 0,
                  [](unsigned i) { return 16 * i; }, 0xffffu);
  s.matrices = 2;
  obs->on_memory(s);
  a.finish_block({0, 0, 0}, std::move(obs));
  auto t = a.totals();
  const BankCounts& ld90 = t[0].op[int(SharedOp::Load)];
  EXPECT_EQ(ld90.requests, 1u);
  EXPECT_EQ(ld90.wavefronts, 32u);
  EXPECT_EQ(ld90.ideal, 4u);
  EXPECT_EQ(ld90.bank_conflicts, 28u);
  EXPECT_EQ(t[0].op[int(SharedOp::Store)].wavefronts, 2u);
  EXPECT_EQ(t[1].op[int(SharedOp::Load)].wavefronts, 32u);   // sm_80 has ldmatrix
  EXPECT_EQ(t[1].op[int(SharedOp::Store)].unmodelled, 1u);  // but no stmatrix
  EXPECT_EQ(t[2].op[int(SharedOp::Load)].unmodelled, 1u);   // sm_70: neither
  ASSERT_TRUE(t[0].worst);
  EXPECT_EQ(t[0].worst->request.width, 16u);
}

}  // namespace
}  // namespace smemlab::check
