// IEEE binary16 and bfloat16 <-> binary32 conversions (round to nearest even).
#pragma once

#include <bit>
#include <cstdint>

namespace smemlab::emu {

// Exact and without branches on the value: the half's magnitude bits moved
// to a float's places and scaled by 2^112 re-biases the exponent (15 -> 127)
// for normal halves and normalizes subnormal ones (a float subnormal times a
// power of two is exact); only infinities and NaNs (exponent 31) are set
// apart, keeping the payload.
inline float half_to_float(uint16_t h) {
  const uint32_t mag = static_cast<uint32_t>(h & 0x7fffu) << 13;
  uint32_t bits = std::bit_cast<uint32_t>(std::bit_cast<float>(mag) * 0x1p112f);
  if ((h & 0x7c00u) == 0x7c00u) bits = 0x7f800000u | mag;
  return std::bit_cast<float>(bits | static_cast<uint32_t>(h & 0x8000u) << 16);
}

inline uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u)
    return static_cast<uint16_t>(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to infinity
  if (ax < 0x33000001u) return sign;                                    // rounds to zero
  uint32_t exp = ax >> 23;
  uint32_t man = (ax & 0x7fffffu) | 0x800000u;
  int shift = exp >= 113 ? 13 : static_cast<int>(126 - exp);  // normal : subnormal
  uint32_t base = exp >= 113 ? ((exp - 112) << 10) : 0;
  uint32_t m = man >> shift;
  uint32_t rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
  uint32_t r = (exp >= 113 ? (base + (m & 0x3ffu)) : m);
  if (rem > half || (rem == half && (r & 1u))) ++r;
  return static_cast<uint16_t>(sign | r);
}

inline float bf16_to_float(uint16_t h) {
  return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

inline uint16_t float_to_bf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace smemlab::emu
