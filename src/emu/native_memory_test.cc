// The native tier's loads and stores (ops_memory_lane.h, the segments of
// native_codegen.cc that gpu_round.h runs) against the interpreter: global
// loads of 1, 2, 4 and 16 bytes (s8/s16 sign extension, v2/v4 vectors),
// global stores (several lanes to one word: the last lane's value stays),
// shared stores and loads around a barrier, parameter and constant loads,
// guarded loads and stores, a partial warp, both groups of a divergent
// warp; and a faulting lane (outside every allocation) and a misaligned
// one, whose errors (lane, address, source line) must be the
// interpreter's. SMEMLAB_TIER=native must give the interpreter's memory,
// counts and error, with its segments compiled and loaded.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "emu/launch.h"
#include "emu/native_tier.h"
#include "emu/program.h"

namespace smemlab::emu {
namespace {

// out: 16 words per thread. in: 16 bytes per thread. bad / mis: the thread
// whose address is moved out of the allocation / off its alignment (none:
// ~0). `extra`: ops that make the program's code this test's own.
std::string mem_ptx(const std::string& extra = "") {
  return R"(.version 8.0
.target sm_90
.address_size 64
.const .align 4 .b32 tab[4] = {11, 22, 33, 44};
.visible .entry memk(.param .u64 pin, .param .u64 pout, .param .u32 pbad, .param .u32 pmis)
{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<24>;
  .reg .f32 %f<8>;
  .shared .align 16 .b8 sh[1024];
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r30, [pbad];
  ld.param.u32 %r31, [pmis];
  mov.u32 %r1, %tid.x;
  mov.u32 %r37, 0;
)" + extra +
         R"(
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd3, %rd5;
  mul.wide.u32 %rd7, %r1, 64;
  add.s64 %rd8, %rd4, %rd7;
  setp.eq.u32 %p1, %r1, %r30;
  selp.b64 %rd9, 1048576, 0, %p1;
  add.s64 %rd10, %rd6, %rd9;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd10];
  add.u32 %r37, %r37, 1;
  ld.global.s8 %r6, [%rd6+1];
  add.u32 %r37, %r37, 1;
  ld.global.s16 %r7, [%rd6+2];
  add.u32 %r37, %r37, 1;
  ld.global.v2.f32 {%f1, %f2}, [%rd6+8];
  setp.eq.u32 %p2, %r1, %r31;
  selp.b64 %rd11, 2, 0, %p2;
  add.s64 %rd12, %rd6, %rd11;
  ld.global.u32 %r8, [%rd12+4];
  and.b32 %r9, %r1, 3;
  setp.ne.u32 %p3, %r9, 0;
  add.s32 %r10, %r2, %r3;
  mul.lo.s32 %r11, %r4, %r5;
  xor.b32 %r12, %r6, %r7;
  add.f32 %f3, %f1, %f2;
  mul.f32 %f4, %f1, %f2;
  and.b32 %r13, %r1, 3;
  mul.wide.u32 %rd13, %r13, 4;
  mov.u64 %rd14, tab;
  add.s64 %rd15, %rd14, %rd13;
  ld.const.u32 %r14, [%rd15];
  mul.wide.u32 %rd16, %r1, 8;
  mov.u32 %r15, sh;
  cvt.u64.u32 %rd17, %r15;
  add.s64 %rd18, %rd17, %rd16;
  st.shared.v2.u32 [%rd18], {%r10, %r11};
  bar.sync 0;
  xor.b32 %r16, %r1, 1;
  mul.wide.u32 %rd19, %r16, 8;
  add.s64 %rd20, %rd17, %rd19;
  ld.shared.v2.u32 {%r17, %r18}, [%rd20];
  add.s32 %r19, %r17, %r14;
  st.global.v4.u32 [%rd8], {%r10, %r11, %r12, %r19};
  add.u32 %r37, %r37, 1;
  st.global.v2.f32 [%rd8+16], {%f3, %f4};
  add.u32 %r37, %r37, 1;
  @%p3 st.global.u32 [%rd8+24], %r18;
  add.u32 %r37, %r37, 1;
  @!%p3 ld.global.u32 %r20, [%rd6+12];
  add.u32 %r37, %r37, 1;
  @!%p3 st.global.u32 [%rd8+28], %r20;
  add.u32 %r37, %r37, 1;
  st.global.u32 [%rd8+32], %r8;
  shr.u32 %r21, %r1, 2;
  mul.wide.u32 %rd21, %r21, 4;
  add.s64 %rd22, %rd4, %rd21;
  st.global.u32 [%rd22+4096], %r1;
  setp.lt.u32 %p4, %r9, 2;
  @%p4 bra LOW;
  add.s32 %r22, %r10, 7;
  st.global.u32 [%rd8+36], %r22;
  add.u32 %r37, %r37, 1;
  ld.global.u16 %r23, [%rd6+6];
  add.u32 %r37, %r37, 1;
  st.global.u16 [%rd8+40], %r23;
  bra.uni DONE;
LOW:
  sub.s32 %r22, %r10, 7;
  st.global.u32 [%rd8+44], %r22;
  add.u32 %r37, %r37, 1;
  ld.global.u8 %r23, [%rd6+5];
  add.u32 %r37, %r37, 1;
  st.global.u8 [%rd8+48], %r23;
DONE:
  st.global.u32 [%rd8+52], %r1;
  add.u32 %r37, %r37, 1;
  st.global.u32 [%rd8+56], %r37;
  ret;
}
)";
}

struct MemOutcome {
  std::vector<uint32_t> mem;
  uint64_t warp_instructions = 0, lane_instructions = 0;
  std::string error;
  bool native = false;
  std::string why, source;
};

constexpr uint32_t kOutWords = 16;

MemOutcome run_mem(const char* tier, uint32_t threads, uint32_t bad, uint32_t mis,
                   const std::string& extra) {
  setenv("SMEMLAB_TIER", tier, 1);
  Device dev;
  auto m = Module::load_text(dev, mem_ptx(extra), "memk.ptx");
  std::vector<uint32_t> in(threads * 4);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = 0x9E3779B9u * (i + 1) ^ (i << 7);
  // (out: 16 words per thread, then the words the lanes share at +4096)
  const uint64_t out_bytes = 4096 + uint64_t{threads} * 4 + 64;
  uint64_t din = dev.malloc(in.size() * 4), dout = dev.malloc(out_bytes);
  dev.copy_to(din, in.data(), in.size() * 4);
  std::vector<uint32_t> zero(out_bytes / 4, 0xdeadbeefu);
  dev.copy_to(dout, zero.data(), out_bytes);
  LaunchConfig cfg{{1}, {threads}};
  cfg.threads = 1;
  auto st = launch(*m, "memk", cfg, din, dout, bad, mis);
  unsetenv("SMEMLAB_TIER");
  MemOutcome o;
  o.mem.resize(out_bytes / 4);
  dev.copy_from(o.mem.data(), dout, out_bytes);
  o.warp_instructions = st.warp_instructions;
  o.lane_instructions = st.lane_instructions;
  if (st.error) o.error = st.error->what();
  o.native = native_loaded(m->kernel("memk"), &o.why);
  o.source = native_source(m->kernel("memk"));
  return o;
}

class NativeMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("XDG_CACHE_HOME", (::testing::TempDir() + "smemlab-native-test").c_str(), 1);
  }
};

void expect_same(uint32_t threads, uint32_t bad, uint32_t mis, const std::string& extra) {
  SCOPED_TRACE("threads " + std::to_string(threads) + " bad " + std::to_string(bad) + " mis " +
               std::to_string(mis));
  const MemOutcome a = run_mem("interp", threads, bad, mis, extra);
  const MemOutcome b = run_mem("native", threads, bad, mis, extra);
  ASSERT_TRUE(b.native) << b.why;
  // The segments hold the loads and stores, compiled.
  EXPECT_NE(b.source.find("mem_op_native<LD, 4u, 4u>"), std::string::npos) << b.source;
  for (const char* m : {"<LD, 1u, 1u>", "<LD, 2u, 1u>", "<LD, 4u, 2u>", "<ST, 4u, 2u>",
                        "<ST, 4u, 4u>", "<ST, 2u, 1u>", "<ST, 1u, 1u>", "<LD, 8u, 1u>"})
    EXPECT_NE(b.source.find(std::string("mem_op_native") + m), std::string::npos) << m;
  EXPECT_NE(b.source.find("void seg"), std::string::npos);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.warp_instructions, b.warp_instructions);
  EXPECT_EQ(a.lane_instructions, b.lane_instructions);
  size_t wrong = 0;
  for (size_t i = 0; i < a.mem.size(); ++i) wrong += a.mem[i] != b.mem[i];
  EXPECT_EQ(wrong, 0u) << "of " << a.mem.size() << " words";
}

TEST_F(NativeMemory, LoadsAndStoresMatchTheInterpreter) {
  // 45 threads: a full warp and one of 13 lanes; the branch splits each.
  expect_same(45, ~0u, ~0u, "");
  expect_same(32, ~0u, ~0u, "");
}

TEST_F(NativeMemory, AFaultingLaneFaultsAsInTheInterpreter) {
  // (Lane 7 of the first warp, lane 9 of the partial one: the v4 load.)
  for (uint32_t bad : {7u, 41u}) {
    const MemOutcome a = run_mem("interp", 45, bad, ~0u, "  add.u32 %r39, %r1, 1;\n");
    ASSERT_NE(a.error.find("outside every allocation"), std::string::npos) << a.error;
    ASSERT_NE(a.error.find("thread (" + std::to_string(bad) + ",0,0)"), std::string::npos)
        << a.error;
    expect_same(45, bad, ~0u, "  add.u32 %r39, %r1, 1;\n");
  }
}

TEST_F(NativeMemory, AMisalignedLaneFaultsAsInTheInterpreter) {
  for (uint32_t mis : {0u, 31u, 44u}) {
    const MemOutcome a = run_mem("interp", 45, ~0u, mis, "  add.u32 %r39, %r1, 2;\n");
    ASSERT_NE(a.error.find("misaligned"), std::string::npos) << a.error;
    expect_same(45, ~0u, mis, "  add.u32 %r39, %r1, 2;\n");
  }
}

}  // namespace
}  // namespace smemlab::emu
