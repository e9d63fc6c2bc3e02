// Executors of the Inline rows of instructions.def that are not in
// ops_alu.h (mov, setp, selp, plogic, pack, cvta, isspacep, carry, nop):
// per-lane arithmetic of (Warp&, const Op&, exec). Included by the
// interpreter loop (warp_loop.h, once per host ISA) and by the native
// tier's generated code (native_tier.h), so both run one definition.
#pragma once

#include <cstdint>
#include <type_traits>

#include "emu/exec.h"
#include "emu/half.h"
#include "emu/instructions.h"
#include "emu/ops_alu.h"

namespace smemlab::emu {
inline namespace SMEMLAB_ISA_NS {
namespace {

template <typename U>
void carry_impl(Warp& w, const Op& op, uint32_t exec) {
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
inline void setp_half(Warp& w, const Op& op, uint32_t exec) {
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

inline void plogic_impl(Warp& w, const Op& op, uint32_t exec) {
  uint32_t a = w.P[op.r[1]] ^ ((op.aux2 & 1) ? ~0u : 0u);
  uint32_t b = op.aux < 3 ? (w.P[op.r[2]] ^ ((op.aux2 & 2) ? ~0u : 0u)) : 0;
  uint32_t r = op.aux == 0   ? (a & b)
               : op.aux == 1 ? (a | b)
               : op.aux == 2 ? (a ^ b)
               : op.aux == 3 ? ~a
                             : a;
  w.P[op.r[0]] = (w.P[op.r[0]] & ~exec) | (r & exec);
}

inline void pack_impl(Warp& w, const Op& op, uint32_t exec, bool unpack) {
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

inline uint64_t window(MSpace s) {
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

// ---- Executors of the Inline/InlineFlow rows of instructions.def ---------
// (Flow executors return false when they set the lanes' PCs themselves.)

template <Base, T>
inline void nop(Warp&, const Op&, uint32_t) {}

template <Base, T TY>
inline void mov(Warp& w, const Op& op, uint32_t exec) {
  // Floats move as bits of their width.
  constexpr T as = TY == F32 || TY == F16X2 || TY == BF16X2 ? U32
                   : TY == F64                              ? U64
                   : TY == F16 || TY == BF16                ? U16
                                                            : TY;
  using V = typename Tr<as>::V;
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t* A = reg(w, op.r[1]);
  SMEMLAB_FOR_LANES(exec, D[l] = put(get<V>(A[l])));
}

template <Base, T TY>
inline void carry(Warp& w, const Op& op, uint32_t exec) {
  if constexpr (TY == U32)
    carry_impl<uint32_t>(w, op, exec);
  else
    carry_impl<uint64_t>(w, op, exec);
}

template <Base, T TY>
inline void setp(Warp& w, const Op& op, uint32_t exec) {
  if constexpr (TY == F16 || TY == BF16)
    setp_half(w, op, exec);
  else
    setp_typed<TY>(w, op, exec);
}

template <Base, T>
inline void selp(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t *A = reg(w, op.r[1]), *B = reg(w, op.r[2]);
  uint32_t p = w.P[op.r[3]];
  SMEMLAB_FOR_LANES(exec, D[l] = ((p >> l) & 1u) ? A[l] : B[l]);
}

template <Base, T>
inline void plogic(Warp& w, const Op& op, uint32_t exec) {
  plogic_impl(w, op, exec);
}

template <Base B, T>
inline void pack(Warp& w, const Op& op, uint32_t exec) {
  pack_impl(w, op, exec, B == UNPACK);
}

template <Base, T>
inline void cvta(Warp& w, const Op& op, uint32_t exec) {
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
}

template <Base, T>
inline void isspacep(Warp& w, const Op& op, uint32_t exec) {
  MSpace sp = static_cast<MSpace>(op.aux);
  uint64_t win = window(sp);
  const uint64_t* A = reg(w, op.r[1]);
  uint32_t r = 0;
  SMEMLAB_FOR_LANES(exec, {
    bool in =
        sp == MSpace::Global ? is_global_address(A[l]) : (A[l] >= win && A[l] - win < kWindowSize);
    r |= static_cast<uint32_t>(in) << l;
  });
  w.P[op.r[0]] = (w.P[op.r[0]] & ~exec) | r;
}

}  // namespace
}  // namespace SMEMLAB_ISA_NS
}  // namespace smemlab::emu
