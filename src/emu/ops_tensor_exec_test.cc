// Tensor-core, mbarrier and memory-ordering instructions through the
// interpreter: per-instruction edge cases on PTX snippets.
#include "emu/half.h"
#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

// 32 threads: each stores its lane's row of an 8x8 b16 matrix (value
// 100 * row + col) and 3 more matrices (+ 1000 * m) to shared memory with
// 16-byte rows, then loads them back with ldmatrix.
std::string ldmatrix_program(const std::string& form) {
  return R"(
  .shared .align 16 .b8 sm[1024];
  mov.u32 %r1, sm;
  shr.u32 %r2, %r15, 3;          // matrix m = tid / 8
  and.b32 %r3, %r15, 7;          // row r = tid % 8
  mul.lo.u32 %r4, %r2, 1000;
  mad.lo.u32 %r4, %r3, 100, %r4; // 1000 m + 100 r
  shl.b32 %r5, %r15, 4;
  add.u32 %r5, %r1, %r5;         // row address: sm + 16 * tid
  mov.u32 %r6, 0;
$Lrow:
  add.u32 %r7, %r4, %r6;
  shl.b32 %r8, %r6, 1;
  add.u32 %r8, %r5, %r8;
  st.shared.u16 [%r8], %r7;
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p1, %r6, 8;
  @%p1 bra $Lrow;
  bar.sync 0;
  )" + form +
         R"(
  st.global.v4.u32 [%rd14], {%r9, %r10, %r11, %r12};)";
}

TEST(TensorExec, LdmatrixX4AndTrans) {
  auto r = run_snippet(
      ldmatrix_program("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r9, %r10, %r11, %r12}, [%r5];"),
      32);
  SNIPPET_OK(r);
  for (int lane = 0; lane < 32; ++lane)
    for (int j = 0; j < 4; ++j) {
      uint32_t v = static_cast<uint32_t>(r.at(lane, j / 2) >> (32 * (j % 2)));
      uint32_t row = lane / 4, col = 2 * (lane % 4);
      uint32_t lo = 1000 * j + 100 * row + col;
      ASSERT_EQ(v, lo | (lo + 1) << 16) << lane << " " << j;
    }
  auto t = run_snippet(
      ldmatrix_program(
          "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r9, %r10, %r11, %r12}, [%r5];"),
      32);
  SNIPPET_OK(t);
  for (int lane = 0; lane < 32; ++lane) {
    uint32_t v = static_cast<uint32_t>(t.at(lane, 1) >> 32);  // register 3: matrix 3
    uint32_t col = lane / 4, row = 2 * (lane % 4);
    ASSERT_EQ(v, (3000 + 100 * row + col) | (3000 + 100 * (row + 1) + col) << 16) << lane;
  }
}

TEST(TensorExec, LdmatrixX1UsesOnlyLanes0To7) {
  // Lanes 8..31 pass an address outside shared memory: not used by .x1.
  auto r = run_snippet(ldmatrix_program(R"(
  setp.ge.u32 %p2, %r15, 8;
  @%p2 mov.u32 %r5, 100000;
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r9}, [%r5];
  mov.u32 %r10, 0; mov.u32 %r11, 0; mov.u32 %r12, 0;)"),
                       32);
  SNIPPET_OK(r);
  EXPECT_EQ(static_cast<uint32_t>(r.at(9, 0)), (200u + 2) | (203u << 16));
}

TEST(TensorExec, LdmatrixByPartOfTheWarpFaults) {
  auto r = run_snippet(ldmatrix_program(R"(
  setp.lt.u32 %p2, %r15, 16;
  @%p2 ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r9, %r10}, [%r5];
  mov.u32 %r11, 0; mov.u32 %r12, 0;)"),
                       32);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find(".sync.aligned: all 32 threads"), std::string::npos) << r.error;
}

TEST(TensorExec, StmatrixIsLdmatrixInverse) {
  auto r = run_snippet(ldmatrix_program(R"(
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r9, %r10}, [%r5];
  add.u32 %r13, %r5, 256;
  stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%r13], {%r9, %r10};
  ld.shared.v4.u32 {%r9, %r10, %r11, %r12}, [%r13];)"),
                       32);
  SNIPPET_OK(r);
  for (int lane = 0; lane < 16; ++lane)  // row `lane` of the copy = row of the original
    for (int c = 0; c < 8; ++c) {
      uint32_t w = static_cast<uint32_t>(r.at(lane, c / 4) >> (32 * ((c / 2) % 2)));
      uint32_t e = (w >> (16 * (c % 2))) & 0xffff;
      ASSERT_EQ(e, 1000u * (lane / 8) + 100u * (lane % 8) + c) << lane << " " << c;
    }
}

TEST(TensorExec, CvtTf32RoundsTiesAway) {
  auto r = run_snippet(R"(
  cvt.rna.tf32.f32 %r1, 0f3F801000;   // 1 + 2^-11: a tie, away from zero
  cvt.rn.tf32.f32 %r2, 0f3F801000;    // to even: 1
  cvt.rz.tf32.f32 %r3, 0f3F801FFF;
  cvt.rna.satfinite.tf32.f32 %r4, 0f7F800000;
  st.global.v4.u32 [%rd14], {%r1, %r2, %r3, %r4};)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), 0x3F802000u);
  EXPECT_EQ(static_cast<uint32_t>(r.at(0, 0) >> 32), 0x3F800000u);
  EXPECT_EQ(r.u32(1), 0x3F800000u);
  EXPECT_EQ(static_cast<uint32_t>(r.at(0, 1) >> 32), 0x7F7FE000u);
}

TEST(TensorExec, MbarrierPhasesAcrossWarps) {
  // 64 threads arrive on a barrier of count 64; each then waits on its
  // token; thread 0 counts the phases it saw complete.
  auto r = run_snippet(R"(
  .shared .align 8 .b64 bar;
  mov.u32 %r1, bar;
  setp.ne.u32 %p1, %r15, 0;
  @!%p1 mbarrier.init.shared.b64 [%r1], 64;
  bar.sync 0;
  mbarrier.arrive.shared::cta.b64 %rd1, [%r1];
$Lwait:
  mbarrier.try_wait.shared.b64 %p2, [%r1], %rd1;
  @!%p2 bra $Lwait;
  mbarrier.test_wait.parity.shared.b64 %p3, [%r1], 0;
  selp.u32 %r2, 1, 0, %p3;
  mbarrier.arrive.shared.b64 _, [%r1], 1;
  mbarrier.pending_count.b64 %r3, %rd1;
  st.global.v2.u32 [%rd14], {%r2, %r3};)",
                       64);
  SNIPPET_OK(r);
  // Every thread saw phase 0 complete; the tokens' pending counts are
  // 64, 63, ..., 1 in some arrival order.
  uint32_t sum = 0;
  for (int t = 0; t < 64; ++t) {
    ASSERT_EQ(r.u32(0, t), 1u) << t;
    sum += static_cast<uint32_t>(r.at(t, 0) >> 32);
  }
  EXPECT_EQ(sum, 64u * 65 / 2);
}

TEST(TensorExec, MbarrierMisuseFaults) {
  auto r = run_snippet(R"(
  .shared .align 8 .b64 bar;
  mov.u32 %r1, bar;
  mbarrier.arrive.shared.b64 %rd1, [%r1];)");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("which no mbarrier.init has initialized"), std::string::npos) << r.error;
  auto g = run_snippet("  mbarrier.init.global.b64 [%rd14], 1;");
  ASSERT_FALSE(g.ok);
  EXPECT_NE(g.error.find("an mbarrier lives in shared memory"), std::string::npos) << g.error;
}

TEST(TensorExec, FencesAndScopedAtomics) {
  auto r = run_snippet(R"(
  fence.acq_rel.gpu;
  fence.proxy.async.shared::cta;
  fence.mbarrier_init.release.cluster;
  membar.gl;
  atom.acq_rel.gpu.global.add.u32 %r1, [%rd14], 5;
  red.release.gpu.global.add.u32 [%rd14], 7;
  atom.relaxed.cta.global.exch.b32 %r2, [%rd14+8], 9;
  ld.acquire.gpu.global.u32 %r3, [%rd14];
  st.global.u32 [%rd14+4], %r3;)");
  SNIPPET_OK(r);
  EXPECT_EQ(static_cast<uint32_t>(r.at(0, 0) >> 32), 12u);
  EXPECT_EQ(r.u32(1), 9u);
}

TEST(TensorExec, UnsupportedFormsNameTheInstruction) {
  auto r = run_snippet(
      "  mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8}, "
      "{%r1,%r2}, {%r3,%r4}, {%f1,%f2,%f3,%f4,%f5,%f6,%f7,%f8};");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unsupported instruction 'mma.sync.aligned.m8n8k4"), std::string::npos)
      << r.error;
  auto w = run_snippet(
      "  wmma.load.a.sync.aligned.row.m32n8k16.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,"
      "%r8}, [%rd14], 16;");
  ASSERT_FALSE(w.ok);
  EXPECT_NE(w.error.find("unsupported instruction 'wmma.load.a"), std::string::npos) << w.error;
}

TEST(TensorExec, CvtFp8PacksAIntoTheHighByte) {
  auto r = run_snippet(R"(
  cvt.rn.satfinite.e4m3x2.f32 %h1, 0f3F800000, 0fC3E00000;  // 1.0 high, -448 low
  cvt.rn.satfinite.relu.e5m2x2.f32 %h2, 0fBF800000, 0f7F800000;  // relu(-1) = 0, inf -> max
  mov.b32 %r1, 0x3C00C000;  // f16x2 {1.0, -2.0}
  cvt.rn.satfinite.e4m3x2.f16x2 %h3, %r1;
  cvt.rn.f16x2.e4m3x2 %r2, %h1;
  cvt.rn.relu.f16x2.e5m2x2 %r3, 0x7FC0;  // NaN high, -2.0 low
  cvt.u32.u16 %r4, %h1;
  cvt.u32.u16 %r5, %h2;
  cvt.u32.u16 %r6, %h3;
  st.global.v4.u32 [%rd14], {%r4, %r5, %r6, %r2};
  st.global.u32 [%rd14+16], %r3;)");
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), 0x38FEu);
  EXPECT_EQ(static_cast<uint32_t>(r.at(0, 0) >> 32), 0x007Bu);
  EXPECT_EQ(r.u32(1), 0x38C0u);
  EXPECT_EQ(static_cast<uint32_t>(r.at(0, 1) >> 32), 0x3C00DF00u);  // {1.0, -448}
  EXPECT_EQ(r.u32(2), 0x7FFF0000u);
}

TEST(TensorExec, Fp8MmaSync) {
  // Every lane holds e4m3 1.0 in all A bytes and e5m2 2.0 in all B bytes,
  // C = lane: each D element is lane-of-C + 32 * 1 * 2.
  auto r = run_snippet(R"(
  mov.b32 %r1, 0x38383838;
  mov.b32 %r2, 0x40404040;
  cvt.rn.f32.u32 %f1, %r15;
  mov.b32 %r5, 0;
  mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f2, %f3, %f4, %f5}, {%r1, %r1, %r1, %r1}, {%r2, %r2}, {%f1, %f1, %f1, %f1};
  mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16 {%r3, %r4}, {%r1, %r1, %r1, %r1}, {%r2, %r2}, {%r5, %r5};
  st.global.v4.f32 [%rd14], {%f2, %f3, %f4, %f5};
  st.global.v2.u32 [%rd14+16], {%r3, %r4};)",
                       32);
  SNIPPET_OK(r);
  for (int lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(r.f32(0, lane), lane + 64.0f) << lane;
    EXPECT_EQ(static_cast<uint32_t>(r.at(lane, 1) >> 32), fbits(lane + 64.0f)) << lane;
    EXPECT_EQ(r.u32(2, lane), 0x54005400u) << lane;  // f16x2 {64, 64} (C = %r5, zero)
  }
}

}  // namespace
}  // namespace smemlab::emu::test
