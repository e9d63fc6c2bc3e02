// The interpreter's two builds (portable and AVX2, chosen per launch by
// SMEMLAB_EMU_ISA) and the full-warp affine ld/st path: every pattern the
// fast path takes must give what the per-lane path gives, on both builds,
// and observers must get the same events from either path.
#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "emu/exec.h"
#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

bool cpu_has_avx2() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi2");
}

// Sets SMEMLAB_EMU_ISA for one test and restores "unset" after it.
struct IsaEnv {
  explicit IsaEnv(const char* v) { setenv("SMEMLAB_EMU_ISA", v, 1); }
  ~IsaEnv() { unsetenv("SMEMLAB_EMU_ISA"); }
};

TEST(RunWarpIsa, EnvironmentChoosesTheCopy) {
  std::string err;
  RunWarpFn portable, automatic;
  {
    IsaEnv e("portable");
    portable = select_run_warp(&err);
  }
  {
    IsaEnv e("auto");
    automatic = select_run_warp(&err);
  }
  ASSERT_NE(portable, nullptr);
  ASSERT_NE(automatic, nullptr);
  EXPECT_EQ(select_run_warp(&err), automatic);  // unset = auto
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  EXPECT_EQ(automatic != portable, cpu_has_avx2());
  IsaEnv e("avx2");
  EXPECT_EQ(select_run_warp(&err) != nullptr, cpu_has_avx2()) << err;
#endif
}

TEST(RunWarpIsa, UnknownValueIsAnErrorNamingIt) {
  IsaEnv e("sse9");
  std::string err;
  EXPECT_EQ(select_run_warp(&err), nullptr);
  EXPECT_NE(err.find("SMEMLAB_EMU_ISA='sse9'"), std::string::npos) << err;
  auto r = run_snippet("st.global.u32 [%rd14], %r15;", 32);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("sse9"), std::string::npos) << r.error;
}

class AffineAccess : public ::testing::TestWithParam<const char*> {
 protected:
  IsaEnv env_{GetParam()};
};

const char* kShared = ".shared .align 8 .b8 sh[2048];\n";

// A row stored by the warp (stride 4), then read back as a broadcast per
// half-warp (stride 0), a column with stride 12, both halves reading one
// 16-word row, and 64-bit words; every thread checks its own results.
TEST_P(AffineAccess, LoadsSeeWhatTheLanesStored) {
  auto r = run_snippet(R"(
  mov.u32 %r1, sh;
  shl.b32 %r2, %r15, 2;
  add.s32 %r3, %r1, %r2;
  mad.lo.u32 %r4, %r15, 7, -50;
  st.shared.u32 [%r3], %r4;
  st.shared.u32 [%r3+128], %r15;
  bar.sync 0;
  shr.u32 %r5, %r15, 4;
  shl.b32 %r6, %r5, 3;
  add.s32 %r7, %r1, %r6;
  ld.shared.u32 %r8, [%r7+4];
  st.global.u32 [%rd14], %r8;
  and.b32 %r9, %r15, 15;
  mul.lo.u32 %r10, %r9, 12;
  add.s32 %r11, %r1, %r10;
  ld.shared.s32 %r12, [%r11];
  cvt.s64.s32 %rd1, %r12;
  st.global.u64 [%rd14+8], %rd1;
  shl.b32 %r13, %r9, 2;
  add.s32 %r14, %r1, %r13;
  ld.shared.u32 %r14, [%r14+128];
  st.global.u32 [%rd14+16], %r14;
  cvt.u64.u32 %rd2, %r15;
  mul.wide.u32 %rd3, %r15, 8;
  cvt.u64.u32 %rd4, %r1;
  add.s64 %rd5, %rd4, %rd3;
  add.s64 %rd6, %rd2, 1000000000000;
  st.shared.u64 [%rd5+256], %rd6;
  bar.sync 0;
  ld.shared.u64 %rd7, [%rd4+264];
  st.global.u64 [%rd14+24], %rd7;)",
                       32, kShared);
  SNIPPET_OK(r);
  auto row = [](int i) { return static_cast<uint32_t>(i * 7 - 50); };
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(r.u32(0, t), row(t < 16 ? 1 : 3)) << t;
    int word = 3 * (t % 16);  // past 31: the second row, which holds lane numbers
    EXPECT_EQ(static_cast<int64_t>(r.at(t, 1)),
              word < 32 ? static_cast<int32_t>(row(word)) : word - 32)
        << t;
    EXPECT_EQ(r.u32(2, t), static_cast<uint32_t>(t % 16)) << t;
    EXPECT_EQ(r.at(t, 3), 1000000000001ull) << t;
  }
}

// Lanes storing to one word (stride 0 in each half): the highest lane's
// value stays, as when the lanes store one after another.
TEST_P(AffineAccess, StoresToOneWordKeepTheLastLane) {
  auto r = run_snippet(R"(
  mov.u32 %r1, sh;
  shr.u32 %r2, %r15, 4;
  shl.b32 %r3, %r2, 2;
  add.s32 %r4, %r1, %r3;
  add.u32 %r5, %r15, 100;
  st.shared.u32 [%r4], %r5;
  mov.u32 %r6, 0;
  st.shared.u32 [%r1+64], %r6;
  st.shared.u32 [%r1+64], %r15;
  bar.sync 0;
  ld.shared.u32 %r7, [%r1];
  ld.shared.u32 %r8, [%r1+4];
  ld.shared.u32 %r9, [%r1+64];
  st.global.u32 [%rd14], %r7;
  st.global.u32 [%rd14+8], %r8;
  st.global.u32 [%rd14+16], %r9;)",
                       32, kShared);
  SNIPPET_OK(r);
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(r.u32(0, t), 115u) << t;
    EXPECT_EQ(r.u32(1, t), 131u) << t;
    EXPECT_EQ(r.u32(2, t), 31u) << t;
  }
}

// A run that leaves shared memory at its last lanes still faults, naming
// the first lane outside (the per-lane path reports it).
TEST_P(AffineAccess, RunPastTheEndFaultsAtItsLane) {
  auto r = run_snippet(R"(
  mov.u32 %r1, sh;
  shl.b32 %r2, %r15, 7;
  add.s32 %r3, %r1, %r2;
  ld.shared.u32 %r4, [%r3];
  st.global.u32 [%rd14], %r4;)",
                       32, kShared);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("offset 2048 is outside the block's 2048 bytes"), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("thread (16,0,0)"), std::string::npos) << r.error;
}

TEST_P(AffineAccess, MisalignedStrideFaults) {
  auto r = run_snippet(R"(
  mov.u32 %r1, sh;
  shl.b32 %r2, %r15, 1;
  add.s32 %r3, %r1, %r2;
  ld.shared.u32 %r4, [%r3];
  st.global.u32 [%rd14], %r4;)",
                       32, kShared);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("misaligned"), std::string::npos) << r.error;
}

INSTANTIATE_TEST_SUITE_P(Isa, AffineAccess, ::testing::Values("portable", "auto"));

// Every memory event, keyed by (block, warp, PTX line), in execution order.
struct EventLog : KernelObserver {
  struct Block : BlockObserver {
    Dim3 id;
    std::map<std::tuple<uint32_t, uint32_t, int>, std::vector<MemAccess>> events;
    std::vector<WarpSync> syncs;
    void on_memory(const MemAccess& a) override {
      // The block is the one this observer was made for, the instruction
      // the one at that line: checked here, so the keys can be trusted.
      EXPECT_EQ(a.block, id);
      EXPECT_NE(a.instr, nullptr);
      events[{id.x, a.warp, a.instr->ptx_line}].push_back(a);
    }
    void on_warp_sync(const WarpSync& w) override { syncs.push_back(w); }
    // The events of warp `warp` at PTX line `line` (none: empty).
    std::vector<MemAccess> at(uint32_t warp, int line) const {
      auto it = events.find({id.x, warp, line});
      return it == events.end() ? std::vector<MemAccess>{} : it->second;
    }
  };
  std::vector<std::unique_ptr<Block>> blocks;
  std::unique_ptr<BlockObserver> make_block_observer(Dim3 b) override {
    auto o = std::make_unique<Block>();
    o->id = b;
    return o;
  }
  void finish_block(Dim3, std::unique_ptr<BlockObserver> o) override {
    blocks.emplace_back(static_cast<Block*>(o.release()));
  }
};

// A kernel's PTX from its lines, and the (1-based) line of each tagged one
// ("... // A1" -> "A1").
struct TaggedPtx {
  std::string text;
  std::map<std::string, int> line;
};
TaggedPtx tagged(const std::vector<std::string>& body) {
  TaggedPtx p;
  for (size_t i = 0; i < body.size(); ++i) {
    p.text += body[i] + "\n";
    auto c = body[i].find("// ");
    if (c != std::string::npos) p.line[body[i].substr(c + 3)] = static_cast<int>(i + 1);
  }
  return p;
}

// Lanes' offsets into a 4 KiB window for one warp-access: affine patterns
// the full-warp fast path takes (a row, a broadcast per half, a padded
// column, one row for both halves), the same with one lane off, and random
// words; each pattern is run with a full warp and with a random partial mask.
std::vector<uint32_t> access_pattern(std::mt19937& rng, int kind) {
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  std::vector<uint32_t> o(32);
  const uint32_t strides[] = {0, 4, 8, 12, 128, 132, 252};
  uint32_t stride = strides[pick(7)];
  uint32_t room = 4096 - 8 - stride * 15;
  uint32_t h0 = pick(room / 4) * 4, h1 = kind == 1 ? h0 : pick(room / 4) * 4;
  for (uint32_t l = 0; l < 32; ++l) {
    o[l] = kind >= 3 ? pick(4088 / 4) * 4 : (l < 16 ? h0 : h1) + stride * (l % 16);
  }
  if (kind == 2) o[pick(32)] = pick(4088 / 4) * 4;  // one lane off the pattern
  return o;
}

// Each (A, B) pair of lines does the same access twice: A through the
// space's own instruction (ld.shared, st.global: the affine full-warp path
// and exec_memory's fast path), B through a generic address (the per-lane
// translation). Observers must see identical events from both, up to the
// instruction; and what they see is the offsets the test chose.
TEST_P(AffineAccess, ObserversSeeTheSameEventsOnEveryPath) {
  const std::vector<std::string> body = {
      ".version 9.0", ".target sm_90", ".address_size 64", ".shared .align 8 .b8 sh[4096];",
      ".visible .entry ev(.param .u64 offs, .param .u64 act, .param .u64 buf, .param .u32 n)", "{",
      ".reg .pred %p<4>;", ".reg .b32 %r<24>;", ".reg .b64 %rd<24>;", "ld.param.u64 %rd1, [offs];",
      "ld.param.u64 %rd2, [act];", "ld.param.u64 %rd3, [buf];", "ld.param.u32 %r1, [n];",
      "mov.u32 %r2, %tid.x;", "mov.u32 %r3, sh;", "mov.u64 %rd4, sh;",
      "cvta.shared.u64 %rd5, %rd4;", "mov.u32 %r4, 0;", "LOOP:", "setp.ge.u32 %p1, %r4, %r1;",
      "@%p1 bra DONE;", "mad.lo.u32 %r5, %r4, 64, %r2;", "mul.wide.u32 %rd6, %r5, 4;",
      "add.s64 %rd7, %rd1, %rd6;", "ld.global.u32 %r6, [%rd7];", "add.s64 %rd8, %rd2, %rd6;",
      "ld.global.u32 %r7, [%rd8];", "setp.ne.u32 %p2, %r7, 0;", "add.u32 %r8, %r3, %r6;",
      "cvt.u64.u32 %rd9, %r6;", "add.s64 %rd10, %rd5, %rd9;", "add.s64 %rd11, %rd3, %rd9;",
      "and.b32 %r9, %r8, -8;", "and.b64 %rd12, %rd10, -8;",
      // The pairs; "A1" etc. are found by their comment.
      "ld.shared.u32 %r10, [%r8]; // A1", "ld.u32 %r11, [%rd10]; // B1",
      "st.shared.u32 [%r8], %r2; // A2", "st.u32 [%rd10], %r2; // B2",
      "@%p2 ld.shared.u32 %r12, [%r8]; // A3", "@%p2 ld.u32 %r13, [%rd10]; // B3",
      "@%p2 st.shared.u32 [%r8], %r2; // A4", "@%p2 st.u32 [%rd10], %r2; // B4",
      "ld.shared.u64 %rd13, [%r9]; // A5", "ld.u64 %rd14, [%rd12]; // B5",
      "@%p2 ld.shared.s32 %r14, [%r8+4]; // A6", "@%p2 ld.s32 %r15, [%rd10+4]; // B6",
      "ld.global.u32 %r16, [%rd11]; // A7", "ld.u32 %r17, [%rd11]; // B7",
      "@%p2 st.global.u32 [%rd11], %r2; // A8", "@%p2 st.u32 [%rd11], %r2; // B8",
      // A load overwriting its own address register: the event keeps the
      // addresses it was issued with (A9 against A1, same lanes, same words).
      "mov.u32 %r18, %r8;", "ld.shared.u32 %r18, [%r18]; // A9", "add.u32 %r4, %r4, 1;",
      "bra LOOP;", "DONE:", "ret;", "}"};
  const auto [text, line] = tagged(body);
  constexpr int kPatterns = 48, kThreads = 64;
  std::mt19937 rng(14);
  std::vector<uint32_t> offs, act;
  for (int k = 0; k < kPatterns; ++k) {
    for (int wi = 0; wi < 2; ++wi) {
      std::vector<uint32_t> o = access_pattern(rng, (k / 2 + wi) % 5);
      uint32_t mask =
          k % 2 == 0 ? ~0u : static_cast<uint32_t>(rng()) & static_cast<uint32_t>(rng());
      if (k == 5) mask = 0;  // no lane: no event
      for (uint32_t l = 0; l < 32; ++l) offs.push_back(o[l]), act.push_back((mask >> l) & 1u);
    }
  }
  Device dev;
  auto m = Module::load_text(dev, text, "events.ptx");
  uint64_t d_offs = dev.malloc(offs.size() * 4), d_act = dev.malloc(act.size() * 4),
           d_buf = dev.malloc(4096);
  dev.copy_to(d_offs, offs.data(), offs.size() * 4);
  dev.copy_to(d_act, act.data(), act.size() * 4);
  EventLog log;
  LaunchConfig cfg{{2}, {kThreads}};
  cfg.observer = &log;
  cfg.threads = 1;
  auto st = launch(*m, "ev", cfg, d_offs, d_act, d_buf, static_cast<uint32_t>(kPatterns));
  ASSERT_TRUE(st.ok()) << st.error->what();
  ASSERT_EQ(log.blocks.size(), 2u);

  auto same = [](const MemAccess& a, const MemAccess& b, const std::string& what) {
    EXPECT_EQ(a.space, b.space) << what;
    EXPECT_EQ(a.op, b.op) << what;
    EXPECT_EQ(a.width, b.width) << what;
    EXPECT_EQ(a.matrices, b.matrices) << what;
    EXPECT_EQ(a.mask, b.mask) << what;
    EXPECT_EQ(a.block, b.block) << what;
    EXPECT_EQ(a.warp, b.warp) << what;
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(a.addr[l], b.addr[l]) << what << " lane " << l;
  };
  for (const auto& blk : log.blocks) {
    for (uint32_t wi = 0; wi < 2; ++wi) {
      auto events = [&](const std::string& name) { return blk->at(wi, line.at(name)); };
      for (int pair = 1; pair <= 9; ++pair) {
        const std::string a = "A" + std::to_string(pair),
                          b = pair == 9 ? "A1" : "B" + std::to_string(pair);
        const bool guarded = pair == 3 || pair == 4 || pair == 6 || pair == 8;
        std::vector<MemAccess> ea = events(a), eb = events(b);
        ASSERT_EQ(ea.size(), eb.size()) << a;
        ASSERT_EQ(ea.size(), static_cast<size_t>(guarded ? kPatterns - 1 : kPatterns)) << a;
        size_t i = 0;
        for (int k = 0; k < kPatterns; ++k) {
          const size_t t0 = static_cast<size_t>(k * kThreads + static_cast<int>(wi) * 32);
          uint32_t mask = 0;
          for (uint32_t l = 0; l < 32; ++l) mask |= (guarded ? act[t0 + l] : 1u) << l;
          if (mask == 0) continue;
          const std::string what =
              fmt::format("{} vs {}, block {} warp {} pattern {}", a, b, blk->id.x, wi, k);
          const MemAccess& x = ea[i];
          same(x, eb[i], what);
          ++i;
          // What the test chose: the lanes in the mask at their offsets
          // (global: at buf + offset), the others zero.
          EXPECT_EQ(x.mask, mask) << what;
          EXPECT_EQ(x.instr->ptx_line, line.at(a)) << what;
          EXPECT_EQ(x.space, pair >= 7 && pair <= 8 ? Space::Global : Space::Shared) << what;
          EXPECT_EQ(x.op, pair == 2 || pair == 4 || pair == 8 ? MemOp::Store : MemOp::Load) << what;
          EXPECT_EQ(x.width, pair == 5 ? 8u : 4u) << what;
          for (uint32_t l = 0; l < 32; ++l) {
            uint64_t want = offs[t0 + l];
            if (pair == 5) want &= ~7ull;
            if (pair == 6) want += 4;
            if (pair == 7 || pair == 8) want += d_buf;
            EXPECT_EQ(x.addr[l], (mask >> l) & 1u ? want : 0) << what << " lane " << l;
          }
        }
      }
    }
  }
}

// A generic access whose lanes resolve to different spaces is one event per
// space, in the order of each space's lowest lane, each with only its lanes.
TEST_P(AffineAccess, GenericAccessIsOneEventPerSpace) {
  const char* text = R"(.version 9.0
.target sm_90
.address_size 64
.shared .align 8 .b8 sh[256];
.visible .entry mix(.param .u64 buf)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, sh;
  cvta.shared.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  mul.wide.u32 %rd6, %r1, 8;
  add.s64 %rd7, %rd1, %rd6;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 1;
  selp.b64 %rd5, %rd7, %rd5, %p1;
  setp.ne.u32 %p1, %r1, 4;
  @%p1 ld.u32 %r3, [%rd5];
  ret;
}
)";
  Device dev;
  auto m = Module::load_text(dev, text, "mix.ptx");
  uint64_t buf = dev.malloc(32 * 8);
  EventLog log;
  LaunchConfig cfg{{1}, {32}};
  cfg.observer = &log;
  auto st = launch(*m, "mix", cfg, buf);
  ASSERT_TRUE(st.ok()) << st.error->what();
  ASSERT_EQ(log.blocks.size(), 1u);
  auto it = log.blocks[0]->events.find({0, 0, 22});  // the generic load's line
  ASSERT_NE(it, log.blocks[0]->events.end());
  const std::vector<MemAccess>& ev = it->second;
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].space, Space::Shared);
  EXPECT_EQ(ev[0].mask, 0x55555555u & ~(1u << 4));  // lane 4 is off
  EXPECT_EQ(ev[1].space, Space::Global);
  EXPECT_EQ(ev[1].mask, 0xaaaaaaaau);
  for (const MemAccess& a : ev) {
    EXPECT_EQ(a.instr->text.rfind("ld.u32", 0), 0u) << a.instr->text;
    EXPECT_EQ(a.op, MemOp::Load);
    EXPECT_EQ(a.width, 4u);
    EXPECT_EQ(a.warp, 0u);
  }
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(ev[0].addr[l], (ev[0].mask >> l) & 1u ? 4 * l : 0) << l;
    EXPECT_EQ(ev[1].addr[l], (ev[1].mask >> l) & 1u ? buf + 8 * l : 0) << l;
  }
}

// Accesses in a named space that take the per-lane path (local memory,
// atomics and reductions) report one event built from the addresses taken
// before the data moved; each (A, B) pair does the same access through the
// named space and through a generic address (emit's per-lane spaces), and
// both must give what the test chose. Masks run full, one lane (a pointer
// chase) and random, in turn, so each event follows one with other lanes.
TEST_P(AffineAccess, NamedSpaceAccessesOffTheFastPathReportTheirLanes) {
  const std::vector<std::string> body = {
      ".version 9.0", ".target sm_90", ".address_size 64", ".shared .align 8 .b8 sh[4096];",
      ".visible .entry nm(.param .u64 offs, .param .u64 act, .param .u64 buf, .param .u64 out, "
      ".param .u32 n)",
      "{", ".local .align 8 .b8 loc[4096];", ".reg .pred %p<4>;", ".reg .b32 %r<24>;",
      ".reg .b64 %rd<32>;", "ld.param.u64 %rd1, [offs];", "ld.param.u64 %rd2, [act];",
      "ld.param.u64 %rd3, [buf];", "ld.param.u64 %rd20, [out];", "ld.param.u32 %r1, [n];",
      "mov.u32 %r2, %tid.x;", "mov.u64 %rd4, loc;", "cvta.local.u64 %rd5, %rd4;",
      "mov.u64 %rd6, sh;", "cvta.shared.u64 %rd7, %rd6;", "st.global.u64 [%rd20], %rd4;",
      "st.global.u64 [%rd20+8], %rd6;", "mov.u32 %r4, 0;", "LOOP:", "setp.ge.u32 %p1, %r4, %r1;",
      "@%p1 bra DONE;", "mad.lo.u32 %r5, %r4, 64, %r2;", "mul.wide.u32 %rd8, %r5, 4;",
      "add.s64 %rd9, %rd1, %rd8;", "ld.global.u32 %r6, [%rd9];", "add.s64 %rd10, %rd2, %rd8;",
      "ld.global.u32 %r7, [%rd10];", "setp.ne.u32 %p2, %r7, 0;", "cvt.u64.u32 %rd11, %r6;",
      "add.s64 %rd12, %rd4, %rd11;", "add.s64 %rd13, %rd5, %rd11;", "add.s64 %rd14, %rd6, %rd11;",
      "add.s64 %rd15, %rd7, %rd11;", "add.s64 %rd16, %rd3, %rd11;", "and.b64 %rd17, %rd12, -8;",
      "and.b64 %rd18, %rd13, -8;",
      // The pairs; "A1" etc. are found by their comment.
      "@%p2 st.local.u32 [%rd12], %r2; // A1", "@%p2 st.u32 [%rd13], %r2; // B1",
      "@%p2 ld.local.u32 %r10, [%rd12]; // A2", "@%p2 ld.u32 %r11, [%rd13]; // B2",
      "@%p2 atom.shared.add.u32 %r12, [%rd14], 1; // A3",
      "@%p2 atom.add.u32 %r13, [%rd15], 1; // B3", "@%p2 red.global.add.u32 [%rd16], 1; // A4",
      "@%p2 red.add.u32 [%rd16], 1; // B4",
      // A local load overwriting its own address register: the event keeps
      // the addresses it was issued with.
      "mov.u64 %rd19, %rd17;", "@%p2 ld.local.u64 %rd19, [%rd19]; // A5",
      "@%p2 ld.u64 %rd21, [%rd18]; // B5", "add.u32 %r4, %r4, 1;", "bra LOOP;", "DONE:", "ret;",
      "}"};
  const auto [text, line] = tagged(body);
  constexpr int kPatterns = 48, kThreads = 64;
  std::mt19937 rng(15);
  std::vector<uint32_t> offs, act;
  for (int k = 0; k < kPatterns; ++k) {
    for (int wi = 0; wi < 2; ++wi) {
      uint32_t mask = k % 3 == 0   ? ~0u
                      : k % 3 == 1 ? 1u << (rng() % 32)
                                   : static_cast<uint32_t>(rng()) & static_cast<uint32_t>(rng());
      if (k == 5) mask = 0;  // no lane: no event
      for (uint32_t l = 0; l < 32; ++l) {
        offs.push_back(static_cast<uint32_t>(rng() % (4088 / 4)) * 4);
        act.push_back((mask >> l) & 1u);
      }
    }
  }
  Device dev;
  auto m = Module::load_text(dev, text, "named.ptx");
  uint64_t d_offs = dev.malloc(offs.size() * 4), d_act = dev.malloc(act.size() * 4),
           d_buf = dev.malloc(4096), d_out = dev.malloc(16);
  dev.copy_to(d_offs, offs.data(), offs.size() * 4);
  dev.copy_to(d_act, act.data(), act.size() * 4);
  EventLog log;
  LaunchConfig cfg{{2}, {kThreads}};
  cfg.observer = &log;
  cfg.threads = 1;
  auto st = launch(*m, "nm", cfg, d_offs, d_act, d_buf, d_out, static_cast<uint32_t>(kPatterns));
  ASSERT_TRUE(st.ok()) << st.error->what();
  ASSERT_EQ(log.blocks.size(), 2u);
  uint64_t bases[2];  // loc and sh in their own spaces
  dev.copy_from(bases, d_out, sizeof(bases));

  for (const auto& blk : log.blocks) {
    for (uint32_t wi = 0; wi < 2; ++wi) {
      auto events = [&](const std::string& name) { return blk->at(wi, line.at(name)); };
      for (int pair = 1; pair <= 5; ++pair) {
        const std::string a = "A" + std::to_string(pair), b = "B" + std::to_string(pair);
        std::vector<MemAccess> ea = events(a), eb = events(b);
        ASSERT_EQ(ea.size(), static_cast<size_t>(kPatterns - 1)) << a;
        ASSERT_EQ(eb.size(), ea.size()) << b;
        const Space space = pair == 3 ? Space::Shared : pair == 4 ? Space::Global : Space::Local;
        const MemOp op = pair == 1   ? MemOp::Store
                         : pair == 3 ? MemOp::Atomic
                         : pair == 4 ? MemOp::Reduction
                                     : MemOp::Load;
        const uint64_t base = pair == 3 ? bases[1] : pair == 4 ? d_buf : bases[0];
        size_t i = 0;
        for (int k = 0; k < kPatterns; ++k) {
          const size_t t0 = static_cast<size_t>(k * kThreads + static_cast<int>(wi) * 32);
          uint32_t mask = 0;
          for (uint32_t l = 0; l < 32; ++l) mask |= act[t0 + l] << l;
          if (mask == 0) continue;
          for (const MemAccess* x : {&ea[i], &eb[i]}) {
            const std::string what = fmt::format("{} block {} warp {} pattern {}",
                                                 x == &ea[i] ? a : b, blk->id.x, wi, k);
            EXPECT_EQ(x->space, space) << what;
            EXPECT_EQ(x->op, op) << what;
            EXPECT_EQ(x->width, pair == 5 ? 8u : 4u) << what;
            EXPECT_EQ(x->matrices, 0u) << what;
            EXPECT_EQ(x->mask, mask) << what;
            EXPECT_EQ(x->warp, wi) << what;
            for (uint32_t l = 0; l < 32; ++l) {
              const uint64_t want = (base + offs[t0 + l]) & (pair == 5 ? ~7ull : ~0ull);
              EXPECT_EQ(x->addr[l], (mask >> l) & 1u ? want : 0) << what << " lane " << l;
            }
          }
          ++i;
        }
      }
    }
  }
}

// A shuffle by all lanes at one instruction takes a shortcut; with an
// observer it must still report the warp sync the general path reports (the
// member mask operand and the lanes executing it) and shuffle the same.
TEST_P(AffineAccess, ShuffleReportsItsWarpSync) {
  const char* text = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry sh(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  mul.lo.u32 %r2, %r1, 3;
  shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
  setp.lt.u32 %p1, %r1, 16;
  @!%p1 bra SKIP;
  shfl.sync.down.b32 %r3|%p2, %r3, 2, 15, 65535;
SKIP:
  st.global.u32 [%rd3], %r3;
  ret;
}
)";
  Device dev;
  auto m = Module::load_text(dev, text, "shfl.ptx");
  uint64_t out = dev.malloc(32 * 4);
  EventLog log;
  LaunchConfig cfg{{1}, {32}};
  cfg.observer = &log;
  auto st = launch(*m, "sh", cfg, out);
  ASSERT_TRUE(st.ok()) << st.error->what();
  ASSERT_EQ(log.blocks.size(), 1u);
  const auto& syncs = log.blocks[0]->syncs;
  ASSERT_EQ(syncs.size(), 2u);
  EXPECT_EQ(syncs[0].member_mask, ~0u);
  EXPECT_EQ(syncs[0].mask, ~0u);
  EXPECT_EQ(syncs[0].instr->text.rfind("shfl.sync.bfly", 0), 0u) << syncs[0].instr->text;
  EXPECT_EQ(syncs[1].member_mask, 0xffffu);
  EXPECT_EQ(syncs[1].mask, 0xffffu);
  EXPECT_EQ(syncs[1].instr->text.rfind("shfl.sync.down", 0), 0u) << syncs[1].instr->text;
  EXPECT_EQ(syncs[0].warp, 0u);
  EXPECT_EQ(syncs[1].block, (Dim3{0, 0, 0}));
  std::vector<uint32_t> got(32);
  dev.copy_from(got.data(), out, 32 * 4);
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t v = (t ^ 1u) * 3;                         // the butterfly
    if (t < 16 && t + 2 < 16) v = ((t + 2) ^ 1u) * 3;  // down 2, clamped at lane 15
    EXPECT_EQ(got[t], v) << t;
  }
}

}  // namespace
}  // namespace smemlab::emu::test
