// Executors of the Inline rows of instructions.def that are not in
// ops_alu.h (mov, setp, selp, plogic, pack, cvta, isspacep, carry, nop):
// per-lane arithmetic of (Warp&, const Op&, exec), each (but pack's) a loop
// of its `_lane` function, one lane's value from its operands' values.
// Included by the interpreter loop (warp_loop.h, once per host ISA) and by
// the native tier's generated code (native_tier.h), whose lane-outer bodies
// call the `_lane` functions, so both run one definition.
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

// add.cc/addc/sub.cc/subc/mad.cc of one lane: the result and the carry
// (borrow) out; `cin`: the lane's carry flag (bit 0).
struct CarryOut {
  uint64_t d;
  uint32_t c;
};
template <Base, T TY>
inline CarryOut carry_lane(const Op& op, uint64_t x, uint64_t y, uint64_t z, uint32_t cin) {
  using U = std::conditional_t<TY == U32, uint32_t, uint64_t>;
  using Wd = std::conditional_t<sizeof(U) == 4, uint64_t, unsigned __int128>;
  constexpr int bits = sizeof(U) * 8;
  Wd in = (op.aux2 & 1) ? (cin & 1u) : 0;
  Wd a = static_cast<U>(x), b = static_cast<U>(y);
  Wd r;
  bool c;
  if (op.aux == 1) {  // a - (b + cin), borrow out
    r = a - b - in;
    c = a < b + in;
  } else {
    Wd v = op.aux == 0 ? a : op.aux == 2 ? static_cast<U>(a * b) : static_cast<U>((a * b) >> bits);
    Wd u = op.aux == 0 ? b : static_cast<U>(z);
    r = v + u + in;
    c = (r >> bits) != 0;
  }
  return {static_cast<U>(r), static_cast<uint32_t>(c)};
}

// setp.f16/.bf16 of one lane: compare as f32 (exact: every half value is an
// f32 value).
inline bool setp_half_value(const Op& op, uint64_t x, uint64_t y) {
  bool bf = op.t == BF16;
  auto f = [bf](uint64_t v) {
    return bf ? bf16_to_float(static_cast<uint16_t>(v)) : half_to_float(static_cast<uint16_t>(v));
  };
  return compare(static_cast<Cmp>(op.aux), f(x), f(y));
}

// One lane's setp: p (r0) and q (r1) as bit 0; `cm`: the combined
// predicate's bit (r4, when t2).
template <Base, T TY>
inline SetpPQ setp_lane(const Op& op, uint64_t x, uint64_t y, uint32_t cm) {
  bool r;
  if constexpr (TY == F16 || TY == BF16)
    r = setp_half_value(op, x, y);
  else
    r = setp_value<TY>(static_cast<Cmp>(op.aux), TY == F32 && (op.aux2 & kFtz), x, y);
  return setp_combine(op, 1u, static_cast<uint32_t>(r), cm & 1u);
}

// and/or/xor/not/mov of predicates, on lane masks (the lane form: bit 0).
inline uint32_t plogic_value(const Op& op, uint32_t a, uint32_t b) {
  a ^= (op.aux2 & 1) ? ~0u : 0u;
  b = op.aux < 3 ? (b ^ ((op.aux2 & 2) ? ~0u : 0u)) : 0;
  return op.aux == 0   ? (a & b)
         : op.aux == 1 ? (a | b)
         : op.aux == 2 ? (a ^ b)
         : op.aux == 3 ? ~a
                       : a;
}

template <Base, T>
inline uint32_t plogic_lane(const Op& op, uint32_t a, uint32_t b) {
  return plogic_value(op, a, b) & 1u;
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
inline uint64_t mov_lane(const Op&, uint64_t x) {
  // Floats move as bits of their width.
  constexpr T as = TY == F32 || TY == F16X2 || TY == BF16X2 ? U32
                   : TY == F64                              ? U64
                   : TY == F16 || TY == BF16                ? U16
                                                            : TY;
  return put(get<typename Tr<as>::V>(x));
}

template <Base B, T TY>
inline void mov(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t* A = reg(w, op.r[1]);
  SMEMLAB_FOR_LANES(exec, D[l] = mov_lane<B, TY>(op, A[l]));
}

template <Base B, T TY>
inline void carry(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t *A = reg(w, op.r[1]), *Bv = reg(w, op.r[2]);
  const uint64_t* C = op.aux >= 2 ? reg(w, op.r[3]) : A;
  uint32_t cf = 0;
  SMEMLAB_FOR_LANES(exec, {
    CarryOut r = carry_lane<B, TY>(op, A[l], Bv[l], C[l], w.carry >> l);
    D[l] = r.d;
    cf |= r.c << l;
  });
  if (op.aux2 & 2) w.carry = (w.carry & ~exec) | cf;
}

template <Base B, T TY>
inline void setp(Warp& w, const Op& op, uint32_t exec) {
  if constexpr (TY == F16 || TY == BF16) {
    const uint64_t *A = reg(w, op.r[2]), *Bv = reg(w, op.r[3]);
    uint32_t res = 0;
    SMEMLAB_FOR_LANES(exec, res |= static_cast<uint32_t>(setp_half_value(op, A[l], Bv[l])) << l);
    setp_write(w, op, exec, res);
  } else {
    setp_typed<TY>(w, op, exec);
  }
}

template <Base, T>
inline uint64_t selp_lane(const Op&, uint64_t a, uint64_t b, uint32_t p) {
  return (p & 1u) ? a : b;
}

template <Base B, T TY>
inline void selp(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t *A = reg(w, op.r[1]), *Bv = reg(w, op.r[2]);
  uint32_t p = w.P[op.r[3]];
  SMEMLAB_FOR_LANES(exec, D[l] = selp_lane<B, TY>(op, A[l], Bv[l], p >> l));
}

template <Base, T>
inline void plogic(Warp& w, const Op& op, uint32_t exec) {
  uint32_t r = plogic_value(op, w.P[op.r[1]], op.aux < 3 ? w.P[op.r[2]] : 0u);
  w.P[op.r[0]] = (w.P[op.r[0]] & ~exec) | (r & exec);
}

template <Base B, T>
inline void pack(Warp& w, const Op& op, uint32_t exec) {
  pack_impl(w, op, exec, B == UNPACK);
}

template <Base, T>
inline uint64_t cvta_lane(const Op& op, uint64_t a) {
  uint64_t win = window(static_cast<MSpace>(op.aux));
  bool to = op.aux2 == 1, narrow = op.t == U32;
  uint64_t v = win == 0 ? a : to ? a - win : (narrow ? static_cast<uint32_t>(a) : a) + win;
  return narrow ? static_cast<uint32_t>(v) : v;
}

template <Base B, T TY>
inline void cvta(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t* A = reg(w, op.r[1]);
  SMEMLAB_FOR_LANES(exec, D[l] = cvta_lane<B, TY>(op, A[l]));
}

template <Base, T>
inline uint32_t isspacep_lane(const Op& op, uint64_t a) {
  MSpace sp = static_cast<MSpace>(op.aux);
  uint64_t win = window(sp);
  return sp == MSpace::Global ? is_global_address(a) : (a >= win && a - win < kWindowSize);
}

template <Base B, T TY>
inline void isspacep(Warp& w, const Op& op, uint32_t exec) {
  const uint64_t* A = reg(w, op.r[1]);
  uint32_t r = 0;
  SMEMLAB_FOR_LANES(exec, r |= isspacep_lane<B, TY>(op, A[l]) << l);
  w.P[op.r[0]] = (w.P[op.r[0]] & ~exec) | r;
}

}  // namespace
}  // namespace SMEMLAB_ISA_NS
}  // namespace smemlab::emu
