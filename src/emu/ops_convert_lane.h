// The per-lane forms of cvt's common conversions: integer widening and
// narrowing without .sat (address arithmetic: cvt.u64.u32, cvt.s64.s32),
// and 32-bit integer -> f32/f64, f32 <-> f64 in round-to-nearest without
// .sat or .ftz (index arithmetic, mixed precision). exec_cvt
// (ops_convert.cc) loops over them for those ops and the native tier's
// lane-outer bodies (native_lanes.cc) call cvt_lane, so both run one
// definition; every other cvt is convert()'s, out of line under
// -frounding-math. Round to nearest is the emulator's threads' mode, so
// these conversions need no floating-point environment.
#pragma once

#include <cstdint>

#include "emu/ops_alu.h"

namespace smemlab::emu {

enum class CvtLane : uint8_t {
  None,  // not a conversion with a per-lane form here
  IntToInt,
  S32ToF32,
  U32ToF32,
  S32ToF64,
  U32ToF64,
  F32ToF64,
  F64ToF32
};

// Which per-lane form a cvt op has (None for the others: .sat, .ftz,
// directed or to-integral rounding, f16/bf16, float -> integer, pairs).
constexpr CvtLane cvt_lane_kind(const Op& op) {
  const T dt = static_cast<T>(op.t), st = static_cast<T>(op.t2);
  if (op.code / 16 != CVT) return CvtLane::None;
  if (dt <= S64 && st <= S64) return (op.aux2 & kSat) ? CvtLane::None : CvtLane::IntToInt;
  if ((op.aux2 & (kSat | kFtz)) || ((op.aux2 & 0x0f) != R_NONE && (op.aux2 & 0x0f) != R_RN))
    return CvtLane::None;
  if (dt == F32 && st == S32) return CvtLane::S32ToF32;
  if (dt == F32 && st == U32) return CvtLane::U32ToF32;
  if (dt == F64 && st == S32) return CvtLane::S32ToF64;
  if (dt == F64 && st == U32) return CvtLane::U32ToF64;
  if (dt == F64 && st == F32) return CvtLane::F32ToF64;
  if (dt == F32 && st == F64) return CvtLane::F64ToF32;
  return CvtLane::None;
}
inline bool cvt_lane_covers(const Op& op) { return cvt_lane_kind(op) != CvtLane::None; }

// An integer conversion as shifts: canonical(dt, canonical(st, x)), the
// source's bits sign- or zero-extended, then the destination's.
struct CvtIntShifts {
  unsigned s1 = 0, s2 = 0;
  bool ss = false, ds = false;
};
constexpr unsigned cvt_int_bits(T t) { return t <= S8 ? 8 : t <= S16 ? 16 : t <= S32 ? 32 : 64; }
constexpr bool cvt_int_signed(T t) { return t == S8 || t == S16 || t == S32 || t == S64; }
constexpr CvtIntShifts cvt_int_shifts(const Op& op) {
  const T dt = static_cast<T>(op.t), st = static_cast<T>(op.t2);
  return {64 - cvt_int_bits(st), 64 - cvt_int_bits(dt), cvt_int_signed(st), cvt_int_signed(dt)};
}
inline uint64_t cvt_int_lane(const CvtIntShifts& k, uint64_t v) {
  const uint64_t x = v << k.s1;
  const uint64_t y = (k.ss ? static_cast<uint64_t>(static_cast<int64_t>(x) >> k.s1) : x >> k.s1)
                     << k.s2;
  return k.ds ? static_cast<uint64_t>(static_cast<int64_t>(y) >> k.s2) : y >> k.s2;
}

// One lane of the float conversions (K not IntToInt or None).
template <CvtLane K>
inline uint64_t cvt_float_lane(uint64_t v) {
  if constexpr (K == CvtLane::S32ToF32) return put(static_cast<float>(static_cast<int32_t>(v)));
  if constexpr (K == CvtLane::U32ToF32) return put(static_cast<float>(static_cast<uint32_t>(v)));
  if constexpr (K == CvtLane::S32ToF64) return put(static_cast<double>(static_cast<int32_t>(v)));
  if constexpr (K == CvtLane::U32ToF64) return put(static_cast<double>(static_cast<uint32_t>(v)));
  if constexpr (K == CvtLane::F32ToF64) return put(static_cast<double>(get<float>(v)));
  if constexpr (K == CvtLane::F64ToF32) return put(static_cast<float>(get<double>(v)));
  return v;
}

// The lane form the native tier calls (op a compile-time constant there,
// so the switch folds); only for ops cvt_lane_covers.
template <Base B, T TY>
inline uint64_t cvt_lane(const Op& op, uint64_t v) {
  switch (cvt_lane_kind(op)) {
    case CvtLane::IntToInt:
      return cvt_int_lane(cvt_int_shifts(op), v);
    case CvtLane::S32ToF32:
      return cvt_float_lane<CvtLane::S32ToF32>(v);
    case CvtLane::U32ToF32:
      return cvt_float_lane<CvtLane::U32ToF32>(v);
    case CvtLane::S32ToF64:
      return cvt_float_lane<CvtLane::S32ToF64>(v);
    case CvtLane::U32ToF64:
      return cvt_float_lane<CvtLane::U32ToF64>(v);
    case CvtLane::F32ToF64:
      return cvt_float_lane<CvtLane::F32ToF64>(v);
    case CvtLane::F64ToF32:
      return cvt_float_lane<CvtLane::F64ToF32>(v);
    case CvtLane::None:
      break;
  }
  return v;
}

}  // namespace smemlab::emu
