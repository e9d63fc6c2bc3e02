// The `gpu` schedule's round (schedule.h) for a launch without per-pc
// counts, from the round's first warp: the loop most launches spend their
// time in. It runs exactly what run_round_isa (warp_loop.h) runs with a
// quota of one memory op per turn — the same steps in the same order, the
// same turns, counts, budget checks and faults — in a loop shaped for turns
// of a few steps (1.8 steps a turn on a shared-memory stencil):
// - what is fixed for the round (the program's ops, its runs, native code,
//   the budget) is read once per round, not once per turn;
// - a uniform warp's pc, lanes and lane count stay in registers between
//   steps: w.cpc is written where the warp's state is read by others (before
//   any op but per-lane arithmetic, and at the turn's end), not after every
//   op;
// - the turn's end is a jump to the next warp, with no quota to count.
// Included by warp_loop.h after its executors, in the same namespaces.
#pragma once

namespace smemlab::emu {
inline namespace SMEMLAB_ISA_NS {

namespace {

// Whether the `gpu` schedule ends a turn after memory op `op` of base B:
// other_warps_see (warp_loop.h) as a constant test on the op's space.
template <Base B>
__attribute__((always_inline)) inline bool gpu_turn_ends(const Op& op) {
  if constexpr (B == LD || B == ST) {
    constexpr uint32_t kPrivate = 1u << static_cast<uint32_t>(MSpace::Local) |
                                  1u << static_cast<uint32_t>(MSpace::Param) |
                                  1u << static_cast<uint32_t>(MSpace::Const);
    return !((kPrivate >> op.aux) & 1u);
  }
  return true;
}

// The dispatch: every (op, type) code of instructions.def in the table's
// order (the order of the loop's jump targets), and for each code below
// kSize its place in that order (kCount: no such code). One indexed jump
// per op, where GCC's switch over these sparse codes took two range tests
// and a second table for the upper half.
constexpr uint16_t kGpuCodes[] = {
#define SMEMLAB_GPU_CODE(ty, base, executor, cls) code(base, ty),
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) \
  SMEMLAB_TYPES_##types(SMEMLAB_GPU_CODE, base, executor, cls)
#include "emu/instructions.def"
#undef SMEMLAB_GPU_CODE
};
struct GpuDispatch {
  static constexpr uint32_t kCount = sizeof(kGpuCodes) / sizeof(kGpuCodes[0]);
  static constexpr uint32_t kSize = [] {
    uint32_t top = 0;
    for (uint16_t c : kGpuCodes) top = c > top ? c : top;
    return top + 1;
  }();
  uint16_t index[kSize];
};
constexpr GpuDispatch kGpuDispatch = [] {
  GpuDispatch d{};
  for (uint16_t& i : d.index) i = GpuDispatch::kCount;
  for (uint32_t i = 0; i < GpuDispatch::kCount; ++i)
    d.index[kGpuCodes[i]] = static_cast<uint16_t>(i);
  return d;
}();

// A native segment (native_abi.h: the table's second half) where one
// starts at pc, if all of it fits the turn's slice and (a divergent group)
// ends before the next lanes' pc: run, its steps counted in n, pc moved
// past it. 0: none run; 1: run; 2: run, and its last op is a load or store
// other warps see, after which the turn ends (SMEMLAB_GPU_TURN).
[[gnu::always_inline]] inline int run_segment(BlockCtx& b, Warp& w, const NativeEntry* segments,
                                              uint32_t& pc, uint32_t group, bool uniform,
                                              uint64_t& n, uint64_t slice) {
  if (!segments || !segments[pc].fn || (!uniform && w.in_call)) return 0;
  const NativeEntry& e = segments[pc];
  if (e.left > slice - n || (!uniform && next_pc_above(w, group) - pc < e.left)) return 0;
  e.fn(b, w, group, 0, e.left);
  n += e.left;
  pc += e.left;
  return e.ends_turn ? 2 : 1;
}

}  // namespace

// The round's per-op bodies, one label per (op, type) code, expanded in
// run_gpu_round_isa from instructions.def (SMEMLAB_GPU_##kind). They use
// its locals: b, w, op, pc, exec, group, n, uniform.
//
// The turn ends after a memory op another warp sees (run_round_isa's
// SMEMLAB_TURN with a quota of one).
#define SMEMLAB_GPU_TURN(base, cls)            \
  if constexpr (orders_memory(OpClass::cls)) { \
    if (gpu_turn_ends<base>(op)) {             \
      if (uniform)                             \
        w.cpc = pc + 1;                        \
      else                                     \
        set_pc(w, group, pc + 1);              \
      goto turn_over;                          \
    }                                          \
  }
// Per-lane arithmetic (Inline, CallAlu) and ld/st (load_store) leave the
// warp's lanes and pcs alone: the next op runs from `step`. Anything else
// may read or change them: w.cpc is set first and the next op starts from
// `top`.
#define SMEMLAB_GPU_Inline(ty, base, executor, cls)                \
  gpu_##base##_##ty : if constexpr (orders_memory(OpClass::cls)) { \
    if (uniform) w.cpc = pc;                                       \
    executor<base, ty>(w, op, exec);                               \
    SMEMLAB_GPU_TURN(base, cls)                                    \
    goto after_op;                                                 \
  }                                                                \
  executor<base, ty>(w, op, exec);                                 \
  ++pc;                                                            \
  goto next_pc;
#define SMEMLAB_GPU_CallAlu(ty, base, executor, cls) \
  gpu_##base##_##ty : executor(b, w, op, pc, exec);  \
  ++pc;                                              \
  goto next_pc;
#define SMEMLAB_GPU_Call(ty, base, executor, cls) \
  gpu_##base##_##ty : if (uniform) w.cpc = pc;    \
  executor(b, w, op, pc, exec);                   \
  SMEMLAB_GPU_TURN(base, cls)                     \
  goto after_op;
#define SMEMLAB_GPU_InlineFlow(ty, base, executor, cls) \
  gpu_##base##_##ty : {                                 \
    if constexpr (base == LD || base == ST) {           \
      load_store<base, ty>(b, w, op, pc, exec);         \
      SMEMLAB_GPU_TURN(base, cls)                       \
      ++pc;                                             \
      goto next_pc;                                     \
    }                                                   \
    if (uniform) w.cpc = pc;                            \
    Step s{b, w, op, pc, group, exec, n};               \
    if (executor<base, ty>(s)) {                        \
      SMEMLAB_GPU_TURN(base, cls)                       \
      goto after_op;                                    \
    }                                                   \
    goto top;                                           \
  }
#define SMEMLAB_GPU_CallFlow(ty, base, executor, cls) \
  gpu_##base##_##ty : {                               \
    if (uniform) w.cpc = pc;                          \
    Step s{b, w, op, pc, group, exec, n};             \
    if (executor(s)) {                                \
      SMEMLAB_GPU_TURN(base, cls)                     \
      goto after_op;                                  \
    }                                                 \
    goto top;                                         \
  }

namespace {

// What is fixed for one call of run_gpu_round_isa: read once, not per turn.
struct GpuRoundFixed {
  Warp* warps;
  Warp* end;
  uint64_t budget, steps_before;
  const Op* ops;
  const uint8_t* fused;
  // (Read once per call: a background compile may publish it meanwhile;
  // native code computes what the runs compute.)
  const NativeEntry* native;
  // Its segments (native_abi.h: the table's second half): a turn's straight
  // code with its loads and stores, run whole where it starts.
  const NativeEntry* segments;
  // Rounds in a row, in one call, while nothing the block loop does between
  // rounds can differ (BlockRunner::run): no barrier arrival or release
  // (the quiet-epoch judging), progress, live warps, the budget, no stop
  // asked, not cooperative (its pause), and no mbarrier op in the program
  // (Program::lone_quiet: then SpinDetector::after_round only counts the
  // round, b.mbar.round, which nothing else reads).
  bool in_a_row;
};

[[gnu::always_inline]] inline GpuRoundFixed gpu_round_fixed(BlockCtx& b) {
  const NativeEntry* native =
      b.env->native ? b.env->native->load(std::memory_order_acquire) : nullptr;
  return {b.warps.data(),
          b.warps.data() + b.warps.size(),
          b.budget,
          b.steps,
          b.prog->ops.data(),
          b.env->fused,
          native,
          native ? native + b.prog->ops.size() : nullptr,
          b.prog->lone_quiet && !b.env->cooperative};
}

// A planned run of per-lane ops from pc (Program's runs, b.env->fused):
// taken as one stretch (native code or run_fused) when it has more than one
// op left in the turn's slice and, for a divergent warp, below the next
// lanes' pc. Returns its length, 0 when not taken.
[[gnu::always_inline]] inline uint32_t gpu_run_stretch(BlockCtx& b, Warp& w, const GpuRoundFixed& f,
                                                       uint32_t pc, uint32_t group, bool uniform,
                                                       uint64_t n, uint64_t slice) {
  if (f.fused[pc] <= 1 || !(uniform || !w.in_call)) return 0;
  uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(f.fused[pc], slice - n));
  if (!uniform) len = std::min(len, next_pc_above(w, group) - pc);
  if (len <= 1) return 0;
  if (f.native)
    run_native(b, w, f.native, pc, len, group);
  else
    run_fused(b, w, pc, len, group);
  return len;
}

// Whether run_gpu_round_isa goes on with the next round itself (see
// GpuRoundFixed::in_a_row): the round made progress, left live warps,
// stayed in budget, had no arrival or release, and no stop was asked.
[[gnu::always_inline]] inline bool gpu_round_again(const BlockCtx& b, const GpuRoundFixed& f,
                                                   const RoundResult& r, uint32_t live,
                                                   uint64_t steps, uint64_t round_steps,
                                                   uint64_t releases, uint64_t arrivals) {
  return f.in_a_row && !r.over_budget && live && steps != round_steps && b.releases == releases &&
         b.arrivals == arrivals && !(b.env->stop && b.env->stop->load(std::memory_order_relaxed));
}

}  // namespace

// run_round_isa(b, turns, slice, b.warps.data(), 1) for a block whose
// counts are off (b.counts empty) and whose program has its runs planned
// (b.env->fused): rounds of every warp's turn in index order (one, or
// several in a row: gpu_round_again). The result: the last round's `alive`
// and `over_budget`, all rounds' steps.
RoundResult run_gpu_round_isa(BlockCtx& b, uint64_t slice) {
  // The jump targets, in kGpuCodes' order, then the one for unknown codes.
  static const void* const kTargets[] = {
#define SMEMLAB_GPU_TARGET(ty, base, executor, cls) &&gpu_##base##_##ty,
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) \
  SMEMLAB_TYPES_##types(SMEMLAB_GPU_TARGET, base, executor, cls)
#include "emu/instructions.def"
#undef SMEMLAB_GPU_TARGET
      &&gpu_unknown};
  static_assert(sizeof(kTargets) / sizeof(kTargets[0]) == GpuDispatch::kCount + 1);
  const GpuRoundFixed f = gpu_round_fixed(b);
  uint64_t lanes = 0, steps = f.steps_before;
  uint32_t live = 0;
  RoundResult r;
next_round:
  const uint64_t round_steps = steps, releases = b.releases, arrivals = b.arrivals;
  live = 0;
  for (Warp* wp = f.warps; wp != f.end; ++wp) {
    Warp& w = *wp;
    live |= w.live;
    if (!w.runnable) continue;
    // n: the turn's steps; mark: n when the lanes of `group` began to run
    // (their lanes are counted when they stop: at_pc per step since mark).
    uint64_t n = 0, mark = 0;
    uint32_t pc = 0, group = 0, at_pc = 0;
    bool uniform = false;
  top:  // (the warp's state as its executors left it)
    lanes += uint64_t{at_pc} * (n - mark);
    mark = n;
    if (!w.runnable || n >= slice) goto turn_over;
    pick_group(b, w, &pc, &group);
    uniform = w.uniform;
    at_pc = group == ~0u ? 32u : static_cast<uint32_t>(__builtin_popcount(group));
  step:  // (uniform: w.cpc may be behind pc; the lanes are those of `top`)
    // A native segment: the steps below in one call (the turn may end).
    if (const int seg = run_segment(b, w, f.segments, pc, group, uniform, n, slice)) {
      if (seg == 1) goto next_pc;
      if (uniform)
        w.cpc = pc;
      else
        set_pc(w, group, pc);
      goto turn_over;
    }
    if (const uint32_t len = gpu_run_stretch(b, w, f, pc, group, uniform, n, slice)) {
      n += len;
      pc += len;
      goto next_pc;
    }
    {
      const Op& op = f.ops[pc];
      uint32_t exec = group;
      if (op.guard >= 0) exec &= w.P[op.guard] ^ op.guard_neg;
      ++n;
      {
        const uint32_t c = op.code;
        goto* kTargets[c < GpuDispatch::kSize ? kGpuDispatch.index[c] : GpuDispatch::kCount];
      }
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) \
  SMEMLAB_TYPES_##types(SMEMLAB_GPU_##kind, base, executor, cls)
#include "emu/instructions.def"
    gpu_unknown:
      // Unreachable for decoded programs (implemented()).
      if (uniform) w.cpc = pc;
      fault(w, pc, -1, FaultKind::Unsupported,
            fmt::format("'{}' with this type is not implemented", b.prog->info[op.info].text));
    }
  after_op:  // an op after which the lanes at pc go on to pc + 1
    if (uniform)
      w.cpc = pc + 1;
    else
      set_pc(w, group, pc + 1);
    goto top;
  next_pc:  // per-lane work up to pc (exclusive) done by the lanes of `group`
    if (uniform) {
      if (n < slice) goto step;
      w.cpc = pc;
    } else {
      set_pc(w, group, pc);
    }
    goto top;
  turn_over:
    lanes += uint64_t{at_pc} * (n - mark);
    steps += n;
    b.steps = steps;  // (read_clock reads it during the next turn)
    if (steps > f.budget) {
      r.over_budget = &w;
      break;
    }
  }
  b.lane_steps += lanes;  // (per round: a fault keeps the rounds' before it)
  lanes = 0;
  if (gpu_round_again(b, f, r, live, steps, round_steps, releases, arrivals)) {
    ++b.mbar.round;
    goto next_round;
  }
  r.steps = steps - f.steps_before;
  r.progress = r.steps > 0;
  r.alive = live != 0;
  return r;
}

#undef SMEMLAB_GPU_Inline
#undef SMEMLAB_GPU_CallAlu
#undef SMEMLAB_GPU_Call
#undef SMEMLAB_GPU_InlineFlow
#undef SMEMLAB_GPU_CallFlow
#undef SMEMLAB_GPU_TURN

}  // namespace SMEMLAB_ISA_NS
}  // namespace smemlab::emu
