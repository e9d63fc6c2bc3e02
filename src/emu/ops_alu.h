// Integer, bit, predicate-select and fast float ops as templates over the
// PTX type, instantiated by the warp loop's switch (one loop over 32 lanes
// per warp-instruction, of the op's `_lane` function, which the native
// tier's lane-outer bodies call too). Registers hold values canonically
// extended to 64 bits (signed types sign-extended), so 32-bit ops read the
// low bits.
#pragma once

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "emu/exec.h"

// The interpreter loop is compiled once per host ISA (warp_loop.h); each
// copy instantiates these templates in its own inline namespace, so the
// AVX2 instantiations never stand in for the portable ones at link time.
#ifndef SMEMLAB_ISA_NS
#define SMEMLAB_ISA_NS isa_portable
#endif

namespace smemlab::emu {

// fma.rn.f32 with the CPU's FMA instruction (same single rounding as
// std::fma, without a libm call per lane); defined in warp.cc.
bool cpu_has_fma();
void ffma32_hw(uint64_t* D, const uint64_t* A, const uint64_t* B, const uint64_t* C, uint32_t exec);

inline namespace SMEMLAB_ISA_NS {

template <T TY>
struct Tr;
template <>
struct Tr<U8> {
  using V = uint8_t;
  using U = uint8_t;
  using W = uint16_t;
};
template <>
struct Tr<S8> {
  using V = int8_t;
  using U = uint8_t;
  using W = int16_t;
};
template <>
struct Tr<U16> {
  using V = uint16_t;
  using U = uint16_t;
  using W = uint32_t;
};
template <>
struct Tr<S16> {
  using V = int16_t;
  using U = uint16_t;
  using W = int32_t;
};
template <>
struct Tr<U32> {
  using V = uint32_t;
  using U = uint32_t;
  using W = uint64_t;
};
template <>
struct Tr<S32> {
  using V = int32_t;
  using U = uint32_t;
  using W = int64_t;
};
template <>
struct Tr<U64> {
  using V = uint64_t;
  using U = uint64_t;
  using W = unsigned __int128;
};
template <>
struct Tr<S64> {
  using V = int64_t;
  using U = uint64_t;
  using W = __int128;
};
template <>
struct Tr<F32> {
  using V = float;
  using U = uint32_t;
};
template <>
struct Tr<F64> {
  using V = double;
  using U = uint64_t;
};

template <typename V>
inline uint64_t put(V v) {
  if constexpr (std::is_floating_point_v<V>) {
    using U = std::conditional_t<sizeof(V) == 4, uint32_t, uint64_t>;
    return std::bit_cast<U>(v);
  } else if constexpr (std::is_signed_v<V>) {
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<uint64_t>(v);
  }
}
template <typename V>
inline V get(uint64_t x) {
  if constexpr (std::is_same_v<V, float>)
    return std::bit_cast<float>(static_cast<uint32_t>(x));
  else if constexpr (std::is_same_v<V, double>)
    return std::bit_cast<double>(x);
  else
    return static_cast<V>(x);
}

// ---- Per-lane values ------------------------------------------------------
// Each executor below is a loop over the executing lanes of its `_lane`
// function: the value one lane's op computes from its operands' register
// values (canonical 64-bit, program.h). The native tier's lane-outer bodies
// (native_codegen.cc) call the same functions, so PTX's semantics have one
// definition. They are total (no UB, no side effect) for any inputs: the
// native bodies evaluate them for lanes whose guard is false and select.

template <Base B, T TY>
inline uint64_t int_bin_lane(const Op&, uint64_t x, uint64_t y) {
  using V = typename Tr<TY>::V;
  using U = typename Tr<TY>::U;
  constexpr uint32_t bits = sizeof(V) * 8;
  V a = get<V>(x);
  V b = get<V>(y);
  V r;
  if constexpr (B == ADD)
    r = static_cast<V>(static_cast<U>(a) + static_cast<U>(b));
  else if constexpr (B == SUB)
    r = static_cast<V>(static_cast<U>(a) - static_cast<U>(b));
  else if constexpr (B == MUL_LO)
    r = static_cast<V>(static_cast<U>(a) * static_cast<U>(b));
  else if constexpr (B == MUL_HI) {
    using Wd = typename Tr<TY>::W;
    r = static_cast<V>((static_cast<Wd>(a) * static_cast<Wd>(b)) >> bits);
  } else if constexpr (B == MIN)
    r = a < b ? a : b;
  else if constexpr (B == MAX)
    r = a > b ? a : b;
  else if constexpr (B == AND)
    r = a & b;
  else if constexpr (B == OR)
    r = a | b;
  else if constexpr (B == XOR)
    r = a ^ b;
  else if constexpr (B == SHL) {
    uint32_t sh = static_cast<uint32_t>(y);
    r = sh >= bits ? V(0) : static_cast<V>(static_cast<U>(a) << sh);
  } else if constexpr (B == SHR) {
    uint32_t sh = static_cast<uint32_t>(y);
    if constexpr (std::is_signed_v<V>)
      r = sh >= bits ? (a < 0 ? V(-1) : V(0)) : static_cast<V>(a >> sh);
    else
      r = sh >= bits ? V(0) : static_cast<V>(a >> sh);
  } else if constexpr (B == DIV) {
    // Division by zero: all ones (what the hardware returns); INT_MIN / -1 wraps.
    if (b == 0)
      r = static_cast<V>(~U(0));
    else if (std::is_signed_v<V> && b == V(-1))
      r = static_cast<V>(U(0) - static_cast<U>(a));
    else
      r = a / b;
  } else if constexpr (B == REM) {
    if (b == 0)
      r = a;
    else if (std::is_signed_v<V> && b == V(-1))
      r = 0;
    else
      r = a % b;
  }
  return put(r);
}

template <Base B, T TY>
inline void int_bin(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t* A = reg(w, op.r[1]);
  const uint64_t* Bv = reg(w, op.r[2]);
  SMEMLAB_FOR_LANES(exec, D[l] = int_bin_lane<B, TY>(op, A[l], Bv[l]));
}

// (MUL_WIDE reads no C: its lane form is passed 0.)
template <Base B, T TY>
inline uint64_t int_mad_lane(const Op&, uint64_t x, uint64_t y, uint64_t z = 0) {
  using V = typename Tr<TY>::V;
  using U = typename Tr<TY>::U;
  using Wd = typename Tr<TY>::W;
  constexpr uint32_t bits = sizeof(V) * 8;
  V a = get<V>(x), b = get<V>(y);
  if constexpr (B == MAD_LO) {
    return put(static_cast<V>(static_cast<U>(a) * static_cast<U>(b) + static_cast<U>(get<V>(z))));
  } else if constexpr (B == MAD_HI) {
    V hi = static_cast<V>((static_cast<Wd>(a) * static_cast<Wd>(b)) >> bits);
    return put(static_cast<V>(static_cast<U>(hi) + static_cast<U>(get<V>(z))));
  } else if constexpr (B == MUL_WIDE) {
    (void)z;
    return put(static_cast<Wd>(static_cast<Wd>(a) * static_cast<Wd>(b)));
  } else {  // MAD_WIDE
    using UW = std::make_unsigned_t<Wd>;
    UW p = static_cast<UW>(static_cast<Wd>(a) * static_cast<Wd>(b));
    return put(static_cast<Wd>(p + static_cast<UW>(get<Wd>(z))));
  }
}

template <Base B, T TY>
inline void int_mad(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t* A = reg(w, op.r[1]);
  const uint64_t* Bv = reg(w, op.r[2]);
  if constexpr (B == MUL_WIDE) {
    SMEMLAB_FOR_LANES(exec, D[l] = int_mad_lane<B, TY>(op, A[l], Bv[l], 0));
  } else {
    const uint64_t* C = reg(w, op.r[3]);
    SMEMLAB_FOR_LANES(exec, D[l] = int_mad_lane<B, TY>(op, A[l], Bv[l], C[l]));
  }
}

template <Base B, T TY>
inline uint64_t int_un_lane(const Op&, uint64_t x) {
  using V = typename Tr<TY>::V;
  using U = typename Tr<TY>::U;
  V a = get<V>(x);
  if constexpr (B == ABS)
    return put(static_cast<V>(a < 0 ? U(0) - static_cast<U>(a) : static_cast<U>(a)));
  else if constexpr (B == NEG)
    return put(static_cast<V>(U(0) - static_cast<U>(a)));
  else if constexpr (B == NOT)
    return put(static_cast<V>(~a));
  else if constexpr (B == CNOT)
    return put(static_cast<V>(a == 0 ? 1 : 0));
  else if constexpr (B == POPC)
    return static_cast<uint32_t>(std::popcount(static_cast<U>(a)));
  else if constexpr (B == CLZ)
    return static_cast<uint32_t>(std::countl_zero(static_cast<U>(a)));
  else {  // BREV
    U v = static_cast<U>(a), r = 0;
    for (uint32_t i = 0; i < sizeof(U) * 8; ++i)
      r |= static_cast<U>(((v >> i) & 1u)) << (sizeof(U) * 8 - 1 - i);
    return put(static_cast<V>(r));
  }
}

template <Base B, T TY>
inline void int_un(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t* A = reg(w, op.r[1]);
  SMEMLAB_FOR_LANES(exec, D[l] = int_un_lane<B, TY>(op, A[l]));
}

template <Base B, T TY>
inline uint64_t bfe_lane(const Op&, uint64_t x, uint64_t y, uint64_t z) {
  using V = typename Tr<TY>::V;
  using U = typename Tr<TY>::U;
  constexpr uint32_t bits = sizeof(V) * 8;
  U a = static_cast<U>(x);
  uint32_t pos = static_cast<uint32_t>(y) & 0xff, len = static_cast<uint32_t>(z) & 0xff;
  bool sbit = false;
  if constexpr (std::is_signed_v<V>) {
    uint32_t msb = len == 0 ? 0 : (pos + len - 1 >= bits ? bits - 1 : pos + len - 1);
    sbit = len != 0 && ((a >> msb) & 1u);
  }
  U r = 0;
  for (uint32_t i = 0; i < bits; ++i) {
    bool bit = i < len ? (pos + i < bits ? ((a >> (pos + i)) & 1u) : sbit) : sbit;
    r |= static_cast<U>(bit) << i;
  }
  return put(static_cast<V>(r));
}

template <Base B, T TY>
inline void bfe(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t *A = reg(w, op.r[1]), *Bv = reg(w, op.r[2]), *C = reg(w, op.r[3]);
  SMEMLAB_FOR_LANES(exec, D[l] = bfe_lane<B, TY>(op, A[l], Bv[l], C[l]));
}

template <Base, T TY>
inline uint64_t bfi_lane(const Op&, uint64_t x, uint64_t y, uint64_t z, uint64_t e) {
  using U = typename Tr<TY>::U;
  constexpr uint32_t bits = sizeof(U) * 8;
  U a = static_cast<U>(x), r = static_cast<U>(y);
  uint32_t pos = static_cast<uint32_t>(z) & 0xff, len = static_cast<uint32_t>(e) & 0xff;
  for (uint32_t i = 0; i < len && pos + i < bits; ++i) {
    U m = U(1) << (pos + i);
    r = (r & ~m) | (((a >> i) & 1u) ? m : U(0));
  }
  return put(r);
}

template <Base B, T TY>
inline void bfi(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t *A = reg(w, op.r[1]), *Bv = reg(w, op.r[2]), *C = reg(w, op.r[3]),
                 *E = reg(w, op.r[4]);
  SMEMLAB_FOR_LANES(exec, D[l] = bfi_lane<B, TY>(op, A[l], Bv[l], C[l], E[l]));
}

template <Base, T>
inline uint64_t prmt_lane(const Op&, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t x = (static_cast<uint64_t>(static_cast<uint32_t>(b)) << 32) | static_cast<uint32_t>(a);
  uint32_t sels = static_cast<uint32_t>(c), r = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t sel = (sels >> (4 * i)) & 0xf;
    uint32_t byte = static_cast<uint32_t>(x >> (8 * (sel & 7))) & 0xff;
    if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;  // replicate the sign bit
    r |= byte << (8 * i);
  }
  return r;
}

template <Base B, T TY>
inline void prmt(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t *A = reg(w, op.r[1]), *Bv = reg(w, op.r[2]), *C = reg(w, op.r[3]);
  SMEMLAB_FOR_LANES(exec, D[l] = prmt_lane<B, TY>(op, A[l], Bv[l], C[l]));
}

template <Base, T>
inline uint64_t shf_lane(const Op& op, uint64_t a, uint64_t b, uint64_t c) {
  bool right = op.aux == 1, wrap = op.aux2 == 1;
  uint64_t x = (static_cast<uint64_t>(static_cast<uint32_t>(b)) << 32) | static_cast<uint32_t>(a);
  uint32_t n = static_cast<uint32_t>(c);
  n = wrap ? (n & 31) : (n > 32 ? 32 : n);
  return right ? static_cast<uint32_t>(x >> n) : static_cast<uint32_t>((x << n) >> 32);
}

template <Base B, T TY>
inline void shf(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t *A = reg(w, op.r[1]), *Bv = reg(w, op.r[2]), *C = reg(w, op.r[3]);
  SMEMLAB_FOR_LANES(exec, D[l] = shf_lane<B, TY>(op, A[l], Bv[l], C[l]));
}

// The NaN an arithmetic result `r` is, as the H100 and H200 return it
// (measured: tests/validation/nan/, docs/emulator.md "NaN results"): f32
// always the canonical NaN 0x7fffffff, whatever the operands' payloads; f64
// the first NaN operand in the order the caller names (each op's order was
// measured: add, mul and fma take b before a before c, sub a before b),
// quieted, else `r` (an invalid operation's default NaN, x86's and the
// GPU's alike). Stated once here, so the interpreter's copy and a lane-outer
// body (whose operand order is the compiler's choice) return the same bits.
template <typename V>
[[gnu::always_inline]] inline V nan_rule(V r, V first, V second, V third = V(0)) {
  if (r == r) return r;
  if constexpr (sizeof(V) == 4) {
    (void)first, (void)second, (void)third;
    return std::bit_cast<V>(0x7fffffffu);
  } else {
    constexpr uint64_t kQuiet = uint64_t{1} << 51;
    const V n = first != first ? first : second != second ? second : third != third ? third : r;
    return std::bit_cast<V>(std::bit_cast<uint64_t>(n) | kQuiet);
  }
}

// (FADD/FSUB/FMUL read no C: their lane form is passed 0. fma.rn is one
// rounding however it is computed: the FMA instruction where this copy is
// compiled for it, else std::fma.)
template <Base B, T TY>
inline uint64_t fast_float_lane(const Op&, uint64_t x, uint64_t y, uint64_t z = 0) {
  using V = typename Tr<TY>::V;
  V a = get<V>(x), b = get<V>(y);
  if constexpr (B == FFMA) {
    const V c = get<V>(z);
#ifdef SMEMLAB_ISA_FMA
    if constexpr (std::is_same_v<V, float>) return put(nan_rule(__builtin_fmaf(a, b, c), b, a, c));
#endif
    return put(nan_rule(static_cast<V>(std::fma(a, b, c)), b, a, c));
  } else {
    (void)z;
    if constexpr (B == FSUB) return put(nan_rule(a - b, a, b));
    return put(nan_rule(B == FADD ? a + b : a * b, b, a));
  }
}

template <Base B, T TY>
inline void fast_float(Warp& w, const Op& op, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t *A = reg(w, op.r[1]), *Bv = reg(w, op.r[2]);
  if constexpr (B == FFMA) {
    const uint64_t* C = reg(w, op.r[3]);
#ifndef SMEMLAB_ISA_FMA  // (this copy may run where the CPU has FMA: ask)
    if constexpr (TY == F32) {
      if (cpu_has_fma()) {
        ffma32_hw(D, A, Bv, C, exec);
        return;
      }
    }
#endif
    SMEMLAB_FOR_LANES(exec, D[l] = fast_float_lane<B, TY>(op, A[l], Bv[l], C[l]));
  } else {
    SMEMLAB_FOR_LANES(exec, D[l] = fast_float_lane<B, TY>(op, A[l], Bv[l], 0));
  }
}

template <typename V>
inline bool compare(Cmp c, V a, V b) {
  if constexpr (std::is_floating_point_v<V>) {
    bool un = std::isnan(a) || std::isnan(b);
    switch (c) {
      case C_EQ:
        return !un && a == b;
      case C_NE:
        return !un && a != b;
      case C_LT:
      case C_LO:
        return !un && a < b;
      case C_LE:
      case C_LS:
        return !un && a <= b;
      case C_GT:
      case C_HI:
        return !un && a > b;
      case C_GE:
      case C_HS:
        return !un && a >= b;
      case C_EQU:
        return un || a == b;
      case C_NEU:
        return un || a != b;
      case C_LTU:
        return un || a < b;
      case C_LEU:
        return un || a <= b;
      case C_GTU:
        return un || a > b;
      case C_GEU:
        return un || a >= b;
      case C_NUM:
        return !un;
      case C_NAN:
        return un;
    }
    return false;
  } else {
    using U = std::make_unsigned_t<V>;
    switch (c) {
      case C_EQ:
        return a == b;
      case C_NE:
        return a != b;
      case C_LT:
        return a < b;
      case C_LE:
        return a <= b;
      case C_GT:
        return a > b;
      case C_GE:
        return a >= b;
      case C_LO:
        return static_cast<U>(a) < static_cast<U>(b);
      case C_LS:
        return static_cast<U>(a) <= static_cast<U>(b);
      case C_HI:
        return static_cast<U>(a) > static_cast<U>(b);
      case C_HS:
        return static_cast<U>(a) >= static_cast<U>(b);
      default:
        return false;
    }
  }
}

// The end of every setp, on lane masks (bit l: lane l; the lane form
// passes bit 0 alone): the optional .and/.or/.xor with a predicate `cm`
// (t2 = 1, 2, 3; aux2 bit 0 negates it), then p = result and q = its
// complement, in the executing lanes.
struct SetpPQ {
  uint32_t p, q;
};
inline SetpPQ setp_combine(const Op& op, uint32_t exec, uint32_t res, uint32_t cm) {
  uint32_t q = ~res & exec;
  if (op.t2) {
    cm ^= (op.aux2 & 1) ? ~0u : 0u;
    if (op.t2 == 1) {
      res &= cm;
      q &= cm;
    } else if (op.t2 == 2) {
      res |= cm;
      q |= cm;
    } else {
      res ^= cm;
      q ^= cm;
    }
  }
  return {res & exec, q & exec};
}

// p = r0 and, for `p|q`, q = r1, in the executing lanes.
inline void setp_write(Warp& w, const Op& op, uint32_t exec, uint32_t res) {
  SetpPQ r = setp_combine(op, exec, res, op.t2 ? w.P[op.r[4]] : 0u);
  w.P[op.r[0]] = (w.P[op.r[0]] & ~exec) | r.p;
  if (op.r[1] != UINT32_MAX) w.P[op.r[1]] = (w.P[op.r[1]] & ~exec) | r.q;
}

// fesetround mode of a PTX rounding modifier (.rz/.rzi, .rm/.rmi, .rp/.rpi;
// anything else rounds to nearest).
inline int fe_mode(uint8_t r) {
  switch (r & 0x0f) {
    case R_RZ:
    case R_RZI:
      return FE_TOWARDZERO;
    case R_RM:
    case R_RMI:
      return FE_DOWNWARD;
    case R_RP:
    case R_RPI:
      return FE_UPWARD;
    default:
      return FE_TONEAREST;
  }
}

// One lane's comparison of a setp of type TY (not f16/bf16: setp_half_lane,
// ops_inline.h); `ftz`: f32 subnormal inputs compare as zeros.
template <T TY>
inline bool setp_value(Cmp c, bool ftz, uint64_t x, uint64_t y) {
  using V = typename Tr<TY>::V;
  V a = get<V>(x), b = get<V>(y);
  if constexpr (std::is_same_v<V, float>) {
    if (ftz) {
      if (std::fpclassify(a) == FP_SUBNORMAL) a = std::copysign(V(0), a);
      if (std::fpclassify(b) == FP_SUBNORMAL) b = std::copysign(V(0), b);
    }
  } else {
    (void)ftz;
  }
  return compare(c, a, b);
}

// The lanes of one comparison, its kind a constant: no switch per lane, so
// a full warp's loop is straight-line code.
template <Cmp C, T TY>
inline uint32_t setp_lanes(const uint64_t* A, const uint64_t* B, uint32_t exec) {
  uint32_t res = 0;
  SMEMLAB_FOR_LANES(exec, res |= static_cast<uint32_t>(setp_value<TY>(C, false, A[l], B[l])) << l);
  return res;
}

template <T TY>
inline void setp_typed(Warp& w, const Op& op, uint32_t exec) {
  const uint64_t *A = reg(w, op.r[2]), *Bv = reg(w, op.r[3]);
  uint32_t res = 0;
  Cmp c = static_cast<Cmp>(op.aux);
  if (TY == F32 && (op.aux2 & kFtz)) {
    SMEMLAB_FOR_LANES(exec, res |= static_cast<uint32_t>(setp_value<TY>(c, true, A[l], Bv[l]))
                                   << l);
    setp_write(w, op, exec, res);
    return;
  }
  switch (c) {
#define SMEMLAB_SETP_CASE(k)              \
  case k:                                 \
    res = setp_lanes<k, TY>(A, Bv, exec); \
    break;
    SMEMLAB_SETP_CASE(C_EQ)
    SMEMLAB_SETP_CASE(C_NE)
    SMEMLAB_SETP_CASE(C_LT)
    SMEMLAB_SETP_CASE(C_LE)
    SMEMLAB_SETP_CASE(C_GT)
    SMEMLAB_SETP_CASE(C_GE)
    SMEMLAB_SETP_CASE(C_LO)
    SMEMLAB_SETP_CASE(C_LS)
    SMEMLAB_SETP_CASE(C_HI)
    SMEMLAB_SETP_CASE(C_HS)
#undef SMEMLAB_SETP_CASE
    default:  // the unordered and NaN tests (floats only)
      SMEMLAB_FOR_LANES(exec, res |= static_cast<uint32_t>(setp_value<TY>(c, false, A[l], Bv[l]))
                                     << l);
  }
  setp_write(w, op, exec, res);
}

}  // namespace SMEMLAB_ISA_NS
}  // namespace smemlab::emu
