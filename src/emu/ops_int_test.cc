// Integer and bit instructions: wrap-around, widths, shift counts >= width,
// division by zero, bit-field edge cases.
#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

TEST(OpsInt, AddSubMulWrapAndWiden) {
  auto r = run_snippet(R"(
  mov.u32 %r1, 2147483647;
  add.s32 %r2, %r1, 1;
  st.global.u32 [%rd14], %r2;
  mov.u32 %r3, -3;
  mov.u32 %r4, 1000000000;
  mul.lo.s32 %r5, %r3, %r4;
  st.global.u32 [%rd14+8], %r5;
  mul.hi.s32 %r6, %r3, %r4;
  st.global.u32 [%rd14+16], %r6;
  mul.hi.u32 %r7, %r3, %r4;
  st.global.u32 [%rd14+24], %r7;
  mul.wide.s32 %rd1, %r3, %r4;
  st.global.u64 [%rd14+32], %rd1;
  mul.wide.u32 %rd2, %r3, %r4;
  st.global.u64 [%rd14+40], %rd2;
  mad.lo.s32 %r8, %r3, %r4, 7;
  st.global.u32 [%rd14+48], %r8;
  mov.u64 %rd3, -1;
  mad.wide.s32 %rd4, %r3, 2, %rd3;
  st.global.u64 [%rd14+56], %rd4;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.s32(0), INT32_MIN);
  EXPECT_EQ(r.s32(1), static_cast<int32_t>(-3000000000LL));
  EXPECT_EQ(r.s32(2), static_cast<int32_t>((-3000000000LL) >> 32));
  EXPECT_EQ(r.u32(3), static_cast<uint32_t>((uint64_t{0xfffffffdu} * 1000000000u) >> 32));
  EXPECT_EQ(static_cast<int64_t>(r.at(0, 4)), -3000000000LL);
  EXPECT_EQ(r.at(0, 5), uint64_t{0xfffffffdu} * 1000000000u);
  EXPECT_EQ(r.s32(6), static_cast<int32_t>(-3000000000LL + 7));
  EXPECT_EQ(static_cast<int64_t>(r.at(0, 7)), -7);
}

TEST(OpsInt, ShiftCountsAtOrBeyondWidth) {
  auto r = run_snippet(R"(
  mov.u32 %r1, -16;
  shl.b32 %r2, %r1, 32;
  st.global.u32 [%rd14], %r2;
  shr.s32 %r3, %r1, 40;
  st.global.u32 [%rd14+8], %r3;
  shr.u32 %r4, %r1, 33;
  st.global.u32 [%rd14+16], %r4;
  shr.s32 %r5, %r1, 2;
  st.global.u32 [%rd14+24], %r5;
  mov.u64 %rd1, 1;
  shl.b64 %rd2, %rd1, 63;
  st.global.u64 [%rd14+32], %rd2;
  shl.b64 %rd3, %rd1, 64;
  st.global.u64 [%rd14+40], %rd3;
  shf.l.wrap.b32 %r6, %r1, %r1, 36;
  st.global.u32 [%rd14+48], %r6;
  shf.r.clamp.b32 %r7, %r1, 0, 40;
  st.global.u32 [%rd14+56], %r7;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), 0u);
  EXPECT_EQ(r.s32(1), -1);
  EXPECT_EQ(r.u32(2), 0u);
  EXPECT_EQ(r.s32(3), -4);
  EXPECT_EQ(r.at(0, 4), 1ull << 63);
  EXPECT_EQ(r.at(0, 5), 0u);
  EXPECT_EQ(r.u32(6), (0xfffffff0u << 4) | (0xfffffff0u >> 28));  // rotate left by 36 % 32
  EXPECT_EQ(r.u32(7), 0u);  // clamp: shift by 32 of {0 : r1} right leaves 0
}

TEST(OpsInt, DivisionEdgeCases) {
  auto r = run_snippet(R"(
  mov.u32 %r1, 7;
  mov.u32 %r2, 0;
  div.u32 %r3, %r1, %r2;
  st.global.u32 [%rd14], %r3;
  rem.u32 %r4, %r1, %r2;
  st.global.u32 [%rd14+8], %r4;
  mov.u32 %r5, -2147483648;
  div.s32 %r6, %r5, -1;
  st.global.u32 [%rd14+16], %r6;
  rem.s32 %r7, %r5, -1;
  st.global.u32 [%rd14+24], %r7;
  div.s32 %r8, -7, 2;
  st.global.u32 [%rd14+32], %r8;
  rem.s32 %r9, -7, 2;
  st.global.u32 [%rd14+40], %r9;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), 0xffffffffu);
  EXPECT_EQ(r.u32(1), 7u);
  EXPECT_EQ(r.s32(2), INT32_MIN);
  EXPECT_EQ(r.s32(3), 0);
  EXPECT_EQ(r.s32(4), -3);
  EXPECT_EQ(r.s32(5), -1);
}

TEST(OpsInt, BitOps) {
  auto r = run_snippet(R"(
  mov.u32 %r1, 0xF0F0ABCD;
  popc.b32 %r2, %r1;
  st.global.u32 [%rd14], %r2;
  clz.b32 %r3, 0;
  st.global.u32 [%rd14+8], %r3;
  brev.b32 %r4, 1;
  st.global.u32 [%rd14+16], %r4;
  bfe.u32 %r5, %r1, 4, 8;
  st.global.u32 [%rd14+24], %r5;
  bfe.s32 %r6, %r1, 28, 8;
  st.global.u32 [%rd14+32], %r6;
  bfi.b32 %r7, 0xF, %r1, 8, 4;
  st.global.u32 [%rd14+40], %r7;
  prmt.b32 %r8, 0x33221100, 0x77665544, 0x1F46;
  st.global.u32 [%rd14+48], %r8;
  min.u32 %r9, -1, 5;
  min.s32 %r10, -1, 5;
  add.u32 %r11, %r9, %r10;
  abs.s32 %r12, -2147483648;
  xor.b32 %r13, %r11, %r12;
  st.global.u32 [%rd14+56], %r13;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), static_cast<uint32_t>(__builtin_popcount(0xF0F0ABCDu)));
  EXPECT_EQ(r.u32(1), 32u);
  EXPECT_EQ(r.u32(2), 0x80000000u);
  EXPECT_EQ(r.u32(3), 0xBCu);
  EXPECT_EQ(r.s32(4), -1);  // bits 28..31 = 0xF, sign-extended beyond the word
  EXPECT_EQ(r.u32(5), 0xF0F0AFCDu);
  EXPECT_EQ(r.u32(6), 0x11004466u);  // selectors 6, 4, F (sign of byte 7: 0x00), 1
  EXPECT_EQ(r.u32(7), (5u + 0xFFFFFFFFu) ^ 0x80000000u);
}

TEST(OpsInt, SetpSelpAndPredicateLogic) {
  auto r = run_snippet(R"(
  setp.lt.s32 %p1, -1, 0;
  setp.lt.u32 %p2, -1, 0;
  setp.ne.and.s32 %p3|%p4, 1, 2, %p1;
  or.pred %p5, %p2, %p4;
  not.pred %p6, %p5;
  selp.u32 %r1, 10, 20, %p1;
  selp.u32 %r2, 10, 20, %p2;
  selp.u32 %r3, 1, 0, %p3;
  selp.u32 %r4, 1, 0, %p6;
  st.global.u32 [%rd14], %r1;
  st.global.u32 [%rd14+8], %r2;
  st.global.u32 [%rd14+16], %r3;
  st.global.u32 [%rd14+24], %r4;
  mov.pred %p7, 0;
  @!%p7 mov.u32 %r5, 99;
  @%p7 mov.u32 %r5, 11;
  st.global.u32 [%rd14+32], %r5;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), 10u);
  EXPECT_EQ(r.u32(1), 20u);
  EXPECT_EQ(r.u32(2), 1u);
  EXPECT_EQ(r.u32(3), 1u);  // p4 = !(1!=2) and p1 = false; p5 = false; p6 = true
  EXPECT_EQ(r.u32(4), 99u);
}

TEST(OpsInt, CarryChains) {
  // 0x00000001_FFFFFFFF + 0x00000002_00000001 with 32-bit halves, then
  // subtraction with borrow, then a 32x32 -> 64 product through mad.lo.cc/madc.hi.
  auto r = run_snippet(R"(
  add.cc.u32 %r1, -1, 1;
  addc.u32 %r2, 1, 2;
  st.global.v2.u32 [%rd14], {%r1, %r2};
  sub.cc.u32 %r3, 0, 1;
  subc.cc.u32 %r4, 5, 2;
  subc.u32 %r5, 9, 0;
  st.global.v2.u32 [%rd14+8], {%r3, %r4};
  st.global.u32 [%rd14+16], %r5;
  mov.u32 %r6, -5;
  mad.lo.cc.u32 %r7, %r6, %r6, 10;
  madc.hi.u32 %r8, %r6, %r6, 0;
  st.global.v2.u32 [%rd14+24], {%r7, %r8};)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.at(0, 0), 0x0000000400000000ull);
  EXPECT_EQ(r.at(0, 1), (uint64_t{2} << 32) | 0xFFFFFFFFu);  // 0 - 1 borrows; 5 - 2 - 1 = 2
  EXPECT_EQ(r.u32(2), 9u);                                   // no borrow left
  uint64_t p = uint64_t{0xFFFFFFFBu} * 0xFFFFFFFBu + 10;
  EXPECT_EQ(r.at(0, 3), p);
}

}  // namespace
}  // namespace smemlab::emu::test
