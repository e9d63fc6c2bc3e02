// Failures are reported, never crash: unsupported instructions at decode time
// with their position, out-of-bounds accesses with block/thread/line,
// deadlocks with where each warp waits, runaway loops by the budget.
#include "emu_test_util.h"

namespace smemlab::emu::test {
namespace {

const char* kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n";

TEST(Errors, UnsupportedInstructionNamesItselfAndItsLine) {
  Device dev;
  auto m = Module::load_text(dev, std::string(kHeader) + R"(.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 1;
  fns.b32 %r2, %r1, %r1, %r1;
  ret;
}
)",
                             "u.ptx");
  try {
    m->kernel("k");
    FAIL() << "decoded";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "u.ptx:8:3: unsupported instruction 'fns.b32'");
  }
}

TEST(Errors, OutOfBoundsGlobalStoreNamesBlockThreadAndLine) {
  Device dev;
  auto m = Module::load_file(dev, ptx_path("vecadd.sm90.ptx"));
  int n = 100;
  uint64_t a = dev.malloc(n * 4), b = dev.malloc(n * 4), c = dev.malloc((n - 1) * 4);
  auto st = launch(*m, find_kernel(*m, "vecAdd"), {{1}, {128}}, a, b, c, n);
  ASSERT_FALSE(st.ok());
  const LaunchError& e = *st.error;
  EXPECT_EQ(e.kind, FaultKind::OutOfBounds);
  EXPECT_EQ(e.block, (Dim3{0, 0, 0}));
  EXPECT_EQ(e.thread, (Dim3{99, 0, 0}));
  EXPECT_EQ(e.instruction, "st.global.f32");
  EXPECT_NE(e.source.find("vecadd.cu:4"), std::string::npos) << e.source;
  EXPECT_NE(e.what().find("4 bytes past the end"), std::string::npos) << e.what();
}

TEST(Errors, SharedOutOfBounds) {
  Device dev;
  auto m = Module::load_file(dev, ptx_path("reverse.sm90.ptx"));
  uint64_t d = dev.malloc(256 * 4);
  // Dynamic shared memory too small for 256 ints.
  auto st = launch(*m, find_kernel(*m, "reverseDynamic"), {{1}, {256}, 512}, d, 256);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::OutOfBounds);
  EXPECT_EQ(st.error->thread.x, 128u);
  EXPECT_EQ(st.error->instruction, "st.shared.u32");
}

TEST(Errors, DeadlockReportsWhereWarpsWait) {
  Device dev;
  auto m = Module::load_text(dev, std::string(kHeader) + R"(.visible .entry k()
{
  .reg .b32 %r<3>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra $L_skip;
  bar.sync 0;
$L_skip:
  bar.sync 1;
  ret;
}
)",
                             "d.ptx");
  auto st = launch(*m, "k", {{1}, {64}});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::Deadlock);
  EXPECT_NE(st.error->message.find("warp 0 lanes 0xffffffff wait at bar.sync (PTX line 13"),
            std::string::npos)
      << st.error->message;
  EXPECT_NE(st.error->message.find("warp 1 lanes 0xffffffff wait at bar.sync (PTX line 11"),
            std::string::npos)
      << st.error->message;
}

TEST(Errors, BudgetStopsEndlessLoop) {
  Device dev;
  auto m = Module::load_text(dev, std::string(kHeader) + R"(.visible .entry k()
{
$L_top:
  bra.uni $L_top;
}
)",
                             "l.ptx");
  LaunchConfig cfg{{1}, {32}};
  cfg.budget = 10000;
  auto st = launch(*m, "k", cfg);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::Budget);
  EXPECT_EQ(st.error->ptx_line, 7);
}

TEST(Errors, BadLaunchArguments) {
  Device dev;
  auto m = Module::load_file(dev, ptx_path("vecadd.sm90.ptx"));
  auto st = launch(*m, find_kernel(*m, "vecAdd"), {{1}, {32}}, uint64_t{0});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::Launch);
  auto st2 = launch(*m, find_kernel(*m, "vecAdd"), {{1}, {2048}}, uint64_t{0}, uint64_t{0},
                    uint64_t{0}, 1);
  ASSERT_FALSE(st2.ok());
}

}  // namespace
}  // namespace smemlab::emu::test
