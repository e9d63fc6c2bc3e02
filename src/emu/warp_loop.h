// The warp interpreter's loop and its inline executors, compiled once per
// host ISA (warp.cc: portable x86-64; warp_avx2.cc: AVX2 + FMA + BMI2, so
// the per-lane loops over 64-bit register slots vectorize four lanes at a
// time). Each copy lives in its own inline namespace (SMEMLAB_ISA_NS, see
// ops_alu.h) so the two never collide at link time; warp.cc picks one per
// launch (select_run_warp). Include only from those two files.
//
// SIMT with per-lane PCs: each step takes the lowest PC over the runnable
// lanes and executes that op once for the lanes at it (one
// warp-instruction). While all runnable lanes share one PC the warp is
// "uniform" and the per-lane PCs are not touched at all (the fast path).
#pragma once

#include <fmt/format.h>

#include "emu/decode_context.h"
#include "emu/exec.h"
#include "emu/half.h"
#include "emu/instructions.h"
#include "emu/ops_alu.h"
#include "emu/ops_inline.h"

namespace smemlab::emu {
inline namespace SMEMLAB_ISA_NS {
namespace {

inline void materialize(Warp& w) {
  if (!w.uniform) return;
  SMEMLAB_FOR_LANES(w.runnable, w.pc[l] = w.cpc);
  w.uniform = false;
}

inline void set_pc(Warp& w, uint32_t lanes, uint32_t pc) { SMEMLAB_FOR_LANES(lanes, w.pc[l] = pc); }

// The lowest PC of the runnable lanes outside `group` (the lanes at the
// lowest PC of a divergent warp): UINT32_MAX when there are none.
inline uint32_t next_pc_above(const Warp& w, uint32_t group) {
  uint32_t next = UINT32_MAX;
  SMEMLAB_FOR_LANES(w.runnable & ~group, next = w.pc[l] < next ? w.pc[l] : next);
  return next;
}

// 16 consecutive words at p into 16 register lanes (widened as W says) and
// back, as whole vectors: a memcpy through a stack array became `rep movs`,
// whose start-up cost was most of a tile load.
template <typename W>
inline void load16(uint64_t* R, const uint8_t* p) {
  using D = std::conditional_t<std::is_signed_v<W>, int64_t, uint64_t>;
  typedef W VW __attribute__((vector_size(16 * sizeof(W)), aligned(1), may_alias));
  typedef D VD __attribute__((vector_size(16 * sizeof(D)), aligned(1), may_alias));
  *reinterpret_cast<VD*>(R) = __builtin_convertvector(*reinterpret_cast<const VW*>(p), VD);
}
template <typename W>
inline void store16(uint8_t* p, const uint64_t* R) {
  using U = std::make_unsigned_t<W>;
  typedef U VU __attribute__((vector_size(16 * sizeof(U)), aligned(1), may_alias));
  typedef uint64_t VD __attribute__((vector_size(16 * 8), aligned(1), may_alias));
  *reinterpret_cast<VU*>(p) = __builtin_convertvector(*reinterpret_cast<const VD*>(R), VU);
}

// Whether the 32 addresses A[l] are affine in each half-warp with one
// stride: A[h + l] == A[h] + stride * l for h in {0, 16}, l < 16 (modulo
// 2^64, as the per-lane path computes them). Four lanes a vector: each
// group of four compared with its expected addresses (XOR: zero when
// equal), the expected ones advanced by 4 * stride; one OR of all the
// differences. (The loop it replaced, with one subtraction chain per lane
// and its iota * stride built lane by lane, was ~55 host instructions;
// this is ~40 with its set-up: docs/emulator.md, "tenth step".)
inline bool affine_halves(const uint64_t* A, uint64_t stride) {
  typedef uint64_t V4 __attribute__((vector_size(32), aligned(8), may_alias));
  const V4* a = reinterpret_cast<const V4*>(A);
  const uint64_t b0 = A[0], b1 = A[16];
  // (No 64-bit vector multiply before AVX-512: the first four by scalars.)
  V4 e0 = V4{b0, b0 + stride, b0 + 2 * stride, b0 + 3 * stride};
  V4 e1 = e0 + (b1 - b0);
  const V4 step = V4{} + stride * 4;
  V4 acc = (a[0] ^ e0) | (a[4] ^ e1);
  for (int i = 1; i < 4; ++i) {
    e0 += step;
    e1 += step;
    acc |= (a[i] ^ e0) | (a[4 + i] ^ e1);
  }
#ifdef SMEMLAB_ISA_FMA  // (the AVX2 copy: one vptest)
  typedef long long V4s __attribute__((vector_size(32)));
  return __builtin_ia32_ptestz256(reinterpret_cast<V4s>(acc), reinterpret_cast<V4s>(acc));
#else
  return (acc[0] | acc[1] | acc[2] | acc[3]) == 0;
#endif
}

// The event of affine_words' access, staged in b.event (stage_access):
// out of line, so that unobserved launches' accesses do not carry its code
// and registers.
[[gnu::noinline, gnu::cold]] inline void stage_affine_event(BlockCtx& b, const Warp& w,
                                                            const Op& op, bool load,
                                                            uint32_t bytes) {
  const MSpace ms = static_cast<MSpace>(op.aux);
  const Space sp = ms == MSpace::Shared   ? Space::Shared
                   : ms == MSpace::Global ? Space::Global
                   : ms == MSpace::Param  ? Space::Param
                                          : Space::Const;
  stage_access(b, w, op, load ? MemOp::Load : MemOp::Store, bytes, ~0u, sp, reg(w, op.r[4]),
               static_cast<uint64_t>(op.imm));
  if (!load) stage_stored(b.event, w, op);
}

// ld/st of one 4- or 8-byte word per lane by a full warp, whose
// addresses are affine in each half-warp (lane h+l at A[h] + stride*l, one
// stride for both halves): a row per warp (stride 4), a value broadcast per
// half-warp (stride 0), a column of a padded tile (stride 132), a 16-wide
// tile row both half-warps read. The pattern is read from the address
// register alone, so only the two half-warps' first and last words are
// checked, not every lane; contiguous runs move as blocks in vector
// registers. Returns false (nothing done) for any other access, or one
// that is out of bounds or misaligned: exec_memory does those. W: the
// word as the register gets it (int32_t sign-extends).
template <bool kLoad, typename W>
inline bool affine_words(BlockCtx& b, Warp& w, const Op& op, uint32_t exec) {
  constexpr uint32_t kBytes = sizeof(W);
  if (exec != ~0u || op.vec != 1 || op.width != kBytes) return false;
  const uint64_t* A = reg(w, op.r[4]);
  const uint64_t stride = A[1] - A[0];
  if (stride > (1u << 20)) return false;  // (negative strides too)
  if (!affine_halves(A, stride)) return false;
  const uint64_t a0 = A[0] + static_cast<uint64_t>(op.imm),
                 a1 = A[16] + static_cast<uint64_t>(op.imm);
  if ((a0 | a1 | stride) & (kBytes - 1)) return false;
  uint8_t* host;
  uint64_t lo, size;
  switch (static_cast<MSpace>(op.aux)) {
    case MSpace::Shared:
      host = b.shared.data(), lo = 0, size = b.shared_bytes;
      break;
    case MSpace::Global: {
      const GlobalMemory::Allocation* g = b.global_hint;
      if (!g || a0 - g->base >= g->size) {
        g = b.env->global->find(a0);
        if (!g) return false;
        // Not the device heap's: a kernel may free those during the launch.
        if (a0 < kHeapBase) b.global_hint = g;
      }
      host = g->data, lo = g->base, size = g->size;
      break;
    }
    case MSpace::Param:  // (read-only spaces: loads only)
      if (!kLoad) return false;
      host = const_cast<uint8_t*>(b.env->params), lo = 0, size = b.prog->param_bytes;
      break;
    case MSpace::Const:
      if (!kLoad) return false;
      host = const_cast<uint8_t*>(b.env->const_bank), lo = 0, size = b.env->const_bytes;
      break;
    default:
      return false;
  }
  // Offsets of both halves' first words within [lo, lo + size), the whole
  // run of 16 inside (no wrap-around: a0 >= lo and the span is small).
  const uint64_t span = stride * 15 + kBytes, x0 = a0 - lo, x1 = a1 - lo;
  if (size < span || x0 > size - span || x1 > size - span) return false;
  // Observers see the same event as from exec_memory: the lanes' addresses
  // (taken before a load can overwrite its own address register) in the
  // access's space.
  if (b.obs) stage_affine_event(b, w, op, kLoad, kBytes);
  // The words are at p0 + stride * l and p1 + stride * l, computed from
  // these scalars alone: a load may write R (even when R is the address
  // register A) as it goes.
  uint8_t *p0 = host + x0, *p1 = host + x1;
  uint64_t* R = regw(w, op.r[0]);
  if (kLoad) {
    auto widen = [](W v) {
      return std::is_signed_v<W> ? static_cast<uint64_t>(static_cast<int64_t>(v))
                                 : static_cast<uint64_t>(v);
    };
    if (stride == kBytes) {  // (the register file is no shared or global memory)
      load16<W>(R, p0);
      load16<W>(R + 16, p1);
    } else if (stride == 0) {
      W x, y;
      std::memcpy(&x, p0, kBytes);
      std::memcpy(&y, p1, kBytes);
      const uint64_t wx = widen(x), wy = widen(y);
      for (uint32_t l = 0; l < 16; ++l) R[l] = wx;
      for (uint32_t l = 16; l < 32; ++l) R[l] = wy;
    } else {
      for (uint32_t l = 0; l < 16; ++l) {
        W v;
        std::memcpy(&v, p0 + stride * l, kBytes);
        R[l] = widen(v);
      }
      for (uint32_t l = 0; l < 16; ++l) {
        W v;
        std::memcpy(&v, p1 + stride * l, kBytes);
        R[16 + l] = widen(v);
      }
    }
  } else {
    // In lane order, as the per-lane path: of lanes storing to one word
    // the last one's value stays.
    ++b.writes;
    if (stride == kBytes) {
      store16<W>(p0, R);
      store16<W>(p1, R + 16);
    } else {
      using U = std::make_unsigned_t<W>;
      for (uint32_t l = 0; l < 16; ++l) {
        const U v = static_cast<U>(R[l]);
        std::memcpy(p0 + stride * l, &v, kBytes);
      }
      for (uint32_t l = 0; l < 16; ++l) {
        const U v = static_cast<U>(R[16 + l]);
        std::memcpy(p1 + stride * l, &v, kBytes);
      }
    }
  }
  if (b.obs) report_access(b);
  return true;
}

// An ld or st: the affine fast path, else exec_memory. It reads and
// changes no pc and no lane mask of the warp (gpu_round.h relies on it).
// Out of line: inlined into the loop, GCC's code for the affine check was
// scalar, with spills (273 instructions a store against ~165).
template <Base B, T TY>
__attribute__((noinline)) void load_store(BlockCtx& b, Warp& w, const Op& op, uint32_t pc,
                                          uint32_t exec) {
  // (Types whose register value is the word zero- or sign-extended.)
  if constexpr (TY == U32 || TY == F32) {
    if (affine_words<B == LD, uint32_t>(b, w, op, exec)) return;
  } else if constexpr (TY == S32) {
    if (affine_words<B == LD, int32_t>(b, w, op, exec)) return;
  } else if constexpr (TY == U64 || TY == S64 || TY == F64) {
    if (affine_words<B == LD, uint64_t>(b, w, op, exec)) return;
  }
  exec_memory(b, w, op, pc, exec);
}

template <Base B, T TY>
inline bool ld_st(Step& s) {
  load_store<B, TY>(s.b, s.w, s.op, s.pc, s.exec);
  return true;
}

// Deterministic clocks: the block's warp-instruction count so far (for
// %globaltimer too: a monotonic count, not nanoseconds).
template <Base, T TY>
inline bool read_clock(Step& s) {
  uint64_t v = s.b.clock_base + s.b.steps + s.n;
  if (s.op.aux == SP_GLOBALTIMER_HI) v >>= 32;
  uint64_t* D = regw(s.w, s.op.r[0]);
  SMEMLAB_FOR_LANES(s.exec, D[l] = TY == U32 || TY == S32 ? static_cast<uint32_t>(v) : v);
  return true;
}

template <Base, T>
inline bool trap(Step& s) {
  if (s.exec) fault(s.w, s.pc, __builtin_ctz(s.exec), FaultKind::Trap, "the kernel executed trap");
  return true;
}

template <Base, T>
inline bool bra(Step& s) {
  Warp& w = s.w;
  uint32_t target = static_cast<uint32_t>(s.op.imm);
  uint32_t nt = s.group & ~s.exec;
  if (s.b.obs) s.b.obs->on_branch(Branch{s.exec, nt, &s.b.prog->info[s.op.info], s.b.id, w.index});
  if (w.uniform && nt == 0) {
    w.cpc = target;
  } else if (w.uniform && s.exec == 0) {
    w.cpc = s.pc + 1;
  } else {
    materialize(w);
    set_pc(w, s.exec, target);
    set_pc(w, nt, s.pc + 1);
  }
  return false;
}

template <Base, T>
inline bool exit_lanes(Step& s) {
  Warp& w = s.w;
  if (s.exec == 0) return true;
  materialize(w);
  set_pc(w, s.group & ~s.exec, s.pc + 1);
  w.live &= ~s.exec;
  w.runnable &= ~s.exec;
  on_exit_lanes(s.b, w, s.pc, s.exec);
  // Lanes waiting at a collective for the lanes that just exited: let
  // them re-check (exited lanes count as arrived).
  w.runnable |= w.coll_wait;
  w.coll_wait = 0;
  return false;
}

template <Base, T>
inline bool bar(Step& s) {
  if (s.exec == 0) return true;
  if (s.w.uniform && s.group == s.w.runnable) {
    // (materialize, then set_pc of the group: every runnable lane.)
    SMEMLAB_FOR_LANES(s.group, s.w.pc[l] = s.pc + 1);
    s.w.uniform = false;
  } else {
    materialize(s.w);
    set_pc(s.w, s.group, s.pc + 1);
  }
  barrier_arrive(s.b, s.w, s.op, s.pc, s.exec);
  return false;
}

// barrier.cluster.arrive goes on; barrier.cluster.wait blocks the lanes
// whose arrival's phase has not completed (cluster.cc releases them).
template <Base, T>
inline bool cluster_bar(Step& s) {
  if (s.exec == 0) return true;
  if (s.op.aux == 0) {
    cluster_arrive(s.b, s.w, s.op, s.pc, s.exec);
    return true;
  }
  const uint32_t blocked = cluster_wait(s.b, s.w, s.op, s.pc, s.exec);
  if (!blocked) return true;
  materialize(s.w);
  set_pc(s.w, s.group, s.pc + 1);
  s.w.runnable &= ~blocked;
  return false;
}

template <Base, T>
inline bool collective(Step& s) {
  Warp& w = s.w;
  const Op* ops = s.b.prog->ops.data();
  if (s.exec == 0) return true;
  if (!collective_ready(w, ops, s.op, s.exec)) {
    materialize(w);
    set_pc(w, s.group & ~s.exec, s.pc + 1);
    w.coll_wait |= s.exec;  // their pc[] stays at this op
    w.runnable &= ~s.exec;
    return false;
  }
  uint32_t waiting = collective_partners(w, ops, s.op);
  exec_collective(s.b, w, s.op, s.pc, s.exec, waiting);
  if (!waiting) return true;
  materialize(w);
  w.coll_wait &= ~waiting;
  w.runnable |= waiting;
  SMEMLAB_FOR_LANES(waiting, w.pc[l] += 1);  // each after its own instruction
  set_pc(w, s.group, s.pc + 1);
  return false;
}

// Whether another warp can see (or change) what this memory op touches:
// not a thread's own local frame, nor the read-only parameter and constant
// spaces, whose accesses need not end a warp's turn.
template <Base B>
inline bool other_warps_see(const Op& op) {
  if constexpr (B == LD || B == ST) {
    MSpace sp = static_cast<MSpace>(op.aux);
    return sp != MSpace::Local && sp != MSpace::Param && sp != MSpace::Const;
  }
  return true;
}

// The jit tier's straight runs (tier.h): `len` ops of per-lane arithmetic
// from `pc` for the `group` lanes (all runnable lanes of a uniform warp, or
// the lanes at the lowest PC of a divergent one), each under its own guard,
// with one dispatch per op and no other per-op bookkeeping (the caller
// counts the run's steps and lanes and moves the PCs once).
inline void run_fused(BlockCtx& b, Warp& w, uint32_t pc, uint32_t len, uint32_t group) {
  const Op* o = b.prog->ops.data() + pc;
  for (const Op* end = o + len; o != end; ++o, ++pc) {
    const Op& op = *o;
    uint32_t exec = group;
    if (op.guard >= 0) exec &= w.P[op.guard] ^ op.guard_neg;
#define SMEMLAB_FUSED_Inline(ty, base, executor, cls) \
  case code(base, ty):                                \
    executor<base, ty>(w, op, exec);                  \
    break;
#define SMEMLAB_FUSED_CallAlu(ty, base, executor, cls) \
  case code(base, ty):                                 \
    executor(b, w, op, pc, exec);                      \
    break;
#define SMEMLAB_FUSED_Call(ty, base, executor, cls)
#define SMEMLAB_FUSED_InlineFlow(ty, base, executor, cls)
#define SMEMLAB_FUSED_CallFlow(ty, base, executor, cls)
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) \
  SMEMLAB_TYPES_##types(SMEMLAB_FUSED_##kind, base, executor, cls)
    switch (op.code) {
#include "emu/instructions.def"
      default:
        break;  // (plan_fused_runs puts only Inline and CallAlu rows' codes in a run)
    }
#undef SMEMLAB_FUSED_Inline
#undef SMEMLAB_FUSED_CallAlu
#undef SMEMLAB_FUSED_Call
#undef SMEMLAB_FUSED_InlineFlow
#undef SMEMLAB_FUSED_CallFlow
  }
}

// A run as native code (native_tier.h): chunk by chunk (a run longer than
// a chunk goes on in the next one's entry); from an op with no native code
// (inside a chunk whose code runs only whole, or none) run_fused runs the
// rest.
inline void run_native(BlockCtx& b, Warp& w, const NativeEntry* t, uint32_t pc, uint32_t len,
                       uint32_t group) {
  while (len) {
    const NativeEntry& e = t[pc];
    if (!e.fn || (e.whole && len < e.left)) {
      run_fused(b, w, pc, len, group);
      return;
    }
    uint32_t k = len < e.left ? len : e.left;
    e.fn(b, w, group, e.first, k);
    pc += k;
    len -= k;
  }
}

}  // namespace

// Whether a memory op another warp sees ends the turn: the schedule's quota
// of them; in a quiet turn, one of its old turns ends (the next begins
// after this op) and the turn when `quota` of those have.
template <bool Quiet>
inline bool turn_ends(uint32_t& quota, uint32_t& vt, uint64_t& vstart, uint64_t n, uint64_t lanes,
                      QuietTurn* q) {
  if constexpr (Quiet) {
    vstart = n;
    q->fault_turn = ++vt;
    q->steps_at[vt] = n;
    q->lanes_at[vt] = lanes;
    return vt == quota;
  } else {
    (void)vt, (void)vstart, (void)n, (void)lanes, (void)q;
    return --quota == 0;
  }
}

// A barrier arrival or exit of the warp in its quiet turn: in which old turn.
inline void quiet_arrival(const BlockCtx& b, QuietTurn* q, uint32_t vt, uint64_t steps,
                          uint64_t& arrivals) {
  arrivals = b.arrivals;
  q->arrival_turn = vt;
  q->arrival_steps = steps;
}

// A uniform warp's run in its quiet turn (tier.h, plan_quiet_runs): up to
// `len` ops of per-lane arithmetic and loads from `pc`, each counted (`n`,
// `lanes`) as the loop below counts it, and each load that another warp
// could see ending one old turn there (turn_ends), so the old turns' counts
// and fault turns are the loop's. Stops where the loop's old turn would end
// by `slice`, and after the load that ends the quiet turn (returns true:
// the turn is over). w.cpc is left after the last op run.
inline bool run_quiet_fused(BlockCtx& b, Warp& w, uint32_t pc, uint32_t len, uint64_t slice,
                            uint32_t quota, uint64_t& n, uint64_t& lanes, uint32_t& vt,
                            uint64_t& vstart, QuietTurn* q) {
  const uint32_t group = w.runnable;
  const uint64_t at_pc = group == ~0u ? 32u : static_cast<uint64_t>(__builtin_popcount(group));
  uint64_t left = slice - (n - vstart);  // (> 0: the loop ends an old turn at 0)
  const Op* o = b.prog->ops.data() + pc;
  for (const Op* end = o + len; o != end && left; ++o, ++pc) {
    const Op& op = *o;
    uint32_t exec = group;
    if (op.guard >= 0) exec &= w.P[op.guard] ^ op.guard_neg;
    ++n;
    lanes += at_pc;
    --left;
#define SMEMLAB_QFUSED_Inline(ty, base, executor, cls) \
  case code(base, ty):                                 \
    executor<base, ty>(w, op, exec);                   \
    continue;
#define SMEMLAB_QFUSED_CallAlu(ty, base, executor, cls) \
  case code(base, ty):                                  \
    executor(b, w, op, pc, exec);                       \
    continue;
#define SMEMLAB_QFUSED_InlineFlow(ty, base, executor, cls) \
  case code(base, ty):                                     \
    if constexpr (base == LD) {                            \
      Step s{b, w, op, pc, group, exec, n};                \
      executor<base, ty>(s);                               \
    }                                                      \
    break;
#define SMEMLAB_QFUSED_Call(ty, base, executor, cls)
#define SMEMLAB_QFUSED_CallFlow(ty, base, executor, cls)
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) \
  SMEMLAB_TYPES_##types(SMEMLAB_QFUSED_##kind, base, executor, cls)
    switch (op.code) {
#include "emu/instructions.def"
      default:
        break;  // (plan_quiet_runs puts only these rows and loads in a run)
    }
#undef SMEMLAB_QFUSED_Inline
#undef SMEMLAB_QFUSED_CallAlu
#undef SMEMLAB_QFUSED_Call
#undef SMEMLAB_QFUSED_InlineFlow
#undef SMEMLAB_QFUSED_CallFlow
    // A load (only loads leave the switch by break).
    if (other_warps_see<LD>(op)) {
      left = slice;
      if (turn_ends<true>(quota, vt, vstart, n, lanes, q)) {
        w.cpc = pc + 1;
        return true;
      }
    }
  }
  w.cpc = pc;
  return false;
}

// One turn of warp `w`: up to `slice` warp-instructions or `quota` ops that
// order memory, from `n` steps already taken in it; the turn's steps. Quiet
// (quiet_epochs.h): up to `quota` old turns at once, each as long as the
// schedule's would be, stopping at a barrier's release. Inlined into the
// round's loop (a call per turn cost a fifth of the matmul's time).
template <bool Quiet>
__attribute__((always_inline)) inline uint64_t take_turn_isa(BlockCtx& b, Warp& w, uint64_t slice,
                                                             uint32_t quota, uint64_t n,
                                                             const uint8_t* fused, uint64_t& lanes,
                                                             QuietTurn* q) {
  uint32_t vt = 0;  // Quiet: old turns ended, the steps when the current began
  uint64_t vstart = 0, arrivals = b.arrivals, releases = b.releases;
  const Op* ops = b.prog->ops.data();
  // (Read once per turn: a background compile may publish it meanwhile.)
  const NativeEntry* native =
      fused && b.env->native ? b.env->native->load(std::memory_order_acquire) : nullptr;
  while (w.runnable && (Quiet || n < slice)) {
    if constexpr (Quiet) {
      if (b.arrivals != arrivals) {
        quiet_arrival(b, q, vt, n - vstart, arrivals);
        if (b.releases != releases) {
          q->released = true;
          goto turn_over;
        }
      }
      if (n - vstart >= slice) {
        vstart = n;
        q->fault_turn = ++vt;
        q->steps_at[vt] = n;
        q->lanes_at[vt] = lanes;
        if (vt == quota) goto turn_over;
      }
    }
    uint32_t pc, group;
    pick_group(b, w, &pc, &group);
    if constexpr (Quiet) {
      // (Program::quiet: 1 + the quiet run's length at a quiet pc.)
      const uint8_t* qruns = b.env->quiet;
      if (w.uniform && qruns && qruns[pc] > 2) {
        if (run_quiet_fused(b, w, pc, qruns[pc] - 1u, slice, quota, n, lanes, vt, vstart, q))
          goto turn_over;
        continue;
      }
    }
    uint32_t at_pc = group == ~0u ? 32u : static_cast<uint32_t>(__builtin_popcount(group));
    // (A divergent warp inside real calls takes its groups in call-chain
    // order, not lowest PC first: next_pc_above does not bound its runs.)
    if (fused && fused[pc] > 1 && (w.uniform || !w.in_call)) {
      uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(fused[pc], slice - (n - vstart)));
      // A divergent group's run stops where the next lanes wait: there the
      // interpreter merges both into one warp-instruction, and so must we
      // (the same step counts, so the same %clock and budget).
      if (!w.uniform) len = std::min(len, next_pc_above(w, group) - pc);
      if (len > 1) {
        if (native)
          run_native(b, w, native, pc, len, group);
        else
          run_fused(b, w, pc, len, group);
        lanes += uint64_t{at_pc} * len;
        n += len;
        if (w.uniform)
          w.cpc = pc + len;
        else
          set_pc(w, group, pc + len);
        continue;
      }
    }
    const Op& op = ops[pc];
    lanes += at_pc;
    if (!b.counts.empty()) {
      ++b.counts[pc].steps;
      b.counts[pc].lanes += at_pc;
    }
    uint32_t exec = group;
    if (op.guard >= 0) exec &= w.P[op.guard] ^ op.guard_neg;
    ++n;
    // One case per (op, type) of instructions.def. After an op whose order
    // among warps matters (its class orders_memory), the warp's turn may end
    // (the schedule's quota); the test is compiled into those cases only.
#define SMEMLAB_TURN(base, cls)                                                          \
  if constexpr (orders_memory(OpClass::cls)) {                                           \
    if (other_warps_see<base>(op) && turn_ends<Quiet>(quota, vt, vstart, n, lanes, q)) { \
      if (w.uniform)                                                                     \
        w.cpc = pc + 1;                                                                  \
      else                                                                               \
        set_pc(w, group, pc + 1);                                                        \
      goto turn_over;                                                                    \
    }                                                                                    \
  }
#define SMEMLAB_CASE_Inline(ty, base, executor, cls) \
  case code(base, ty):                               \
    executor<base, ty>(w, op, exec);                 \
    SMEMLAB_TURN(base, cls)                          \
    break;
#define SMEMLAB_CASE_Call(ty, base, executor, cls) \
  case code(base, ty):                             \
    executor(b, w, op, pc, exec);                  \
    SMEMLAB_TURN(base, cls)                        \
    break;
#define SMEMLAB_CASE_CallAlu(ty, base, executor, cls) SMEMLAB_CASE_Call(ty, base, executor, cls)
#define SMEMLAB_CASE_InlineFlow(ty, base, executor, cls) \
  case code(base, ty): {                                 \
    Step s{b, w, op, pc, group, exec, n};                \
    if (executor<base, ty>(s)) {                         \
      SMEMLAB_TURN(base, cls)                            \
      break;                                             \
    }                                                    \
    continue;                                            \
  }
#define SMEMLAB_CASE_CallFlow(ty, base, executor, cls) \
  case code(base, ty): {                               \
    Step s{b, w, op, pc, group, exec, n};              \
    if (executor(s)) {                                 \
      SMEMLAB_TURN(base, cls)                          \
      break;                                           \
    }                                                  \
    continue;                                          \
  }
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) \
  SMEMLAB_TYPES_##types(SMEMLAB_CASE_##kind, base, executor, cls)
    switch (op.code) {
#include "emu/instructions.def"
      default:
        // Unreachable for decoded programs: the decoder emits only codes of
        // the table (implemented()).
        fault(w, pc, -1, FaultKind::Unsupported,
              fmt::format("'{}' with this type is not implemented", b.prog->info[op.info].text));
    }
#undef SMEMLAB_CASE_Inline
#undef SMEMLAB_CASE_InlineFlow
#undef SMEMLAB_CASE_Call
#undef SMEMLAB_CASE_CallAlu
#undef SMEMLAB_CASE_CallFlow
#undef SMEMLAB_TURN
    if (w.uniform) {
      w.cpc = pc + 1;
    } else {
      set_pc(w, group, pc + 1);
    }
  }
turn_over:
  if constexpr (Quiet) {
    if (b.arrivals != arrivals) {
      quiet_arrival(b, q, vt, n - vstart, arrivals);
      if (b.releases != releases) q->released = true;
    }
    q->taken = vt + (n > vstart ? 1u : 0u);
    q->steps = n;
    q->lanes = lanes;
  }
  b.steps += n;  // (read_clock reads it during the next turn)
  return n;
}

// run_round for this ISA: every turn of one round of `warps` in `turns`'
// order from turn `first` (whose warp has taken `first_steps` of its turn),
// in one call: the `gpu` schedule ends a turn at every memory op, and
// a call per turn cost a fifth of the matmul's time. Each turn: up to
// `slice` warp-instructions or turns.quota() ops that order memory. The
// per-turn work is kept to a few register updates (it runs a million times
// a launch).
RoundResult run_round_isa(BlockCtx& b, WarpTurns& turns, uint64_t slice, Warp* warps,
                          uint32_t fixed_quota, uint32_t first = 0, uint64_t first_steps = 0) {
  const uint32_t count = turns.size();
  const uint64_t budget = b.env ? b.budget : UINT64_MAX, steps_before = b.steps - first_steps;
  uint64_t lanes = 0;
  uint32_t live = 0;
  RoundResult r;
  // (Per-pc counters count every op: runs are for launches without them.)
  const uint8_t* fused = b.env && b.counts.empty() ? b.env->fused : nullptr;
  for (uint32_t turn = first; turn < count; ++turn) {
    Warp& w = warps[turns.warp(turn)];
    live |= w.live;
    if (!w.runnable) {
      // The first turn's warp took `first_steps` before the quiet round's
      // release (run_quiet_round took them off b.steps) and has no lanes
      // left: its exit was the release. Its turn ended there, with those
      // steps, as the old turns counted it.
      if (turn == first && first_steps) {
        b.steps += first_steps;
        if (b.steps > budget) {
          r.over_budget = &w;
          break;
        }
      }
      continue;
    }
    // (A local, not a BlockCtx field: kept in a register across the turn.)
    uint32_t quota = fixed_quota ? fixed_quota : turns.quota();
    take_turn_isa<false>(b, w, slice, quota, turn == first ? first_steps : 0, fused, lanes,
                         nullptr);
    if (b.steps > budget) {
      r.over_budget = &w;
      break;
    }
  }
  b.lane_steps += lanes;
  r.steps = b.steps - steps_before;
  r.progress = r.steps > 0;
  r.alive = live != 0;
  return r;
}

uint64_t run_warp_isa(BlockCtx& b, Warp& w, uint64_t slice, uint32_t quota) {
  WarpTurns one(Schedule{Schedule::Kind::Serial, 1}, 1, 0);
  return run_round_isa(b, one, slice, &w, quota).steps;
}

}  // namespace SMEMLAB_ISA_NS
}  // namespace smemlab::emu

#include "emu/gpu_round.h"

namespace smemlab::emu {
inline namespace SMEMLAB_ISA_NS {

RoundResult run_round_all_isa(BlockCtx& b, WarpTurns& turns, uint64_t slice) {
  if (turns.one_op_turns() && gpu_round_enabled() && b.counts.empty() && b.env && b.env->fused &&
      turns.size() == b.warps.size())
    return run_gpu_round_isa(b, slice);
  return run_round_isa(b, turns, slice, b.warps.data(), 0);
}

RoundResult run_round_from_isa(BlockCtx& b, WarpTurns& turns, uint64_t slice, uint32_t first,
                               uint64_t first_steps) {
  return run_round_isa(b, turns, slice, b.warps.data(), 0, first, first_steps);
}

uint64_t run_quiet_turn_isa(BlockCtx& b, Warp& w, uint64_t slice, QuietTurn& q) {
  uint64_t lanes = 0;
  const uint8_t* fused = b.counts.empty() ? b.env->fused : nullptr;
  q.steps_at[0] = q.lanes_at[0] = 0;
  const uint64_t n = take_turn_isa<true>(b, w, slice, q.turns, 0, fused, lanes, &q);
  b.lane_steps += lanes;
  return n;
}

inline constexpr IsaLoop kIsaLoop{run_warp_isa, run_round_all_isa, run_round_from_isa,
                                  run_quiet_turn_isa};

}  // namespace SMEMLAB_ISA_NS
}  // namespace smemlab::emu
