// Launches at and past CUDA's limits, kernels without registers, huge
// frames, and stopping a launch (issue 10).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <tuple>

#include "emu/launch.h"

namespace smemlab::emu {
namespace {

const char* kHead = ".version 9.0\n.target sm_90\n.address_size 64\n";

std::string error_of(const LaunchStatus& st) { return st.ok() ? "(ok)" : st.error->what(); }

TEST(LaunchLimits, CudaGridAndBlockLimitsAreNamed) {
  EXPECT_EQ(launch_limits_error({2147483647, 65535, 65535}, {1024}), "");
  EXPECT_EQ(launch_limits_error({1}, {32, 32, 1}), "");
  EXPECT_EQ(launch_limits_error({1}, {2048}),
            "block (2048,1,1) has 2048 threads; CUDA allows 1 to 1024");
  EXPECT_EQ(launch_limits_error({1}, {1, 1, 128}),
            "block (1,1,128): CUDA allows at most 1024 in x and y, 64 in z");
  EXPECT_EQ(launch_limits_error({2147483648u}, {1}),
            "grid (2147483648,1,1): CUDA allows at most 2147483647 in x, 65535 in y and z");
  EXPECT_EQ(launch_limits_error({1, 65536}, {1}),
            "grid (1,65536,1): CUDA allows at most 2147483647 in x, 65535 in y and z");
  EXPECT_EQ(launch_limits_error({0}, {1}), "grid (0,1,1) has no blocks");
}

TEST(LaunchLimits, LaunchRejectsThemAndTooManyHostThreads) {
  Device dev;
  auto m =
      Module::load_text(dev, std::string(kHead) + ".visible .entry k()\n{\n ret;\n}\n", "k.ptx");
  LaunchConfig cfg{{1, 65536}, {32}};
  EXPECT_EQ(error_of(launch(*m, "k", cfg)),
            "grid (1,65536,1): CUDA allows at most 2147483647 in x, 65535 in y and z");
  cfg = LaunchConfig{{4}, {32}};
  cfg.threads = 100000;
  EXPECT_EQ(error_of(launch(*m, "k", cfg)), "100000 host threads requested; the limit is 256");
}

TEST(LaunchLimits, KernelWithoutRegistersRuns) {
  // No registers at all: the register file is empty (no memcpy from null).
  Device dev;
  auto m =
      Module::load_text(dev, std::string(kHead) + ".visible .entry k()\n{\n ret;\n}\n", "k.ptx");
  EXPECT_EQ(m->kernel("k").num_regs, 0u);
  LaunchConfig cfg{{3}, {64}};
  auto st = launch(*m, "k", cfg);
  EXPECT_TRUE(st.ok()) << error_of(st);
  EXPECT_EQ(st.blocks_run, 3u);
}

TEST(LaunchLimits, HugeLocalFrameIsADecodeErrorWithPosition) {
  Device dev;
  auto m = Module::load_text(
      dev,
      std::string(kHead) +
          ".visible .entry k()\n{\n .local .align 4 .b8 d[1073741824];\n ret;\n}\n",
      "k.ptx");
  try {
    m->kernel("k");
    FAIL() << "no error";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(
        e.what(),
        "k.ptx:6:2: local memory per thread exceeds CUDA's limit of 524288 bytes with 'd'");
  }
}

TEST(LaunchLimits, StaticSharedBeyondTheLimitIsADecodeError) {
  Device dev;
  auto m = Module::load_text(dev,
                             std::string(kHead) +
                                 ".visible .entry k()\n{\n .shared .b8 a[200000];\n"
                                 " .shared .b8 b[200000];\n ret;\n}\n",
                             "k.ptx");
  try {
    m->kernel("k");
    FAIL() << "no error";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(),
                 "k.ptx:7:2: static shared memory exceeds CUDA's limit of 232448 bytes with 'b'");
  }
}

TEST(LaunchLimits, StopFlagEndsTheLaunchAndProgressIsReported) {
  Device dev;
  auto m =
      Module::load_text(dev, std::string(kHead) + ".visible .entry k()\n{\n ret;\n}\n", "k.ptx");
  std::vector<std::tuple<uint64_t, uint64_t, bool>> calls;
  LaunchConfig cfg{{10}, {32}};
  cfg.threads = 1;
  cfg.progress = [&](uint64_t done, uint64_t total, bool end) {
    calls.emplace_back(done, total, end);
  };
  auto st = launch(*m, "k", cfg);
  ASSERT_TRUE(st.ok());
  ASSERT_EQ(calls.size(), 11u);
  EXPECT_EQ(calls[0], std::make_tuple(uint64_t{1}, uint64_t{10}, false));
  EXPECT_EQ(calls.back(), std::make_tuple(uint64_t{10}, uint64_t{10}, true));

  std::atomic<bool> stop{true};
  cfg.stop = &stop;
  cfg.progress = {};
  st = launch(*m, "k", cfg);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::Interrupted);
  EXPECT_EQ(st.blocks_run, 0u);
}

TEST(LaunchLimits, StopFlagEndsALongBlock) {
  // An endless loop: without the flag this runs until the budget.
  Device dev;
  auto m = Module::load_text(dev, std::string(kHead) + ".visible .entry k()\n{\n$L:\n bra $L;\n}\n",
                             "k.ptx");
  std::atomic<bool> stop{false};
  LaunchConfig cfg{{1}, {32}};
  cfg.budget = UINT64_MAX;
  cfg.stop = &stop;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop = true;
  });
  auto st = launch(*m, "k", cfg);
  t.join();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::Interrupted);
}

// finish_block is handed blocks in block order by one thread at a time,
// outside the launch's lock; when it is slower than the blocks, workers
// wait instead of piling up finished blocks (launch.cc, `backlog`).
TEST(LaunchLimits, SlowFinishBlockKeepsOrderAndBoundsTheBlocksHeld) {
  struct Slow final : KernelObserver {
    std::atomic<int> alive{0}, most{0}, in_finish{0};
    std::atomic<bool> overlapped{false};
    std::vector<uint32_t> order;
    struct Block final : BlockObserver {
      std::atomic<int>& alive;
      explicit Block(std::atomic<int>& a) : alive(a) {}
      ~Block() override { alive.fetch_sub(1); }
    };
    std::unique_ptr<BlockObserver> make_block_observer(Dim3) override {
      int now = alive.fetch_add(1) + 1;
      for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
      }
      return std::make_unique<Block>(alive);
    }
    void finish_block(Dim3 b, std::unique_ptr<BlockObserver>) override {
      if (in_finish.fetch_add(1) != 0) overlapped = true;
      order.push_back(b.x);
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      in_finish.fetch_sub(1);
    }
  };
  Device dev;
  auto m =
      Module::load_text(dev, std::string(kHead) + ".visible .entry k()\n{\n ret;\n}\n", "k.ptx");
  Slow obs;
  LaunchConfig cfg{{400}, {32}};
  cfg.threads = 4;
  cfg.observer = &obs;
  auto st = launch(*m, "k", cfg);
  ASSERT_TRUE(st.ok()) << error_of(st);
  EXPECT_FALSE(obs.overlapped);
  ASSERT_EQ(obs.order.size(), 400u);
  for (uint32_t i = 0; i < 400; ++i) ASSERT_EQ(obs.order[i], i);
  // Bounded by the launch, not the grid: up to backlog (4 x 4 + 4) plus a
  // block per worker waiting, as many in the batch being handed over, and
  // one running per worker. Without the wait, nearly all 400 would be.
  EXPECT_LE(obs.most.load(), 2 * (4 * 4 + 4 + 4) + 4);
  EXPECT_EQ(obs.alive.load(), 0);
}

}  // namespace
}  // namespace smemlab::emu
