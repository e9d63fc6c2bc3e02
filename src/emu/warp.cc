// The warp interpreter's entry: the portable copy of the loop (warp_loop.h),
// the choice between it and the AVX2 copy (warp_avx2.cc), and the helpers
// both share.
#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

#include "emu/exec.h"
#include "emu/ops_alu.h"
#include "emu/warp_loop.h"

namespace smemlab::emu {

bool cpu_has_fma() {
  static const bool has = __builtin_cpu_supports("fma");
  return has;
}

__attribute__((target("fma"))) void ffma32_hw(uint64_t* D, const uint64_t* A, const uint64_t* B,
                                              const uint64_t* C, uint32_t exec) {
  SMEMLAB_FOR_LANES(exec, {
    const float a = get<float>(A[l]), b = get<float>(B[l]), c = get<float>(C[l]);
    D[l] = put(nan_rule(__builtin_fmaf(a, b, c), b, a, c));
  });
}

bool gpu_round_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("SMEMLAB_GPU_ROUND");
    return !(e && std::string_view(e) == "0");
  }();
  return on;
}

void fault(const Warp& w, uint32_t pc, int lane, FaultKind kind, std::string msg) {
  throw Fault{kind, std::move(msg), w.index, lane, pc};
}

namespace isa_avx2 {
// Null where the compiler cannot build the AVX2 copy (see warp_avx2.cc).
extern const RunWarpFn run_warp_avx2;
}  // namespace isa_avx2
namespace isa_portable {
constexpr RunWarpFn kPortable = &kIsaLoop;
}  // namespace isa_portable

namespace {
bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                          __builtin_cpu_supports("bmi2");
  return has;
}
}  // namespace

RunWarpFn select_run_warp(std::string* error) {
  const char* e = std::getenv("SMEMLAB_EMU_ISA");
  std::string_view want = e ? e : "";
  RunWarpFn avx2 = isa_avx2::run_warp_avx2 && cpu_has_avx2() ? isa_avx2::run_warp_avx2 : nullptr;
  if (want.empty() || want == "auto") return avx2 ? avx2 : isa_portable::kPortable;
  if (want == "portable") return isa_portable::kPortable;
  if (want == "avx2") {
    if (avx2) return avx2;
    if (error)
      *error = isa_avx2::run_warp_avx2
                   ? "SMEMLAB_EMU_ISA=avx2: this CPU lacks AVX2, FMA or BMI2"
                   : "SMEMLAB_EMU_ISA=avx2: this build has no AVX2 interpreter (not x86-64 GCC)";
    return nullptr;
  }
  if (error)
    *error = fmt::format("SMEMLAB_EMU_ISA='{}': expected 'auto', 'portable' or 'avx2'", want);
  return nullptr;
}

namespace {
// The launch's copy, else the process-wide choice.
RunWarpFn loop_of(const BlockCtx& b) {
  if (b.env && b.env->run_warp) return b.env->run_warp;
  static const RunWarpFn fallback = [] {
    RunWarpFn f = select_run_warp(nullptr);
    return f ? f : isa_portable::kPortable;
  }();
  return fallback;
}
}  // namespace

uint64_t run_warp(BlockCtx& b, Warp& w, uint64_t slice, uint32_t quota) {
  return loop_of(b)->run_warp(b, w, slice, quota);
}

RoundResult run_round(BlockCtx& b, WarpTurns& turns, uint64_t slice) {
  return loop_of(b)->run_round(b, turns, slice);
}

RoundResult run_round_from(BlockCtx& b, WarpTurns& turns, uint64_t slice, uint32_t first,
                           uint64_t first_steps) {
  return loop_of(b)->run_round_from(b, turns, slice, first, first_steps);
}

uint64_t run_quiet_turn(BlockCtx& b, Warp& w, uint64_t slice, QuietTurn& q) {
  return loop_of(b)->run_quiet_turn(b, w, slice, q);
}

}  // namespace smemlab::emu
