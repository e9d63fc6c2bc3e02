// The native tier (native_tier.h) against the interpreter: a kernel with
// every family of Inline and CallAlu rows the runs hold (integer, bit,
// carry, float, compare, predicate logic, select, pack, cvt, the float slow
// path, bfind, bmsk, dp4a, dp2a, mul24, mad24, sad), on random inputs with
// special values (NaN, infinities, subnormals, zero shifts and divisors),
// run by a converged warp, a partial warp (masked lanes), guarded ops and
// the groups of a divergent warp; SMEMLAB_TIER=native (compiled before the
// launch) must give the interpreter's memory and counts bit for bit, and
// its code must have been loaded (or the test says why not). tier_test.cc
// runs its own kernel under native too, with a budget fault inside runs.
#include "emu/native_tier.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "emu/instructions.h"
#include "emu/launch.h"
#include "emu/native_lanes.h"
#include "emu/program.h"
#include "emu/reg_operands.h"

namespace smemlab::emu {
namespace {

// The run: per-lane arithmetic only (no load, store, branch), so the plan
// makes it one run; its results are stored after it (family_results
// names their registers).
const char* kFamilyBody = R"(
  and.b32 %r5, %r1, 3;
  setp.ne.u32 %p1, %r5, 0;
  add.s32 %r6, %r2, %r3;
  sub.s32 %r7, %r2, %r3;
  mul.lo.s32 %r8, %r2, %r3;
  mul.hi.s32 %r9, %r2, %r3;
  mul.hi.u32 %r10, %r2, %r3;
  min.s32 %r11, %r2, %r3;
  max.u32 %r12, %r2, %r3;
  @%p1 div.s32 %r13, %r2, %r4;
  @!%p1 rem.u32 %r13, %r2, %r4;
  shl.b32 %r14, %r2, %r4;
  shr.s32 %r15, %r2, %r4;
  shr.u32 %r16, %r3, %r4;
  mad.lo.s32 %r17, %r2, %r3, %r4;
  mad.hi.u32 %r18, %r2, %r3, %r4;
  mul.wide.s32 %rd6, %r2, %r3;
  mad.wide.u32 %rd7, %r2, %r3, %rd6;
  abs.s32 %r19, %r2;
  neg.s32 %r20, %r3;
  not.b32 %r21, %r2;
  cnot.b32 %r22, %r5;
  popc.b32 %r23, %r2;
  clz.b32 %r24, %r3;
  brev.b32 %r25, %r2;
  bfe.u32 %r26, %r2, %r4, %r5;
  bfe.s32 %r27, %r3, %r5, %r4;
  bfi.b32 %r28, %r2, %r3, %r5, %r4;
  prmt.b32 %r29, %r2, %r3, %r4;
  shf.l.wrap.b32 %r30, %r2, %r3, %r4;
  shf.r.clamp.b32 %r31, %r2, %r3, %r4;
  add.cc.u32 %r32, %r2, %r3;
  addc.u32 %r33, %r3, %r4;
  sub.cc.u32 %r34, %r2, %r4;
  subc.u32 %r35, %r3, %r2;
  add.f32 %f3, %f1, %f2;
  sub.f32 %f4, %f1, %f2;
  mul.f32 %f5, %f1, %f2;
  fma.rn.f32 %f6, %f1, %f2, %f3;
  add.f64 %fd2, %fd1, %fd1;
  fma.rn.f64 %fd3, %fd1, %fd2, %fd1;
  setp.lt.f32 %p2, %f1, %f2;
  setp.gtu.f32 %p3, %f1, %f2;
  setp.ge.s32 %p4, %r2, %r3;
  and.pred %p5, %p2, %p4;
  or.pred %p6, %p3, %p1;
  xor.pred %p7, %p5, %p6;
  selp.b32 %r36, %r2, %r3, %p7;
  @%p2 mov.b32 %r37, %f6;
  @!%p2 mov.b32 %r37, %f5;
  mov.b64 %rd8, {%r2, %r3};
  mov.b64 {%r38, %r39}, %rd7;
  cvt.rn.f32.s32 %f7, %r2;
  cvt.rzi.s32.f32 %r40, %f1;
  cvt.f64.f32 %fd4, %f1;
  cvt.rn.f32.f64 %f8, %fd3;
  cvt.u16.u32 %rs1, %r2;
  cvt.s32.s16 %r41, %rs1;
  sqrt.rn.f32 %f9, %f1;
  rcp.rn.f32 %f10, %f2;
  ex2.approx.ftz.f32 %f11, %f2;
  lg2.approx.f32 %f12, %f1;
  sin.approx.f32 %f13, %f1;
  cos.approx.f32 %f14, %f2;
  div.rn.f32 %f15, %f1, %f2;
  div.rn.f64 %fd5, %fd1, %fd2;
  sqrt.rn.f64 %fd6, %fd1;
  min.f32 %f16, %f1, %f2;
  max.f32 %f17, %f1, %f2;
  abs.f32 %f18, %f1;
  bfind.u32 %r42, %r2;
  bfind.s32 %r43, %r3;
  bmsk.clamp.b32 %r44, %r4, %r5;
  dp4a.s32.u32 %r45, %r2, %r3, %r4;
  dp2a.lo.u32.s32 %r46, %r2, %r3, %r4;
  mul24.lo.s32 %r47, %r2, %r3;
  mad24.hi.u32 %r48, %r2, %r3, %r4;
  sad.u32 %r49, %r2, %r3, %r4;
  add.s16 %rs2, %rs1, %rs1;
  cvt.u32.u16 %r50, %rs2;
  add.s64 %rd9, %rd6, %rd7;
  mul.lo.u64 %rd10, %rd6, %rd8;
  shr.s64 %rd11, %rd6, %r4;
  cvt.rmi.f32.f32 %f19, %f1;
  setp.eq.u32 %p1, %r6, %r7;
  selp.u32 %r51, 1, 0, %p1;
  add.u32 %r2, %r2, %r6;
)";

// The registers kFamilyBody leaves results in.
std::vector<std::string> family_results() {
  std::vector<std::string> r;
  for (int i = 6; i <= 51; ++i) r.push_back("%r" + std::to_string(i));
  for (int i = 3; i <= 19; ++i) r.push_back("%f" + std::to_string(i));
  for (int i : {6, 7, 8, 9, 10, 11}) r.push_back("%rd" + std::to_string(i));
  for (int i : {2, 3, 4, 5, 6}) r.push_back("%fd" + std::to_string(i));
  return r;
}

// Stores every result at out + (tid * slots + base + k) * 8.
std::string family_stores(uint32_t base) {
  std::string s;
  uint32_t k = base;
  for (const std::string& r : family_results()) {
    const bool wide = r.rfind("%rd", 0) == 0 || r.rfind("%fd", 0) == 0;
    s += "  st.global." + std::string(wide ? "b64" : "b32") + " [%rd5+" + std::to_string(k * 8) +
         "], " + r + ";\n";
    ++k;
  }
  return s;
}

// kFamilyBody (after `head`, e.g. one op) as a loop taken once: a
// backward branch no thread takes, so the native tier's lane-outer bodies
// (compiled for chunks inside loops) run it; the last body is straight
// code (warp-level calls).
std::string looped(const std::string& label, const std::string& head = "") {
  return label + ":\n" + head + kFamilyBody + "  setp.eq.u32 %q1, %r1, 4096;\n  @%q1 bra " + label +
         ";\n";
}

// `variant`: one op more, so its code is no other test's (programs with
// the same ops share their native code in a process).
std::string family_ptx(bool variant = false) {
  const uint32_t slots = static_cast<uint32_t>(family_results().size());
  return std::string(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry fam(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<8>;
  .reg .pred %q<2>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<64>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<24>;
  .reg .f64 %fd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 32;
  add.s64 %rd4, %rd1, %rd3;
  mul.wide.u32 %rd3, %r1, )") +
         std::to_string(3 * slots * 8) + R"(;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  ld.global.u32 %r3, [%rd4+4];
  ld.global.u32 %r4, [%rd4+8];
  ld.global.f32 %f1, [%rd4+12];
  ld.global.f32 %f2, [%rd4+16];
  ld.global.f64 %fd1, [%rd4+24];
)" + (variant ? "  add.u32 %r2, %r2, 1;\n" : "") +
         looped("FIRST") + family_stores(0) +
         R"(  and.b32 %r60, %r1, 5;
  setp.eq.u32 %p0, %r60, 1;
  @%p0 bra OTHER;
)" + looped("SECOND") +
         "  bra.uni DONE;\n" + looped("OTHER", "  xor.b32 %r2, %r2, %r1;\n") + "DONE:\n" +
         family_stores(slots) + kFamilyBody + family_stores(2 * slots) + "  ret;\n}\n";
}

struct FamilyOutcome {
  std::vector<uint64_t> mem;
  uint64_t warp_instructions = 0, lane_instructions = 0;
  std::string error;
  bool native = false;
  std::string why;
};

std::vector<uint32_t> family_inputs(uint32_t threads, uint32_t seed) {
  std::mt19937 rng(seed);
  const float fs[] = {0.0f, -0.0f, 1.0f, -2.5f, 1e-40f, -1e-41f, 3e38f, 1e30f, 0.5f, 100.0f};
  const uint32_t specials[] = {0u, 1u, 31u, 32u, 33u, 0xffffffffu, 0x80000000u, 7u};
  std::vector<uint32_t> in(threads * 8);
  for (uint32_t t = 0; t < threads; ++t) {
    uint32_t* w = &in[t * 8];
    for (int i = 0; i < 3; ++i) w[i] = rng() % 4 == 0 ? specials[rng() % 8] : rng();
    for (int i = 3; i < 5; ++i) {
      float f = rng() % 3 == 0 ? fs[rng() % 10]
                               : std::ldexp(float(rng() % 20000) - 10000.0f, int(rng() % 40) - 20);
      if (rng() % 17 == 0) f = std::numeric_limits<float>::quiet_NaN();
      if (rng() % 19 == 0) f = -std::numeric_limits<float>::infinity();
      std::memcpy(&w[i], &f, 4);
    }
    double d = std::ldexp(double(rng()) - 2e9, int(rng() % 60) - 30);
    if (rng() % 13 == 0) d = -d * 0.0;
    std::memcpy(&w[6], &d, 8);
  }
  return in;
}

FamilyOutcome run_family(const char* tier, uint32_t threads, uint32_t seed, bool variant = false) {
  setenv("SMEMLAB_TIER", tier, 1);
  Device dev;
  auto m = Module::load_text(dev, family_ptx(variant), "native.ptx");
  const uint32_t slots = static_cast<uint32_t>(family_results().size()) * 3;
  std::vector<uint32_t> in = family_inputs(threads, seed);
  uint64_t din = dev.malloc(in.size() * 4), dout = dev.malloc(uint64_t{threads} * slots * 8);
  dev.copy_to(din, in.data(), in.size() * 4);
  LaunchConfig cfg{{1}, {threads}};
  cfg.threads = 1;
  auto st = launch(*m, "fam", cfg, din, dout);
  unsetenv("SMEMLAB_TIER");
  FamilyOutcome o;
  o.mem.resize(uint64_t{threads} * slots);
  dev.copy_from(o.mem.data(), dout, o.mem.size() * 8);
  o.warp_instructions = st.warp_instructions;
  o.lane_instructions = st.lane_instructions;
  if (st.error) o.error = st.error->what();
  o.native = native_loaded(m->kernel("fam"), &o.why);
  return o;
}

class NativeTier : public ::testing::Test {
 protected:
  void SetUp() override {
    // (A cache of this test's own: compiled once per source and build.)
    setenv("XDG_CACHE_HOME", (::testing::TempDir() + "smemlab-native-test").c_str(), 1);
  }
  void TearDown() override {
    unsetenv("SMEMLAB_NATIVE");
    unsetenv("SMEMLAB_NATIVE_COST");
  }
};

TEST_F(NativeTier, EveryFamilyMatchesTheInterpreter) {
  // 61 threads: a full warp and a warp of 29 lanes.
  for (uint32_t seed : {1u, 2u, 3u}) {
    const FamilyOutcome a = run_family("interp", 61, seed), b = run_family("native", 61, seed);
    ASSERT_EQ(a.error, "");
    ASSERT_EQ(b.error, "");
    ASSERT_TRUE(b.native) << "the native code did not load: " << b.why;
    if (seed == 1) {
      EXPECT_FALSE(a.native);  // (later: the native run's code is loaded)
    }
    ASSERT_EQ(a.mem.size(), b.mem.size());
    size_t wrong = 0;
    for (size_t i = 0; i < a.mem.size(); ++i)
      if (a.mem[i] != b.mem[i] && wrong++ < 10)
        ADD_FAILURE() << "seed " << seed << " thread " << i / (family_results().size() * 3)
                      << " result " << family_results()[i % family_results().size()] << ": interp "
                      << std::hex << a.mem[i] << " native " << b.mem[i];
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(a.warp_instructions, b.warp_instructions);
    EXPECT_EQ(a.lane_instructions, b.lane_instructions);
  }
}

// A loop whose body is one run entered at a branch target (its chunk's
// first op, so the lane-outer body) by lanes that leave it at different
// trip counts (3..9: the later iterations are partial groups), with the
// carry flag (into the body from before the loop and from the last
// iteration, and within it), setp's combine and p|q, guarded ops of both polarities and
// predicates written in the body and read after it (a selp outside runs).
const char* kLoopPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry loopk(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 7;
  add.u32 %r2, %r2, 3;
  mul.lo.u32 %r3, %r1, 0x9E3779B1;
  add.u32 %r3, %r3, 1;
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
  mov.u32 %r6, 0;
  mov.u32 %r9, 0;
  mov.u32 %r10, 100;
  mov.u32 %r12, 0;
  mov.u32 %r13, 0;
  mov.u32 %r14, 0;
  cvt.rn.f32.u32 %f1, %r1;
  mov.f32 %f2, 0f3F800000;
  setp.eq.u32 %p3, %r1, 5;
  setp.ne.u32 %p4, %r1, 6;
  mov.u32 %r18, 7;
  add.cc.u32 %r17, %r3, 0xF0000000;
LOOP:
  addc.cc.u32 %r18, %r18, %r3;
  shl.b32 %r7, %r3, 13;
  xor.b32 %r3, %r3, %r7;
  shr.u32 %r7, %r3, 17;
  xor.b32 %r3, %r3, %r7;
  shl.b32 %r7, %r3, 5;
  xor.b32 %r3, %r3, %r7;
  add.cc.u32 %r5, %r5, %r3;
  addc.u32 %r6, %r6, 0;
  and.b32 %r8, %r3, 3;
  setp.eq.u32 %p1, %r8, 0;
  setp.gt.and.u32 %p2, %r3, 0x80000000, %p1;
  @%p1 add.u32 %r9, %r9, 1;
  @!%p2 sub.u32 %r10, %r10, %r8;
  selp.u32 %r11, %r3, %r8, %p2;
  xor.b32 %r12, %r12, %r11;
  fma.rn.f32 %f2, %f2, %f1, 0f3F000000;
  @%p1 mul.f32 %f2, %f2, 0f3E800000;
  @%p2 setp.ne.or.u32 %p3|%p4, %r8, 1, %p1;
  @%p3 add.u32 %r13, %r13, %r8;
  @!%p4 add.u32 %r14, %r14, 2;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p5, %r4, %r2;
  @%p5 bra LOOP;
  selp.u32 %r15, 1, 0, %p3;
  selp.u32 %r16, 2, 0, %p4;
  add.u32 %r15, %r15, %r16;
  mul.wide.u32 %rd2, %r1, 44;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r5;
  st.global.u32 [%rd3+8], %r6;
  st.global.u32 [%rd3+12], %r9;
  st.global.u32 [%rd3+16], %r10;
  st.global.u32 [%rd3+20], %r12;
  st.global.u32 [%rd3+24], %r13;
  st.global.u32 [%rd3+28], %r14;
  st.global.f32 [%rd3+32], %f2;
  st.global.u32 [%rd3+36], %r15;
  st.global.u32 [%rd3+40], %r18;
  ret;
}
)";

std::vector<uint32_t> run_loop(const char* tier, uint32_t threads, std::string* error,
                               bool* native) {
  setenv("SMEMLAB_TIER", tier, 1);
  Device dev;
  auto m = Module::load_text(dev, kLoopPtx, "loop.ptx");
  uint64_t dout = dev.malloc(uint64_t{threads} * 44);
  LaunchConfig cfg{{1}, {threads}};
  cfg.threads = 1;
  auto st = launch(*m, "loopk", cfg, dout);
  unsetenv("SMEMLAB_TIER");
  std::vector<uint32_t> mem(threads * 11);
  dev.copy_from(mem.data(), dout, mem.size() * 4);
  if (st.error) *error = st.error->what();
  *native = native_loaded(m->kernel("loopk"));
  return mem;
}

TEST_F(NativeTier, LaneOuterLoopBodiesMatchTheInterpreter) {
  // 40 threads: a full warp and a warp of 8 lanes, each losing lanes as
  // their trip counts end.
  std::string ea, eb;
  bool na = false, nb = false;
  const std::vector<uint32_t> a = run_loop("interp", 40, &ea, &na);
  const std::vector<uint32_t> b = run_loop("native", 40, &eb, &nb);
  ASSERT_EQ(ea, "");
  ASSERT_EQ(eb, "");
  ASSERT_TRUE(nb);
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i], b[i]) << "thread " << i / 11 << " result " << i % 11;
  // The body is a lane-outer function entered at the loop's head.
  Device dev;
  auto m = Module::load_text(dev, kLoopPtx, "loop.ptx");
  const Program& p = m->kernel("loopk");
  const std::string src = native_source(p);
  uint32_t head = 0;
  for (const Op& o : p.ops)
    if (o.code / 16 == BRA) head = static_cast<uint32_t>(o.imm);
  EXPECT_NE(src.find("void run" + std::to_string(head) + "("), std::string::npos);
  EXPECT_NE(src.find("lanes" + std::to_string(head) + "<true>"), std::string::npos);
  for (const char* f : {"carry_lane<CARRY, U32>", "setp_lane<SETP, U32>", "selp_lane<SELP",
                        "fast_float_lane<FFMA, F32>", "int_bin_lane<SHR, U32>"})
    EXPECT_NE(src.find(f), std::string::npos) << f;
}

TEST_F(NativeTier, EveryLaneFormFamilyIsLaneOuter) {
  Device dev;
  auto m = Module::load_text(dev, family_ptx(), "native.ptx");
  const std::string src = native_source(m->kernel("fam"));
  // The family body's ops with per-lane forms are called as such (the
  // others, CallAlu rows and pack, stay warp-level calls between stretches).
  for (const char* f : {"int_bin_lane<ADD, S32>",
                        "int_bin_lane<DIV, S32>",
                        "int_bin_lane<REM, U32>",
                        "int_bin_lane<SHR, S64>",
                        "int_mad_lane<MUL_WIDE, S32>",
                        "int_mad_lane<MAD_HI, U32>",
                        "int_un_lane<BREV",
                        "int_un_lane<CNOT",
                        "bfe_lane<BFE, S32>",
                        "bfi_lane<BFI",
                        "prmt_lane",
                        "shf_lane",
                        "carry_lane<CARRY, U32>",
                        "fast_float_lane<FFMA, F32>",
                        "fast_float_lane<FFMA, F64>",
                        "fast_float_lane<FSUB, F32>",
                        "setp_lane<SETP, F32>",
                        "setp_lane<SETP, S32>",
                        "plogic_lane",
                        "selp_lane",
                        "mov_lane",
                        "template <bool Full>"})
    EXPECT_NE(src.find(f), std::string::npos) << f;
}

TEST_F(NativeTier, SourceHasOneCallPerRunOp) {
  Device dev;
  auto m = Module::load_text(dev, family_ptx(), "native.ptx");
  const Program& p = m->kernel("fam");
  const std::string src = native_source(p);
  ASSERT_FALSE(src.empty());
  // Every op the loop runs in a run has its constant and executor call.
  for (size_t pc = 0; pc < p.ops.size(); ++pc) {
    if (p.fused[pc] > 1) {
      EXPECT_NE(src.find("constexpr Op o" + std::to_string(pc) + "{"), std::string::npos) << pc;
    }
  }
  EXPECT_NE(src.find("g_calls["), std::string::npos);  // CallAlu rows
  EXPECT_NE(src.find("int_bin<ADD, S32>"), std::string::npos);
}

// cvt's and the float slow path's lane forms (ops_convert_lane.h,
// ops_float_lane.h) inside a loop body (so lane-outer bodies), with the
// forms that have none between them (to-integral and saturating cvt,
// directed rounding, ex2/lg2): threads leave at trip counts 1..4, so later
// iterations are partial groups; inputs are bit patterns with NaNs of
// several payloads (quiet and signaling, in one and in both operands),
// infinities, zeros, subnormals and values near 1. Each iteration's
// results are folded into accumulators by xor of their bits.
const char* kCvtFslowPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry cvtfs(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<48>;
  .reg .b64 %rd<24>;
  .reg .f32 %f<48>;
  .reg .f64 %fd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 24;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd4+4];
  ld.global.f32 %f3, [%rd4+8];
  ld.global.u32 %r2, [%rd4+12];
  ld.global.f64 %fd1, [%rd4+16];
  and.b32 %r3, %r1, 3;
  add.u32 %r3, %r3, 1;
  mov.u32 %r4, 0;
  mov.u32 %r30, 0;
  mov.u32 %r31, 0;
  mov.u32 %r32, 0;
  mov.b64 %rd20, 0;
LOOP:
  cvt.rn.f32.s32 %f4, %r2;
  cvt.rn.f32.u32 %f5, %r2;
  cvt.rn.f64.s32 %fd2, %r2;
  cvt.rn.f64.u32 %fd3, %r2;
  cvt.f64.f32 %fd4, %f1;
  cvt.rn.f32.f64 %f6, %fd1;
  cvt.u64.u32 %rd5, %r2;
  cvt.s64.s32 %rd6, %r2;
  cvt.u16.u32 %rs1, %r2;
  cvt.s32.s16 %r5, %rs1;
  cvt.s8.s32 %r6, %r2;
  div.rn.f32 %f7, %f1, %f2;
  div.approx.f32 %f8, %f2, %f3;
  div.approx.ftz.f32 %f9, %f1, %f3;
  rcp.rn.f32 %f10, %f2;
  rcp.approx.ftz.f32 %f11, %f1;
  sqrt.rn.f32 %f12, %f1;
  sqrt.approx.ftz.f32 %f13, %f2;
  rsqrt.approx.f32 %f14, %f3;
  rsqrt.approx.ftz.f32 %f15, %f1;
  abs.f32 %f16, %f1;
  abs.ftz.f32 %f17, %f2;
  neg.f32 %f18, %f3;
  neg.ftz.f32 %f19, %f1;
  min.f32 %f20, %f1, %f2;
  max.ftz.f32 %f21, %f2, %f3;
  add.rn.sat.f32 %f22, %f1, %f2;
  sub.ftz.f32 %f23, %f2, %f3;
  mul.ftz.f32 %f24, %f1, %f3;
  fma.rn.sat.f32 %f25, %f1, %f2, %f3;
  fma.rn.ftz.f32 %f26, %f3, %f1, %f2;
  copysign.f32 %f27, %f1, %f2;
  ex2.approx.f32 %f28, %f2;
  cvt.rzi.s32.f32 %r7, %f1;
  cvt.sat.u8.s32 %r8, %r2;
  cvt.rz.f32.f64 %f29, %fd1;
  add.rz.f32 %f30, %f1, %f2;
  mul.f32 %f31, %f7, %f12;
  lg2.approx.f32 %f32, %f3;
  div.rn.f32 %f33, %f31, %f14;
  mov.b32 %r10, %f4;
  mov.b32 %r11, %f5;
  mov.b32 %r12, %f6;
  mov.b32 %r13, %f7;
  mov.b32 %r14, %f8;
  mov.b32 %r15, %f9;
  mov.b32 %r16, %f10;
  mov.b32 %r17, %f11;
  mov.b32 %r18, %f12;
  mov.b32 %r19, %f13;
  mov.b32 %r20, %f14;
  mov.b32 %r21, %f15;
  mov.b32 %r22, %f16;
  mov.b32 %r23, %f17;
  mov.b32 %r24, %f18;
  mov.b32 %r25, %f19;
  mov.b32 %r26, %f20;
  mov.b32 %r27, %f21;
  mov.b32 %r28, %f22;
  mov.b32 %r29, %f23;
  xor.b32 %r30, %r30, %r10;
  xor.b32 %r30, %r30, %r11;
  xor.b32 %r30, %r30, %r12;
  xor.b32 %r30, %r30, %r13;
  xor.b32 %r30, %r30, %r14;
  xor.b32 %r30, %r30, %r15;
  xor.b32 %r30, %r30, %r16;
  add.u32 %r31, %r31, %r17;
  add.u32 %r31, %r31, %r18;
  add.u32 %r31, %r31, %r19;
  add.u32 %r31, %r31, %r20;
  add.u32 %r31, %r31, %r21;
  add.u32 %r31, %r31, %r22;
  add.u32 %r31, %r31, %r23;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r24;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r25;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r26;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r27;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r28;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r29;
  mov.b32 %r10, %f24;
  mov.b32 %r11, %f25;
  mov.b32 %r12, %f26;
  mov.b32 %r13, %f27;
  mov.b32 %r14, %f28;
  mov.b32 %r15, %f29;
  mov.b32 %r16, %f30;
  mov.b32 %r17, %f33;
  mov.b32 %r18, %f32;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r10;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r11;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r12;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r13;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r14;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r15;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r16;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r17;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r18;
  mul.lo.u32 %r32, %r32, 33;
  xor.b32 %r32, %r32, %r5;
  xor.b32 %r32, %r32, %r6;
  xor.b32 %r32, %r32, %r7;
  xor.b32 %r32, %r32, %r8;
  mov.b64 %rd7, %fd2;
  mov.b64 %rd8, %fd3;
  mov.b64 %rd9, %fd4;
  xor.b64 %rd20, %rd20, %rd7;
  xor.b64 %rd20, %rd20, %rd8;
  xor.b64 %rd20, %rd20, %rd9;
  xor.b64 %rd20, %rd20, %rd5;
  add.s64 %rd20, %rd20, %rd6;
  mul.f32 %f1, %f1, 0f3FC00000;
  add.f32 %f2, %f2, %f31;
  add.u32 %r2, %r2, 0x9E3779B9;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, %r3;
  @%p1 bra LOOP;
  mul.wide.u32 %rd10, %r1, 24;
  add.s64 %rd11, %rd2, %rd10;
  st.global.u32 [%rd11], %r30;
  st.global.u32 [%rd11+4], %r31;
  st.global.u32 [%rd11+8], %r32;
  st.global.u64 [%rd11+16], %rd20;
  ret;
}
)";

std::vector<uint32_t> cvt_fslow_inputs(uint32_t threads, uint32_t seed) {
  std::mt19937 rng(seed);
  const uint32_t fs[] = {0x00000000u, 0x80000000u, 0x3f800000u, 0x3f7fffffu, 0x3f800001u,
                         0x00000001u, 0x807fffffu, 0x00800000u, 0x7f7fffffu, 0xff800000u,
                         0x7f800000u, 0x7fc00000u, 0x7fc00001u, 0xffc12345u, 0x7fa00002u,
                         0xff800003u, 0x40490fdbu, 0xc0000000u, 0x4b000000u, 0x3e800000u};
  const uint32_t ints[] = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0x01000001u, 0xff7fu};
  std::vector<uint32_t> in(threads * 6);
  for (uint32_t t = 0; t < threads; ++t) {
    uint32_t* w = &in[t * 6];
    for (int i = 0; i < 3; ++i) {
      const uint32_t k = rng() % 4;
      w[i] = k == 0 ? fs[rng() % 20] : k == 1 ? (rng() & 0x807fffffu) | 0x3f000000u : rng();
    }
    w[3] = rng() % 3 == 0 ? ints[rng() % 7] : rng();
    double d = rng() % 5 == 0
                   ? std::ldexp(1.0 + double(rng()) / 4294967296.0, int(rng() % 300) - 150)
                   : std::ldexp(double(rng()) - 2e9, int(rng() % 60) - 30);
    if (rng() % 11 == 0) d = std::numeric_limits<double>::quiet_NaN();
    std::memcpy(&w[4], &d, 8);
  }
  return in;
}

std::vector<uint32_t> run_cvt_fslow(const char* tier, uint32_t threads, uint32_t seed,
                                    std::string* error, bool* native) {
  setenv("SMEMLAB_TIER", tier, 1);
  Device dev;
  auto m = Module::load_text(dev, kCvtFslowPtx, "cvtfs.ptx");
  std::vector<uint32_t> in = cvt_fslow_inputs(threads, seed);
  uint64_t din = dev.malloc(in.size() * 4), dout = dev.malloc(uint64_t{threads} * 24);
  dev.copy_to(din, in.data(), in.size() * 4);
  LaunchConfig cfg{{1}, {threads}};
  cfg.threads = 1;
  auto st = launch(*m, "cvtfs", cfg, din, dout);
  unsetenv("SMEMLAB_TIER");
  std::vector<uint32_t> mem(threads * 6);
  dev.copy_from(mem.data(), dout, mem.size() * 4);
  if (st.error) *error = st.error->what();
  *native = native_loaded(m->kernel("cvtfs"));
  return mem;
}

TEST_F(NativeTier, CvtAndFloatSlowPathLaneFormsMatchTheInterpreter) {
  // 45 threads: a full warp and a warp of 13 lanes, losing lanes as their
  // trip counts (1..4) end.
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    std::string ea, eb;
    bool na = false, nb = false;
    const std::vector<uint32_t> a = run_cvt_fslow("interp", 45, seed, &ea, &na);
    const std::vector<uint32_t> b = run_cvt_fslow("native", 45, seed, &eb, &nb);
    ASSERT_EQ(ea, "");
    ASSERT_EQ(eb, "");
    ASSERT_TRUE(nb);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(a[i], b[i]) << "seed " << seed << " thread " << i / 6 << " word " << i % 6;
  }
  // The covered forms run in the loop's lane-outer body; the others stay
  // their executors' warp-level calls between its stretches.
  Device dev;
  auto m = Module::load_text(dev, kCvtFslowPtx, "cvtfs.ptx");
  const std::string src = native_source(m->kernel("cvtfs"));
  for (const char* f :
       {"cvt_lane<CVT, F32>", "cvt_lane<CVT, F64>", "cvt_lane<CVT, U64>", "cvt_lane<CVT, S64>",
        "cvt_lane<CVT, U16>", "cvt_lane<CVT, S8>", "fslow_lane<FSLOW, F32>"})
    EXPECT_NE(src.find(f), std::string::npos) << f;
  size_t calls = 0;
  for (size_t at = src.find("g_calls["); at != std::string::npos; at = src.find("g_calls[", at + 1))
    ++calls;
  // ex2, cvt.rzi, cvt.sat, cvt.rz, add.rz, lg2: in the full-warp body, the
  // partial-group body, and (none: the chunk is whole) no per-op switch.
  EXPECT_EQ(calls, 12u);
}

// A small kernel without loops (BlackScholes' shape: each warp passes
// once) gets lane-outer bodies in its straight code too; it matches the
// interpreter by a full warp and a partial one (61 threads).
TEST_F(NativeTier, SmallStraightKernelsGetLaneBodies) {
  const char* ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry straight(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 0x9E3779B1;
  cvt.rn.f32.u32 %f1, %r2;
  rsqrt.approx.f32 %f2, %f1;
  div.rn.f32 %f3, %f2, %f1;
  abs.f32 %f4, %f3;
  ex2.approx.f32 %f5, %f4;
  fma.rn.f32 %f6, %f5, %f2, %f4;
  mov.b32 %r3, %f6;
  xor.b32 %r4, %r3, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";
  std::vector<uint32_t> out[2];
  for (int k = 0; k < 2; ++k) {
    setenv("SMEMLAB_TIER", k ? "native" : "interp", 1);
    Device dev;
    auto m = Module::load_text(dev, ptx, "straight.ptx");
    uint64_t d = dev.malloc(61 * 4);
    LaunchConfig cfg{{1}, {61}};
    cfg.threads = 1;
    auto st = launch(*m, "straight", cfg, d);
    unsetenv("SMEMLAB_TIER");
    ASSERT_FALSE(st.error);
    out[k].resize(61);
    dev.copy_from(out[k].data(), d, 61 * 4);
    if (k) {
      std::string why;
      EXPECT_TRUE(native_loaded(m->kernel("straight"), &why)) << why;
      const std::string src = native_source(m->kernel("straight"));
      EXPECT_NE(src.find("template <bool Full>"), std::string::npos) << src;
      EXPECT_NE(src.find("fslow_lane<FSLOW, F32>"), std::string::npos) << src;
    }
  }
  EXPECT_EQ(out[0], out[1]);
}

// instructions.def's operand-shape column is the one description the
// register analyses (reg_operands.h) and the lane bodies (native_lanes.cc)
// both read: for every op both describe, the registers its lane body loads
// are reg_operands' uses and defs (a def is loaded for the select that
// keeps lanes outside the group), and those it stores are its defs.
TEST(NativeLanes, LaneBodiesTouchTheRegistersRegOperandsNames) {
  const std::regex load(R"(= R\[(\d+)u \+ l\];)"), store(R"(R\[(\d+)u \+ l\] =)");
  auto regs = [](const std::string& s, const std::regex& re) {
    std::set<uint32_t> out;
    for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it)
      out.insert(static_cast<uint32_t>(std::stoul((*it)[1])) / 32);
    return out;
  };
  uint32_t checked = 0;
  for (uint32_t c = 0; c < kNumCodes; ++c) {
    if (!implemented(c)) continue;
    Op o{};
    o.code = static_cast<uint16_t>(c);
    o.t = static_cast<uint8_t>(c % 16);
    o.vec = 1;
    for (uint32_t i = 0; i < 6; ++i) o.r[i] = 10 + i;
    const RegOperands r = reg_operands(o);
    if (!r.known || !has_lane_form(o)) continue;
    Program p;
    p.ops = {o, o};
    const std::string src = lane_body_function(p, 0, 2);
    std::set<uint32_t> uses, defs;
    for (uint8_t i = 0; i < r.nuse; ++i) uses.insert(o.r[r.use[i]]);
    for (uint8_t i = 0; i < r.ndef; ++i) defs.insert(o.r[r.def[i]]);
    std::set<uint32_t> touched = uses;
    touched.insert(defs.begin(), defs.end());
    EXPECT_EQ(regs(src, load), touched) << "code " << c << "\n" << src;
    EXPECT_EQ(regs(src, store), defs) << "code " << c << "\n" << src;
    ++checked;
  }
  EXPECT_GT(checked, 150u);  // (every integer, float, setp, selp and mov code)
}

// kLoopPtx with `extra` ops more (adds of 0): a program of its own, since
// programs with the same ops share their native state in a process.
std::string loop_variant(int extra) {
  std::string s = kLoopPtx;
  std::string ops;
  for (int i = 0; i < extra; ++i) ops += "  add.u32 %r4, %r4, 0;\n";
  s.replace(s.find("LOOP:\n"), 6, "LOOP:\n" + ops);
  return s;
}

// One launch of loopk under the environment's tier (jit unless set).
std::vector<uint32_t> launch_loop(Device& dev, Module& m, uint32_t threads) {
  uint64_t dout = dev.malloc(uint64_t{threads} * 44);
  LaunchConfig cfg{{1}, {threads}};
  cfg.threads = 1;
  auto st = launch(m, "loopk", cfg, dout);
  EXPECT_FALSE(st.error);
  std::vector<uint32_t> mem(threads * 11);
  dev.copy_from(mem.data(), dout, mem.size() * 4);
  return mem;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
        names.push_back(e->d_name);
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Under jit with SMEMLAB_NATIVE=1 the compile starts at a launch of a
// kernel whose launches so far cost more than the compile's estimate
// (SMEMLAB_NATIVE_COST=0 here: its second launch), in the background; the
// cache then holds its object and source and nothing else.
TEST_F(NativeTier, BackgroundCompileStartsAtALaterLaunchAndLeavesOnlyItsObject) {
  const std::string cache = ::testing::TempDir() + "smemlab-native-bg-" + std::to_string(getpid());
  setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  setenv("SMEMLAB_NATIVE", "1", 1);
  setenv("SMEMLAB_NATIVE_COST", "0", 1);
  unsetenv("SMEMLAB_TIER");  // (jit: a suite run with the tier forced)
  Device dev;
  auto m = Module::load_text(dev, loop_variant(1), "loop.ptx");
  const Program& p = m->kernel("loopk");
  std::string why;
  const std::vector<uint32_t> a = launch_loop(dev, *m, 40);
  EXPECT_FALSE(native_loaded(p, &why));
  EXPECT_NE(why.find("not compiled"), std::string::npos) << why;
  const std::vector<uint32_t> b = launch_loop(dev, *m, 40);
  bool loaded = false;
  for (int i = 0; i < 6000 && !(loaded = native_loaded(p, &why)); ++i) {
    if (i > 0 && why != "" && why.find("not compiled") == std::string::npos) break;  // failed
    usleep(50000);
  }
  ASSERT_TRUE(loaded) << why;
  const std::vector<uint32_t> c = launch_loop(dev, *m, 40);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  const std::vector<std::string> files = files_in(cache + "/smemlab/native");
  ASSERT_EQ(files.size(), 2u) << ::testing::PrintToString(files);
  EXPECT_EQ(files[0].substr(files[0].size() - 3), ".cc");
  EXPECT_EQ(files[1].substr(files[1].size() - 3), ".so");
  EXPECT_EQ(files[0].substr(0, files[0].size() - 3), files[1].substr(0, files[1].size() - 3));
}

// Run by ACompileStoppedAtExitLeavesNothing in a process of its own: a
// kernel's second launch starts its compile in the background, and the
// process exits while it runs.
TEST(NativeTierChild, StartsACompileAndExits) {
  if (!std::getenv("SMEMLAB_NATIVE_TEST_CHILD"))
    GTEST_SKIP() << "run by NativeTier.ACompileStoppedAtExitLeavesNothing";
  Device dev;
  auto m = Module::load_text(dev, loop_variant(2), "loop.ptx");
  launch_loop(dev, *m, 40);
  launch_loop(dev, *m, 40);
  usleep(300000);  // (the compiler running: it takes a second or more)
  std::fflush(nullptr);
  std::exit(0);
}

// A compile stopped because the process exits leaves nothing in the cache
// (no partial object, source or output, no directory) and the process's
// stderr says nothing about it.
TEST_F(NativeTier, ACompileStoppedAtExitLeavesNothing) {
  const std::string cache =
      ::testing::TempDir() + "smemlab-native-exit-" + std::to_string(getpid());
  char self[4096] = {};
  ASSERT_GT(readlink("/proc/self/exe", self, sizeof self - 1), 0);
  const std::string log = cache + ".log";
  const std::string cmd = "env -u SMEMLAB_TIER XDG_CACHE_HOME=" + cache +
                          " SMEMLAB_NATIVE=1 SMEMLAB_NATIVE_COST=0 SMEMLAB_NATIVE_VERBOSE=1"
                          " SMEMLAB_NATIVE_TEST_CHILD=1 " +
                          self + " --gtest_filter=NativeTierChild.StartsACompileAndExits > " + log +
                          " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(log);
  const std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(out.find("compiling the native runs of loopk in the background"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("native runs unavailable"), std::string::npos) << out;
  EXPECT_EQ(files_in(cache + "/smemlab/native"), std::vector<std::string>{});
}

TEST_F(NativeTier, NoCompilerMeansTheInterpretersRuns) {
  setenv("SMEMLAB_CXX", "/nonexistent/c++", 1);
  // (A cache of its own and a kernel of its own: nothing can answer for it.)
  setenv("XDG_CACHE_HOME", (::testing::TempDir() + "smemlab-native-nocc").c_str(), 1);
  const FamilyOutcome a = run_family("interp", 40, 9, true);
  testing::internal::CaptureStderr();
  const FamilyOutcome b = run_family("native", 40, 9, true);
  const std::string err = testing::internal::GetCapturedStderr();
  unsetenv("SMEMLAB_CXX");
  EXPECT_FALSE(b.native);
  EXPECT_NE(b.why.find("/nonexistent/c++"), std::string::npos) << b.why;
  EXPECT_EQ(a.mem, b.mem);
  EXPECT_EQ(a.warp_instructions, b.warp_instructions);
  (void)err;  // (one note per process: an earlier test may have said it)
}

}  // namespace
}  // namespace smemlab::emu
