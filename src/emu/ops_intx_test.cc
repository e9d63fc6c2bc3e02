// bfind, bmsk, dp4a/dp2a, mul24/mad24, sad, set and half-precision atomics:
// the PTX ISA's edge cases, expected values worked out by hand from its pseudo-code.
#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

TEST(OpsIntx, BfindFindsTheLeadingNonSignBit) {
  auto r = run_snippet(R"(
  bfind.u32 %r1, 0;
  st.global.u32 [%rd14], %r1;
  bfind.u32 %r1, -2147483648;
  st.global.u32 [%rd14+4], %r1;
  bfind.shiftamt.u32 %r1, 1;
  st.global.u32 [%rd14+8], %r1;
  bfind.shiftamt.u32 %r1, 0;
  st.global.u32 [%rd14+12], %r1;
  bfind.s32 %r1, -1;
  st.global.u32 [%rd14+16], %r1;
  bfind.s32 %r1, -2;
  st.global.u32 [%rd14+20], %r1;
  bfind.s32 %r1, 1073741824;
  st.global.u32 [%rd14+24], %r1;
  mov.u64 %rd1, 1099511627776;
  bfind.u64 %r1, %rd1;
  st.global.u32 [%rd14+28], %r1;
  neg.s64 %rd2, %rd1;
  bfind.s64 %r1, %rd2;
  st.global.u32 [%rd14+32], %r1;
  bfind.shiftamt.s64 %r1, %rd2;
  st.global.u32 [%rd14+36], %r1;)");
  SNIPPET_OK(r);
  auto w = [&](int i) { return static_cast<uint32_t>(r.at(0, i / 2) >> (32 * (i % 2))); };
  EXPECT_EQ(w(0), 0xffffffffu);  // no bit set
  EXPECT_EQ(w(1), 31u);
  EXPECT_EQ(w(2), 31u);          // shift amount to bring bit 0 to the top
  EXPECT_EQ(w(3), 0xffffffffu);  // .shiftamt keeps "not found"
  EXPECT_EQ(w(4), 0xffffffffu);  // -1 has no non-sign bit
  EXPECT_EQ(w(5), 0u);           // ~(-2) = 1
  EXPECT_EQ(w(6), 30u);
  EXPECT_EQ(w(7), 40u);
  EXPECT_EQ(w(8), 39u);  // ~(-2^40) = 2^40 - 1
  EXPECT_EQ(w(9), 24u);  // 63 - 39
}

TEST(OpsIntx, BmskClampAndWrap) {
  auto r = run_snippet(R"(
  bmsk.wrap.b32 %r1, 1, 2;
  st.global.u32 [%rd14], %r1;
  bmsk.clamp.b32 %r1, 30, 5;
  st.global.u32 [%rd14+4], %r1;
  bmsk.clamp.b32 %r1, 32, 4;
  st.global.u32 [%rd14+8], %r1;
  bmsk.wrap.b32 %r1, 32, 4;
  st.global.u32 [%rd14+12], %r1;
  bmsk.clamp.b32 %r1, 0, 32;
  st.global.u32 [%rd14+16], %r1;
  bmsk.wrap.b32 %r1, 0, 32;
  st.global.u32 [%rd14+20], %r1;
  bmsk.clamp.b32 %r1, 4, 0;
  st.global.u32 [%rd14+24], %r1;
  bmsk.clamp.b32 %r1, 8, 8;
  st.global.u32 [%rd14+28], %r1;)");
  SNIPPET_OK(r);
  auto w = [&](int i) { return static_cast<uint32_t>(r.at(0, i / 2) >> (32 * (i % 2))); };
  EXPECT_EQ(w(0), 0x6u);  // the ISA's example
  EXPECT_EQ(w(1), 0xc0000000u);
  EXPECT_EQ(w(2), 0u);    // clamp: start >= 32 gives 0
  EXPECT_EQ(w(3), 0xfu);  // wrap: start 32 is 0
  EXPECT_EQ(w(4), 0xffffffffu);
  EXPECT_EQ(w(5), 0u);  // wrap: width 32 is 0
  EXPECT_EQ(w(6), 0u);
  EXPECT_EQ(w(7), 0xff00u);
}

TEST(OpsIntx, Dp4aDp2aSignedAndUnsignedBytes) {
  auto r = run_snippet(R"(
  dp4a.u32.u32 %r1, 16909060, 84281096, 10;
  st.global.u32 [%rd14], %r1;
  mov.b32 %r2, 0xff02fd04;
  dp4a.s32.s32 %r1, %r2, 168496141, -100;
  st.global.u32 [%rd14+4], %r1;
  mov.b32 %r3, 0xff000001;
  dp4a.s32.u32 %r1, %r2, %r3, 0;
  st.global.u32 [%rd14+8], %r1;
  mov.b32 %r4, 0xfffe0003;
  dp2a.lo.s32.s32 %r1, %r4, 67305985, 5;
  st.global.u32 [%rd14+12], %r1;
  dp2a.hi.s32.s32 %r1, %r4, 67305985, 5;
  st.global.u32 [%rd14+16], %r1;)");
  SNIPPET_OK(r);
  auto w = [&](int i) { return static_cast<int32_t>(r.at(0, i / 2) >> (32 * (i % 2))); };
  EXPECT_EQ(w(0), 80);    // 1*5 + 2*6 + 3*7 + 4*8 + 10
  EXPECT_EQ(w(1), -72);   // 4*13 - 3*12 + 2*11 - 1*10 - 100
  EXPECT_EQ(w(2), -251);  // 4*1 + (-1)*255: b's bytes unsigned
  EXPECT_EQ(w(3), 4);     // 3*1 + (-2)*2 + 5
  EXPECT_EQ(w(4), 6);     // 3*3 + (-2)*4 + 5
}

TEST(OpsIntx, Mul24Mad24AndSad) {
  auto r = run_snippet(R"(
  mul24.lo.s32 %r1, -2, 16777221;
  st.global.u32 [%rd14], %r1;
  mul24.hi.u32 %r1, 16777215, 16777215;
  st.global.u32 [%rd14+4], %r1;
  mad24.lo.u32 %r1, 3, 4, 5;
  st.global.u32 [%rd14+8], %r1;
  mul24.hi.s32 %r1, -1, 65536;
  st.global.u32 [%rd14+12], %r1;
  sad.u32 %r1, 3, 10, 1;
  st.global.u32 [%rd14+16], %r1;
  sad.s32 %r1, -5, 7, 100;
  st.global.u32 [%rd14+20], %r1;
  sad.u32 %r1, 0, -1, 0;
  st.global.u32 [%rd14+24], %r1;)");
  SNIPPET_OK(r);
  auto w = [&](int i) { return static_cast<uint32_t>(r.at(0, i / 2) >> (32 * (i % 2))); };
  EXPECT_EQ(static_cast<int32_t>(w(0)), -10);  // only the low 24 bits: 5, and -2
  EXPECT_EQ(w(1), 0xfffffe00u);                // bits 47..16 of (2^24 - 1)^2
  EXPECT_EQ(w(2), 17u);
  EXPECT_EQ(w(3), 0xffffffffu);  // (-1 * 2^16) >> 16, sign-extended 48-bit product
  EXPECT_EQ(w(4), 8u);
  EXPECT_EQ(w(5), 112u);
  EXPECT_EQ(w(6), 0xffffffffu);  // unsigned: |0 - 0xffffffff|
}

TEST(OpsIntx, UnsupportedFormsAreNamed) {
  auto r = run_snippet("  mad24.hi.sat.s32 %r1, %r2, %r3, %r4;");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unsupported instruction 'mad24.hi.sat.s32'"), std::string::npos)
      << r.error;
}

}  // namespace
}  // namespace smemlab::emu::test

namespace smemlab::emu::test {
namespace {

// set (a compare writing 1.0 / all ones / 0, as cuda_fp16's hexp uses it).
TEST(OpsSet, FloatAndIntegerResults) {
  auto r = run_snippet(R"(
  mov.b16 %h1, 0x3c00;
  set.eq.f16.f16 %h2, %h1, %h1;
  st.global.b16 [%rd14], %h2;
  set.lt.f16.f16 %h3, %h1, %h1;
  st.global.b16 [%rd14+2], %h3;
  set.gt.u32.f32 %r1, 0f40000000, 0f3f800000;
  st.global.u32 [%rd14+4], %r1;
  set.lt.s32.s32 %r2, -1, 0;
  st.global.u32 [%rd14+8], %r2;
  setp.ne.u32 %p1, 0, 0;
  set.ge.and.f32.s32 %f1, 5, 3, %p1;
  st.global.f32 [%rd14+12], %f1;
  set.ge.or.f32.s32 %f2, 5, 3, !%p1;
  st.global.f32 [%rd14+16], %f2;
  set.nan.u32.f32 %r3, 0f7fc00000, 0f00000000;
  st.global.u32 [%rd14+20], %r3;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.at(0, 0) & 0xffff, 0x3c00u);  // 1.0 in half
  EXPECT_EQ((r.at(0, 0) >> 16) & 0xffff, 0u);
  EXPECT_EQ(r.at(0, 0) >> 32, 0xffffffffu);
  EXPECT_EQ(r.at(0, 1) & 0xffffffff, 0xffffffffu);
  EXPECT_EQ(r.at(0, 1) >> 32, 0u);  // .and with a false predicate
  EXPECT_EQ(r.at(0, 2) & 0xffffffff, fbits(1.0f));
  EXPECT_EQ(r.at(0, 2) >> 32, 0xffffffffu);  // unordered comparison with a NaN
}

// atomicAdd on __half, __half2 and __nv_bfloat16: 32 threads add 1 (and 2).
TEST(OpsAtomHalf, AddF16F16x2Bf16) {
  auto r = run_snippet(R"(
  mov.b16 %h1, 0x3c00;
  atom.global.add.noftz.f16 %h2, [%rd0], %h1;
  mov.b32 %r1, 0x40003c00;
  atom.global.add.noftz.f16x2 %r2, [%rd0+4], %r1;
  mov.b16 %h3, 0x3f80;
  red.global.add.noftz.bf16 [%rd0+8], %h3;)",
                       32);
  SNIPPET_OK(r);
  EXPECT_EQ(r.at(0, 0) & 0xffff, 0x5000u);   // 32.0
  EXPECT_EQ(r.at(0, 0) >> 32, 0x54005000u);  // (32.0, 64.0)
  EXPECT_EQ(r.at(0, 1) & 0xffff, 0x4200u);   // bf16 32.0
  auto bad = run_snippet("  atom.global.max.f16 %h2, [%rd0], %h1;");
  ASSERT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("unsupported instruction 'atom.global.max.f16'"), std::string::npos);
}

}  // namespace
}  // namespace smemlab::emu::test
