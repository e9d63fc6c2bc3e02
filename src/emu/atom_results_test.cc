// Atoms the GPU executes as REDs (atom_results.h): each form of
// red_forms.cu whose SASS ptxas gave (nvcc 13.0, sm_90a) is reported as
// the SASS has it: MemOp::Reduction where ptxas emitted REDG, Atomic where
// it kept ATOMG/ATOM/ATOMS. One warp runs each line once.
#include <gtest/gtest.h>

#include <map>

#include "emu/launch.h"

namespace smemlab::emu {
namespace {

struct Ops : BlockObserver {
  std::map<int, MemOp> by_line;  // PTX line -> the op its atomic access was reported as
  void on_memory(const MemAccess& a) override {
    if (a.op == MemOp::Atomic || a.op == MemOp::Reduction) by_line[a.instr->ptx_line] = a.op;
  }
};
struct Collect : KernelObserver {
  std::map<int, MemOp> by_line;
  std::unique_ptr<BlockObserver> make_block_observer(Dim3) override {
    return std::make_unique<Ops>();
  }
  void finish_block(Dim3, std::unique_ptr<BlockObserver> o) override {
    by_line = static_cast<Ops*>(o.get())->by_line;
  }
};

// Line numbers below are the PTX text's (line 1: .version).
constexpr const char* kForms = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [q];
  mov.u32 %r1, s;
  atom.global.max.s32 %r2, [%rd1], 1;
  atom.global.add.u32 %r3, [%rd1], 1;
  st.global.u32 [%rd2], %r3;
  atom.global.cas.b32 %r4, [%rd1], 1, 2;
  atom.global.exch.b32 %r5, [%rd1], 1;
  atom.acquire.gpu.global.add.u32 %r6, [%rd1], 1;
  atom.release.gpu.global.add.u32 %r7, [%rd1], 1;
  atom.add.u32 %r8, [%rd1], 1;
  atom.shared.add.u32 %r9, [%r1], 1;
  red.global.add.u32 [%rd1], 1;
  atom.global.add.f32 %r10, [%rd1], 0f3F800000;
  atom.global.add.u32 %r11, [%rd1], 1;
  setp.eq.u32 %p1, %r11, 12345;
  @%p1 st.global.u32 [%rd2], %r11;
  ret;
}
)";

TEST(AtomResults, AnUnreadGlobalAtomIsAReductionAsPtxasMakesItARed) {
  Device dev;
  auto m = Module::load_text(dev, kForms, "forms.ptx");
  const uint64_t p = dev.malloc(64), q = dev.malloc(64);
  Collect c;
  LaunchConfig cfg{{1}, {32}};
  cfg.observer = &c;
  auto st = launch(*m, "k", cfg, p, q);
  ASSERT_TRUE(st.ok()) << st.error->what();
  const std::map<int, MemOp> want = {
      {13, MemOp::Reduction},  // max, result unused: REDG.E.MAX.S32
      {14, MemOp::Atomic},     // add, result stored: ATOMG
      {16, MemOp::Atomic},     // cas: ATOMG.E.CAS even unused
      {17, MemOp::Atomic},     // exch: ATOMG.E.EXCH even unused
      {18, MemOp::Atomic},     // .acquire: ATOMG + CCTL.IVALL
      {19, MemOp::Reduction},  // .release: MEMBAR + REDG
      {20, MemOp::Atomic},     // generic space: ATOM.E
      {21, MemOp::Atomic},     // shared: ATOMS
      {22, MemOp::Reduction},  // red
      {23, MemOp::Reduction},  // add.f32 unused: REDG.E.ADD.F32
      {24, MemOp::Atomic},     // read by a setp only: ATOMG
  };
  EXPECT_EQ(c.by_line, want);
}

}  // namespace
}  // namespace smemlab::emu
