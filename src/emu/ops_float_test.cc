// Float instructions: NaN and infinity rules, denormals with and without
// .ftz, rounding modes, fused multiply-add, min/max, approximations.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

TEST(OpsFloat, NanInfAndDenormals) {
  auto r = run_snippet(R"(
  mov.f32 %f1, 0f7F800000;
  sub.f32 %f2, %f1, %f1;
  st.global.f32 [%rd14], %f2;
  mov.f32 %f3, 0f00000001;
  add.f32 %f4, %f3, %f3;
  st.global.f32 [%rd14+8], %f4;
  add.ftz.f32 %f5, %f3, %f3;
  st.global.f32 [%rd14+16], %f5;
  mul.f32 %f6, %f1, 0f00000000;
  st.global.f32 [%rd14+24], %f6;
  div.rn.f32 %f7, 0f3F800000, 0f00000000;
  st.global.f32 [%rd14+32], %f7;
  setp.nan.f32 %p1, %f2, %f2;
  setp.equ.f32 %p2, %f2, 0f3F800000;
  setp.eq.f32 %p3, %f2, %f2;
  selp.u32 %r1, 1, 0, %p1;
  selp.u32 %r2, 2, 0, %p2;
  selp.u32 %r3, 4, 0, %p3;
  add.u32 %r4, %r1, %r2;
  add.u32 %r5, %r4, %r3;
  st.global.u32 [%rd14+40], %r5;
  testp.subnormal.f32 %p4, %f3;
  selp.u32 %r6, 1, 0, %p4;
  st.global.u32 [%rd14+48], %r6;)");
  SNIPPET_OK(r);
  EXPECT_TRUE(std::isnan(r.f32(0)));
  EXPECT_EQ(r.u32(1), 2u);            // denormal arithmetic kept
  EXPECT_EQ(r.u32(2), 0u);            // .ftz flushes
  EXPECT_TRUE(std::isnan(r.f32(3)));  // inf * 0
  EXPECT_EQ(r.f32(4), std::numeric_limits<float>::infinity());
  EXPECT_EQ(r.u32(5), 3u);  // nan: true, equ: true (unordered), eq: false
  EXPECT_EQ(r.u32(6), 1u);
}

TEST(OpsFloat, RoundingModesAndFma) {
  // 1 + 2^-24 is a tie between 1 and 1 + 2^-23 (rn: even -> 1; rp -> 1 + 2^-23).
  auto r = run_snippet(R"(
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f33800000;
  add.rn.f32 %f3, %f1, %f2;
  add.rp.f32 %f4, %f1, %f2;
  add.rz.f32 %f5, %f1, %f2;
  sub.rm.f32 %f6, 0f00000000, %f2;
  st.global.f32 [%rd14], %f3;
  st.global.f32 [%rd14+8], %f4;
  st.global.f32 [%rd14+16], %f5;
  st.global.f32 [%rd14+24], %f6;
  mov.f32 %f7, 0f3F800800;
  mul.f32 %f8, %f7, %f7;
  fma.rn.f32 %f9, %f7, %f7, 0fBF800000;
  sub.f32 %f10, %f8, 0f3F800000;
  st.global.f32 [%rd14+32], %f9;
  st.global.f32 [%rd14+40], %f10;
  div.rz.f32 %f11, 0f3F800000, 0f40400000;
  st.global.f32 [%rd14+48], %f11;
  mov.f64 %fd1, 0d3FF0000000000000;
  div.rn.f64 %fd2, %fd1, 0d4008000000000000;
  st.global.f64 [%rd14+56], %fd2;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.f32(0), 1.0f);
  EXPECT_EQ(r.f32(1), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(r.f32(2), 1.0f);
  EXPECT_EQ(r.f32(3), -std::ldexp(1.0f, -24));
  float x = 1.0f + std::ldexp(1.0f, -12);
  EXPECT_EQ(r.f32(4), std::fma(x, x, -1.0f));  // single rounding keeps the 2^-24 term
  EXPECT_EQ(r.f32(5), x * x - 1.0f);
  EXPECT_NE(r.f32(4), r.f32(5));
  EXPECT_EQ(r.f32(6), std::nextafter(1.0f / 3.0f, 0.0f));  // 1/3 rounded down
  EXPECT_EQ(r.f64(7), 1.0 / 3.0);
}

TEST(OpsFloat, MinMaxSqrtAndApproximations) {
  auto r = run_snippet(R"(
  mov.f32 %f1, 0f7FC00000;
  min.f32 %f2, %f1, 0f40000000;
  st.global.f32 [%rd14], %f2;
  max.f32 %f3, 0f80000000, 0f00000000;
  st.global.f32 [%rd14+8], %f3;
  sqrt.rn.f32 %f4, 0f40000000;
  st.global.f32 [%rd14+16], %f4;
  sqrt.rn.f32 %f5, 0fBF800000;
  st.global.f32 [%rd14+24], %f5;
  ex2.approx.ftz.f32 %f6, 0f3FC00000;
  st.global.f32 [%rd14+32], %f6;
  rcp.approx.ftz.f32 %f7, 0f40400000;
  st.global.f32 [%rd14+40], %f7;
  rsqrt.approx.f32 %f8, 0f40800000;
  st.global.f32 [%rd14+48], %f8;
  abs.f32 %f9, 0fFF800000;
  neg.f32 %f10, %f9;
  st.global.f32 [%rd14+56], %f10;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.f32(0), 2.0f);
  EXPECT_EQ(r.u32(1), 0u);  // max(-0, +0) = +0
  EXPECT_EQ(r.f32(2), std::sqrt(2.0f));
  EXPECT_TRUE(std::isnan(r.f32(3)));
  EXPECT_NEAR(r.f32(4), std::exp2(1.5),
              std::exp2(1.5) * std::ldexp(1.0, -22));  // ISA: 2^-22.5 relative
  EXPECT_NEAR(r.f32(5), 1.0 / 3.0, std::ldexp(1.0, -23));
  EXPECT_EQ(r.f32(6), 0.5f);
  EXPECT_EQ(r.f32(7), -std::numeric_limits<float>::infinity());
}

TEST(OpsFloat, HalfPrecision) {
  auto r = run_snippet(R"(
  cvt.rn.f16.f32 %h1, 0f3FC00000;
  cvt.rn.f16.f32 %h2, 0f40100000;
  add.f16 %h3, %h1, %h2;
  mul.rn.f16 %h4, %h3, %h3;
  cvt.f32.f16 %f1, %h4;
  st.global.f32 [%rd14], %f1;
  cvt.rn.f16.f32 %h5, 0f477FF000;
  cvt.f32.f16 %f2, %h5;
  st.global.f32 [%rd14+8], %f2;
  mov.b32 %r1, {%h1, %h2};
  add.rn.f16x2 %r2, %r1, %r1;
  mov.b32 {%h6, %h7}, %r2;
  cvt.f32.f16 %f3, %h7;
  st.global.f32 [%rd14+16], %f3;
  cvt.rn.f16x2.f32 %r3, 0f40000000, 0f3F800000;
  st.global.u32 [%rd14+32], %r3;
  cvt.rn.bf16.f32 %h8, 0f3F808000;
  cvt.f32.bf16 %f4, %h8;
  st.global.f32 [%rd14+24], %f4;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.f32(0), 14.0625f);                                // (1.5 + 2.25)^2
  EXPECT_EQ(r.f32(1), std::numeric_limits<float>::infinity());  // 65520 rounds to inf in f16
  EXPECT_EQ(r.f32(2), 4.5f);
  EXPECT_EQ(r.f32(3), 1.0f);         // 1 + 2^-8 is a tie in bf16: to even
  EXPECT_EQ(r.u32(4), 0x40003C00u);  // {2.0 (upper), 1.0 (lower)} as f16
}

// min/max.NaN (CUTLASS 3's amax epilogue, example 54): a NaN operand gives
// the canonical NaN (0x7fffffff; 0x7fff in f16 and bf16, per half of an x2)
// where plain min/max return the other operand; without NaNs the same as
// min/max, -0 < +0 included.
TEST(OpsFloat, MinMaxNaNReturnsTheCanonicalNaN) {
  auto r = run_snippet(R"(
  mov.f32 %f1, 0f7FC00001;
  max.NaN.f32 %f2, %f1, 0f40000000;
  st.global.f32 [%rd14], %f2;
  min.NaN.f32 %f3, 0f40000000, %f1;
  st.global.f32 [%rd14+8], %f3;
  max.f32 %f4, %f1, 0f40000000;
  st.global.f32 [%rd14+16], %f4;
  max.NaN.f32 %f5, 0f80000000, 0f00000000;
  st.global.f32 [%rd14+24], %f5;
  min.NaN.f32 %f6, 0fC0000000, 0f3F800000;
  st.global.f32 [%rd14+32], %f6;
  mov.b32 %r1, 0x7E003C00;
  mov.b32 %r2, 0x40004000;
  max.NaN.f16x2 %r3, %r1, %r2;
  st.global.u32 [%rd14+40], %r3;
  mov.b16 %h1, 0x7FC1;
  mov.b16 %h2, 0x3F80;
  min.NaN.bf16 %h3, %h2, %h1;
  cvt.u32.u16 %r4, %h3;
  st.global.u32 [%rd14+48], %r4;
  mov.b16 %h5, 0x4000;
  max.NaN.bf16 %h4, %h2, %h5;
  cvt.u32.u16 %r5, %h4;
  st.global.u32 [%rd14+56], %r5;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), 0x7fffffffu);
  EXPECT_EQ(r.u32(1), 0x7fffffffu);
  EXPECT_EQ(r.f32(2), 2.0f);  // plain max: the number
  EXPECT_EQ(r.u32(3), 0u);    // max(-0, +0) = +0
  EXPECT_EQ(r.f32(4), -2.0f);
  EXPECT_EQ(r.u32(5), 0x7fff4000u);  // {NaN, 1.0} vs {2.0, 2.0}: {canonical NaN, 2.0}
  EXPECT_EQ(r.u32(6), 0x7fffu);
  EXPECT_EQ(r.u32(7), 0x4000u);  // bf16 2.0
}

// The NaNs the H100 returns (measured, docs/emulator.md "NaN results"): f32
// add, sub, mul, fma and min of two NaNs the canonical 0x7fffffff whatever
// the payloads; f64 the second operand's NaN before the first's, quieted.
TEST(OpsFloat, NaNResultsAreTheH100s) {
  auto r = run_snippet(R"(
  mov.b32 %f1, 0x7FC01234;
  mov.b32 %f2, 0xFFC0ABCD;
  mov.b32 %f3, 0x7F800001;
  add.f32 %f4, %f1, 0f3F800000;
  st.global.f32 [%rd14], %f4;
  mul.f32 %f5, %f2, %f1;
  st.global.f32 [%rd14+8], %f5;
  fma.rn.f32 %f6, %f1, %f2, %f3;
  st.global.f32 [%rd14+16], %f6;
  min.f32 %f8, %f1, %f2;
  st.global.f32 [%rd14+24], %f8;
  mov.b64 %fd1, 0x7FF8000000001234;
  mov.b64 %fd2, 0xFFF800000000ABCD;
  mov.b64 %fd3, 0x7FF0000000000001;
  add.f64 %fd4, %fd1, %fd2;
  st.global.f64 [%rd14+32], %fd4;
  mul.f64 %fd5, %fd2, %fd1;
  st.global.f64 [%rd14+40], %fd5;
  fma.rn.f64 %fd6, %fd1, %fd2, %fd1;
  st.global.f64 [%rd14+48], %fd6;
  add.f64 %fd7, %fd3, 0d3FF0000000000000;
  st.global.f64 [%rd14+56], %fd7;)");
  SNIPPET_OK(r);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.u32(i), 0x7fffffffu) << i;
  EXPECT_EQ(r.at(0, 4), 0xfff800000000abcdull);  // b's
  EXPECT_EQ(r.at(0, 5), 0x7ff8000000001234ull);  // b's
  EXPECT_EQ(r.at(0, 6), 0xfff800000000abcdull);  // b's
  EXPECT_EQ(r.at(0, 7), 0x7ff8000000000001ull);  // the signalling NaN quieted
}

// The slow path's NaNs as the GPU's (tests/validation/nan/, measured on an
// H200, whose SM is the H100's): every f32 NaN result canonical (an invalid
// sqrt, lg2 of a NaN, abs of a NaN) but copysign's; f64 sub takes a's NaN,
// abs/neg keep the NaN's sign; min of two f64 NaNs is a; rcp.approx.f64 is
// the upper word's reciprocal; .sat gives +0 for -0.
TEST(OpsFloat, SlowPathNaNsAreTheGpus) {
  auto r = run_snippet(R"(
  mov.b32 %f1, 0x7FC01234;
  sqrt.rn.f32 %f2, 0fBF800000;
  lg2.approx.f32 %f3, %f1;
  mov.b32 %r2, %f2;
  mov.b32 %r3, %f3;
  mov.b64 %rd1, {%r2, %r3};
  st.global.u64 [%rd14], %rd1;
  abs.f32 %f4, %f1;
  copysign.f32 %f5, 0fBF800000, %f1;
  mov.b32 %r2, %f4;
  mov.b32 %r3, %f5;
  mov.b64 %rd1, {%r2, %r3};
  st.global.u64 [%rd14+8], %rd1;
  mov.b64 %fd1, 0xFFF800000000ABCD;
  mov.b64 %fd2, 0x7FF8000000005678;
  sub.f64 %fd3, %fd1, %fd2;
  st.global.f64 [%rd14+16], %fd3;
  neg.f64 %fd4, %fd1;
  st.global.f64 [%rd14+24], %fd4;
  min.f64 %fd5, %fd1, %fd2;
  st.global.f64 [%rd14+32], %fd5;
  mov.b64 %fd6, 0xFFC0ABCD12345678;
  rcp.approx.ftz.f64 %fd7, %fd6;
  st.global.f64 [%rd14+40], %fd7;
  add.sat.f32 %f6, 0f80000000, 0f80000000;
  st.global.f32 [%rd14+48], %f6;
  mov.b32 %f7, 0x00007C00;
  sin.approx.f32 %f8, %f7;
  st.global.f32 [%rd14+56], %f8;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), 0x7fffffffu);              // sqrt(-1)
  EXPECT_EQ(r.at(0, 0) >> 32, 0x7fffffffu);      // lg2(NaN)
  EXPECT_EQ(r.u32(1), 0x7fffffffu);              // abs(NaN)
  EXPECT_EQ(r.at(0, 1) >> 32, 0xffc01234u);      // copysign: b with a's sign
  EXPECT_EQ(r.at(0, 2), 0xfff800000000abcdull);  // sub: a's
  EXPECT_EQ(r.at(0, 3), 0xfff800000000abcdull);  // neg: the NaN as it is
  EXPECT_EQ(r.at(0, 4), 0xfff800000000abcdull);  // min of two NaNs: a
  EXPECT_EQ(r.at(0, 5), 0x801eb63b00000000ull);  // upper word, rounded
  EXPECT_EQ(r.u32(6), 0u);                       // +0, not -0
  EXPECT_EQ(r.u32(7), 0u);                       // subnormal flushed
}

// f16/bf16 NaN results are 0x7fff (f16x2 per half); conversions from f32
// into them too, f16 into f32 gives 0x7fffffff, bf16 into f32 keeps every
// bit (a signalling NaN's too).
TEST(OpsFloat, HalfNaNsAreTheGpus) {
  auto r = run_snippet(R"(
  mov.b16 %h1, 0x7E12;
  mov.b16 %h2, 0x3C00;
  add.f16 %h3, %h1, %h2;
  cvt.u64.u16 %rd1, %h3;
  st.global.u64 [%rd14], %rd1;
  mov.b32 %r1, 0xFE347E12;
  mov.b32 %r2, 0x3C007C01;
  min.f16x2 %r3, %r1, %r2;
  st.global.u32 [%rd14+8], %r3;
  mov.b32 %f1, 0xFFC0ABCD;
  cvt.rn.f16.f32 %h4, %f1;
  cvt.rn.bf16.f32 %h5, %f1;
  cvt.u64.u16 %rd2, %h4;
  st.global.u64 [%rd14+16], %rd2;
  cvt.u64.u16 %rd3, %h5;
  st.global.u64 [%rd14+24], %rd3;
  cvt.f32.f16 %f2, %h1;
  st.global.f32 [%rd14+32], %f2;
  mov.b16 %h6, 0x7F81;
  cvt.f32.bf16 %f3, %h6;
  st.global.f32 [%rd14+40], %f3;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), 0x7fffu);
  EXPECT_EQ(r.u32(1), 0x3c007fffu);  // low: two NaNs; high: min(NaN, 1) = 1
  EXPECT_EQ(r.u32(2), 0x7fffu);
  EXPECT_EQ(r.u32(3), 0x7fffu);
  EXPECT_EQ(r.u32(4), 0x7fffffffu);
  EXPECT_EQ(r.u32(5), 0x7f810000u);
}

// .NaN exists for f32, f16, bf16 (and x2), not for f64 or integers: refused
// by name, not ignored.
TEST(OpsFloat, MinMaxNaNOnOtherTypesIsRefused) {
  auto r = run_snippet("  max.NaN.f64 %fd1, %fd2, %fd3;");
  EXPECT_NE(r.error.find("unsupported instruction 'max.NaN.f64'"), std::string::npos) << r.error;
}

// The f32 round-to-nearest ops that exec_fslow runs lane by lane with the
// operation folded in (BlackScholes' ex2/lg2/rcp/sqrt): 32 lanes, each its
// own input, bit for bit against the host's functions (the approximations
// are the C library's values, docs/emulator.md), .ftz and .sat included.
// A wrong operation, flag or lane in that path fails here.
TEST(OpsFloat, F32SlowOpsPerLaneMatchTheHost) {
  auto r = run_snippet(R"(
  sub.s32 %r1, %r15, 13;
  cvt.rn.f32.s32 %f1, %r1;
  mul.f32 %f1, %f1, 0f3EBD70A4;
  mul.f32 %f2, %f1, 0f00800000;
  ex2.approx.ftz.f32 %f3, %f1;
  lg2.approx.f32 %f4, %f1;
  rcp.approx.ftz.f32 %f5, %f1;
  sqrt.approx.ftz.f32 %f6, %f1;
  rsqrt.approx.f32 %f7, %f1;
  sin.approx.ftz.f32 %f8, %f1;
  cos.approx.f32 %f9, %f1;
  add.ftz.f32 %f10, %f2, %f2;
  fma.rn.sat.f32 %f11, %f1, 0f3E000000, 0f3F000000;
  mul.ftz.sat.f32 %f12, %f1, 0f3F400000;
  tanh.approx.f32 %f13, %f1;
  mov.b32 %r2, %f3;
  mov.b32 %r3, %f4;
  mov.b64 %rd1, {%r2, %r3};
  st.global.u64 [%rd14], %rd1;
  mov.b32 %r2, %f5;
  mov.b32 %r3, %f6;
  mov.b64 %rd1, {%r2, %r3};
  st.global.u64 [%rd14+8], %rd1;
  mov.b32 %r2, %f7;
  mov.b32 %r3, %f8;
  mov.b64 %rd1, {%r2, %r3};
  st.global.u64 [%rd14+16], %rd1;
  mov.b32 %r2, %f9;
  mov.b32 %r3, %f10;
  mov.b64 %rd1, {%r2, %r3};
  st.global.u64 [%rd14+24], %rd1;
  mov.b32 %r2, %f11;
  mov.b32 %r3, %f12;
  mov.b64 %rd1, {%r2, %r3};
  st.global.u64 [%rd14+32], %rd1;
  mov.b32 %r2, %f13;
  st.global.u32 [%rd14+40], %r2;)",
                       32);
  SNIPPET_OK(r);
  auto ftz = [](float v) {
    return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
  };
  auto sat = [](float v) { return std::isnan(v) ? 0.0f : std::fmin(std::fmax(v, 0.0f), 1.0f); };
  // (A NaN result is the GPU's canonical 0x7fffffff: tests/validation/nan/.)
  auto bits = [](float v) { return std::isnan(v) ? 0x7fffffffu : std::bit_cast<uint32_t>(v); };
  int subnormal_sums = 0;
  for (int t = 0; t < 32; ++t) {
    const float a = static_cast<float>(t - 13) * 0.37f;
    const float tiny = a * 0x1p-126f;
    const uint32_t want[12] = {
        bits(ftz(std::exp2(ftz(a)))),
        bits(std::log2(a)),
        bits(ftz(1.0f / ftz(a))),
        bits(ftz(std::sqrt(ftz(a)))),
        bits(static_cast<float>(1.0 / std::sqrt(static_cast<double>(a)))),
        bits(ftz(std::sin(ftz(a)))),
        bits(std::cos(a)),
        bits(ftz(ftz(tiny) + ftz(tiny))),
        bits(sat(std::fma(a, 0.125f, 0.5f))),
        bits(sat(ftz(ftz(a) * 0.75f))),
        bits(std::tanh(a)),
    };
    subnormal_sums += std::fpclassify(tiny + tiny) == FP_SUBNORMAL;
    for (int k = 0; k < 11; ++k) {
      const uint64_t slot = r.at(t, k / 2);
      const uint32_t got = static_cast<uint32_t>(k % 2 ? slot >> 32 : slot);
      EXPECT_EQ(got, want[k]) << "lane " << t << ", result " << k;
    }
  }
  EXPECT_GT(subnormal_sums, 0);  // the .ftz add saw subnormal inputs
}

// Directed rounding (.rz/.rm/.rp), which exec_fslow runs with the
// environment switched once per warp-instruction: 32 lanes of distinct
// inputs against a reference that rounds the exact result by hand (sums
// and products of these floats are exact in double), and an f64 product
// whose exact value needs 105 bits.
TEST(OpsFloat, DirectedRoundingPerLane) {
  auto r = run_snippet(R"(
  sub.s32 %r1, %r15, 13;
  cvt.rn.f32.s32 %f1, %r1;
  mul.f32 %f1, %f1, 0f3EBD70A4;
  add.rp.f32 %f2, %f1, 0f3F8CCCCD;
  sub.rm.f32 %f3, %f1, 0f3F8CCCCD;
  mul.rz.f32 %f4, %f1, 0f3F8CCCCD;
  mul.rp.ftz.sat.f32 %f5, %f1, 0f3E4CCCCD;
  mov.b32 %r2, %f2;
  mov.b32 %r3, %f3;
  mov.b64 %rd1, {%r2, %r3};
  st.global.u64 [%rd14], %rd1;
  mov.b32 %r2, %f4;
  mov.b32 %r3, %f5;
  mov.b64 %rd1, {%r2, %r3};
  st.global.u64 [%rd14+8], %rd1;
  mul.rp.f64 %fd1, 0d3FF0000000000001, 0d3FF0000000000001;
  mul.rz.f64 %fd2, 0d3FF0000000000001, 0d3FF0000000000001;
  st.global.f64 [%rd14+16], %fd1;
  st.global.f64 [%rd14+24], %fd2;)",
                       32);
  SNIPPET_OK(r);
  enum Dir { kZero, kDown, kUp };
  // `exact` rounded to float toward zero, down or up.
  auto round = [](double exact, Dir d) {
    float f = static_cast<float>(exact);  // nearest
    if (d == kUp && static_cast<double>(f) < exact) f = std::nextafter(f, INFINITY);
    if (d == kDown && static_cast<double>(f) > exact) f = std::nextafter(f, -INFINITY);
    if (d == kZero && std::fabs(static_cast<double>(f)) > std::fabs(exact))
      f = std::nextafter(f, 0.0f);
    return std::bit_cast<uint32_t>(f);
  };
  const double b = 1.1f, s = 0.2f;
  int inexact = 0;
  for (int t = 0; t < 32; ++t) {
    const double a = static_cast<float>(t - 13) * 0.37f;
    const double sat = std::fmin(std::fmax(a * s, 0.0), 1.0);
    const uint32_t want[4] = {round(a + b, kUp), round(a - b, kDown), round(a * b, kZero),
                              a * s >= 1.0 ? std::bit_cast<uint32_t>(1.0f) : round(sat, kUp)};
    inexact += static_cast<double>(static_cast<float>(a + b)) != a + b;
    for (int k = 0; k < 4; ++k) {
      const uint64_t slot = r.at(t, k / 2);
      EXPECT_EQ(static_cast<uint32_t>(k % 2 ? slot >> 32 : slot), want[k])
          << "lane " << t << ", result " << k;
    }
    // (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104: up adds an ulp, toward zero drops it.
    EXPECT_EQ(r.f64(2, t), 1.0 + 0x1p-51 + 0x1p-52) << t;
    EXPECT_EQ(r.f64(3, t), 1.0 + 0x1p-51) << t;
  }
  EXPECT_GT(inexact, 8);  // the modes decided most lanes' results
}

}  // namespace
}  // namespace smemlab::emu::test
