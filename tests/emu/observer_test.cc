// The observer interface: per-block observers made on worker threads, handed
// back in block order; memory events with shared offsets and PTX/source
// lines; barriers, branches, warp syncs and exits.
#include <map>
#include <mutex>

#include "emu_test_util.h"
#include "ptx/line_table.h"

namespace smemlab::emu::test {
namespace {

struct Counts : BlockObserver {
  Dim3 block;
  uint64_t shared_loads = 0, shared_stores = 0, global = 0, barriers = 0, releases = 0,
           branches = 0, exits = 0, syncs = 0;
  std::vector<MemAccess> first_shared_store;
  void on_memory(const MemAccess& a) override {
    if (a.space == Space::Shared) {
      if (a.op == MemOp::Load) ++shared_loads;
      if (a.op == MemOp::Store) {
        if (first_shared_store.empty()) first_shared_store.push_back(a);
        ++shared_stores;
      }
    } else if (a.space == Space::Global) {
      ++global;
    }
  }
  void on_barrier(const BarrierArrive& b) override {
    ++barriers;
    EXPECT_TRUE(b.aligned);
    EXPECT_EQ(b.mask, b.live_mask);
  }
  void on_barrier_release(const BarrierRelease& r) override { releases += r.epoch; }
  void on_branch(const Branch&) override { ++branches; }
  void on_exit(const Exit& e) override {
    exits += static_cast<uint64_t>(__builtin_popcount(e.mask));
  }
  void on_warp_sync(const WarpSync&) override { ++syncs; }
};

struct Collect : KernelObserver {
  std::mutex mu;
  std::vector<std::unique_ptr<Counts>> done;
  std::vector<uint64_t> order;
  const ptx::LineTable* lines = nullptr;
  void on_kernel_begin(const KernelInfo& k) override { lines = k.lines; }
  std::unique_ptr<BlockObserver> make_block_observer(Dim3 b) override {
    auto c = std::make_unique<Counts>();
    c->block = b;
    return c;
  }
  void finish_block(Dim3 b, std::unique_ptr<BlockObserver> o) override {
    order.push_back(b.y * 3 + b.x);
    done.emplace_back(static_cast<Counts*>(o.release()));
  }
};

TEST(Observer, TransposeEventsPerBlockInOrder) {
  Device dev;
  auto m = Module::load_file(dev, ptx_path("transpose.sm90.ptx"));
  int w = 96, h = 64;
  uint64_t in = dev.malloc(w * h * 4), out = dev.malloc(w * h * 4);
  Collect c;
  LaunchConfig cfg{{3, 2}, {32, 8}};
  cfg.observer = &c;
  cfg.threads = 3;
  auto st = launch(*m, find_kernel(*m, "transposeShared"), cfg, out, in, w, h);
  ASSERT_TRUE(st.ok()) << st.error->what();
  ASSERT_EQ(c.done.size(), 6u);
  EXPECT_EQ(c.order, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5}));
  ASSERT_NE(c.lines, nullptr);
  for (const auto& b : c.done) {
    // 8 warps x 4 tile rows each way; one barrier per warp; 256 threads exit.
    EXPECT_EQ(b->shared_stores, 32u);
    EXPECT_EQ(b->shared_loads, 32u);
    EXPECT_EQ(b->global, 64u);
    EXPECT_EQ(b->barriers, 8u);
    EXPECT_EQ(b->releases, 1u);
    EXPECT_EQ(b->exits, 256u);
    ASSERT_FALSE(b->first_shared_store.empty());
    const MemAccess& a = b->first_shared_store[0];
    EXPECT_EQ(a.mask, ~0u);
    EXPECT_EQ(a.width, 4u);
    EXPECT_EQ(a.warp, 0u);
    for (int l = 0; l < 32; ++l) EXPECT_EQ(a.addr[l], 4u * l);  // tile[0][lane]: shared offsets
    EXPECT_EQ(a.instr->text, "st.shared.f32");
    auto chain = c.lines->chain(a.instr->loc);
    ASSERT_FALSE(chain.empty());
    EXPECT_EQ(chain.back()->line, 8);  // the tile store's line in transpose.cu
  }
}

TEST(Observer, ShuffleSyncsAndDivergentBranches) {
  Device dev;
  auto m = Module::load_file(dev, ptx_path("reduce.sm90.ptx"));
  uint64_t in = dev.malloc(4 * 100), out = dev.malloc(4);
  Collect c;
  LaunchConfig cfg{{1}, {64}};
  cfg.observer = &c;
  ASSERT_TRUE(launch(*m, find_kernel(*m, "reduceShfl"), cfg, in, out, 100).ok());
  ASSERT_EQ(c.done.size(), 1u);
  EXPECT_EQ(c.done[0]->syncs, 2u * 5 + 5);  // 5 shuffles in each of 2 warps, then 5 in warp 0
  EXPECT_GT(c.done[0]->branches, 0u);
}

TEST(Observer, OnlySelectedBlocksRun) {
  Device dev;
  auto m = Module::load_file(dev, ptx_path("transpose.sm90.ptx"));
  uint64_t in = dev.malloc(96 * 64 * 4), out = dev.malloc(96 * 64 * 4);
  Collect c;
  LaunchConfig cfg{{3, 2}, {32, 8}};
  cfg.observer = &c;
  cfg.only_blocks = {{2, 1, 0}, {0, 0, 0}};  // indices: give z (Dim3 defaults to 1)
  auto st = launch(*m, find_kernel(*m, "transposeShared"), cfg, out, in, 96, 64);
  ASSERT_TRUE(st.ok()) << st.error->what();
  EXPECT_EQ(st.blocks_run, 2u);
  ASSERT_EQ(c.done.size(), 2u);
  EXPECT_EQ(c.done[0]->block, (Dim3{2, 1, 0}));
  EXPECT_EQ(c.done[1]->block, (Dim3{0, 0, 0}));
  cfg.only_blocks = {{3, 0, 0}};
  EXPECT_EQ(launch(*m, find_kernel(*m, "transposeShared"), cfg, out, in, 96, 64).error->kind,
            FaultKind::Launch);
}

}  // namespace
}  // namespace smemlab::emu::test
