// Warp schedules (emu/schedule.h) on kernels whose result depends on them
// (tests/emu/kernels/schedule.cu): eight warps each load one word, add 64
// ones and store their sum. Under `gpu` every warp loads before any stores
// (the GPU's answer: initial + 64); under `serial` each warp sees the
// previous warp's sum (initial + 8 * 64); `random` lies between, the same
// for the same seed.
#include "emu/schedule.h"

#include "emu_test_util.h"

namespace smemlab::emu::test {
namespace {

class Schedules : public ::testing::TestWithParam<const char*> {
 protected:
  // x[0..31] after one block of 32 x 8 threads from x = 10, a = 1.
  std::vector<float> run(const std::string& kernel, Schedule s, uint64_t* lane_instr = nullptr) {
    Device dev;
    auto m = Module::load_file(dev, ptx_path(std::string("schedule.") + GetParam() + ".ptx"));
    const int n = 64;
    uint64_t da = upload(dev, std::vector<float>(32 * n, 1.0f));
    uint64_t dx = upload(dev, std::vector<float>(32, 10.0f));
    LaunchConfig cfg{{1}, {32, 8}};
    cfg.schedule = s;
    auto st = launch(*m, find_kernel(*m, kernel), cfg, da, dx, n);
    EXPECT_TRUE(st.ok()) << st.error->what();
    if (lane_instr) *lane_instr = st.lane_instructions;
    return download<float>(dev, dx, 32);
  }
};

TEST_P(Schedules, GpuGivesTheGpusAnswer) {
  for (const char* k : {"accumulateGlobal", "accumulateShared"})
    for (float v : run(k, Schedule{Schedule::Kind::Gpu, 1})) ASSERT_EQ(v, 10.0f + 64) << k;
}

TEST_P(Schedules, SerialRunsEachWarpToItsEnd) {
  for (const char* k : {"accumulateGlobal", "accumulateShared"})
    for (float v : run(k, Schedule{Schedule::Kind::Serial, 1})) ASSERT_EQ(v, 10.0f + 8 * 64) << k;
}

TEST_P(Schedules, RandomIsRepeatableAndDiffersBySeed) {
  std::vector<std::vector<float>> results;
  for (uint64_t seed : {1, 2, 3, 4}) {
    auto a = run("accumulateGlobal", Schedule{Schedule::Kind::Random, seed});
    EXPECT_EQ(a, run("accumulateGlobal", Schedule{Schedule::Kind::Random, seed})) << seed;
    for (float v : a) {
      EXPECT_GE(v, 10.0f + 64);
      EXPECT_LE(v, 10.0f + 8 * 64);
    }
    results.push_back(a);
  }
  bool some_differ = false;
  for (const auto& r : results) some_differ = some_differ || r != results[0];
  EXPECT_TRUE(some_differ) << "four seeds gave one interleaving";
}

TEST_P(Schedules, InstructionCountsDoNotDependOnTheSchedule) {
  uint64_t gpu = 0, serial = 0;
  run("accumulateShared", Schedule{Schedule::Kind::Gpu, 1}, &gpu);
  run("accumulateShared", Schedule{Schedule::Kind::Serial, 1}, &serial);
  EXPECT_EQ(gpu, serial);
  EXPECT_GT(gpu, 0u);
}

INSTANTIATE_TEST_SUITE_P(Dialects, Schedules, ::testing::Values("sm90", "sm100"));

TEST(ScheduleText, ParsesAndPrints) {
  EXPECT_EQ(parse_schedule("gpu"), (Schedule{Schedule::Kind::Gpu, 1}));
  EXPECT_EQ(parse_schedule("serial"), (Schedule{Schedule::Kind::Serial, 1}));
  EXPECT_EQ(parse_schedule("random"), (Schedule{Schedule::Kind::Random, 1}));
  EXPECT_EQ(parse_schedule("random:42"), (Schedule{Schedule::Kind::Random, 42}));
  for (const char* bad : {"", "GPU", "random:", "random:x", "random:-1", "random:1x", "fast"})
    EXPECT_FALSE(parse_schedule(bad)) << bad;
  EXPECT_EQ(to_string(Schedule{Schedule::Kind::Random, 7}), "random:7");
  EXPECT_EQ(to_string(*parse_schedule("serial")), "serial");
}

TEST(WarpTurns, GpuYieldsAtEveryMemoryOpAndSerialNever) {
  WarpTurns gpu(Schedule{Schedule::Kind::Gpu, 1}, 8, 0);
  EXPECT_EQ(gpu.quota(), 1u);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(gpu.warp(i), i);
  WarpTurns serial(Schedule{Schedule::Kind::Serial, 1}, 8, 0);
  EXPECT_EQ(serial.quota(), UINT32_MAX);
  // One warp has nobody to interleave with.
  WarpTurns alone(Schedule{Schedule::Kind::Gpu, 1}, 1, 0);
  EXPECT_EQ(alone.quota(), UINT32_MAX);
}

TEST(WarpTurns, RandomVisitsEveryWarpOnceARound) {
  WarpTurns t(Schedule{Schedule::Kind::Random, 9}, 32, 5);
  for (int round = 0; round < 20; ++round) {
    std::vector<int> seen(32, 0);
    for (uint32_t i = 0; i < 32; ++i) ++seen[t.warp(i)];
    for (int s : seen) ASSERT_EQ(s, 1);
    uint32_t q = t.quota();
    EXPECT_TRUE((q >= 1 && q <= 16) || q == UINT32_MAX) << q;
    t.next_round();
  }
}

}  // namespace
}  // namespace smemlab::emu::test
