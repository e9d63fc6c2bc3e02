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

// %tid.x/y/z of every thread, over block shapes whose warps lie inside one
// row (filled without carries), wrap across rows (the counting loop), or
// both (x = 40: warp 0 inside row 0, warp 1 wraps), and a partial last
// warp; against the index arithmetic of the CUDA programming guide.
TEST(BlockSetup, ThreadIndicesOfEveryBlockShape) {
  const char* text = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %ntid.y;
  mad.lo.u32 %r6, %r3, %r5, %r2;
  mad.lo.u32 %r7, %r6, %r4, %r1;
  mul.lo.u32 %r8, %r7, 3;
  mul.wide.u32 %rd2, %r8, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  st.global.u32 [%rd3+4], %r2;
  st.global.u32 [%rd3+8], %r3;
  ret;
}
)";
  struct Shape {
    uint32_t x, y, z;
  };
  for (Shape s : {Shape{64, 3, 2}, Shape{32, 1, 1}, Shape{40, 3, 2}, Shape{48, 2, 3},
                  Shape{16, 4, 2}, Shape{96, 1, 1}, Shape{100, 1, 1}, Shape{1, 33, 1}}) {
    Device dev;
    auto m = Module::load_text(dev, text, "k.ptx");
    const uint32_t n = s.x * s.y * s.z;
    uint64_t out = dev.malloc(n * 12);
    LaunchConfig cfg{{2}, {s.x, s.y, s.z}};
    cfg.threads = 1;
    auto st = launch(*m, "k", cfg, out);
    ASSERT_TRUE(st.ok()) << st.error->what();
    std::vector<uint32_t> v(n * 3);
    dev.copy_from(v.data(), out, v.size() * 4);
    for (uint32_t z = 0; z < s.z; ++z)
      for (uint32_t y = 0; y < s.y; ++y)
        for (uint32_t x = 0; x < s.x; ++x) {
          const uint32_t t = (z * s.y + y) * s.x + x;
          EXPECT_EQ(v[t * 3], x) << s.x << "x" << s.y << "x" << s.z << " thread " << t;
          EXPECT_EQ(v[t * 3 + 1], y) << s.x << "x" << s.y << "x" << s.z << " thread " << t;
          EXPECT_EQ(v[t * 3 + 2], z) << s.x << "x" << s.y << "x" << s.z << " thread " << t;
        }
  }
}

}  // namespace
}  // namespace smemlab::emu
