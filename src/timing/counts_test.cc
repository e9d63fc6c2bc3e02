#include "timing/counts.h"

#include <gtest/gtest.h>

#include "check/event_builder.h"

namespace smemlab::timing {
namespace {

using check::testing::access;
using check::testing::instr;

// The L1/shared data path per request, as tests/timing/microbench.cu
// measured it on the H100 (docs/validation.md §6.6): a broadcast LDS.128
// 2 cycles, an LDS.128 per lane 4, an STS.128 of every lane to one
// address 4 (the sm_90 bank model's wavefronts already), an L1-hit
// LDG.128 broadcast 4 (1 sector: the bytes bind), an LDS.32 of half the
// lanes 1 (its wavefront binds).
TEST(LaunchWork, DataPathCyclesByBytesToOrFromRegisters) {
  const emu::InstrInfo lds_bcast = instr(1, 10, "ld.shared.v4.f32 {%f1, %f2, %f3, %f4}, [%r1];");
  const emu::InstrInfo lds_row = instr(2, 11, "ld.shared.v4.f32 {%f1, %f2, %f3, %f4}, [%r2];");
  const emu::InstrInfo sts_same = instr(3, 12, "st.shared.v4.f32 [%r1], {%f1, %f2, %f3, %f4};");
  const emu::InstrInfo ldg_bcast =
      instr(4, 13, "ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];");
  const emu::InstrInfo lds32 = instr(5, 14, "ld.shared.f32 %f1, [%r3];");
  std::vector<std::unique_ptr<bank::Model>> models;
  models.push_back(bank::make_model("sm_90"));
  check::BankAnalysis banks(std::move(models));
  check::AccessAnalysis acc;
  emu::KernelInfo k;
  banks.on_kernel_begin(k);
  acc.on_kernel_begin(k);
  auto b = banks.make_block_observer({0, 0, 0});
  auto a = acc.make_block_observer({0, 0, 0});
  const int n = 100;
  for (int i = 0; i < n; ++i) {
    b->on_memory(access(emu::Space::Shared, emu::MemOp::Load, 16, &lds_bcast, 0,
                        [](unsigned) { return 80; }));
    b->on_memory(access(emu::Space::Shared, emu::MemOp::Load, 16, &lds_row, 0,
                        [](unsigned l) { return 16 * l; }));
    b->on_memory(access(emu::Space::Shared, emu::MemOp::Store, 16, &sts_same, 0,
                        [](unsigned) { return 80; }));
    // Half the lanes: 64 bytes, under the wavefront's cycle.
    b->on_memory(access(
        emu::Space::Shared, emu::MemOp::Load, 4, &lds32, 0, [](unsigned l) { return 4 * l; },
        0xffffu));
    a->on_memory(access(emu::Space::Global, emu::MemOp::Load, 16, &ldg_bcast, 0,
                        [](unsigned) { return 4096; }));
  }
  banks.finish_block({0, 0, 0}, std::move(b));
  acc.finish_block({0, 0, 0}, std::move(a));
  EXPECT_EQ(banks.totals()[0].op[int(check::SharedOp::Load)].lane_bytes,
            uint64_t(n) * (512 + 512 + 64));

  LaunchShape shape;
  shape.blocks = 1;
  shape.threads_per_block = 32;
  const LaunchWork w = launch_work(shape, acc, &banks);
  std::map<int, const LineWork*> at;
  for (const LineWork& l : w.lines) at[l.line] = &l;
  auto data_path = [&](int line) {
    const LineWork& l = *at.at(line);
    return l.shared_wavefronts + l.l1_sectors / 4 + l.data_path_excess;
  };
  ASSERT_EQ(at.size(), 5u);
  EXPECT_DOUBLE_EQ(data_path(10), 2.0 * n);
  EXPECT_DOUBLE_EQ(at[11]->shared_wavefronts, 4.0 * n);
  EXPECT_DOUBLE_EQ(data_path(11), 4.0 * n);
  EXPECT_DOUBLE_EQ(data_path(12), 4.0 * n);
  EXPECT_DOUBLE_EQ(at[13]->l1_sectors, n);
  EXPECT_DOUBLE_EQ(data_path(13), 4.0 * n);
  EXPECT_DOUBLE_EQ(data_path(14), 1.0 * n);

  // The model's L1/shared data path term takes them all, added.
  const Prediction p = predict(w);
  ASSERT_TRUE(p.valid);
  EXPECT_NEAR(p.resource_ns[int(Resource::L1)], 15.0 * n / h100().clock_ghz, 1e-9);
}

}  // namespace
}  // namespace smemlab::timing
