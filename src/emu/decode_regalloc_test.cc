// Register coalescing (decode_regalloc.cc): slots are shared only where live
// ranges never meet, per thread, so results are unchanged under loops,
// divergence and reads of registers nothing wrote (which read zero).
#include <set>

#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

TEST(RegisterCoalescing, LoopsAndDivergenceKeepTheirValues) {
  auto r = run_snippet(R"(
  mov.u32 %r1, 0;
  mov.u32 %r2, 0;
L:
  add.u32 %r3, %r2, %r15;
  mul.lo.u32 %r4, %r3, 3;
  add.u32 %r1, %r1, %r4;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 10;
  @%p1 bra L;
  and.b32 %r10, %r15, 1;
  setp.eq.u32 %p2, %r10, 1;
  @%p2 bra ODD;
  add.u32 %r5, %r1, 100;
  bra.uni DONE;
ODD:
  add.u32 %r5, %r1, 200;
DONE:
  st.u32 [%rd14], %r5;
  st.u32 [%rd14+8], %r6;
  mov.u32 %r8, 0;
L2:
  add.u32 %r9, %r9, %r7;
  mov.u32 %r7, 5;
  add.u32 %r8, %r8, 1;
  setp.lt.u32 %p3, %r8, 3;
  @%p3 bra L2;
  st.u32 [%rd14+16], %r9;
)",
                       40);
  SNIPPET_OK(r);
  for (int t = 0; t < 40; ++t) {
    EXPECT_EQ(r.u32(0, t), 3u * (45 + 10 * t) + (t % 2 ? 200 : 100)) << t;
    EXPECT_EQ(r.u32(1, t), 0u) << t;   // never written: zero
    EXPECT_EQ(r.u32(2, t), 10u) << t;  // 0 + 5 + 5: the first read saw zero
  }
}

TEST(RegisterCoalescing, AGuardedWriteKeepsTheOldValue) {
  auto r = run_snippet(R"(
  mov.u32 %r1, 7;
  and.b32 %r2, %r15, 1;
  setp.eq.u32 %p1, %r2, 1;
  @%p1 mov.u32 %r1, 9;
  add.u32 %r3, %r15, 1;
  mul.lo.u32 %r4, %r3, %r3;
  st.u32 [%rd14], %r1;
  st.u32 [%rd14+8], %r4;
)",
                       64);
  SNIPPET_OK(r);
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ(r.u32(0, t), t % 2 ? 9u : 7u) << t;
    EXPECT_EQ(r.u32(1, t), static_cast<uint32_t>((t + 1) * (t + 1))) << t;
  }
}

// The suite's tiled matmul: its 100-odd registers, each live for an op or
// two, fit in far fewer slots.
TEST(RegisterCoalescing, NvccMatmulNeedsFewSlots) {
  Device dev;
  auto m =
      Module::load_file(dev, std::string(SMEMLAB_SOURCE_DIR) + "/tests/emu/ptx/matmul.sm90.ptx");
  const Program& p = m->kernel(m->kernel_names()[0]);
  std::set<uint32_t> slots;
  for (const Op& op : p.ops)
    for (uint32_t r : op.r)
      if (r < p.num_regs) slots.insert(r);
  EXPECT_LT(slots.size() * 2, p.num_regs) << slots.size() << " of " << p.num_regs;
}

}  // namespace
}  // namespace smemlab::emu::test
