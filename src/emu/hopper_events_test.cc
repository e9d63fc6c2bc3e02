// The Hopper observer events (observer.h): the exact events of a small TMA
// kernel (load with a 128-byte swizzle, store through a bulk group), a 1-D
// bulk copy, a wgmma kernel, and a cluster kernel reaching its peer's shared
// memory. Expected values are worked out independently: the programming
// guide's swizzle (row/chunk XOR), the descriptor's canonical layout from
// the PTX ISA, addresses from the launch's own buffers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "emu/launch.h"
#include "emu/tma.h"

namespace smemlab::emu::test {
namespace {

// What one block's observer saw, in order, spans copied.
struct Seen {
  std::string
      log;  // one letter per event: M memory, B bulk, G wgmma, Y mbarrier, F fence, D dshared
  std::vector<MemAccess> mem;
  struct Bulk {
    BulkCopy ev;
    std::vector<uint32_t> chunks;
    std::vector<ByteRange> global;
  };
  std::vector<Bulk> bulk;
  struct Gmma {
    Wgmma ev;
    std::vector<uint32_t> a, b;
  };
  std::vector<Gmma> gmma;
  std::vector<Mbarrier> mbar;
  std::vector<Fence> fences;
  std::vector<DsharedAccess> dshared;
};

struct Recorder : BlockObserver {
  Seen s;
  void on_memory(const MemAccess& a) override {
    if (a.space == Space::Param) return;  // (the kernels' ld.param)
    s.log += 'M';
    s.mem.push_back(a);
  }
  void on_bulk_copy(const BulkCopy& c) override {
    s.log += 'B';
    s.bulk.push_back({c, {c.chunks.begin(), c.chunks.end()}, {c.global.begin(), c.global.end()}});
  }
  void on_wgmma(const Wgmma& g) override {
    s.log += 'G';
    s.gmma.push_back(
        {g, {g.a.chunks.begin(), g.a.chunks.end()}, {g.b.chunks.begin(), g.b.chunks.end()}});
  }
  void on_mbarrier(const Mbarrier& m) override {
    s.log += 'Y';
    s.mbar.push_back(m);
  }
  void on_fence(const Fence& f) override {
    s.log += 'F';
    s.fences.push_back(f);
  }
  void on_dshared(const DsharedAccess& d) override {
    s.log += 'D';
    s.dshared.push_back(d);
  }
};

struct Collect : KernelObserver {
  std::vector<Seen> blocks;  // by linear block index
  std::unique_ptr<BlockObserver> make_block_observer(Dim3) override {
    return std::make_unique<Recorder>();
  }
  void finish_block(Dim3 b, std::unique_ptr<BlockObserver> o) override {
    if (blocks.size() <= b.x) blocks.resize(b.x + 1);
    blocks[b.x] = static_cast<Recorder*>(o.get())->s;
  }
};

std::unique_ptr<Module> load(Device& dev, const std::string& text) {
  return Module::load_text(dev, text, "hopper_events.ptx");
}

// The programming guide's swizzle: in each 128-byte row, the 16-byte
// chunks of a 32/64/128-byte span permuted by XOR with the row number
// modulo the chunks per span (128B: 8 chunks).
uint32_t guide_swizzle128(uint32_t addr) {
  const uint32_t row = addr / 128, chunk = addr % 128 / 16;
  return row * 128 + (chunk ^ row % 8) * 16 + addr % 16;
}

const char* kTmaKernel = R"(.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .align 64 .b8 map[128], .param .s32 c0, .param .s32 c1)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, smem;
  add.u32 %r3, %r1, 1024;
  ld.param.s32 %r10, [c0];
  ld.param.s32 %r11, [c1];
  mov.u32 %r8, 1024;
  mov.u32 %r9, 1;
  mov.u64 %rd1, map;
  cvta.param.u64 %rd2, %rd1;
  mbarrier.init.shared.b64 [%r1], %r9;
  fence.mbarrier_init.release.cluster;
  mbarrier.arrive.expect_tx.shared.b64 _, [%r1], %r8;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd2, {%r10, %r11}], [%r1];
$Lwait:
  mbarrier.try_wait.parity.shared.b64 %p1, [%r1], 0;
  @!%p1 bra $Lwait;
  fence.proxy.async.shared::cta;
  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {%r10, %r11}], [%r3];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
  ret;
}
)";

TEST(HopperEvents, TmaLoadAndStoreWithTheir128ByteSwizzle) {
  // f16 tensor of 128 x 16 (rows of 256 bytes), box 64 x 8 (rows of 128
  // bytes) at (0, 12): rows 12..15 inside, 16..19 outside (zero fill).
  Device dev;
  auto mod = load(dev, kTmaKernel);
  const uint64_t t = dev.malloc(256 * 16, "tensor");
  tma::TensorMap m;
  m.type = tma::DataType::F16;
  m.rank = 2;
  m.swizzle = tma::Swizzle::B128;
  m.address = t;
  m.dim[0] = 128, m.dim[1] = 16;
  m.stride[0] = 256;
  m.box[0] = 64, m.box[1] = 8;
  ArgBytes map(128);
  tma::encode(m, map.data());
  Collect c;
  LaunchConfig cfg{{1}, {1}, 1024 + 1024};
  cfg.observer = &c;
  auto st = launch_raw(*mod, "k", cfg, {map, arg(int32_t{0}), arg(int32_t{12})});
  ASSERT_TRUE(st.ok()) << st.error->what();
  ASSERT_EQ(c.blocks.size(), 1u);
  const Seen& s = c.blocks[0];

  std::vector<uint32_t> chunks;
  for (uint32_t r = 0; r < 8; ++r)
    for (uint32_t j = 0; j < 8; ++j) chunks.push_back(guide_swizzle128(1024 + r * 128 + j * 16));
  std::vector<ByteRange> global;
  for (uint32_t r = 12; r < 16; ++r) global.push_back({t + r * 256, 128});

  // Order: init (its store), fence, arrive; the load: issue, its 4 x 8
  // global reads and 64 shared writes, completion, complete_tx; the wait;
  // the fence; the store: issue, 32 shared reads (the box's rows inside the
  // tensor: rows 4..7 are not stored, so their bytes are not read for
  // anything) and 32 global writes; its completion at wait_group.read.
  const std::string want =
      "MY"
      "F"
      "MY"
      "B" +
      std::string(32 + 64, 'M') + "BY" + "MY" + "F" + "B" + std::string(32 + 32, 'M') + "B";
  EXPECT_EQ(s.log, want);

  ASSERT_EQ(s.bulk.size(), 4u);
  const auto& li = s.bulk[0];
  EXPECT_EQ(li.ev.phase, BulkPhase::Issue);
  EXPECT_EQ(li.ev.kind, BulkKind::Load);
  EXPECT_TRUE(li.ev.tensor);
  EXPECT_EQ(li.ev.dims, 2);
  EXPECT_EQ(li.ev.swizzle, 3);  // CU_TENSOR_MAP_SWIZZLE_128B
  EXPECT_EQ(li.ev.multicast, 0);
  EXPECT_FALSE(li.ev.incoming);
  EXPECT_EQ(li.ev.rank, 0u);
  EXPECT_EQ(li.ev.mbarrier, 0u);
  EXPECT_EQ(li.ev.shared_base, 1024u);
  EXPECT_EQ(li.ev.row_bytes, 128u);
  EXPECT_EQ(li.ev.rows, 8u);
  EXPECT_EQ(li.ev.pitch, 128u);
  EXPECT_EQ(li.ev.bytes, 1024u);
  EXPECT_EQ(li.chunks, chunks);
  ASSERT_EQ(li.global.size(), global.size());
  for (size_t i = 0; i < global.size(); ++i) {
    EXPECT_EQ(li.global[i].addr, global[i].addr);
    EXPECT_EQ(li.global[i].bytes, global[i].bytes);
  }
  const auto& lc = s.bulk[1];
  EXPECT_EQ(lc.ev.phase, BulkPhase::Complete);
  EXPECT_EQ(lc.ev.id, li.ev.id);
  EXPECT_EQ(lc.chunks, chunks);
  const auto& si = s.bulk[2];
  EXPECT_EQ(si.ev.phase, BulkPhase::Issue);
  EXPECT_EQ(si.ev.kind, BulkKind::Store);
  EXPECT_EQ(si.ev.mbarrier, kNoMbarrier);
  EXPECT_EQ(si.ev.group, 0u);
  EXPECT_NE(si.ev.id, li.ev.id);
  EXPECT_EQ(si.chunks, chunks);
  EXPECT_EQ(si.global.size(), 4u);
  const auto& sc = s.bulk[3];
  EXPECT_EQ(sc.ev.phase, BulkPhase::Complete);
  EXPECT_EQ(sc.ev.id, si.ev.id);
  EXPECT_TRUE(sc.ev.read_only);
  EXPECT_EQ(sc.ev.group, 0u);

  // The shared side as the async proxy's accesses: the load's writes, the
  // store's reads (of the rows inside the tensor), each one lane of 16
  // bytes at the chunk.
  std::vector<uint32_t> writes, reads;
  for (const MemAccess& a : s.mem) {
    if (a.space == Space::Shared && a.op == MemOp::BulkStore) writes.push_back(a.addr[0]);
    if (a.space == Space::Shared && a.op == MemOp::BulkLoad) reads.push_back(a.addr[0]);
    EXPECT_NE(a.op, MemOp::CpAsyncLoad);
    EXPECT_NE(a.op, MemOp::CpAsyncStore);
  }
  EXPECT_EQ(writes, chunks);
  EXPECT_EQ(reads, std::vector<uint32_t>(chunks.begin(), chunks.begin() + 32));

  ASSERT_EQ(s.mbar.size(), 4u);
  EXPECT_EQ(s.mbar[0].kind, MbarrierKind::Init);
  EXPECT_EQ(s.mbar[0].count, 1u);
  EXPECT_EQ(s.mbar[0].pending_after, 1u);
  EXPECT_EQ(s.mbar[1].kind, MbarrierKind::Arrive);
  EXPECT_EQ(s.mbar[1].count, 1u);
  EXPECT_EQ(s.mbar[1].tx, 1024u);
  EXPECT_EQ(s.mbar[1].pending_after, 0u);
  EXPECT_EQ(s.mbar[1].tx_after, 1024);
  EXPECT_FALSE(s.mbar[1].completed);
  EXPECT_EQ(s.mbar[2].kind, MbarrierKind::CompleteTx);
  EXPECT_EQ(s.mbar[2].copy, li.ev.id);
  EXPECT_EQ(s.mbar[2].tx, 1024u);
  EXPECT_EQ(s.mbar[2].tx_before, 1024);
  EXPECT_EQ(s.mbar[2].tx_after, 0);
  EXPECT_TRUE(s.mbar[2].completed);
  EXPECT_EQ(s.mbar[2].parity_before, 0u);
  EXPECT_EQ(s.mbar[2].parity_after, 1u);
  EXPECT_EQ(s.mbar[3].kind, MbarrierKind::TryWait);
  EXPECT_TRUE(s.mbar[3].parity_form);
  EXPECT_EQ(s.mbar[3].wait_parity, 0u);
  EXPECT_TRUE(s.mbar[3].ready);
  for (const Mbarrier& e : s.mbar) {
    EXPECT_EQ(e.addr, 0u);
    EXPECT_FALSE(e.incoming);
  }

  ASSERT_EQ(s.fences.size(), 2u);
  EXPECT_EQ(s.fences[0].kind, FenceKind::MbarrierInit);
  EXPECT_EQ(s.fences[1].kind, FenceKind::ProxyAsync);
  EXPECT_EQ(s.fences[1].space, FenceSpace::SharedCta);
  EXPECT_EQ(s.fences[1].mask, 1u);
}

TEST(HopperEvents, StoreCompletesAtItsGroupsWaitOrAtExit) {
  // Two stores in two groups; wait_group 1 completes the first only; the
  // second completes when the thread exits.
  std::string text = kTmaKernel;
  const std::string from = "  cp.async.bulk.commit_group;\n  cp.async.bulk.wait_group.read 0;\n";
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(),
               "  cp.async.bulk.commit_group;\n"
               "  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {%r10, "
               "%r11}], [%r3];\n"
               "  cp.async.bulk.commit_group;\n  cp.async.bulk.wait_group 1;\n");
  Device dev;
  auto mod = load(dev, text);
  const uint64_t t = dev.malloc(256 * 16, "tensor");
  tma::TensorMap m;
  m.type = tma::DataType::F16;
  m.rank = 2;
  m.address = t;
  m.dim[0] = 128, m.dim[1] = 16;
  m.stride[0] = 256;
  m.box[0] = 64, m.box[1] = 8;
  ArgBytes map(128);
  tma::encode(m, map.data());
  Collect c;
  LaunchConfig cfg{{1}, {1}, 2048};
  cfg.observer = &c;
  auto st = launch_raw(*mod, "k", cfg, {map, arg(int32_t{0}), arg(int32_t{0})});
  ASSERT_TRUE(st.ok()) << st.error->what();
  const Seen& s = c.blocks.at(0);
  std::vector<std::pair<BulkPhase, uint32_t>> stores;  // (phase, group)
  for (const auto& b : s.bulk)
    if (b.ev.kind == BulkKind::Store) stores.emplace_back(b.ev.phase, b.ev.group);
  using P = BulkPhase;
  EXPECT_EQ(stores, (std::vector<std::pair<P, uint32_t>>{
                        {P::Issue, 0}, {P::Issue, 1}, {P::Complete, 0}, {P::Complete, 1}}));
  EXPECT_FALSE(s.bulk.back().ev.read_only);
  EXPECT_EQ(s.bulk.back().ev.swizzle, 0);
  // Without a swizzle the chunks are the box's bytes in order.
  for (size_t i = 0; i < s.bulk.back().chunks.size(); ++i)
    EXPECT_EQ(s.bulk.back().chunks[i], 1024 + 16 * i);
}

TEST(HopperEvents, OneDimensionalBulkCopy) {
  const char* text = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 src)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[128];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [src];
  mov.u32 %r1, bar;
  mov.u32 %r2, buf;
  mov.u32 %r3, 1;
  mov.u32 %r4, 64;
  mbarrier.init.shared.b64 [%r1], %r3;
  mbarrier.arrive.expect_tx.shared.b64 _, [%r1], %r4;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2+32], [%rd1+16], %r4, [%r1];
$Lwait:
  mbarrier.try_wait.parity.shared.b64 %p1, [%r1], 0;
  @!%p1 bra $Lwait;
  st.global.u32 [%rd1+120], %r2;
  ret;
}
)";
  Device dev;
  auto mod = load(dev, text);
  const uint64_t src = dev.malloc(128, "src");
  Collect c;
  LaunchConfig cfg{{1}, {1}};
  cfg.observer = &c;
  auto st = launch(*mod, "k", cfg, src);
  ASSERT_TRUE(st.ok()) << st.error->what();
  const Seen& s = c.blocks.at(0);
  // init, arrive; issue, 4 x (global read, shared write), completion,
  // complete_tx; try_wait.
  EXPECT_EQ(s.log,
            "MYMY"
            "B" +
                std::string(8, 'M') + "BY" + "MY" + "M");
  ASSERT_EQ(s.bulk.size(), 2u);
  uint32_t buf = 0;
  dev.copy_from(&buf, src + 120, 4);
  for (const auto& b : s.bulk) {
    EXPECT_FALSE(b.ev.tensor);
    EXPECT_EQ(b.ev.kind, BulkKind::Load);
    EXPECT_EQ(b.ev.bytes, 64u);
    ASSERT_EQ(b.global.size(), 1u);
    EXPECT_EQ(b.global[0].addr, src + 16);
    EXPECT_EQ(b.global[0].bytes, 64u);
    EXPECT_EQ(b.chunks.size(), 4u);
    for (size_t i = 0; i < b.chunks.size(); ++i) EXPECT_EQ(b.chunks[i], b.ev.shared_base + 16 * i);
    EXPECT_EQ(b.ev.mbarrier, s.mbar[0].addr);
  }
  // The copy's chunks start 32 bytes into buf.
  EXPECT_EQ(s.bulk[0].ev.shared_base, buf + 32);
  const Mbarrier& tx = s.mbar[2];
  EXPECT_EQ(tx.kind, MbarrierKind::CompleteTx);
  EXPECT_EQ(tx.copy, s.bulk[0].ev.id);
  EXPECT_TRUE(tx.completed);
}

// A block's bulk groups count from its own first commit_group: blocks that
// follow one another on one host thread (one BlockRunner) start from zero,
// not from the counts the block before left (BlockRunner::begin resets the
// warps' AsyncState where a block left something in it).
TEST(HopperEvents, EachBlockCountsItsOwnBulkGroups) {
  const std::string text = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 dst)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[64];
  ld.param.u64 %rd1, [dst];
  mov.u32 %r2, buf;
  mov.u32 %r4, 16;
  mov.u32 %r5, 7;
  st.shared.u32 [buf], %r5;
  fence.proxy.async.shared::cta;
  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], %r4;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  cp.async.bulk.global.shared::cta.bulk_group [%rd1+16], [%r2], %r4;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)";
  Device dev;
  auto mod = load(dev, text);
  const uint64_t dst = dev.malloc(64, "dst");
  Collect c;
  LaunchConfig cfg{{3}, {1}};
  cfg.threads = 1;  // the three blocks one after another on one runner
  cfg.observer = &c;
  auto st = launch(*mod, "k", cfg, dst);
  ASSERT_TRUE(st.ok()) << st.error->what();
  ASSERT_EQ(c.blocks.size(), 3u);
  for (uint32_t b = 0; b < 3; ++b) {
    const Seen& s = c.blocks[b];
    ASSERT_EQ(s.bulk.size(), 4u) << "block " << b;  // two copies: issue and completion each
    EXPECT_EQ(s.bulk[0].ev.group, 0u) << "block " << b;
    EXPECT_EQ(s.bulk[2].ev.group, 1u) << "block " << b;  // after its one commit_group
  }
}

TEST(HopperEvents, OneDimensionalBulkStoreAndReduction) {
  // Eight words into shared memory, a 32-byte bulk store of them to dst,
  // then a 16-byte cp.reduce (add.u32) of the first four onto dst + 16.
  std::string body;
  for (int i = 0; i < 8; ++i)
    body += "  mov.u32 %r5, " + std::to_string(3 * i + 1) + ";\n  st.shared.u32 [buf+" +
            std::to_string(4 * i) + "], %r5;\n";
  const std::string text = std::string(R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 dst)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[64];
  ld.param.u64 %rd1, [dst];
  mov.u32 %r2, buf;
  mov.u32 %r4, 32;
)") + body + R"(  fence.proxy.async.shared::cta;
  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], %r4;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1+16], [buf], 16;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)";
  Device dev;
  auto mod = load(dev, text);
  const uint64_t dst = dev.malloc(64, "dst");
  Collect c;
  LaunchConfig cfg{{1}, {1}};
  cfg.observer = &c;
  auto st = launch(*mod, "k", cfg, dst);
  ASSERT_TRUE(st.ok()) << st.error->what();
  uint32_t got[8];
  dev.copy_from(got, dst, 32);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(got[i], 3 * i + 1) << i;
  for (uint32_t i = 4; i < 8; ++i) EXPECT_EQ(got[i], (3 * i + 1) + (3 * (i - 4) + 1)) << i;
  const Seen& s = c.blocks.at(0);
  // The store: issue, 2 x (shared read, global write), completion at its
  // group's wait; the reduction: issue, its chunk read, 4 word reductions,
  // completion.
  const std::string stores(8, 'M'), fence = s.log.substr(8, 1);
  EXPECT_EQ(s.log, stores + fence + "B" + "MMMM" + "B" + "B" + "MMMMM" + "B");
  ASSERT_EQ(s.bulk.size(), 4u);
  EXPECT_EQ(s.bulk[0].ev.kind, BulkKind::Store);
  EXPECT_EQ(s.bulk[2].ev.kind, BulkKind::Reduce);
  EXPECT_EQ(s.bulk[1].ev.phase, BulkPhase::Complete);
  EXPECT_FALSE(s.bulk[0].ev.tensor);
  EXPECT_EQ(s.bulk[0].ev.bytes, 32u);
  EXPECT_EQ(s.bulk[0].ev.mbarrier, kNoMbarrier);
  EXPECT_EQ(s.bulk[2].ev.group, 1u);  // after one commit_group
  ASSERT_EQ(s.bulk[0].global.size(), 1u);
  EXPECT_EQ(s.bulk[0].global[0].addr, dst);
  EXPECT_EQ(s.bulk[2].global[0].addr, dst + 16);
  ASSERT_EQ(s.bulk[0].chunks.size(), 2u);
  EXPECT_EQ(s.bulk[0].chunks[1], s.bulk[0].chunks[0] + 16);
  // (the fence is no memory event: mem[8] is the store's first chunk)
  EXPECT_EQ(s.mem[8].op, MemOp::BulkLoad);
  EXPECT_EQ(s.mem[8].space, Space::Shared);
  EXPECT_EQ(s.mem[9].op, MemOp::BulkStore);
  EXPECT_EQ(s.mem[9].space, Space::Global);
  EXPECT_EQ(s.mem[12].op, MemOp::BulkLoad);
  EXPECT_EQ(s.mem[13].op, MemOp::BulkReduce);
  EXPECT_EQ(s.mem[13].width, 4u);
}

// A warp of 32 lanes executing one copy to global memory (run 15 on the
// H100, tests/validation/hopper/public/tma_warp_issue.cu, the copies ncu
// counted): a store (tensor or 1-D) is issued once per distinct set of
// operands among the lanes (same: 1, lane & 1: 2, per lane: 32); a
// reduction once per lane whatever its operands (same: 32).
TEST(HopperEvents, AWarpStoresOncePerDistinctOperandsReducesPerLane) {
  const char* kernel = R"(.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .align 64 .b8 map[128], .param .u64 dst, .param .u32 shift,
                  .param .u32 op)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, smem;
  add.u32 %r3, %r1, 1024;
  mov.u32 %r4, %tid.x;
  ld.param.u32 %r5, [shift];
  ld.param.u32 %r6, [op];
  and.b32 %r7, %r4, %r5;
  shl.b32 %r8, %r7, 3;
  cvt.u64.u32 %rd3, %r8;
  ld.param.u64 %rd4, [dst];
  shl.b64 %rd5, %rd3, 7;
  add.u64 %rd6, %rd4, %rd5;
  mov.u64 %rd1, map;
  cvta.param.u64 %rd2, %rd1;
  mov.u32 %r9, 0;
  fence.proxy.async.shared::cta;
  setp.eq.u32 %p1, %r6, 0;
  @%p1 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd2, {%r9, %r8}], [%r3];
  setp.eq.u32 %p1, %r6, 1;
  @%p1 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd2, {%r9, %r8}], [%r3];
  setp.eq.u32 %p1, %r6, 2;
  @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd6], [%r3], 1024;
  setp.eq.u32 %p1, %r6, 3;
  @%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd6], [%r3], 1024;
  setp.eq.u32 %p1, %r6, 4;
  @%p1 cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd2, {%r9, %r8}];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
  ret;
}
)";
  Device dev;
  auto mod = load(dev, kernel);
  const uint64_t t = dev.malloc(128 * 256, "tensor");  // u32, 32 x 256
  tma::TensorMap m;
  m.type = tma::DataType::U32;
  m.rank = 2;
  m.address = t;
  m.dim[0] = 32, m.dim[1] = 256;
  m.stride[0] = 128;
  m.box[0] = 32, m.box[1] = 8;
  ArgBytes map(128);
  tma::encode(m, map.data());
  struct Case {
    uint32_t op, shift, issues;
  };
  // op: 0 tensor store, 1 tensor reduce-add, 2 bulk store, 3 bulk reduce-add,
  // 4 tensor prefetch (ptxas's loop of a store: once per distinct operands);
  // shift: the lanes' row (lane & shift) * 8, so 0: one set of operands.
  for (const Case k : {Case{0, 0, 1}, Case{0, 1, 2}, Case{0, 31, 32}, Case{1, 0, 32},
                       Case{1, 1, 32}, Case{2, 0, 1}, Case{2, 1, 2}, Case{3, 0, 32}, Case{4, 0, 1},
                       Case{4, 1, 2}, Case{4, 31, 32}}) {
    Collect c;
    LaunchConfig cfg{{1}, {32}, 1024 + 1024};
    cfg.observer = &c;
    auto st = launch_raw(*mod, "k", cfg, {map, arg(t), arg(k.shift), arg(k.op)});
    ASSERT_TRUE(st.ok()) << st.error->what();
    uint32_t issued = 0;
    for (const auto& b : c.blocks.at(0).bulk) issued += b.ev.phase == BulkPhase::Issue;
    EXPECT_EQ(issued, k.issues) << "op " << k.op << ", shift " << k.shift;
  }
}

TEST(HopperEvents, BulkStoreFormsRefusedByName) {
  for (const char* form :
       {"cp.async.bulk.global.shared::cta [%rd1], [%r2], 32;",
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u64 [%rd1], [%r2], 32;",
        "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 32, %rd1;"}) {
    const std::string text = std::string(R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 dst)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [dst];
  mov.u32 %r2, 0;
  )") + form + "\n  ret;\n}\n";
    Device dev;
    std::string err;
    try {
      load(dev, text)->kernel("k");
    } catch (const std::exception& e) {
      err = e.what();
    }
    EXPECT_NE(err.find("cp."), std::string::npos) << form << ": " << err;
  }
}

TEST(HopperEvents, MulticastLoadTellsEveryDestination) {
  // Cluster of 4; rank 0 loads a 128B-swizzled f32 box 32 x 8 into ranks
  // 0, 1 and 3 (ctaMask 0b1011); each destination waits on its own mbarrier.
  const char* text = R"(.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry mc(.param .align 64 .b8 map[128], .param .u16 mask)
{
  .reg .pred %p<4>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, bar;
  mov.u32 %r3, smem;
  mov.u32 %r8, 1024;
  mov.u32 %r9, 1;
  mov.u32 %r10, 0;
  ld.param.u16 %rs1, [mask];
  mov.u64 %rd1, map;
  cvta.param.u64 %rd2, %rd1;
  mov.u32 %r20, %cluster_ctarank;
  cvt.u32.u16 %r21, %rs1;
  shr.u32 %r22, %r21, %r20;
  and.b32 %r22, %r22, 1;
  setp.eq.u32 %p3, %r22, 1;
  mbarrier.init.shared.b64 [%r1], %r9;
  @%p3 mbarrier.arrive.expect_tx.shared.b64 _, [%r1], %r8;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  setp.eq.u32 %p2, %r20, 0;
  @%p2 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r3], [%rd2, {%r10, %r10}], [%r1], %rs1;
  @!%p3 bra $Ldone;
$Lwait:
  mbarrier.try_wait.parity.shared.b64 %p1, [%r1], 0;
  @!%p1 bra $Lwait;
$Ldone:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";
  Device dev;
  auto mod = load(dev, text);
  const uint64_t t = dev.malloc(256 * 8, "tensor");
  tma::TensorMap m;
  m.type = tma::DataType::F32;
  m.rank = 2;
  m.swizzle = tma::Swizzle::B128;
  m.address = t;
  m.dim[0] = 64, m.dim[1] = 8;
  m.stride[0] = 256;
  m.box[0] = 32, m.box[1] = 8;
  ArgBytes map(128);
  tma::encode(m, map.data());
  Collect c;
  LaunchConfig cfg{{4}, {1}, 1024};
  cfg.cluster = {4, 1, 1};
  cfg.observer = &c;
  auto st = launch_raw(*mod, "mc", cfg, {map, arg(uint16_t{0b1011})});
  ASSERT_TRUE(st.ok()) << st.error->what();
  ASSERT_EQ(c.blocks.size(), 4u);
  // smem (dynamic, 1024-aligned) lies after the static `bar`: where the
  // issuer's event says the box is.
  ASSERT_FALSE(c.blocks[0].bulk.empty());
  const uint32_t base = c.blocks[0].bulk[0].ev.shared_base;
  EXPECT_EQ(base % 1024, 0u);
  std::vector<uint32_t> chunks;
  for (uint32_t r = 0; r < 8; ++r)
    for (uint32_t j = 0; j < 8; ++j) chunks.push_back(guide_swizzle128(base + r * 128 + j * 16));
  uint64_t id = 0;
  for (uint32_t rank = 0; rank < 4; ++rank) {
    SCOPED_TRACE(testing::Message() << "rank " << rank);
    const Seen& s = c.blocks[rank];
    if (rank == 2) {
      EXPECT_TRUE(s.bulk.empty());
      continue;
    }
    ASSERT_EQ(s.bulk.size(), 2u);  // issue, completion
    for (const auto& b : s.bulk) {
      EXPECT_EQ(b.ev.incoming, rank != 0);
      EXPECT_EQ(b.ev.rank, rank);
      EXPECT_EQ(b.ev.issuer_rank, 0u);
      EXPECT_EQ(b.ev.block.x, 0u);
      EXPECT_EQ(b.ev.multicast, 0b1011);
      EXPECT_EQ(b.chunks, chunks);
      if (!id) id = b.ev.id;
      EXPECT_EQ(b.ev.id, id);
    }
    EXPECT_EQ(s.bulk[0].ev.phase, BulkPhase::Issue);
    EXPECT_EQ(s.bulk[1].ev.phase, BulkPhase::Complete);
    // Each destination's mbarrier completes by the copy (its own event,
    // incoming unless it is the issuer's).
    uint32_t tx = 0;
    for (const Mbarrier& e : s.mbar)
      if (e.kind == MbarrierKind::CompleteTx && e.rank == rank) {
        ++tx;
        EXPECT_EQ(e.copy, id);
        EXPECT_EQ(e.incoming, rank != 0);
        EXPECT_TRUE(e.completed);
      }
    EXPECT_EQ(tx, 1u);
    // The peers' chunks: DsharedAccess writes by rank 0, as the async proxy's.
    uint32_t writes = 0;
    for (const DsharedAccess& d : s.dshared) {
      EXPECT_EQ(d.access.op, MemOp::BulkStore);
      writes += d.incoming ? 1 : 0;
    }
    EXPECT_EQ(writes, rank == 0 ? 0u : 64u);
  }
  // The issuer also heard of its peers' barriers and writes (outgoing).
  uint32_t out = 0;
  for (const DsharedAccess& d : c.blocks[0].dshared) out += d.incoming ? 0 : 1;
  EXPECT_EQ(out, 2u * 64u);
}

uint64_t desc(uint32_t start, uint32_t lbo, uint32_t sbo, uint64_t mode) {
  return uint64_t{start >> 4} | uint64_t{lbo >> 4} << 16 | uint64_t{sbo >> 4} << 32 | mode << 62;
}

TEST(HopperEvents, WgmmaOperandReadsPerDescriptor) {
  // m64n8k16 f16: A K-major with the 128-byte swizzle at 1024 (rows 128
  // bytes apart, 8-row groups SBO = 1024 apart), B K-major without a
  // swizzle at 12288 (rows 16 bytes apart, the two 8-element k halves LBO
  // = 128 apart).
  const char* text = R"(.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry w(.param .u64 da, .param .u64 db)
{
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [da];
  ld.param.u64 %rd2, [db];
  mov.f32 %f1, 0f00000000;  mov.f32 %f2, 0f00000000;
  mov.f32 %f3, 0f00000000;  mov.f32 %f4, 0f00000000;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  ret;
}
)";
  Device dev;
  auto mod = load(dev, text);
  const uint64_t da = desc(1024, 16, 1024, 1), db = desc(12288, 128, 256, 0);
  Collect c;
  LaunchConfig cfg{{1}, {128}, 16384};
  cfg.observer = &c;
  auto st = launch(*mod, "w", cfg, da, db);
  ASSERT_TRUE(st.ok()) << st.error->what();
  const Seen& s = c.blocks.at(0);
  ASSERT_EQ(s.gmma.size(), 16u);  // fence, mma, commit, wait in each of 4 warps
  std::vector<uint32_t> b_want;
  for (uint32_t n = 0; n < 8; ++n)
    for (uint32_t kc = 0; kc < 2; ++kc) b_want.push_back(12288 + n * 16 + kc * 128);
  uint32_t mmas = 0;
  for (const auto& g : s.gmma) {
    const uint32_t q = g.ev.warp;
    switch (g.ev.kind) {
      case WgmmaKind::Mma: {
        ++mmas;
        EXPECT_EQ(g.ev.n, 8u);
        EXPECT_EQ(g.ev.k, 16u);
        EXPECT_TRUE(g.ev.a_shared);
        EXPECT_EQ(g.ev.group, 0u);
        EXPECT_EQ(g.ev.a.desc, da);
        EXPECT_EQ(g.ev.a.swizzle, 1);  // the descriptor's 128B
        EXPECT_EQ(g.ev.a.sbo, 1024u);
        EXPECT_EQ(g.ev.a.mn0, 16 * q);
        EXPECT_EQ(g.ev.a.mn, 16u);
        EXPECT_EQ(g.ev.a.elem_bytes, 2);
        std::vector<uint32_t> a_want;
        for (uint32_t m = 16 * q; m < 16 * q + 16; ++m)
          for (uint32_t kc = 0; kc < 2; ++kc)
            a_want.push_back(guide_swizzle128(1024 + (m % 8) * 128 + (m / 8) * 1024 + kc * 16));
        EXPECT_EQ(g.a, a_want) << "warp " << q;
        EXPECT_EQ(g.b, b_want) << "warp " << q;
        EXPECT_EQ(g.ev.b.lbo, 128u);
        break;
      }
      case WgmmaKind::Commit:
        EXPECT_EQ(g.ev.group, 0u);
        break;
      case WgmmaKind::Wait:
        EXPECT_EQ(g.ev.group, 0u);
        EXPECT_EQ(g.ev.complete_below, 1u);
        break;
      default:
        break;
    }
  }
  EXPECT_EQ(mmas, 4u);
  // Per warp: fence, mma, commit, wait, in that order.
  std::vector<std::string> per(4);
  for (const auto& g : s.gmma) per[g.ev.warp] += "MFCW"[static_cast<int>(g.ev.kind)];
  for (const auto& p : per) EXPECT_EQ(p, "FMCW");
}

TEST(HopperEvents, ClusterPeersSharedMemoryIsADsharedAccess) {
  // Cluster of 2: each thread stores into the peer's sm[tid] through
  // mapa + st.shared::cluster, and into its own through a shared::cluster
  // address of its own rank (an ordinary shared store); thread 0 of rank 1
  // arrives on rank 0's mbarrier.
  const char* text = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry t(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b8 sm[128];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, sm;  shl.b32 %r4, %r2, 2;  add.u32 %r3, %r3, %r4;
  mov.u32 %r9, bar;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r9], 1;
  barrier.cluster.arrive;  barrier.cluster.wait;
  xor.b32 %r5, %r1, 1;
  mapa.shared::cluster.u32 %r6, %r3, %r5;
  st.shared::cluster.u32 [%r6], %r2;
  mapa.shared::cluster.u32 %r7, %r3, %r1;
  st.shared::cluster.u32 [%r7], %r2;
  setp.eq.u32 %p2, %r1, 1;
  and.pred %p3, %p1, %p2;
  mapa.shared::cluster.u32 %r10, %r9, 0;
  @%p3 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r10];
  barrier.cluster.arrive;  barrier.cluster.wait;
  ld.param.u64 %rd1, [out];
  mov.u32 %r11, sm;
  st.global.u32 [%rd1], %r11;
  ret;
}
)";
  Device dev;
  auto mod = load(dev, text);
  const uint64_t out = dev.malloc(64, "out");
  Collect c;
  LaunchConfig cfg{{2}, {32}};
  cfg.cluster = {2, 1, 1};
  cfg.explicit_cluster = true;
  cfg.observer = &c;
  auto st = launch(*mod, "t", cfg, out);
  ASSERT_TRUE(st.ok()) << st.error->what();
  uint32_t sm = 0;
  dev.copy_from(&sm, out, 4);
  ASSERT_EQ(c.blocks.size(), 2u);
  for (uint32_t rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE(testing::Message() << "rank " << rank);
    const Seen& s = c.blocks[rank];
    const uint32_t peer = rank ^ 1;
    std::vector<const DsharedAccess*> out_ev, in_ev;
    for (const DsharedAccess& d : s.dshared) (d.incoming ? in_ev : out_ev).push_back(&d);
    // The issuer's store, and (rank 1) its remote mbarrier arrive.
    ASSERT_EQ(out_ev.size(), rank == 1 ? 2u : 1u);
    if (rank == 1) {
      EXPECT_EQ(out_ev[1]->access.op, MemOp::Atomic);  // the arrive's 8 bytes
      // marked as the mbarrier operation it is (a SYNCS instruction, outside
      // ncu's op_dshared counters: h-hop28e, fast.cu kernels 9 and 12)
      EXPECT_TRUE(out_ev[1]->access.mbarrier);
    }
    EXPECT_FALSE(out_ev[0]->access.mbarrier);  // the st.shared::cluster
    const DsharedAccess& o = *out_ev[0];
    EXPECT_EQ(o.rank, peer);
    EXPECT_EQ(o.issuer_rank, rank);
    EXPECT_EQ(o.target.x, peer);
    EXPECT_EQ(o.access.block.x, rank);
    EXPECT_EQ(o.access.op, MemOp::Store);
    EXPECT_EQ(o.access.width, 4);
    EXPECT_EQ(o.access.mask, ~0u);
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(o.access.addr[l], sm + 4 * l);
    // The peer's store into this block (rank 0: and the peer's arrive).
    ASSERT_EQ(in_ev.size(), rank == 0 ? 2u : 1u);
    EXPECT_EQ(in_ev[0]->rank, rank);
    EXPECT_EQ(in_ev[0]->issuer_rank, peer);
    EXPECT_EQ(in_ev[0]->access.block.x, peer);
    // The store through the own rank's shared::cluster address: on_memory.
    uint32_t own_stores = 0;
    for (const MemAccess& a : s.mem)
      if (a.space == Space::Shared && a.op == MemOp::Store && a.mask == ~0u) {
        ++own_stores;
        for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(a.addr[l], sm + 4 * l);
      }
    EXPECT_EQ(own_stores, 1u);
  }
  // The remote arrive: an Mbarrier event for the issuer (rank 1) and, as
  // incoming, for the block holding the barrier (rank 0).
  auto arrives = [](const Seen& s) {
    std::vector<Mbarrier> v;
    for (const Mbarrier& m : s.mbar)
      if (m.kind == MbarrierKind::Arrive) v.push_back(m);
    return v;
  };
  const auto a1 = arrives(c.blocks[1]), a0 = arrives(c.blocks[0]);
  ASSERT_EQ(a1.size(), 1u);
  ASSERT_EQ(a0.size(), 1u);
  EXPECT_FALSE(a1[0].incoming);
  EXPECT_TRUE(a0[0].incoming);
  for (const Mbarrier& m : {a1[0], a0[0]}) {
    EXPECT_EQ(m.rank, 0u);
    EXPECT_EQ(m.issuer_rank, 1u);
    EXPECT_EQ(m.target.x, 0u);
    EXPECT_EQ(m.block.x, 1u);
    EXPECT_TRUE(m.completed);
    EXPECT_EQ(m.pending_before, 1u);
  }
}

}  // namespace
}  // namespace smemlab::emu::test
