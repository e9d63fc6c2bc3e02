// Block set-up: a block's registers start as the template (zero or the
// constant) wherever a thread may read them before writing them, even when
// the runner's previous block left other values in the same slots.
#include <gtest/gtest.h>

#include <vector>

#include "emu/launch.h"

namespace smemlab::emu {
namespace {

// Odd threads read %r1 before any write (the write is skipped for them);
// even threads write it first. Over many blocks on one host thread, the odd
// threads must still read zero, and the loop's counter must start from its
// constant each block.
TEST(BlockSetup, RegistersReadBeforeWrittenStartFromTheTemplate) {
  const char* text = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  and.b32 %r4, %r2, 1;
  setp.ne.u32 %p1, %r4, 0;
  @%p1 bra SKIP;
  add.u32 %r1, %r3, 77;
SKIP:
  mov.u32 %r5, 0;
LOOP:
  add.u32 %r1, %r1, 1000;
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p2, %r5, 3;
  @%p2 bra LOOP;
  mad.lo.u32 %r6, %r3, 64, %r2;
  mul.wide.u32 %rd2, %r6, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";
  Device dev;
  auto m = Module::load_text(dev, text, "k.ptx");
  const uint32_t blocks = 8, threads = 64;
  uint64_t out = dev.malloc(blocks * threads * 4);
  LaunchConfig cfg{{blocks}, {threads}};
  cfg.threads = 1;  // one runner: every block reuses the previous one's slots
  auto st = launch(*m, "k", cfg, out);
  ASSERT_TRUE(st.ok()) << st.error->what();
  std::vector<uint32_t> v(blocks * threads);
  dev.copy_from(v.data(), out, v.size() * 4);
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t t = 0; t < threads; ++t)
      EXPECT_EQ(v[b * threads + t], (t % 2 ? 0u : b + 77) + 3000u) << b << " " << t;
}

}  // namespace
}  // namespace smemlab::emu
