// Loads and stores in every space (.v2/.v4, generic via cvta), atomics and
// reductions on shared and global memory, cp.async.
#include <string>

#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

TEST(OpsMemory, VectorsInSharedGlobalLocal) {
  auto r =
      run_snippet(R"(
  .shared .align 16 .b8 sm[64];
  .local .align 16 .b8 depot[32];
  mov.u32 %r1, sm;
  st.shared.v4.u32 [%r1+16], {1, 2, 3, 4};
  ld.shared.v2.u32 {%r2, %r3}, [%r1+24];
  st.global.v2.u32 [%rd14], {%r2, %r3};
  mov.u64 %rd1, depot;
  st.local.v2.f32 [%rd1+8], {0f3F800000, 0f40000000};
  cvta.local.u64 %rd2, %rd1;
  ld.f32 %f1, [%rd2+12];
  st.global.f32 [%rd14+8], %f1;
  cvta.shared.u64 %rd3, %rd1;
  cvt.u64.u32 %rd4, %r1;
  cvta.shared.u64 %rd5, %rd4;
  ld.u32 %r4, [%rd5+28];
  st.global.u32 [%rd14+16], %r4;
  ld.param.u32 %r5, [x];
  st.global.u32 [%rd14+24], %r5;
  ld.const.u32 %r6, [cvals+4];
  st.global.u32 [%rd14+32], %r6;
  ld.global.u32 %r7, [gval];
  st.global.u32 [%rd14+40], %r7;
  st.shared.u8 [%r1], -1;
  ld.shared.s8 %r8, [%r1];
  ld.shared.u8 %r9, [%r1];
  st.global.u32 [%rd14+48], %r8;
  st.global.u32 [%rd14+56], %r9;)",
                  1, ".const .align 4 .u32 cvals[2] = {5, 6};\n.global .align 4 .u32 gval = 77;\n");
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), 3u);
  EXPECT_EQ(r.at(0, 0) >> 32, 4u);
  EXPECT_EQ(r.f32(1), 2.0f);
  EXPECT_EQ(r.u32(2), 4u);
  EXPECT_EQ(r.u32(3), 7u);
  EXPECT_EQ(r.u32(4), 6u);
  EXPECT_EQ(r.u32(5), 77u);
  EXPECT_EQ(r.s32(6), -1);
  EXPECT_EQ(r.u32(7), 255u);
}

TEST(OpsMemory, AtomicsFromAWarp) {
  auto r = run_snippet(R"(
  .shared .align 4 .b8 cnt[8];
  mov.u32 %r1, cnt;
  atom.shared.add.u32 %r2, [%r1], 1;
  atom.shared.inc.u32 %r3, [%r1+4], 9;
  bar.sync 0;
  ld.shared.u32 %r4, [%r1];
  ld.shared.u32 %r5, [%r1+4];
  st.global.u32 [%rd14], %r2;
  st.global.u32 [%rd14+8], %r4;
  st.global.u32 [%rd14+16], %r5;
  atom.global.cas.b32 %r6, [%rd0+60], 0, 5;
  red.global.add.f32 [%rd0+56], 0f3F000000;
  atom.global.max.s32 %r7, [%rd0+52], %r15;
  st.global.u32 [%rd14+24], %r6;)",
                       40);
  SNIPPET_OK(r);
  std::vector<uint32_t> olds;
  for (int t = 0; t < 40; ++t) olds.push_back(r.u32(0, t));
  std::sort(olds.begin(), olds.end());
  for (uint32_t i = 0; i < 40; ++i) EXPECT_EQ(olds[i], i);
  EXPECT_EQ(r.u32(1, 39), 40u);
  EXPECT_EQ(r.u32(2, 39), 40u % 10);  // inc wraps to 0 after 9
  // Thread 0's slots 5..7 were overwritten by the global atomics on out+40..63.
  EXPECT_EQ(static_cast<uint32_t>(r.at(0, 7) >> 32), 5u);  // cas from 0 to 5, once
  EXPECT_EQ(std::bit_cast<float>(static_cast<uint32_t>(r.at(0, 7))), 20.0f);  // 40 x 0.5
  EXPECT_EQ(static_cast<uint32_t>(r.at(0, 6) >> 32), 39u);
}

TEST(OpsMemory, CpAsyncCopiesAndZeroFills) {
  auto r = run_snippet(R"(
  .shared .align 16 .b8 buf[32];
  mov.u32 %r1, buf;
  st.global.u32 [%rd14+32], 0x11223344;
  st.global.u32 [%rd14+36], 0x55667788;
  cp.async.ca.shared.global [%r1], [%rd14+32], 8;
  cp.async.ca.shared.global [%r1+8], [%rd14+32], 8, 4;
  cp.async.commit_group;
  cp.async.wait_group 0;
  ld.shared.v2.u32 {%r2, %r3}, [%r1];
  ld.shared.v2.u32 {%r4, %r5}, [%r1+8];
  st.global.v2.u32 [%rd14], {%r2, %r3};
  st.global.v2.u32 [%rd14+8], {%r4, %r5};)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.at(0, 0), 0x5566778811223344ull);
  EXPECT_EQ(r.at(0, 1), 0x0000000011223344ull);
}

TEST(OpsMemory, MisalignedAndNullAccessesAreReported) {
  auto r = run_snippet("  ld.global.u32 %r1, [%rd14+2];");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("misaligned 4-byte load"), std::string::npos) << r.error;
  auto n = run_snippet("  mov.u64 %rd1, 0;\n  ld.u32 %r1, [%rd1];");
  ASSERT_FALSE(n.ok);
  EXPECT_NE(n.error.find("not a global address"), std::string::npos) << n.error;
  auto l =
      run_snippet("  .local .align 4 .b8 d[8];\n  mov.u64 %rd1, d;\n  st.local.u32 [%rd1+8], 1;");
  ASSERT_FALSE(l.ok);
  EXPECT_NE(l.error.find("outside the thread's 8-byte frame"), std::string::npos) << l.error;
}

// Copies complete at the wait that covers their group, not at issue: what a
// thread reads before the wait is the old shared value (the zero-filled
// start), which is one legal outcome and the one that exposes missing waits.
TEST(OpsMemory, CpAsyncCompletesAtItsWait) {
  auto r = run_snippet(R"(
  .shared .align 16 .b8 buf[32];
  mov.u32 %r1, buf;
  st.global.u32 [%rd14+32], 7;
  st.global.u32 [%rd14+36], 9;
  st.global.u32 [%rd14+40], 11;
  cp.async.ca.shared.global [%r1], [%rd14+32], 4;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r1+4], [%rd14+36], 4;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r1+8], [%rd14+40], 4;
  cp.async.wait_group 1;
  ld.shared.u32 %r2, [%r1];
  ld.shared.u32 %r3, [%r1+4];
  cp.async.wait_group 0;
  ld.shared.u32 %r4, [%r1+4];
  ld.shared.u32 %r5, [%r1+8];
  cp.async.wait_all;
  ld.shared.u32 %r6, [%r1+8];
  st.global.u32 [%rd14], %r2;
  st.global.u32 [%rd14+8], %r3;
  st.global.u32 [%rd14+16], %r4;
  st.global.u32 [%rd14+24], %r5;
  st.global.u32 [%rd14+32], %r6;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), 7u);   // group 0 done by wait_group 1
  EXPECT_EQ(r.u32(1), 0u);   // group 1 still in flight
  EXPECT_EQ(r.u32(2), 9u);   // wait_group 0
  EXPECT_EQ(r.u32(3), 0u);   // never committed: wait_group does not wait for it
  EXPECT_EQ(r.u32(4), 11u);  // wait_all commits and waits
}

TEST(OpsMemory, CpAsyncBadSizeAndBoundsAreErrorsAtIssue) {
  auto size = run_snippet(R"(
  .shared .align 16 .b8 buf[32];
  mov.u32 %r1, buf;
  cp.async.cg.shared.global [%r1], [%rd14], 8;)");
  ASSERT_FALSE(size.ok);
  EXPECT_NE(size.error.find("cp.async.cg copies 16 bytes"), std::string::npos) << size.error;
  auto oob = run_snippet(R"(
  .shared .align 16 .b8 buf[32];
  mov.u32 %r1, buf;
  cp.async.cg.shared.global [%r1+32], [%rd14], 16;)");
  ASSERT_FALSE(oob.ok);
  EXPECT_NE(oob.error.find("outside the block's 32 bytes"), std::string::npos) << oob.error;
}

// Kernels of the tearing tests below: block 0's warp publishes {k, k} for
// k = 1..n with one st.volatile.v2.u64 each while block 1's warp, on another
// host thread, reads the slot n times by `reader` (PTX from label READER:
// %rd1 the slot, %r1 n; it adds to %rd7 the reads whose halves differ and
// ends with the atomic add of %rd7 to *out).
std::string torn_kernel(const char* shared_decl, const char* reader) {
  return std::string(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 slot, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
)") + shared_decl +
         R"(
  ld.param.u64 %rd1, [slot];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra READER;
  mov.u64 %rd3, 1;
WRITE:
  st.volatile.global.v2.u64 [%rd1], {%rd3, %rd3};
  add.u64 %rd3, %rd3, 1;
  cvt.u64.u32 %rd4, %r1;
  setp.le.u64 %p2, %rd3, %rd4;
  @%p2 bra WRITE;
  ret;
READER:
)" + reader +
         R"(  atom.global.add.u64 %rd9, [%rd2], %rd7;
  ret;
}
)";
}

// Runs a torn_kernel's two blocks on two host threads; *torn: the torn reads.
void torn_reads(const std::string& ptx, const char* name, uint32_t n, uint64_t* torn) {
  Device dev;
  auto m = Module::load_text(dev, ptx, name);
  const uint64_t slot = dev.malloc(16, "slot"), out = dev.malloc(8, "out");
  const uint64_t zero[2] = {0, 0};
  dev.copy_to(slot, zero, 16);
  dev.copy_to(out, zero, 8);
  LaunchConfig cfg{{2}, {32}};
  cfg.threads = 2;
  auto st = launch(*m, "k", cfg, slot, out, n);
  ASSERT_TRUE(st.ok()) << st.error->what();
  dev.copy_from(torn, out, 8);
}

// A 16-byte vector store is one access for other blocks, as on the GPU:
// block 1 polls the slot with ld.volatile.v2.u64. Element by element (all
// lanes' first halves, then their second), torn loads are frequent whenever
// the two host threads overlap (CUB's decoupled look-back read a tile's new
// status beside its old value that way). On one core the blocks cannot
// overlap, so this test can only catch the tearing where the machine has
// two cores.
TEST(OpsMemory, VectorStoresAreNotTornAcrossBlocks) {
  const std::string ptx = torn_kernel("", R"(  mov.u32 %r3, 0;
  mov.u64 %rd7, 0;
READ:
  ld.volatile.global.v2.u64 {%rd5, %rd6}, [%rd1];
  setp.ne.u64 %p3, %rd5, %rd6;
  selp.u64 %rd8, 1, 0, %p3;
  add.u64 %rd7, %rd7, %rd8;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, %r1;
  @%p2 bra READ;
)");
  uint64_t torn = ~uint64_t{0};
  torn_reads(ptx, "torn.ptx", 200000, &torn);
  EXPECT_EQ(torn, 0u) << "lane-loads that saw one half of a 16-byte store";
}

// The same for cp.async: its 16-byte copy reads global memory in one
// transaction on the GPU, so the reader block's copies of a slot that the
// writer block keeps storing whole must never hold halves of two stores.
TEST(OpsMemory, CpAsyncCopiesAreNotTornAcrossBlocks) {
  const std::string ptx = torn_kernel("  .shared .align 16 .b8 buf[512];", R"(  mov.u32 %r4, %tid.x;
  shl.b32 %r4, %r4, 4;
  mov.u32 %r5, buf;
  add.u32 %r5, %r5, %r4;
  mov.u32 %r3, 0;
  mov.u64 %rd7, 0;
READ:
  cp.async.cg.shared.global [%r5], [%rd1], 16;
  cp.async.wait_all;
  ld.shared.v2.u64 {%rd5, %rd6}, [%r5];
  setp.ne.u64 %p3, %rd5, %rd6;
  selp.u64 %rd8, 1, 0, %p3;
  add.u64 %rd7, %rd7, %rd8;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, %r1;
  @%p2 bra READ;
)");
  uint64_t torn = ~uint64_t{0};
  torn_reads(ptx, "torn_cp_async.ptx", 100000, &torn);
  EXPECT_EQ(torn, 0u) << "cp.async copies that saw one half of a 16-byte store";
}

}  // namespace
}  // namespace smemlab::emu::test
