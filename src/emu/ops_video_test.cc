// The SIMD video instructions: cases worked out by hand from the PTX ISA's
// pseudo-code (programs.video_simd compares all forms with the H100).
#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

TEST(OpsVideo, ElementwiseSaturationAverageAndAccumulate) {
  auto r = run_snippet(R"(
  mov.b32 %r1, 0xff7f0180;
  mov.b32 %r2, 0x02020202;
  vadd4.u32.u32.u32.sat %r3, %r1, %r2, 0;
  st.global.u32 [%rd14], %r3;
  mov.b32 %r1, 0x80000005;
  mov.b32 %r2, 0x00017fff;
  vsub2.s32.s32.s32.sat %r3, %r1, %r2, 0;
  st.global.u32 [%rd14+4], %r3;
  mov.b32 %r1, 0x01030507;
  mov.b32 %r2, 0x02020202;
  vavrg4.u32.u32.u32 %r3, %r1, %r2, 0;
  st.global.u32 [%rd14+8], %r3;
  mov.b32 %r1, 0x00050010;
  mov.b32 %r2, 0x00080004;
  vabsdiff2.u32.u32.u32.add %r3, %r1, %r2, 100;
  st.global.u32 [%rd14+12], %r3;
  mov.b32 %r1, 0xff00fffe;
  mov.b32 %r2, 0x00020001;
  vadd2.s32.s32.u32 %r3, %r1, %r2, 0;
  st.global.u32 [%rd14+16], %r3;)");
  SNIPPET_OK(r);
  auto w = [&](int i) { return static_cast<uint32_t>(r.at(0, i / 2) >> (32 * (i % 2))); };
  EXPECT_EQ(w(0), 0xff810382u);  // bytes 0x80+2, 1+2, 0x7f+2, 0xff+2 clamped to 0xff
  EXPECT_EQ(w(1), 0x80008006u);  // 5-32767 = -32762; -32768-1 clamped to -32768
  EXPECT_EQ(w(2), 0x02030405u);  // (x+2+1)>>1 per byte
  EXPECT_EQ(w(3), 115u);         // 100 + |16-4| + |5-8|
  EXPECT_EQ(w(4), 0xff02ffffu);  // -2+1 = -1, -256+2 = -254 = 0xff02 (b unsigned)
}

TEST(OpsVideo, MasksAndSelectorsPickFromBothOperands) {
  auto r = run_snippet(R"(
  mov.b32 %r1, 0x01020304;
  mov.b32 %r2, 0x04030201;
  mov.b32 %r4, 0xaabbccdd;
  vset4.u32.u32.lt %r3.b20, %r1, %r2, %r4;
  st.global.u32 [%rd14], %r3;
  mov.b32 %r1, 0x00030002;
  mov.b32 %r2, 0x00070001;
  vmax2.u32.u32.u32 %r3, %r1.h23, %r2.h01, 0;
  st.global.u32 [%rd14+4], %r3;
  vmin4.u32.u32.u32 %r3.b31, %r1.b4444, %r2.b0000, %r4;
  st.global.u32 [%rd14+8], %r3;
  vset2.s32.s32.ge.add %r3.h1, %r1, %r2, 10;
  st.global.u32 [%rd14+12], %r3;)");
  SNIPPET_OK(r);
  auto w = [&](int i) { return static_cast<uint32_t>(r.at(0, i / 2) >> (32 * (i % 2))); };
  // byte 3: 1<4, byte 2: 2<3 (1), byte 1: 3<2, byte 0: 4<1 (0); bytes 3 and 1 from c
  EXPECT_EQ(w(0), 0xaa01cc00u);
  // half-words of b:a: h0=2 h1=3 h2=1 h3=7; a picks (h2, h3), b (h0, h1)
  EXPECT_EQ(w(1), 0x00020007u);
  // min(byte 4 = 1, byte 0 = 2) = 1 in bytes 3 and 1; bytes 2 and 0 from c
  EXPECT_EQ(w(2), 0x01bb01ddu);
  // only the high half-words count: 3 >= 7 is false: 10 + 0
  EXPECT_EQ(w(3), 10u);
}

TEST(OpsVideo, FormsTheIsaDoesNotDefineAreRefused) {
  EXPECT_NE(run_snippet("vadd4.u32.u32.u32.sat.add %r3, %r1, %r2, 0;").error.find("unsupported"),
            std::string::npos);
  EXPECT_NE(run_snippet("vadd2.u32.u32.u32 %r3, %r1.b3210, %r2, 0;").error.find("unsupported"),
            std::string::npos);
  EXPECT_NE(run_snippet("vset2.u32.u32 %r3, %r1, %r2, 0;").error.find("unsupported"),
            std::string::npos);
  // Scalar video instructions are refused by name.
  EXPECT_NE(run_snippet("vadd.u32.u32.u32 %r3, %r1, %r2;").error.find("'vadd.u32.u32.u32'"),
            std::string::npos);
  EXPECT_NE(run_snippet("vmad.s32.s32.s32 %r3, -%r1, %r2, %r4;").error.find("vmad"),
            std::string::npos);
}

}  // namespace
}  // namespace smemlab::emu::test
