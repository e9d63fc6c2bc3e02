// cvt: float -> int rounding and saturation (NaN -> 0), integer narrowing
// and widening, .sat, float -> float rounding, integer -> float rounding.
#include <bit>
#include <cfenv>
#include <cmath>

#include "emu/half.h"
#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

// Every binary16 pattern against the format's definition: (-1)^s x 2^-24 x
// m for subnormals, (-1)^s x 2^(e-25) x (1024 + m) for normal numbers,
// infinities and NaNs with their payload in the float's top mantissa bits.
TEST(HalfToFloat, EveryPatternIsExact) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint32_t s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    const float got = half_to_float(static_cast<uint16_t>(h));
    if (e == 31) {
      const uint32_t want = s << 31 | 0x7f800000u | m << 13;
      ASSERT_EQ(std::bit_cast<uint32_t>(got), want) << std::hex << h;
      continue;
    }
    const double mag =
        e == 0 ? std::ldexp(double(m), -24) : std::ldexp(double(1024 + m), int(e) - 25);
    const double want = s ? -mag : mag;
    ASSERT_EQ(double(got), want) << std::hex << h;
    ASSERT_EQ(std::signbit(got), s != 0) << std::hex << h;  // -0 stays -0
  }
}

TEST(OpsConvert, FloatToIntRoundingAndSaturation) {
  auto r = run_snippet(R"(
  cvt.rzi.s32.f32 %r1, 0fC0300000;
  cvt.rni.s32.f32 %r2, 0f40200000;
  cvt.rmi.s32.f32 %r3, 0fC0200000;
  cvt.rpi.s32.f32 %r4, 0f40100000;
  cvt.rzi.s32.f32 %r5, 0f7FC00000;
  cvt.rzi.s32.f32 %r6, 0f501502F9;
  cvt.rzi.u32.f32 %r7, 0fBF800000;
  cvt.rzi.s64.f64 %rd1, 0dC3E0000000000001;
  st.global.u32 [%rd14], %r1;
  st.global.u32 [%rd14+8], %r2;
  st.global.u32 [%rd14+16], %r3;
  st.global.u32 [%rd14+24], %r4;
  st.global.u32 [%rd14+32], %r5;
  st.global.u32 [%rd14+40], %r6;
  st.global.u32 [%rd14+48], %r7;
  st.global.u64 [%rd14+56], %rd1;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.s32(0), -2);         // -2.75 toward zero
  EXPECT_EQ(r.s32(1), 2);          // 2.5 to even
  EXPECT_EQ(r.s32(2), -3);         // -2.5 down
  EXPECT_EQ(r.s32(3), 3);          // 2.25 up
  EXPECT_EQ(r.s32(4), 0);          // NaN
  EXPECT_EQ(r.s32(5), INT32_MAX);  // 1e10 saturates
  EXPECT_EQ(r.u32(6), 0u);         // -1 to unsigned saturates at 0
  EXPECT_EQ(static_cast<int64_t>(r.at(0, 7)), INT64_MIN);
}

TEST(OpsConvert, IntegerWidths) {
  auto r = run_snippet(R"(
  mov.u32 %r1, 300;
  cvt.s8.s32 %r2, %r1;
  cvt.sat.s8.s32 %r3, %r1;
  cvt.u64.s32 %rd1, -1;
  cvt.u64.u32 %rd2, -1;
  cvt.sat.u32.s32 %r4, -5;
  cvt.s32.s8 %r5, 200;
  st.global.u32 [%rd14], %r2;
  st.global.u32 [%rd14+8], %r3;
  st.global.u64 [%rd14+16], %rd1;
  st.global.u64 [%rd14+24], %rd2;
  st.global.u32 [%rd14+32], %r4;
  st.global.u32 [%rd14+40], %r5;
  cvt.u16.u32 %h1, 70000;
  cvt.u32.u16 %r6, %h1;
  st.global.u32 [%rd14+48], %r6;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.s32(0), 44);  // 300 & 0xff, sign-extended (the register is wider)
  EXPECT_EQ(r.s32(1), 127);
  EXPECT_EQ(r.at(0, 2), ~0ull);
  EXPECT_EQ(r.at(0, 3), 0xffffffffull);
  EXPECT_EQ(r.u32(4), 0u);
  EXPECT_EQ(r.s32(5), -56);
  EXPECT_EQ(r.u32(6), 70000u & 0xffff);
}

TEST(OpsConvert, FloatFloatAndIntFloatRounding) {
  auto r = run_snippet(R"(
  mov.f64 %fd1, 0d3FF0000010000000;
  cvt.rn.f32.f64 %f1, %fd1;
  cvt.rp.f32.f64 %f2, %fd1;
  cvt.rz.f32.f64 %f3, 0d47EFFFFFF0000000;
  cvt.rn.f32.u32 %f4, 16777217;
  cvt.rp.f32.u32 %f5, 16777217;
  cvt.sat.f32.f32 %f6, 0f3FC00000;
  cvt.rni.f32.f32 %f7, 0f40600000;
  cvt.f64.f32 %fd2, 0f3DCCCCCD;
  st.global.f32 [%rd14], %f1;
  st.global.f32 [%rd14+8], %f2;
  st.global.f32 [%rd14+16], %f3;
  st.global.f32 [%rd14+24], %f4;
  st.global.f32 [%rd14+32], %f5;
  st.global.f32 [%rd14+40], %f6;
  st.global.f32 [%rd14+48], %f7;
  st.global.f64 [%rd14+56], %fd2;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.f32(0), 1.0f);
  EXPECT_EQ(r.f32(1), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(r.f32(2), std::numeric_limits<float>::max());  // rz never overflows to inf
  EXPECT_EQ(r.f32(3), 16777216.0f);
  EXPECT_EQ(r.f32(4), 16777218.0f);
  EXPECT_EQ(r.f32(5), 1.0f);
  EXPECT_EQ(r.f32(6), 4.0f);  // 3.5 to even
  EXPECT_EQ(r.f64(7), static_cast<double>(0.1f));
}

// The kernel rounds as PTX says whatever mode the launching thread set (a
// program may change its own), and the launch leaves that mode as it was;
// a directed conversion between two nearest ones does not leak its mode.
TEST(OpsConvert, RoundingIndependentOfTheCallersMode) {
  ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  auto r = run_snippet(R"(
  cvt.rn.f32.u32 %f1, 16777217;
  cvt.rp.f32.u32 %f2, 16777217;
  cvt.rn.f32.u32 %f3, 16777217;
  add.f32 %f4, 0f4B800000, 0f3F800000;
  st.global.f32 [%rd14], %f1;
  st.global.f32 [%rd14+8], %f2;
  st.global.f32 [%rd14+16], %f3;
  st.global.f32 [%rd14+24], %f4;)");
  const int after = std::fegetround();
  std::fesetround(FE_TONEAREST);
  SNIPPET_OK(r);
  EXPECT_EQ(after, FE_UPWARD);
  EXPECT_EQ(r.f32(0), 16777216.0f);
  EXPECT_EQ(r.f32(1), 16777218.0f);
  EXPECT_EQ(r.f32(2), 16777216.0f);
  EXPECT_EQ(r.f32(3), 16777216.0f);  // 2^24 + 1 to even
}

// The round-to-nearest conversions' straight loops (cvt_nearest) against
// the host's conversions (round-to-nearest-even, as .rn specifies), in
// lanes of a full warp and of one thread.
TEST(OpsConvert, NearestIntAndFloatConversions) {
  const char* body = R"(
  mov.u32 %r1, -1;
  mov.u32 %r2, 0x80000000;
  mov.u32 %r3, 0xFFFFFFFF;
  mov.u32 %r4, 16777219;
  cvt.rn.f32.s32 %f1, %r1;
  cvt.rn.f32.s32 %f2, %r2;
  cvt.rn.f32.u32 %f3, %r3;
  cvt.rn.f32.u32 %f4, %r4;
  cvt.rn.f64.s32 %fd1, %r2;
  cvt.rn.f64.u32 %fd2, %r3;
  cvt.rn.f32.f64 %f5, 0d3FB999999999999A;
  cvt.f64.f32 %fd3, 0f00000001;
  st.global.f32 [%rd14], %f1;
  st.global.f32 [%rd14+8], %f2;
  st.global.f32 [%rd14+16], %f3;
  st.global.f32 [%rd14+24], %f4;
  st.global.f64 [%rd14+32], %fd1;
  st.global.f64 [%rd14+40], %fd2;
  st.global.f32 [%rd14+48], %f5;
  st.global.f64 [%rd14+56], %fd3;)";
  for (int threads : {1, 32}) {
    auto r = run_snippet(body, threads);
    SNIPPET_OK(r);
    for (int t : {0, threads - 1}) {
      EXPECT_EQ(r.f32(0, t), -1.0f);
      EXPECT_EQ(r.f32(1, t), static_cast<float>(INT32_MIN));
      EXPECT_EQ(r.f32(2, t), static_cast<float>(UINT32_MAX));  // 2^32
      EXPECT_EQ(r.f32(3, t), 16777220.0f);                     // 2^24 + 3 to even
      EXPECT_EQ(r.f64(4, t), -2147483648.0);
      EXPECT_EQ(r.f64(5, t), 4294967295.0);
      EXPECT_EQ(r.f32(6, t), static_cast<float>(0.1));
      EXPECT_EQ(r.f64(7, t), static_cast<double>(std::bit_cast<float>(1u)));  // subnormal kept
    }
  }
}

}  // namespace
}  // namespace smemlab::emu::test
