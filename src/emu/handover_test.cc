#include "emu/handover.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <thread>

namespace smemlab::emu {
namespace {

struct Marker : BlockObserver {
  explicit Marker(Dim3 b) : block(b) {}
  Dim3 block;
};

// Records the order blocks are finished in.
struct Recorder : KernelObserver {
  std::vector<uint32_t> order;
  std::unique_ptr<BlockObserver> make_block_observer(Dim3 b) override {
    return std::make_unique<Marker>(b);
  }
  void finish_block(Dim3 b, std::unique_ptr<BlockObserver> obs) override {
    EXPECT_EQ(static_cast<Marker*>(obs.get())->block, b);
    order.push_back(b.x);
  }
};

// Blocks finished in any order, by several threads, some with nothing to
// hand over: observers and output still go out in block order.
TEST(BlockHandover, InBlockOrderWhateverTheThreadsDid) {
  constexpr uint32_t kBlocks = 500;
  Recorder rec;
  std::string printed;
  LaunchConfig cfg;
  cfg.printf_sink = [&](const std::string& s) { printed += s; };
  BlockHandover h(cfg, &rec, kBlocks, 4, [] { return false; });
  std::vector<uint32_t> ids(kBlocks);
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), std::mt19937(7));
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < 4; ++t)
    workers.emplace_back([&, t] {
      for (uint32_t i = t; i < kBlocks; i += 4) {
        const uint32_t b = ids[i];
        // Every third block is quiet: no observer, no output.
        std::unique_ptr<BlockObserver> obs = b % 3 ? rec.make_block_observer({b, 0, 0}) : nullptr;
        h.finish(b, {b, 0, 0}, std::move(obs), b % 3 ? std::to_string(b) + "," : "");
      }
    });
  for (auto& w : workers) w.join();
  h.finish_all();
  std::vector<uint32_t> want;
  std::string want_out;
  for (uint32_t b = 0; b < kBlocks; ++b)
    if (b % 3) {
      want.push_back(b);
      want_out += std::to_string(b) + ",";
    }
  EXPECT_EQ(rec.order, want);
  EXPECT_EQ(printed, want_out);
  EXPECT_EQ(h.handed_over(), kBlocks);
}

// A block waits for every block below it.
TEST(BlockHandover, WaitsForTheBlocksBelow) {
  Recorder rec;
  LaunchConfig cfg;
  BlockHandover h(cfg, &rec, 3, 1, [] { return false; });
  h.finish(2, {2, 0, 0}, rec.make_block_observer({2, 0, 0}), "");
  h.finish(1, {1, 0, 0}, rec.make_block_observer({1, 0, 0}), "");
  EXPECT_TRUE(rec.order.empty());
  h.finish(0, {0, 0, 0}, rec.make_block_observer({0, 0, 0}), "");
  EXPECT_EQ(rec.order, (std::vector<uint32_t>{0, 1, 2}));
}

// printf output is capped per launch at 1 MiB, like cudaLimitPrintfFifoSize.
TEST(BlockHandover, PrintfOutputIsCappedAtOneMebibyte) {
  std::string printed;
  LaunchConfig cfg;
  cfg.printf_sink = [&](const std::string& s) { printed += s; };
  BlockHandover h(cfg, nullptr, 3, 1, [] { return false; });
  for (uint32_t b = 0; b < 3; ++b) h.finish(b, {b, 0, 0}, nullptr, std::string(600 * 1024, 'x'));
  EXPECT_EQ(printed.find_first_not_of('x'), size_t{1} << 20);
  EXPECT_NE(printed.find("printf output truncated at 1 MiB"), std::string::npos);
  EXPECT_LT(printed.size(), (size_t{1} << 20) + 200);
}

}  // namespace
}  // namespace smemlab::emu
