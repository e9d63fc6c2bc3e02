// Cooperative launches (LaunchConfig::cooperative): the grid-sync pattern
// CUDA 13's cooperative_groups::this_grid().sync() compiles to, a grid that
// never passes its barrier (deadlock, not a hang), a fault in one block
// while the others wait, an observer slower than the stall limit after the
// blocks ran (no stall), and what a cooperative launch refuses.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "emu/launch.h"

namespace smemlab::emu {
namespace {

// data[i] = i; grid barrier; data[n+i] = data[i] + data[n-1-i] (needs
// every block's first phase). `%r50` selects a block that returns before the barrier
// (-1: none). The barrier is nvcc 13's for this_grid().sync(): a null
// workspace traps; thread 0 of each block adds to the word at
// workspace+4 (block 0: 0x80000001 - nblocks) and spins until its top bit flips.
const char* kGridSync = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry two_phase(.param .u64 data, .param .u32 n, .param .u32 quitter)
{
  .reg .pred %p<8>;
  .reg .b32 %r<64>;
  .reg .b64 %rd<40>;
  ld.param.u64 %rd4, [data];
  ld.param.u32 %r3, [n];
  ld.param.u32 %r50, [quitter];
  cvta.to.global.u64 %rd5, %rd4;
  mov.u32 %r4, %envreg2;
  cvt.u64.u32 %rd6, %r4;
  mov.u32 %r5, %envreg1;
  cvt.u64.u32 %rd7, %r5;
  bfi.b64 %rd1, %rd7, %rd6, 32, 32;
  mov.u32 %r10, %ctaid.x;
  setp.eq.u32 %p6, %r10, %r50;
  @%p6 bra DONE;
  mov.u32 %r8, %nctaid.x;
  mov.u32 %r12, %ntid.x;
  mov.u32 %r19, %tid.x;
  mad.lo.s32 %r1, %r10, %r12, %r19;
  setp.ge.s32 %p1, %r1, %r3;
  mul.wide.s32 %rd20, %r1, 4;
  add.s64 %rd2, %rd5, %rd20;
  @%p1 bra L2;
  st.global.u32 [%rd2], %r1;
L2:
  setp.ne.s64 %p2, %rd1, 0;
  @%p2 bra L4;
  trap;
L4:
  barrier.sync 0;
  setp.ne.s32 %p3, %r19, 0;
  @%p3 bra L7;
  add.s64 %rd21, %rd1, 4;
  setp.eq.s32 %p4, %r10, 0;
  mov.u32 %r38, -2147483647;
  sub.s32 %r39, %r38, %r8;
  selp.b32 %r27, %r39, 1, %p4;
  atom.add.release.gpu.u32 %r26, [%rd21], %r27;
L6:
  ld.acquire.gpu.u32 %r40, [%rd21];
  xor.b32 %r41, %r40, %r26;
  setp.gt.s32 %p5, %r41, -1;
  @%p5 bra L6;
L7:
  barrier.sync 0;
  @%p1 bra DONE;
  not.b32 %r42, %r1;
  add.s32 %r43, %r42, %r3;
  mul.wide.s32 %rd23, %r43, 4;
  add.s64 %rd25, %rd5, %rd23;
  ld.global.u32 %r59, [%rd2];
  ld.global.u32 %r60, [%rd25];
  add.s32 %r61, %r59, %r60;
  mul.wide.s32 %rd27, %r3, 4;
  add.s64 %rd26, %rd2, %rd27;
  st.global.u32 [%rd26], %r61;
DONE:
  ret;
}
)";

std::string error_of(const LaunchStatus& st) { return st.ok() ? "(ok)" : st.error->what(); }

TEST(Cooperative, GridSyncSeesEveryBlocksFirstPhase) {
  Device dev;
  auto m = Module::load_text(dev, kGridSync, "grid_sync.ptx");
  const int n = 1000;  // 16 blocks of 64 threads, the last partly idle
  uint64_t d = dev.malloc(2 * n * 4);
  LaunchConfig cfg{{16}, {64}};
  cfg.cooperative = true;
  for (int rep = 0; rep < 3; ++rep) {  // a fresh workspace each launch
    auto st = launch(*m, "two_phase", cfg, d, n, uint32_t{0xffffffffu});
    ASSERT_TRUE(st.ok()) << error_of(st);
    std::vector<int> got(n);
    dev.copy_from(got.data(), d + n * 4, n * 4);
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], n - 1) << "at " << i << ", launch " << rep;
  }
}

TEST(Cooperative, OrdinaryLaunchHasNoWorkspaceAndTraps) {
  Device dev;
  auto m = Module::load_text(dev, kGridSync, "grid_sync.ptx");
  uint64_t d = dev.malloc(256);
  auto st = launch(*m, "two_phase", LaunchConfig{{2}, {32}}, d, 64, uint32_t{0xffffffffu});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::Trap);
}

TEST(Cooperative, BarrierSomeBlockNeverReachesIsADeadlock) {
  Device dev;
  auto m = Module::load_text(dev, kGridSync, "grid_sync.ptx");
  uint64_t d = dev.malloc(2 * 256 * 4);
  LaunchConfig cfg{{4}, {64}};
  cfg.cooperative = true;
  cfg.stall_seconds = 0.5;
  auto t0 = std::chrono::steady_clock::now();
  auto st = launch(*m, "two_phase", cfg, d, 256, uint32_t{1});  // block 1 returns first
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::Deadlock);
  EXPECT_NE(st.error->message.find("no progress for 0.5 s: 3 of its 4 blocks were still running"),
            std::string::npos)
      << st.error->message;
  EXPECT_NE(st.error->message.find("1 blocks had finished"), std::string::npos)
      << st.error->message;
  EXPECT_LT(s, 30.0);
}

TEST(Cooperative, FaultInOneBlockStopsTheOthers) {
  Device dev;
  auto m = Module::load_text(dev, kGridSync, "grid_sync.ptx");
  uint64_t d = dev.malloc(64 * 4);  // n = 256 below: blocks 1..3 store out of bounds
  LaunchConfig cfg{{4}, {64}};
  cfg.cooperative = true;
  cfg.stall_seconds = 60;  // a stall would take a minute; the fault must end it now
  auto t0 = std::chrono::steady_clock::now();
  auto st = launch(*m, "two_phase", cfg, d, 256, uint32_t{0xffffffffu});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::OutOfBounds) << error_of(st);
  EXPECT_LT(s, 30.0);
}

// An observer whose end-of-block work (finish_block, after the block ran)
// outlasts the stall limit, as a checker's can on a loaded host.
struct SlowFinish : KernelObserver {
  struct Block : BlockObserver {};
  std::unique_ptr<BlockObserver> make_block_observer(Dim3) override {
    return std::make_unique<Block>();
  }
  void finish_block(Dim3, std::unique_ptr<BlockObserver>) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
};

TEST(Cooperative, SlowObserverAfterEveryBlockRanIsNoStall) {
  Device dev;
  auto m = Module::load_text(dev, kGridSync, "grid_sync.ptx");
  const int n = 256;
  uint64_t d = dev.malloc(2 * n * 4);
  LaunchConfig cfg{{4}, {64}};
  cfg.cooperative = true;
  cfg.stall_seconds = 0.2;  // each block's finish takes 0.4 s: 1.6 s with every block done
  SlowFinish obs;
  cfg.observer = &obs;
  auto st = launch(*m, "two_phase", cfg, d, n, uint32_t{0xffffffffu});
  ASSERT_TRUE(st.ok()) << error_of(st);
  std::vector<int> got(n);
  dev.copy_from(got.data(), d + n * 4, n * 4);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], n - 1) << "at " << i;
}

TEST(Cooperative, SampledBlocksAreRefused) {
  Device dev;
  auto m = Module::load_text(dev, kGridSync, "grid_sync.ptx");
  uint64_t d = dev.malloc(256);
  LaunchConfig cfg{{4}, {32}};
  cfg.cooperative = true;
  cfg.only_blocks = {{0, 0, 0}};
  auto st = launch(*m, "two_phase", cfg, d, 64, uint32_t{0xffffffffu});
  EXPECT_EQ(error_of(st), "a cooperative launch runs the whole grid; blocks cannot be sampled");
}

}  // namespace
}  // namespace smemlab::emu
