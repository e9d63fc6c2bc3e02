// ObserverSet when a kernel faults with blocks left: the skipped blocks have
// no observers and must not reach the children (was a null dereference that
// crashed every multi-block `check` of a faulting kernel).
#include "check/observer_set.h"

#include <gtest/gtest.h>

#include "check/defects.h"
#include "emu/launch.h"

namespace smemlab::check {
namespace {

struct Counting final : emu::KernelObserver {
  struct Block final : emu::BlockObserver {};
  int made = 0, finished = 0;
  bool skip_odd = false;
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3 b) override {
    if (skip_odd && b.x % 2) return nullptr;
    ++made;
    return std::make_unique<Block>();
  }
  void finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> o) override {
    EXPECT_NE(o, nullptr);
    ++finished;
  }
};

// Every block stores through a null pointer: block 0 faults, the rest are skipped.
const char* kFaulting = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  mov.u64 %rd1, 0;
  mov.u32 %r1, %tid.x;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

TEST(ObserverSet, FaultWithBlocksLeftFinishesOnlyObservedBlocks) {
  emu::Device dev;
  auto m = emu::Module::load_text(dev, kFaulting, "k.ptx");
  Counting a, b;
  DefectCheck defects(MemoryLayout{});
  ObserverSet set;
  set.add(&a);
  set.add(&defects);
  set.add(&b);
  emu::LaunchConfig cfg{{64}, {32}};
  cfg.threads = 1;
  cfg.observer = &set;
  auto st = emu::launch(*m, "k", cfg);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, emu::FaultKind::OutOfBounds);
  EXPECT_EQ(a.made, 1);
  EXPECT_EQ(a.finished, 1);
  EXPECT_EQ(b.finished, 1);
}

TEST(ObserverSet, ChildWithoutObserverForABlockIsNotFinished) {
  emu::Device dev;
  auto m = emu::Module::load_text(
      dev, ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n",
      "k.ptx");
  Counting a, b;
  b.skip_odd = true;
  ObserverSet set;
  set.add(&a);
  set.add(&b);
  emu::LaunchConfig cfg{{8}, {32}};
  cfg.threads = 2;
  cfg.observer = &set;
  ASSERT_TRUE(emu::launch(*m, "k", cfg).ok());
  EXPECT_EQ(a.finished, 8);
  EXPECT_EQ(b.made, 4);
  EXPECT_EQ(b.finished, 4);
}

// A set of one hands its child's own block observers through (no fan-out),
// and its blocks back to it, skipped ones included.
TEST(ObserverSet, OneChildGetsItsOwnBlockObserversBack) {
  emu::Device dev;
  auto m = emu::Module::load_text(
      dev, ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n",
      "k.ptx");
  Counting a;
  a.skip_odd = true;
  ObserverSet set;
  set.add(&a);
  emu::LaunchConfig cfg{{8}, {32}};
  cfg.threads = 2;
  cfg.observer = &set;
  ASSERT_TRUE(emu::launch(*m, "k", cfg).ok());
  EXPECT_EQ(a.made, 4);
  EXPECT_EQ(a.finished, 4);
  auto o = set.make_block_observer({0, 0, 0});
  EXPECT_NE(dynamic_cast<Counting::Block*>(o.get()), nullptr);
  set.finish_block({0, 0, 0}, std::move(o));
  EXPECT_EQ(a.finished, 5);
}

}  // namespace
}  // namespace smemlab::check
