#include "check/bank_stats.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

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
  auto s = access(
      emu::Space::Shared, emu::MemOp::Store, 16, &st, 0, [](unsigned i) { return 16 * i; },
      0xffffu);
  s.matrices = 2;
  obs->on_memory(s);
  a.finish_block({0, 0, 0}, std::move(obs));
  auto t = a.totals();
  // Their own classes, as Nsight Compute's op_ldsm/op_shared_stsm: never
  // inside load/store (its SASS-patched op_ld/op_st count no LDSM/STSM).
  const BankCounts& ld90 = t[0].op[int(SharedOp::LdMatrix)];
  EXPECT_EQ(ld90.requests, 1u);
  EXPECT_EQ(ld90.wavefronts, 32u);
  EXPECT_EQ(ld90.ideal, 4u);
  EXPECT_EQ(ld90.bank_conflicts, 28u);
  EXPECT_EQ(t[0].op[int(SharedOp::Load)].requests, 0u);
  EXPECT_EQ(t[0].op[int(SharedOp::Store)].requests, 0u);
  EXPECT_EQ(t[0].op[int(SharedOp::StMatrix)].wavefronts, 2u);
  EXPECT_EQ(t[1].op[int(SharedOp::LdMatrix)].wavefronts, 32u);  // sm_80 has ldmatrix
  EXPECT_EQ(t[1].op[int(SharedOp::StMatrix)].unmodelled, 1u);   // but no stmatrix
  EXPECT_EQ(t[2].op[int(SharedOp::LdMatrix)].unmodelled, 1u);   // sm_70: neither
  ASSERT_TRUE(t[0].worst);
  EXPECT_EQ(t[0].worst->request.width, 16u);
}

// Two results' passes, slot by slot.
void expect_same_passes(const bank::Result& got, const bank::Result& want) {
  ASSERT_EQ(got.passes.size(), want.passes.size());
  for (size_t i = 0; i < got.passes.size(); ++i) {
    const auto &gp = got.passes[i], &wp = want.passes[i];
    EXPECT_EQ(gp.group, wp.group);
    ASSERT_EQ(gp.slots.size(), wp.slots.size());
    for (size_t j = 0; j < gp.slots.size(); ++j) {
      EXPECT_EQ(gp.slots[j].bank, wp.slots[j].bank);
      EXPECT_EQ(gp.slots[j].word, wp.slots[j].word);
      EXPECT_EQ(gp.slots[j].lanes, wp.slots[j].lanes);
    }
  }
}

// The pattern memo (bank_cost_cache.h) must give exactly what a fresh
// evaluation of every request gives (BankAnalysis::record, no memo): fresh
// random requests each run, most of them a few patterns shifted by random
// multiples of 4, 16 or 256 bytes (memo hits at one pc and across pcs, warps
// and blocks), some shifted by amounts that are not (misses, misaligned
// lanes), the rest new; plain, atomic, wide and ldmatrix/stmatrix
// instructions, partial masks, misaligned lanes, several model sets (their
// periods differ), and launches met again (memos shared across analyses).
// Counts and every worst request (bank map included) must be identical.
TEST(BankAnalysis, MemoizedCostsEqualFreshEvaluation) {
  std::mt19937_64 rng(std::random_device{}());
  struct Kind {
    emu::MemOp op;
    const char* text;
    unsigned matrices;  // 0: widths vary
  };
  const Kind kinds[] = {
      {emu::MemOp::Load, "ld.shared", 0},     {emu::MemOp::Store, "st.shared", 0},
      {emu::MemOp::Atomic, "atom.shared", 0}, {emu::MemOp::Load, "ld.shared.v4", 0},
      {emu::MemOp::Load, "ldmatrix.x4", 4},   {emu::MemOp::Store, "stmatrix.x2", 2},
      {emu::MemOp::Load, "ldmatrix.x1", 1}};
  std::vector<emu::InstrInfo> instrs;
  for (uint32_t pc = 0; pc < std::size(kinds); ++pc)
    instrs.push_back(instr(pc, 10 + static_cast<int>(pc), kinds[pc].text));
  struct Pattern {
    uint32_t pc, mask;
    unsigned width;
    uint64_t addr[32];
  };
  auto fresh_pattern = [&] {
    Pattern p;
    p.pc = static_cast<uint32_t>(rng() % std::size(kinds));
    const Kind& k = kinds[p.pc];
    p.width = k.matrices ? 16 : k.op == emu::MemOp::Atomic ? 4u << (rng() % 2) : 1u << (rng() % 5);
    p.mask = rng() % 3 ? static_cast<uint32_t>(rng()) | 1u << (rng() % 32) : 0xffffffffu;
    unsigned span = 1u + static_cast<unsigned>(rng() % 128);
    for (auto& a : p.addr) a = p.width * (rng() % span);
    if (rng() % 12 == 0) p.addr[rng() % 32] += rng() % 16;  // a misaligned lane
    return p;
  };
  const std::vector<std::vector<const char*>> sets = {
      {"sm_90"}, {"sm_75"}, {"sm_35:4"}, {"sm_13", "sm_20", "sm_35:4", "sm_35:8", "sm_90"}};
  // A launch of 4 blocks of 400 requests each.
  auto make_launch = [&] {
    std::vector<Pattern> patterns;
    for (int i = 0; i < 6; ++i) patterns.push_back(fresh_pattern());
    std::vector<std::vector<emu::MemAccess>> blocks(4);
    for (uint32_t b = 0; b < blocks.size(); ++b) {
      for (int e = 0; e < 400; ++e) {
        Pattern p = rng() % 8 ? patterns[rng() % patterns.size()] : fresh_pattern();
        // Multiples of every period in use, of some, or of none.
        const uint64_t unit[] = {256, 16, 4, 1};
        uint64_t shift = unit[rng() % 4] * (rng() % 64);
        const Kind& k = kinds[p.pc];
        auto ev = access(
            emu::Space::Shared, k.op, p.width, &instrs[p.pc], static_cast<uint32_t>(rng() % 8),
            [&](unsigned l) { return p.addr[l] + shift; }, p.mask);
        ev.matrices = static_cast<uint8_t>(k.matrices);
        ev.block = {b, 1, 1};
        blocks[b].push_back(ev);
      }
    }
    return blocks;
  };
  for (const auto& set : sets) {
    // Each launch's analysis starts with what the earlier ones left (the
    // models' BankMemo: worker caches, costliest requests' bank maps): a
    // launch met again (every cost and costliest request memoized), then a
    // new one.
    const auto first = make_launch();
    for (const auto& launch : {first, first, make_launch()}) {
      auto ms = models(std::initializer_list<const char*>{});
      for (const char* arch : set) ms.push_back(bank::make_model(arch));
      auto ref_models = models({});
      for (const char* arch : set) ref_models.push_back(bank::make_model(arch));
      BankAnalysis a(std::move(ms));
      a.on_kernel_begin({});
      std::map<uint32_t, InstrStats> ref;
      for (uint32_t b = 0; b < launch.size(); ++b) {
        emu::Dim3 block{b, 1, 1};
        auto obs = a.make_block_observer(block);
        for (const emu::MemAccess& ev : launch[b]) {
          obs->on_memory(ev);
          const uint32_t pc = ev.instr->pc;
          const Kind& k = kinds[pc];
          InstrStats& r = ref[pc];
          if (!r.instr) {
            r.instr = ev.instr;
            // (ldmatrix/stmatrix: their own classes)
            r.op = k.op == emu::MemOp::Load    ? (k.matrices ? SharedOp::LdMatrix : SharedOp::Load)
                   : k.op == emu::MemOp::Store ? (k.matrices ? SharedOp::StMatrix : SharedOp::Store)
                                               : SharedOp::Atomic;
            r.width = ev.width;
            r.models.resize(set.size());
          }
          bank::Request req;
          req.op = r.op == SharedOp::Load || r.op == SharedOp::LdMatrix    ? bank::Op::Load
                   : r.op == SharedOp::Store || r.op == SharedOp::StMatrix ? bank::Op::Store
                                                                           : bank::Op::Atomic;
          req.width = ev.width;
          req.mask = ev.mask;
          std::copy(std::begin(ev.addr), std::end(ev.addr), req.addr.begin());
          bank::MatrixRequest mx;
          mx.store = r.op == SharedOp::StMatrix;
          mx.matrices = k.matrices;
          mx.mask = ev.mask;
          mx.addr = req.addr;
          BankAnalysis::record(ref_models, r, req, block, ev.warp, k.matrices ? &mx : nullptr);
        }
        a.finish_block(block, std::move(obs));
      }
      ASSERT_EQ(a.instructions().size(), ref.size());
      for (const auto& [pc, want] : ref) {
        const InstrStats& got = a.instructions().at(pc);
        for (size_t m = 0; m < set.size(); ++m) {
          SCOPED_TRACE(std::string(set[m]) + " pc " + std::to_string(pc));
          for (int op = 0; op < kSharedOps; ++op) {
            const BankCounts &g = got.models[m].op[op], &w = want.models[m].op[op];
            EXPECT_EQ(g.requests, w.requests);
            EXPECT_EQ(g.wavefronts, w.wavefronts);
            EXPECT_EQ(g.ideal, w.ideal);
            EXPECT_EQ(g.bank_conflicts, w.bank_conflicts);
            EXPECT_EQ(g.worst_wavefronts, w.worst_wavefronts);
            EXPECT_EQ(g.unmodelled, w.unmodelled);
            EXPECT_EQ(g.max_ways, w.max_ways);
          }
          const auto &gw = got.models[m].worst, &ww = want.models[m].worst;
          ASSERT_EQ(gw.has_value(), ww.has_value());
          if (!gw) continue;
          EXPECT_EQ(gw->block, ww->block);
          EXPECT_EQ(gw->warp, ww->warp);
          EXPECT_EQ(gw->matrices, ww->matrices);
          EXPECT_EQ(gw->request.mask, ww->request.mask);
          EXPECT_EQ(gw->request.width, ww->request.width);
          EXPECT_EQ(gw->request.addr, ww->request.addr);
          EXPECT_EQ(gw->result.wavefronts, ww->result.wavefronts);
          EXPECT_EQ(gw->result.ideal, ww->result.ideal);
          expect_same_passes(gw->result, ww->result);
        }
      }
    }
  }
}

// The bank-map memo hands out a result only for the very request it was
// stored for: with one entry every request shares, any field or lane that
// differs (an inactive lane's address too), or another model, misses.
TEST(WorstResults, HoldsOnlyTheExactRequest) {
  std::mt19937_64 rng(std::random_device{}());
  auto model = bank::make_model("sm_90");
  for (int round = 0; round < 50; ++round) {
    bank::Request r;
    r.op = rng() % 2 ? bank::Op::Load : bank::Op::Store;
    r.width = 4;
    r.mask = rng() % 2 ? 0xffffffffu : static_cast<uint32_t>(rng()) | 1u;
    for (auto& a : r.addr) a = 4 * (rng() % 64);
    const bank::Result want = model->evaluate(r);
    WorstResults memo(1);
    bank::Result got;
    EXPECT_FALSE(memo.find(7, 0, r, 0, &got));
    memo.store(7, 0, r, 0, want);
    ASSERT_TRUE(memo.find(7, 0, r, 0, &got));
    expect_same_passes(got, want);
    EXPECT_EQ(got.wavefronts, want.wavefronts);

    std::vector<bank::Request> others(5, r);
    others[0].addr[rng() % 32] += 4;
    others[1].mask ^= 1u << (rng() % 32);
    others[2].width = 8;
    others[3].op = r.op == bank::Op::Load ? bank::Op::Store : bank::Op::Load;
    others[4].addr[31] += 128;  // lane 31, active or not
    for (const bank::Request& o : others) EXPECT_FALSE(memo.find(7, 0, o, 0, &got));
    EXPECT_FALSE(memo.find(7, 1, r, 0, &got));  // another model of the set
    EXPECT_FALSE(memo.find(7, 0, r, 4, &got));  // an ldmatrix.x4 of these rows
  }
}

}  // namespace
}  // namespace smemlab::check
