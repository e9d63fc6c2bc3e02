// What the instruction table (instructions.def) says, in a form code can use:
// the type sets its rows name, and implemented(code) — the (op, type) pairs
// the decoder may emit, which are exactly those the interpreter dispatches.
#pragma once

#include <array>
#include <cstdint>

#include "emu/program.h"

namespace smemlab::emu {

// Type sets of SMEMLAB_OP rows: SMEMLAB_TYPES_<NAME>(Y, args...) expands
// Y(type, args...) for each member.
// clang-format off
#define SMEMLAB_TYPES_U8(Y, ...) Y(U8, __VA_ARGS__)
#define SMEMLAB_TYPES_U32(Y, ...) Y(U32, __VA_ARGS__)
#define SMEMLAB_TYPES_U64(Y, ...) Y(U64, __VA_ARGS__)
#define SMEMLAB_TYPES_PRED(Y, ...) Y(PRED, __VA_ARGS__)
#define SMEMLAB_TYPES_U32_64(Y, ...) Y(U32, __VA_ARGS__) Y(U64, __VA_ARGS__)
#define SMEMLAB_TYPES_I32(Y, ...) Y(U32, __VA_ARGS__) Y(S32, __VA_ARGS__)
#define SMEMLAB_TYPES_I32_64(Y, ...) \
  Y(U32, __VA_ARGS__) Y(S32, __VA_ARGS__) Y(U64, __VA_ARGS__) Y(S64, __VA_ARGS__)
#define SMEMLAB_TYPES_I16_32(Y, ...) \
  Y(U16, __VA_ARGS__) Y(S16, __VA_ARGS__) Y(U32, __VA_ARGS__) Y(S32, __VA_ARGS__)
#define SMEMLAB_TYPES_I16_64(Y, ...) SMEMLAB_TYPES_I16_32(Y, __VA_ARGS__) \
  Y(U64, __VA_ARGS__) Y(S64, __VA_ARGS__)
#define SMEMLAB_TYPES_INT(Y, ...) Y(U8, __VA_ARGS__) Y(S8, __VA_ARGS__) \
  SMEMLAB_TYPES_I16_64(Y, __VA_ARGS__)
#define SMEMLAB_TYPES_F32_64(Y, ...) Y(F32, __VA_ARGS__) Y(F64, __VA_ARGS__)
#define SMEMLAB_TYPES_F16_32_64(Y, ...) SMEMLAB_TYPES_F32_64(Y, __VA_ARGS__) \
  Y(F16, __VA_ARGS__) Y(BF16, __VA_ARGS__)
#define SMEMLAB_TYPES_FLOATS(Y, ...) SMEMLAB_TYPES_F16_32_64(Y, __VA_ARGS__) \
  Y(F16X2, __VA_ARGS__) Y(BF16X2, __VA_ARGS__)
// Scalars that setp/selp compare and select.
#define SMEMLAB_TYPES_SCALAR(Y, ...) SMEMLAB_TYPES_INT(Y, __VA_ARGS__) \
  SMEMLAB_TYPES_F16_32_64(Y, __VA_ARGS__)
// Every value type (not .pred, not .b128).
#define SMEMLAB_TYPES_ALL(Y, ...) SMEMLAB_TYPES_INT(Y, __VA_ARGS__) \
  SMEMLAB_TYPES_FLOATS(Y, __VA_ARGS__)
// Whole registers that mov packs from or unpacks into parts.
#define SMEMLAB_TYPES_WORDS(Y, ...) Y(U16, __VA_ARGS__) SMEMLAB_TYPES_I32_64(Y, __VA_ARGS__) \
  SMEMLAB_TYPES_F32_64(Y, __VA_ARGS__) Y(F16X2, __VA_ARGS__) Y(BF16X2, __VA_ARGS__)
#define SMEMLAB_TYPES_ATOMIC(Y, ...) SMEMLAB_TYPES_I16_64(Y, __VA_ARGS__) \
  SMEMLAB_TYPES_FLOATS(Y, __VA_ARGS__)
// clang-format on

constexpr uint32_t kNumCodes = kNumBase * 16u;

namespace detail {
constexpr std::array<bool, kNumCodes> implemented_codes() {
  std::array<bool, kNumCodes> a{};
#define SMEMLAB_MARK(ty, base) a[code(base, ty)] = true;
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) SMEMLAB_TYPES_##types(SMEMLAB_MARK, base)
#include "emu/instructions.def"
#undef SMEMLAB_MARK
  return a;
}
inline constexpr std::array<bool, kNumCodes> kImplemented = implemented_codes();
}  // namespace detail

// Whether the interpreter runs op code `c` (= base * 16 + type).
constexpr bool implemented(uint32_t c) { return c < kNumCodes && detail::kImplemented[c]; }

}  // namespace smemlab::emu
