// The warp interpreter: SIMT with per-lane PCs. Each step takes the lowest PC
// over the runnable lanes and executes that op once for the lanes at it
// (one warp-instruction). While all runnable lanes share one PC the warp is
// "uniform" and the per-lane PCs are not touched at all (the fast path).
#include <fmt/format.h>

#include "emu/decode_context.h"
#include "emu/exec.h"
#include "emu/half.h"
#include "emu/ops_alu.h"

namespace smemlab::emu {

bool cpu_has_fma() {
  static const bool has = __builtin_cpu_supports("fma");
  return has;
}

__attribute__((target("fma"))) void ffma32_hw(uint64_t* D, const uint64_t* A, const uint64_t* B,
                                              const uint64_t* C, uint32_t exec) {
  SMEMLAB_FOR_LANES(
      exec, D[l] = put(__builtin_fmaf(get<float>(A[l]), get<float>(B[l]), get<float>(C[l]))));
}

void fault(const Warp& w, uint32_t pc, int lane, const char* kind, std::string msg) {
  throw Fault{kind, std::move(msg), w.index, lane, pc};
}

namespace {

inline void materialize(Warp& w) {
  if (!w.uniform) return;
  SMEMLAB_FOR_LANES(w.runnable, w.pc[l] = w.cpc);
  w.uniform = false;
}

inline void set_pc(Warp& w, uint32_t lanes, uint32_t pc) { SMEMLAB_FOR_LANES(lanes, w.pc[l] = pc); }

template <T TY>
inline void mov(Warp& w, const Op& op, uint32_t exec) {
  using V = typename Tr<TY>::V;
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t* A = reg(w, op.r[1]);
  SMEMLAB_FOR_LANES(exec, D[l] = put(get<V>(A[l])));
}

template <typename U>
void carry(Warp& w, const Op& op, uint32_t exec) {
  using Wd = std::conditional_t<sizeof(U) == 4, uint64_t, unsigned __int128>;
  constexpr int bits = sizeof(U) * 8;
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t *A = reg(w, op.r[1]), *B = reg(w, op.r[2]);
  const uint64_t* C = op.aux >= 2 ? reg(w, op.r[3]) : A;
  bool cin = op.aux2 & 1, cout = op.aux2 & 2;
  uint32_t cf = 0;
  SMEMLAB_FOR_LANES(exec, {
    Wd in = cin ? ((w.carry >> l) & 1u) : 0;
    Wd a = static_cast<U>(A[l]), b = static_cast<U>(B[l]);
    Wd r;
    bool c;
    if (op.aux == 1) {  // a - (b + cin), borrow out
      r = a - b - in;
      c = a < b + in;
    } else {
      Wd x = op.aux == 0   ? a
             : op.aux == 2 ? static_cast<U>(a * b)
                           : static_cast<U>((a * b) >> bits);
      Wd y = op.aux == 0 ? b : static_cast<U>(C[l]);
      r = x + y + in;
      c = (r >> bits) != 0;
    }
    D[l] = static_cast<U>(r);
    cf |= static_cast<uint32_t>(c) << l;
  });
  if (cout) w.carry = (w.carry & ~exec) | cf;
}

// setp.f16/.bf16: compare as f32 (exact: every half value is an f32 value).
void setp_half(Warp& w, const Op& op, uint32_t exec) {
  bool bf = op.t == BF16;
  auto f = [bf](uint64_t x) {
    return bf ? bf16_to_float(static_cast<uint16_t>(x)) : half_to_float(static_cast<uint16_t>(x));
  };
  const uint64_t *A = reg(w, op.r[2]), *B = reg(w, op.r[3]);
  uint32_t res = 0;
  SMEMLAB_FOR_LANES(
      exec, res |= static_cast<uint32_t>(compare(static_cast<Cmp>(op.aux), f(A[l]), f(B[l]))) << l);
  setp_write(w, op, exec, res);
}

void plogic(Warp& w, const Op& op, uint32_t exec) {
  uint32_t a = w.P[op.r[1]] ^ ((op.aux2 & 1) ? ~0u : 0u);
  uint32_t b = op.aux < 3 ? (w.P[op.r[2]] ^ ((op.aux2 & 2) ? ~0u : 0u)) : 0;
  uint32_t r = op.aux == 0   ? (a & b)
               : op.aux == 1 ? (a | b)
               : op.aux == 2 ? (a ^ b)
               : op.aux == 3 ? ~a
                             : a;
  w.P[op.r[0]] = (w.P[op.r[0]] & ~exec) | (r & exec);
}

void pack(Warp& w, const Op& op, uint32_t exec, bool unpack) {
  uint32_t total = static_cast<uint32_t>(type_bytes(static_cast<T>(op.t))) * 8;
  uint32_t part = total / op.vec;
  uint64_t pm = part >= 64 ? ~0ull : ((1ull << part) - 1);
  SMEMLAB_FOR_LANES(exec, {
    if (unpack) {
      uint64_t v = reg(w, op.r[4])[l];
      for (uint32_t i = 0; i < op.vec; ++i) regw(w, op.r[i])[l] = (v >> (i * part)) & pm;
    } else {
      uint64_t v = 0;
      for (uint32_t i = 0; i < op.vec; ++i) v |= (reg(w, op.r[i + 1])[l] & pm) << (i * part);
      regw(w, op.r[0])[l] = v;
    }
  });
}

uint64_t window(MSpace s) {
  switch (s) {
    case MSpace::Shared:
      return kSharedWindow;
    case MSpace::Local:
      return kLocalWindow;
    case MSpace::Const:
      return kConstWindow;
    case MSpace::Param:
      return kParamWindow;
    default:
      return 0;
  }
}

}  // namespace

#define INT_CASES(BASE, FN)     \
  case code(BASE, U16):         \
    FN<BASE, U16>(w, op, exec); \
    break;                      \
  case code(BASE, S16):         \
    FN<BASE, S16>(w, op, exec); \
    break;                      \
  case code(BASE, U32):         \
    FN<BASE, U32>(w, op, exec); \
    break;                      \
  case code(BASE, S32):         \
    FN<BASE, S32>(w, op, exec); \
    break;                      \
  case code(BASE, U64):         \
    FN<BASE, U64>(w, op, exec); \
    break;                      \
  case code(BASE, S64):         \
    FN<BASE, S64>(w, op, exec); \
    break;
#define FLOAT_CASES(BASE)               \
  case code(BASE, F32):                 \
    fast_float<BASE, F32>(w, op, exec); \
    break;                              \
  case code(BASE, F64):                 \
    fast_float<BASE, F64>(w, op, exec); \
    break;
#define TYPED_CASES(BASE, FN) \
  case code(BASE, U8):        \
    FN<U8>(w, op, exec);      \
    break;                    \
  case code(BASE, S8):        \
    FN<S8>(w, op, exec);      \
    break;                    \
  case code(BASE, U16):       \
    FN<U16>(w, op, exec);     \
    break;                    \
  case code(BASE, S16):       \
    FN<S16>(w, op, exec);     \
    break;                    \
  case code(BASE, U32):       \
    FN<U32>(w, op, exec);     \
    break;                    \
  case code(BASE, S32):       \
    FN<S32>(w, op, exec);     \
    break;                    \
  case code(BASE, U64):       \
    FN<U64>(w, op, exec);     \
    break;                    \
  case code(BASE, S64):       \
    FN<S64>(w, op, exec);     \
    break;

uint64_t run_warp(BlockCtx& b, Warp& w, uint64_t slice) {
  const Op* ops = b.prog->ops.data();
  uint64_t n = 0, lanes = 0;
  while (w.runnable && n < slice) {
    uint32_t pc, group;
    if (w.uniform) {
      pc = w.cpc;
      group = w.runnable;
    } else {
      pc = UINT32_MAX;
      SMEMLAB_FOR_LANES(w.runnable, pc = w.pc[l] < pc ? w.pc[l] : pc);
      group = 0;
      SMEMLAB_FOR_LANES(w.runnable, group |= (w.pc[l] == pc ? 1u : 0u) << l);
      if (group == w.runnable) {
        w.uniform = true;
        w.cpc = pc;
      }
    }
    const Op& op = ops[pc];
    uint32_t at_pc = group == ~0u ? 32u : static_cast<uint32_t>(__builtin_popcount(group));
    lanes += at_pc;
    if (!b.counts.empty()) {
      ++b.counts[pc].steps;
      b.counts[pc].lanes += at_pc;
    }
    uint32_t exec = group;
    if (op.guard >= 0) exec &= w.P[op.guard] ^ op.guard_neg;
    ++n;
    switch (op.code) {
      case code(NOP, U32):
        break;
        // clang-format off
      TYPED_CASES(MOV, mov)
      // clang-format on
      case code(MOV, F32):
        mov<U32>(w, op, exec);
        break;
      case code(MOV, F64):
        mov<U64>(w, op, exec);
        break;
      case code(MOV, F16):
      case code(MOV, BF16):
        mov<U16>(w, op, exec);
        break;
      case code(MOV, F16X2):
      case code(MOV, BF16X2):
        mov<U32>(w, op, exec);
        break;
        // clang-format off
      INT_CASES(ADD, int_bin)
      INT_CASES(SUB, int_bin)
      INT_CASES(MUL_LO, int_bin)
      INT_CASES(MUL_HI, int_bin)
      INT_CASES(MIN, int_bin)
      INT_CASES(MAX, int_bin)
      INT_CASES(AND, int_bin)
      INT_CASES(OR, int_bin)
      INT_CASES(XOR, int_bin)
      INT_CASES(SHL, int_bin)
      INT_CASES(SHR, int_bin)
      INT_CASES(DIV, int_bin)
      INT_CASES(REM, int_bin)
      INT_CASES(MAD_LO, int_mad)
      INT_CASES(MAD_HI, int_mad)
      INT_CASES(ABS, int_un)
      INT_CASES(NEG, int_un)
      INT_CASES(NOT, int_un)
      INT_CASES(CNOT, int_un)
      INT_CASES(POPC, int_un)
      INT_CASES(CLZ, int_un)
      INT_CASES(BREV, int_un)
      case code(MUL_WIDE, U16): int_mad<MUL_WIDE, U16>(w, op, exec); break;
      case code(MUL_WIDE, S16): int_mad<MUL_WIDE, S16>(w, op, exec); break;
      case code(MUL_WIDE, U32): int_mad<MUL_WIDE, U32>(w, op, exec); break;
      case code(MUL_WIDE, S32): int_mad<MUL_WIDE, S32>(w, op, exec); break;
      case code(MAD_WIDE, U16): int_mad<MAD_WIDE, U16>(w, op, exec); break;
      case code(MAD_WIDE, S16): int_mad<MAD_WIDE, S16>(w, op, exec); break;
      case code(MAD_WIDE, U32): int_mad<MAD_WIDE, U32>(w, op, exec); break;
      case code(MAD_WIDE, S32): int_mad<MAD_WIDE, S32>(w, op, exec); break;
      case code(BFE, U32): bfe<U32>(w, op, exec); break;
      // clang-format on
      case code(BFE, S32):
        bfe<S32>(w, op, exec);
        break;
      case code(BFE, U64):
        bfe<U64>(w, op, exec);
        break;
      case code(BFE, S64):
        bfe<S64>(w, op, exec);
        break;
      case code(BFI, U32):
        bfi<U32>(w, op, exec);
        break;
      case code(BFI, U64):
        bfi<U64>(w, op, exec);
        break;
      case code(PRMT, U32):
        prmt(w, op, exec);
        break;
      case code(SHF, U32):
        shf(w, op, exec);
        break;
        // clang-format off
      FLOAT_CASES(FADD)
      FLOAT_CASES(FSUB)
      FLOAT_CASES(FMUL)
      FLOAT_CASES(FFMA)
      TYPED_CASES(SETP, setp)
      case code(SETP, F32): setp<F32>(w, op, exec); break;
      // clang-format on
      case code(SETP, F64):
        setp<F64>(w, op, exec);
        break;
      case code(SETP, F16):
      case code(SETP, BF16):
        setp_half(w, op, exec);
        break;
      case code(SELP, U8):
      case code(SELP, S8):
      case code(SELP, U16):
      case code(SELP, S16):
      case code(SELP, U32):
      case code(SELP, S32):
      case code(SELP, U64):
      case code(SELP, S64):
      case code(SELP, F32):
      case code(SELP, F64):
      case code(SELP, F16):
      case code(SELP, BF16): {
        uint64_t* D = regw(w, op.r[0]);
        const uint64_t *A = reg(w, op.r[1]), *B = reg(w, op.r[2]);
        uint32_t p = w.P[op.r[3]];
        SMEMLAB_FOR_LANES(exec, D[l] = ((p >> l) & 1u) ? A[l] : B[l]);
        break;
      }
      case code(PLOGIC, PRED):
        plogic(w, op, exec);
        break;
      case code(CARRY, U32):
        carry<uint32_t>(w, op, exec);
        break;
      case code(CARRY, U64):
        carry<uint64_t>(w, op, exec);
        break;
      case code(PACK, U16):
      case code(PACK, U32):
      case code(PACK, U64):
      case code(PACK, F32):
      case code(PACK, F64):
      case code(PACK, F16X2):
      case code(PACK, BF16X2):
      case code(PACK, S32):
      case code(PACK, S64):
        pack(w, op, exec, false);
        break;
      case code(UNPACK, U16):
      case code(UNPACK, U32):
      case code(UNPACK, U64):
      case code(UNPACK, F32):
      case code(UNPACK, F64):
      case code(UNPACK, F16X2):
      case code(UNPACK, BF16X2):
      case code(UNPACK, S32):
      case code(UNPACK, S64):
        pack(w, op, exec, true);
        break;
      case code(CVTA, U32):
      case code(CVTA, U64): {
        uint64_t win = window(static_cast<MSpace>(op.aux));
        uint64_t* D = regw(w, op.r[0]);
        const uint64_t* A = reg(w, op.r[1]);
        bool to = op.aux2 == 1, narrow = op.t == U32;
        SMEMLAB_FOR_LANES(exec, {
          uint64_t v = win == 0 ? A[l]
                       : to     ? A[l] - win
                                : (narrow ? static_cast<uint32_t>(A[l]) : A[l]) + win;
          D[l] = narrow ? static_cast<uint32_t>(v) : v;
        });
        break;
      }
      case code(ISSPACEP, U64): {
        MSpace s = static_cast<MSpace>(op.aux);
        uint64_t win = window(s);
        const uint64_t* A = reg(w, op.r[1]);
        uint32_t r = 0;
        SMEMLAB_FOR_LANES(exec, {
          bool in =
              s == MSpace::Global ? is_global_address(A[l]) : (A[l] >= win && A[l] - win < kWindowSize);
          r |= static_cast<uint32_t>(in) << l;
        });
        w.P[op.r[0]] = (w.P[op.r[0]] & ~exec) | r;
        break;
      }
      case code(SPECIAL, U32):
      case code(SPECIAL, U64):
      case code(SPECIAL, S32):
      case code(SPECIAL, S64): {
        // Deterministic clocks: the block's warp-instruction count so far.
        uint64_t v = b.clock_base + b.steps + n;
        uint64_t* D = regw(w, op.r[0]);
        SMEMLAB_FOR_LANES(exec, D[l] = op.t == U32 || op.t == S32 ? static_cast<uint32_t>(v) : v);
        break;
      }
      case code(LD, U8):
      case code(LD, S8):
      case code(LD, U16):
      case code(LD, S16):
      case code(LD, U32):
      case code(LD, S32):
      case code(LD, U64):
      case code(LD, S64):
      case code(LD, F16):
      case code(LD, BF16):
      case code(LD, F32):
      case code(LD, F64):
      case code(LD, F16X2):
      case code(LD, BF16X2):
      case code(ST, U8):
      case code(ST, S8):
      case code(ST, U16):
      case code(ST, S16):
      case code(ST, U32):
      case code(ST, S32):
      case code(ST, U64):
      case code(ST, S64):
      case code(ST, F16):
      case code(ST, BF16):
      case code(ST, F32):
      case code(ST, F64):
      case code(ST, F16X2):
      case code(ST, BF16X2):
      case code(ATOM, U32):
      case code(ATOM, S32):
      case code(ATOM, U64):
      case code(ATOM, S64):
      case code(ATOM, F32):
      case code(ATOM, F64):
      case code(ATOM, U16):
      case code(ATOM, S16):
        exec_memory(b, w, op, pc, exec);
        break;
      case code(CPASYNC, U8):
        exec_cpasync(b, w, op, pc, exec);
        break;
      case code(BRA, U32): {
        uint32_t target = static_cast<uint32_t>(op.imm);
        uint32_t nt = group & ~exec;
        if (b.obs) b.obs->on_branch(Branch{exec, nt, &b.prog->info[op.info], b.id, w.index});
        if (w.uniform && nt == 0) {
          w.cpc = target;
        } else if (w.uniform && exec == 0) {
          w.cpc = pc + 1;
        } else {
          materialize(w);
          set_pc(w, exec, target);
          set_pc(w, nt, pc + 1);
        }
        continue;
      }
      case code(EXIT, U32): {
        if (exec == 0) break;
        materialize(w);
        set_pc(w, group & ~exec, pc + 1);
        w.live &= ~exec;
        w.runnable &= ~exec;
        on_exit_lanes(b, w, pc, exec);
        // Lanes waiting at a collective for the lanes that just exited: let
        // them re-check (exited lanes count as arrived).
        w.runnable |= w.coll_wait;
        w.coll_wait = 0;
        continue;
      }
      case code(TRAP, U32):
        if (exec) fault(w, pc, __builtin_ctz(exec), "trap", "the kernel executed trap");
        break;
      case code(BAR, U32): {
        if (exec == 0) break;
        materialize(w);
        set_pc(w, group, pc + 1);
        barrier_arrive(b, w, op, pc, exec);
        continue;
      }
      case code(WARPSYNC, U32):
      case code(SHFL, U32):
      case code(VOTE, U32):
      case code(REDUX, U32):
      case code(REDUX, S32):
      case code(MATCH, U32):
      case code(MATCH, U64):
      case code(ACTIVEMASK, U32): {
        if (exec == 0) break;
        if (!collective_ready(w, ops, op, exec)) {
          materialize(w);
          set_pc(w, group & ~exec, pc + 1);
          w.coll_wait |= exec;  // their pc[] stays at this op
          w.runnable &= ~exec;
          continue;
        }
        uint32_t waiting = collective_partners(w, ops, op);
        exec_collective(b, w, op, pc, exec, waiting);
        if (waiting) {
          materialize(w);
          w.coll_wait &= ~waiting;
          w.runnable |= waiting;
          SMEMLAB_FOR_LANES(waiting, w.pc[l] += 1);  // each after its own instruction
          set_pc(w, group, pc + 1);
          continue;
        }
        break;
      }
      case code(FSLOW, F32):
      case code(FSLOW, F64):
      case code(FSLOW, F16):
      case code(FSLOW, BF16):
      case code(FSLOW, F16X2):
      case code(FSLOW, BF16X2):
        exec_fslow(w, op, exec);
        break;
      default:
        if (op.code / 16 == CVT) {
          exec_cvt(w, op, exec);
          break;
        }
        fault(w, pc, -1, "unsupported",
              fmt::format("'{}' with this type is not implemented", b.prog->info[op.info].text));
    }
    if (w.uniform) {
      w.cpc = pc + 1;
    } else {
      set_pc(w, group, pc + 1);
    }
  }
  w.steps += n;
  b.lane_steps += lanes;
  return n;
}

}  // namespace smemlab::emu
