// cvt in all directions: integer widths with optional saturation, float <->
// float with rounding (including .rni/.rzi/... to integral values), float ->
// integer (saturating, NaN -> 0, as PTX specifies), integer -> float with
// rounding modes, and f16/bf16. Compiled with -frounding-math.
#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>

#include "emu/decode_context.h"
#include "emu/decode_tensor.h"
#include "emu/exec.h"
#include "emu/half.h"
#include "emu/ops_alu.h"
#include "emu/ops_convert_lane.h"
#include "emu/ops_float_lane.h"

namespace smemlab::emu {
namespace {

bool is_int(T t) { return t <= S64; }
bool is_signed(T t) { return t == S8 || t == S16 || t == S32 || t == S64; }
int bits_of(T t) { return type_bytes(t) * 8; }

// The emulator's threads run in round-to-nearest (ops_float.cc relies on it
// too), so a conversion in that mode touches no floating-point environment:
// the fegetround + fesetround pair per lane was a third of an ALU kernel's
// time (issue 30's profile). Other modes are set and restored per call.
struct RoundGuard {
  int old = -1;
  explicit RoundGuard(int mode) {
    if (mode == FE_TONEAREST) return;
    old = std::fegetround();
    if (old == mode)
      old = -1;
    else
      std::fesetround(mode);
  }
  ~RoundGuard() {
    if (old >= 0) std::fesetround(old);
  }
};

double read_float(T t, uint64_t v) {
  switch (t) {
    case F16:
      return half_to_float(static_cast<uint16_t>(v));
    case BF16:
      return bf16_to_float(static_cast<uint16_t>(v));
    case F32:
      return get<float>(v);
    default:
      return get<double>(v);
  }
}

// Saturating float -> integer of type `t` (value already rounded to integral).
uint64_t float_to_int(T t, double d) {
  if (std::isnan(d)) return 0;
  int bits = bits_of(t);
  if (is_signed(t)) {
    double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1);
    if (d <= lo)
      return canonical(t,
                       static_cast<uint64_t>(std::numeric_limits<int64_t>::min() >> (64 - bits)));
    if (d >= hi) return canonical(t, (uint64_t{1} << (bits - 1)) - 1);
    return canonical(t, static_cast<uint64_t>(static_cast<int64_t>(d)));
  }
  if (d <= 0) return 0;
  if (d >= std::ldexp(1.0, bits)) return bits == 64 ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1);
  return static_cast<uint64_t>(d);
}

double round_integral(uint8_t r, double d) {
  switch (r & 0x0f) {
    case R_RZI:
      return std::trunc(d);
    case R_RMI:
      return std::floor(d);
    case R_RPI:
      return std::ceil(d);
    case R_RNI:
      return std::nearbyint(d);  // current mode is round-to-nearest-even
    default:
      return d;
  }
}

uint64_t convert(const Op& op, uint64_t v) {
  T dt = static_cast<T>(op.t), st = static_cast<T>(op.t2);
  uint8_t r = op.aux2;
  bool sat = r & kSat, ftz = r & kFtz;
  if (is_int(dt) && is_int(st)) {
    uint64_t x = canonical(st, v);
    if (!sat) return canonical(dt, x);
    int db = bits_of(dt);
    if (is_signed(st)) {
      int64_t s = static_cast<int64_t>(x);
      int64_t lo = is_signed(dt) ? (db == 64 ? std::numeric_limits<int64_t>::min()
                                             : -(int64_t{1} << (db - 1)))
                                 : 0;
      int64_t hi =
          is_signed(dt)
              ? (db == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (db - 1)) - 1)
              : (db >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << db) - 1);
      return canonical(dt, static_cast<uint64_t>(s < lo ? lo : s > hi ? hi : s));
    }
    uint64_t hi = is_signed(dt) ? (uint64_t{1} << (db - 1)) - 1
                                : (db == 64 ? ~uint64_t{0} : (uint64_t{1} << db) - 1);
    return canonical(dt, x > hi ? hi : x);
  }
  if (is_int(st)) {  // int -> float
    RoundGuard g(fe_mode(r));
    uint64_t x = canonical(st, v);
    if (dt == F64) {
      volatile double d =
          is_signed(st) ? static_cast<double>(static_cast<int64_t>(x)) : static_cast<double>(x);
      double out = d;
      if (sat) out = saturate(out);
      return put(out);
    }
    volatile float f =
        is_signed(st) ? static_cast<float>(static_cast<int64_t>(x)) : static_cast<float>(x);
    float out = f;
    if (sat) out = saturate(out);
    if (dt == F32) return put(out);
    // f16/bf16 from an integer: through f32 (exact for |x| < 2^24).
    return dt == F16 ? float_to_half(out) : float_to_bf16(out);
  }
  // bf16 into f32 is the GPU's shift: every payload kept, a signalling NaN's
  // too (measured), where a conversion through double would quiet it.
  if (st == BF16 && dt == F32 && r == R_NONE) return put(bf16_to_float(static_cast<uint16_t>(v)));
  double d = read_float(st, v);
  if (ftz && st == F32 && std::fpclassify(d) != FP_NORMAL && std::isfinite(d) && d != 0)
    d = std::copysign(0.0, d);
  if (is_int(dt)) {  // float -> int: saturating, NaN -> 0
    RoundGuard g(FE_TONEAREST);
    return float_to_int(dt, round_integral(r ? r : static_cast<uint8_t>(R_RZI), d));
  }
  // float -> float
  double x = d;
  if ((r & 0x0f) >= R_RNI && (r & 0x0f) <= R_RPI) {
    RoundGuard g(FE_TONEAREST);
    x = round_integral(r, d);
  }
  if (sat) x = saturate(x);
  // The GPU's NaN results (measured, tests/validation/nan/): canonical from
  // an f32 source into f16/bf16 (0x7fff) and f32, and from f16 into f32;
  // every other pair keeps the payload as the host's conversion does (f64
  // into f16/bf16/f32, f16 into f64, bf16 into f32, f32 into f64).
  if (std::isnan(x)) {
    if ((dt == F16 || dt == BF16) && st == F32) return 0x7fff;
    if (dt == F32 && (st == F32 || st == F16)) return put(std::bit_cast<float>(0x7fffffffu));
  }
  switch (dt) {
    case F64:
      return put(x);
    case F32: {
      RoundGuard g(fe_mode((r & 0x0f) <= R_RP ? r : static_cast<uint8_t>(R_RN)));
      volatile double vx = x;
      float f = static_cast<float>(vx);
      if (ftz && std::fpclassify(f) == FP_SUBNORMAL) f = std::copysign(0.f, f);
      return put(f);
    }
    case F16:
      return float_to_half(static_cast<float>(x));
    case BF16:
      return float_to_bf16(static_cast<float>(x));
    default:
      return v;
  }
}

}  // namespace

void exec_cvt(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t* A = reg(w, op.r[1]);
  if (op.t == F16X2 || op.t == BF16X2) {  // two f32 -> packed pair, a in the upper half
    Op half = op;
    half.t = op.t == F16X2 ? F16 : BF16;
    const uint64_t* B = reg(w, op.r[2]);
    SMEMLAB_FOR_LANES(exec, D[l] = (convert(half, A[l]) << 16) | convert(half, B[l]));
    return;
  }
  // The common conversions through their per-lane forms (ops_convert_lane.h,
  // which the native tier's lane bodies call too), the case chosen once
  // per warp-instruction.
  switch (cvt_lane_kind(op)) {
    case CvtLane::IntToInt: {
      const CvtIntShifts k = cvt_int_shifts(op);
      SMEMLAB_FOR_LANES(exec, D[l] = cvt_int_lane(k, A[l]));
      return;
    }
#define SMEMLAB_CVT_FLOAT_LANES(kind)                                    \
  case CvtLane::kind:                                                    \
    SMEMLAB_FOR_LANES(exec, D[l] = cvt_float_lane<CvtLane::kind>(A[l])); \
    return;
      SMEMLAB_CVT_FLOAT_LANES(S32ToF32)
      SMEMLAB_CVT_FLOAT_LANES(U32ToF32)
      SMEMLAB_CVT_FLOAT_LANES(S32ToF64)
      SMEMLAB_CVT_FLOAT_LANES(U32ToF64)
      SMEMLAB_CVT_FLOAT_LANES(F32ToF64)
      SMEMLAB_CVT_FLOAT_LANES(F64ToF32)
#undef SMEMLAB_CVT_FLOAT_LANES
    case CvtLane::None:
      break;
  }
  SMEMLAB_FOR_LANES(exec, D[l] = convert(op, A[l]));
}

}  // namespace smemlab::emu

// ---- Decoder ------------------------------------------------------------------

namespace smemlab::emu {

void decode_cvt(Insn& d) {
  // cvt.rna.tf32.f32 and the fp8 forms (cvt.rn.satfinite.e4m3x2.f32, ...): decode_tensor.cc
  if (is_tensor_or_async(d.in)) return decode_tensor(d);
  if (d.tys.size() != 2) d.unsupported();
  T to = d.tys[0], from = d.tys[1];
  auto scalar = [](T t) { return t != PRED && t != B128 && t != F16X2 && t != BF16X2; };
  // cvt.rn.f16x2.f32 d, a, b packs two floats: a -> upper, b -> lower.
  bool pair = (to == F16X2 || to == BF16X2) && from == F32;
  if (!pair && !(scalar(to) && scalar(from))) d.unsupported();
  d.need(pair ? 3 : 2);
  const auto& ops = d.operands();
  if (pair) d.op.r[2] = d.c.src(ops[2], F32);
  d.op.code = code(CVT, to);
  d.op.t = to;
  d.op.t2 = from;
  d.op.aux2 = static_cast<uint8_t>(d.rnd | (d.ftz ? kFtz : 0) | (d.sat ? kSat : 0));
  d.op.r[0] = d.c.dst(ops[0]);
  d.op.r[1] = d.c.src(ops[1], from);
  d.push();
}

}  // namespace smemlab::emu
