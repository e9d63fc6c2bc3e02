#include "emu/ops_tensor.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "emu/half.h"

namespace smemlab::emu::tensor {
namespace {

bool is_16(Elem e) { return e == Elem::F16 || e == Elem::BF16; }
bool is_8(Elem e) { return e == Elem::S8 || e == Elem::U8; }
// 8-bit A/B elements share the s8 fragment layouts (fp8 included).
bool is_byte(Elem e) { return is_8(e) || is_fp8(e); }

[[noreturn]] void unsupported(Shape s, Elem e, const char* what) {
  throw Unsupported(std::string(what) + ": no layout for m" + std::to_string(s.m) + "n" +
                    std::to_string(s.n) + "k" + std::to_string(s.k) + " with " +
                    std::to_string(elem_bits(e)) + "-bit elements");
}

bool shape_is(Shape s, unsigned m, unsigned n, unsigned k) {
  return s.m == m && s.n == n && s.k == k;
}

}  // namespace

// Exact value of an input element as a double (tf32: the 19 bits it keeps).
double input_value(Elem e, uint64_t bits) {
  switch (e) {
    case Elem::F16:
      return input_value_of<Elem::F16>(bits);
    case Elem::BF16:
      return input_value_of<Elem::BF16>(bits);
    case Elem::TF32:
      return input_value_of<Elem::TF32>(bits);
    case Elem::F32:
      return input_value_of<Elem::F32>(bits);
    case Elem::F64:
      return input_value_of<Elem::F64>(bits);
    case Elem::S8:
      return input_value_of<Elem::S8>(bits);
    case Elem::U8:
      return input_value_of<Elem::U8>(bits);
    case Elem::S32:
      return input_value_of<Elem::S32>(bits);
    case Elem::E4M3:
      return input_value_of<Elem::E4M3>(bits);
    case Elem::E5M2:
      return input_value_of<Elem::E5M2>(bits);
  }
  return 0;
}

// double -> f16 with a single rounding to nearest even: round to odd into
// f32 first (f32 keeps 13 more bits than f16, so the second rounding is
// exact), then f32 -> f16.
uint16_t double_to_half(double x) {
  float f = static_cast<float>(x);
  if (std::isfinite(x) && std::isfinite(f) && static_cast<double>(f) != x) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
    f = std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
  }
  return float_to_half(f);
}

unsigned elem_bits(Elem e) {
  switch (e) {
    case Elem::F16:
    case Elem::BF16:
      return 16;
    case Elem::S8:
    case Elem::U8:
    case Elem::E4M3:
    case Elem::E5M2:
      return 8;
    case Elem::F64:
      return 64;
    default:
      return 32;
  }
}

unsigned mma_elements(Shape s, Elem e, Operand op) {
  unsigned total = op == Operand::A ? s.m * s.k : op == Operand::B ? s.k * s.n : s.m * s.n;
  (void)e;
  return total / 32;
}

Pos mma_position(Shape s, Elem e, Operand op, unsigned lane, unsigned i) {
  const unsigned g = lane >> 2, t = lane & 3;
  if (op == Operand::C) {
    if (shape_is(s, 8, 8, 4)) return {g, t * 2 + i};  // f64: c0, c1
    if (s.m == 16 && s.n == 8) return {g + 8 * (i >> 1), t * 2 + (i & 1)};
    unsupported(s, e, "mma C/D");
  }
  if (e == Elem::F64) {
    if (!shape_is(s, 8, 8, 4)) unsupported(s, e, "mma");
    return op == Operand::A ? Pos{g, t} : Pos{t, g};
  }
  if (is_16(e)) {
    if (shape_is(s, 16, 8, 8)) {
      if (op == Operand::A) return {g + 8 * (i >> 1), t * 2 + (i & 1)};
      return {t * 2 + i, g};
    }
    if (shape_is(s, 16, 8, 16)) {
      if (op == Operand::A) return {g + 8 * ((i >> 1) & 1), t * 2 + (i & 1) + 8 * (i >> 2)};
      return {t * 2 + (i & 1) + 8 * (i >> 1), g};
    }
  } else if (e == Elem::TF32) {
    if (shape_is(s, 16, 8, 8)) {
      if (op == Operand::A) return {g + 8 * (i & 1), t + 4 * (i >> 1)};
      return {t + 4 * i, g};
    }
  } else if (is_byte(e)) {
    if (shape_is(s, 16, 8, 16)) {
      if (op == Operand::A) return {g + 8 * (i >> 2), t * 4 + (i & 3)};
      return {t * 4 + i, g};
    }
    if (shape_is(s, 16, 8, 32)) {
      if (op == Operand::A) return {g + 8 * ((i >> 2) & 1), t * 4 + (i & 3) + 16 * (i >> 3)};
      return {t * 4 + (i & 3) + 16 * (i >> 2), g};
    }
  }
  unsupported(s, e, "mma");
}

unsigned wmma_elements(Shape s, Elem e, Operand op) {
  if (shape_is(s, 16, 16, 16) && e == Elem::F16 && op != Operand::C) return 16;
  if (shape_is(s, 16, 16, 16) || shape_is(s, 16, 16, 8) || shape_is(s, 8, 8, 4))
    return mma_elements(s, e, op);
  unsupported(s, e, "wmma");
}

Pos wmma_position(Shape s, Elem e, Operand op, unsigned lane, unsigned i) {
  if (shape_is(s, 8, 8, 4)) return mma_position(s, e, op, lane, i);
  if (!shape_is(s, 16, 16, 16) && !shape_is(s, 16, 16, 8)) unsupported(s, e, "wmma");
  // Two m16n8 tiles side by side in n: A is the mma A fragment (the whole
  // m x k), B and C/D hold the left tile's elements first, then the right's.
  Shape half{16, 8, s.k};
  if (op == Operand::A) {
    unsigned n = mma_elements(half, e, op);
    return mma_position(half, e, op, lane, i % n);  // f16: 8..15 repeat 0..7
  }
  if (op == Operand::B && e == Elem::F16) i %= 8;  // f16: 8..15 repeat 0..7
  unsigned n = mma_elements(half, e, op);
  Pos p = mma_position(half, e, op, lane, i % n);
  p.col += 8 * (i / n);
  return p;
}

void check_mma_types(const MmaSpec& sp) {
  const bool ints = is_8(sp.a) || is_8(sp.b);
  if (ints != (is_8(sp.a) && is_8(sp.b)) || (ints && (sp.c != Elem::S32 || sp.d != Elem::S32)))
    throw Unsupported("mma: integer A and B need s32 C and D");
  if (!ints && sp.a != sp.b && !(is_fp8(sp.a) && is_fp8(sp.b)))
    throw Unsupported("mma: A and B must have the same type");
  if (is_fp8(sp.a) != is_fp8(sp.b)) throw Unsupported("mma: fp8 A needs an fp8 B");
  if (!ints && sp.a != Elem::F64 && sp.d != Elem::F32 && sp.d != Elem::F16)
    throw Unsupported("mma: floating-point D must be f32 or f16");
}

void mma(const MmaSpec& sp, const uint64_t* A, const uint64_t* B, const uint64_t* C, uint64_t* D) {
  check_mma_types(sp);
  const Shape s = sp.shape;
  // Every input element's value once, not once per product: the
  // conversions are exact, so D is the same bits.
  thread_local std::vector<double> av, bv, acc;
  av.resize(size_t{s.m} * s.k);
  bv.resize(size_t{s.k} * s.n);
  acc.resize(size_t{s.m} * s.n);
  for (size_t i = 0; i < av.size(); ++i) av[i] = input_value(sp.a, A[i]);
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = input_value(sp.b, B[i]);
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = input_value(sp.c, C[i]);
  mma_sums(s, sp.a == Elem::F64, av.data(), bv.data(), acc.data());
  for (size_t i = 0; i < acc.size(); ++i) D[i] = mma_result(sp, acc[i]);
}

uint32_t to_tf32(uint32_t x, Tf32Round mode, bool satfinite) {
  const uint32_t sign = x & 0x80000000u, mag = x & 0x7fffffffu;
  constexpr uint32_t kMaxFinite = 0x7f7fe000u;
  if (mag > 0x7f800000u) return satfinite ? 0x7fffffffu : x | 0x00400000u;  // NaN
  if (mag == 0x7f800000u) return satfinite ? sign | kMaxFinite : x;
  uint32_t r = mag;
  if (mode == Tf32Round::Rna) r += 0x1000u;
  if (mode == Tf32Round::Rn) r += 0xfffu + ((mag >> 13) & 1u);
  r &= 0xffffe000u;
  if (satfinite && r >= 0x7f800000u) r = kMaxFinite;
  return sign | r;
}

namespace {
struct Fp8Format {
  int man, bias, emin;  // mantissa bits, exponent bias, smallest normal exponent
  double max;           // largest finite value
};
Fp8Format fp8_format(Elem e) {
  if (e == Elem::E4M3) return {3, 7, -6, 448.0};
  if (e == Elem::E5M2) return {2, 15, -14, 57344.0};
  throw Unsupported("not an fp8 type");
}
}  // namespace

double fp8_value(Elem e, uint8_t bits) {
  const Fp8Format f = fp8_format(e);
  const bool neg = bits & 0x80;
  const int exp = (bits & 0x7f) >> f.man, man = bits & ((1 << f.man) - 1);
  const int top = (1 << (7 - f.man)) - 1;  // all-ones exponent field
  double v;
  if (e == Elem::E4M3 && exp == top && man == 7)
    v = std::numeric_limits<double>::quiet_NaN();
  else if (e == Elem::E5M2 && exp == top)
    v = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (exp == 0)
    v = std::ldexp(man, f.emin - f.man);
  else
    v = std::ldexp(man + (1 << f.man), exp - f.bias - f.man);
  return neg ? -v : v;
}

uint8_t to_fp8(Elem e, double x, bool relu) {
  const Fp8Format f = fp8_format(e);
  if (std::isnan(x)) return 0x7f;
  if (relu && std::signbit(x)) x = 0.0;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const double a = std::fabs(x);
  if (a == 0) return sign;
  int e2;
  std::frexp(a, &e2);                              // a = m * 2^e2, m in [0.5, 1): exponent e2 - 1
  const int q = std::max(e2 - 1, f.emin) - f.man;  // log2 of the quantum at a
  double r = std::isinf(a) ? a : std::ldexp(std::nearbyint(std::ldexp(a, -q)), q);
  if (r > f.max) r = f.max;  // .satfinite (infinities too)
  if (r == 0) return sign;
  std::frexp(r, &e2);
  const int exp = e2 - 1;
  if (exp < f.emin)
    return static_cast<uint8_t>(sign | static_cast<int>(std::ldexp(r, f.man - f.emin)));
  const int man = static_cast<int>(std::ldexp(r, f.man - exp)) - (1 << f.man);
  return static_cast<uint8_t>(sign | (exp + f.bias) << f.man | man);
}

uint16_t fp8_to_half(Elem e, uint8_t bits, bool relu) {
  const double v = fp8_value(e, bits);
  if (std::isnan(v)) return 0x7fff;
  if (relu && (bits & 0x80)) return 0;
  return float_to_half(static_cast<float>(v));  // exact
}

Pos ldmatrix_position(bool trans, unsigned lane, unsigned half) {
  unsigned row = lane / 4, col = 2 * (lane % 4) + half;
  return trans ? Pos{col, row} : Pos{row, col};
}

LaneHalf movmatrix_source(unsigned lane, unsigned half) {
  // Result element (r, c) of the transposed matrix is source element (c, r);
  // source element (r', c') sits in lane 4r' + c'/2, half c' % 2.
  Pos p = ldmatrix_position(true, lane, half);  // (c, r) in source coordinates
  return {4 * p.row + p.col / 2, p.col % 2};
}

}  // namespace smemlab::emu::tensor
