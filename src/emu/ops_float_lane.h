// The float slow path's per-lane arithmetic (exec_fslow, ops_float.cc): one
// op on one lane's values, with .ftz's flushes and .sat's clamp. exec_fslow
// runs it in all its loops, and the native tier's lane-outer bodies
// (native_lanes.cc) call fslow_lane for the f32 round-to-nearest ops that
// are arithmetic (add ... copysign, not the library's ex2/lg2/sin/cos/tanh,
// which stay exec_fslow's warp-level calls with their vectors, nor testp),
// so both run one definition.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "emu/ops_alu.h"

namespace smemlab::emu {

template <typename V>
[[gnu::always_inline]] inline V flush_subnormal(V v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(V(0), v) : v;
}

// .sat's clamp to [+0, 1]: NaN and -0 give +0 (measured: add.sat.f32 of -0
// and -0 is +0 on the GPU).
template <typename V>
[[gnu::always_inline]] inline V saturate(V r) {
  return !(r > V(0)) ? V(0) : r > V(1) ? V(1) : r;
}

template <typename V>
[[gnu::always_inline]] inline V fmin_ptx(V a, V b, bool is_max) {
  // Both NaN: f32 the canonical NaN, f64 a, quieted (measured).
  if (std::isnan(a) && std::isnan(b)) {
    if constexpr (sizeof(V) == 4) return std::bit_cast<V>(0x7fffffffu);
    return nan_rule(a, a, b);
  }
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return (std::signbit(a) != is_max) ? a : b;  // -0 < +0
  return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

// rcp.approx.ftz.f64 as the GPU computes it (MUFU.RCP64H, measured): the
// reciprocal of the operand's upper word only (its low 32 bits ignored),
// subnormals flushed, rounded to nearest in the result's upper word, whose
// low word is 0; a NaN gives 0x7fffffff00000000.
inline double rcp_approx_f64(double a) {
  double x = std::bit_cast<double>(std::bit_cast<uint64_t>(a) & 0xffffffff00000000ull);
  if (std::isnan(x)) return std::bit_cast<double>(0x7fffffff00000000ull);
  x = flush_subnormal(x);
  const double r = flush_subnormal(1.0 / x);
  if (!std::isfinite(r) || r == 0) return r;
  return std::bit_cast<double>((std::bit_cast<uint64_t>(r) + 0x80000000ull) &
                               0xffffffff00000000ull);
}

// min.NaN / max.NaN: the canonical NaN (all mantissa bits set) when either
// operand is a NaN, whatever its payload.
template <typename V>
V canonical_nan() {
  if constexpr (sizeof(V) == 4)
    return std::bit_cast<V>(0x7fffffffu);
  else
    return std::bit_cast<V>(0x7fffffffffffffffull);
}

template <typename V>
V fmin_ptx_nan(V a, V b, bool is_max) {
  return std::isnan(a) || std::isnan(b) ? canonical_nan<V>() : fmin_ptx(a, b, is_max);
}

// (Always inlined: a constant `f` folds the switch away.) The host's value;
// fslow_compute below makes its NaNs the GPU's.
template <typename V>
[[gnu::always_inline]] inline V fslow_value(uint8_t f, V a, V b, V c, uint8_t tk, bool* pred) {
  switch (f) {
    case F_ADD:
      return nan_rule(a + b, b, a);
    case F_SUB:
      return nan_rule(a - b, a, b);
    case F_MUL:
      return nan_rule(a * b, b, a);
    case F_FMA:
      return nan_rule(static_cast<V>(std::fma(a, b, c)), b, a, c);
    case F_DIV:
      return a / b;
    case F_RCP:
      return V(1) / a;
    case F_SQRT:
      return std::sqrt(a);
    case F_RSQRT:
      return static_cast<V>(1.0 / std::sqrt(static_cast<double>(a)));
    case F_ABS:
      return std::isnan(a) ? nan_rule(a, a, a) : std::fabs(a);  // f64: sign kept (measured)
    case F_NEG:
      return std::isnan(a) ? nan_rule(a, a, a) : -a;
    case F_MIN:
      return fmin_ptx(a, b, false);
    case F_MAX:
      return fmin_ptx(a, b, true);
    case F_MIN_NAN:
      return fmin_ptx_nan(a, b, false);
    case F_MAX_NAN:
      return fmin_ptx_nan(a, b, true);
    case F_EX2:
      return std::exp2(a);
    case F_LG2:
      return std::log2(a);
    case F_SIN:  // (the GPU's sin/cos flush a subnormal operand: measured)
      return std::sin(flush_subnormal(a));
    case F_COS:
      return std::cos(flush_subnormal(a));
    case F_TANH:
      return std::tanh(a);
    case F_COPYSIGN:
      return std::copysign(b, a);
    case F_RCP_APPROX_F64:
      if constexpr (sizeof(V) == 8) return rcp_approx_f64(a);
      return V(1) / a;
    case F_TESTP: {
      int k = std::fpclassify(a);
      bool r = tk == 0   ? std::isfinite(a)
               : tk == 1 ? std::isinf(a)
               : tk == 2 ? !std::isnan(a)
               : tk == 3 ? std::isnan(a)
               : tk == 4 ? k == FP_NORMAL
                         : k == FP_SUBNORMAL;
      *pred = r;
      return a;
    }
  }
  return a;
}

// fslow_value with the GPU's NaN results (measured on the H100 and H200,
// tests/validation/nan/): every f32 NaN result is the canonical 0x7fffffff,
// copysign's excepted (a bit operation: its payload is b's); f64 results
// keep the operand rules of fslow_value and the host's (equal to the GPU's
// on every measured div, rcp, sqrt and rsqrt).
template <typename V>
[[gnu::always_inline]] inline V fslow_compute(uint8_t f, V a, V b, V c, uint8_t tk, bool* pred) {
  const V r = fslow_value(f, a, b, c, tk, pred);
  if constexpr (sizeof(V) == 4)
    if (r != r && f != F_COPYSIGN) return std::bit_cast<V>(0x7fffffffu);
  return r;
}

// How many source registers (r1 ...) FOp `f` reads.
constexpr int fslow_sources(uint8_t f) {
  switch (f) {
    case F_FMA:
      return 3;
    case F_ADD:
    case F_SUB:
    case F_MUL:
    case F_DIV:
    case F_MIN:
    case F_MAX:
    case F_MIN_NAN:
    case F_MAX_NAN:
    case F_COPYSIGN:
      return 2;
    default:
      return 1;
  }
}

// One lane of an f32 op `f` in round to nearest (the emulator's threads'
// mode) with `flags`' kFtz and kSat: exec_fslow's per-lane loop and the
// reference its vectors match (ops_float_vec.h).
[[gnu::always_inline]] inline float f32_nearest_lane(uint8_t f, uint8_t flags, float a, float b,
                                                     float c) {
  const bool ftz = flags & kFtz, sat = flags & kSat;
  bool p = false;
  if (ftz) {
    a = flush_subnormal(a);
    b = flush_subnormal(b);
    c = flush_subnormal(c);
  }
  float r = fslow_compute<float>(f, a, b, c, 0, &p);
  if (ftz) r = flush_subnormal(r);
  if (sat) r = saturate(r);
  return r;
}

// Whether an FSLOW op has the per-lane form below: f32, round to nearest,
// an arithmetic op (library functions and testp excepted: above).
inline bool fslow_lane_covers(const Op& op) {
  if (op.code / 16 != FSLOW || op.t != F32 || fe_mode(op.aux2) != FE_TONEAREST) return false;
  switch (op.aux) {
    case F_ADD:
    case F_SUB:
    case F_MUL:
    case F_FMA:
    case F_DIV:
    case F_RCP:
    case F_SQRT:
    case F_RSQRT:
    case F_ABS:
    case F_NEG:
    case F_MIN:
    case F_MAX:
    case F_COPYSIGN:
      return true;
    default:
      return false;
  }
}

// The lane form the native tier calls (op a compile-time constant there);
// only for ops fslow_lane_covers. y and z: the op's second and third
// operands where it has them (exec_fslow passes its first otherwise).
template <Base B, T TY>
[[gnu::always_inline]] inline uint64_t fslow_lane(const Op& op, uint64_t x, uint64_t y,
                                                  uint64_t z) {
  return put(f32_nearest_lane(op.aux, op.aux2, get<float>(x), get<float>(y), get<float>(z)));
}

}  // namespace smemlab::emu
