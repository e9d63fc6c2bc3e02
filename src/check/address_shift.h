// Whether a warp-level request is an earlier one moved by one exact shift:
// the hot-path test with which bank_cost_cache.h and access_stats.cc reuse
// the cost of a pc's last request (the pattern of address_pattern.h, met
// again) in one pass over the addresses, with no key built. The pass has an
// AVX2 copy, chosen at load time where the CPU has AVX2 (GCC/Clang
// target_clones), as the check library is otherwise built for baseline x86-64.
#pragma once

#include <cstdint>

namespace smemlab::check {

// A request's addresses kept for the test: `lo`/`hi` are the least and
// greatest active address, both below 2^63.
struct ShiftRef {
  uint32_t mask = 0;
  uint64_t lo = 0, hi = 0;
  uint64_t addr[32];
};

// Fills `ref` from a request; false (ref unusable) when an active address
// is 2^63 or more. `mask` must be nonzero.
bool make_shift_ref(ShiftRef& ref, uint32_t mask, const uint64_t* addr);

// Whether every lane of `mask` has addr[l] - ref[l] == d (mod 2^64).
bool lanes_shifted(uint32_t mask, const uint64_t* addr, const uint64_t* ref, uint64_t d);

// Whether the active addresses of `ref` moved by d (mod 2^64) all stay
// below 2^63, i.e. did not wrap: then a request with lanes_shifted(..., d)
// is ref's request moved by exactly d, with no address reaching 2^63.
inline bool shift_stays_low(const ShiftRef& ref, uint64_t d) {
  return static_cast<int64_t>(d) >= 0 ? ref.hi + d < (uint64_t{1} << 63)
                                      : ref.lo >= uint64_t{0} - d;
}

// Both tests: `addr` (same mask) is ref's request moved by one shift d, the
// first active lane's difference, and no active address reaches 2^63; d is
// returned through `shift`.
inline bool same_shift(const ShiftRef& ref, uint32_t mask, const uint64_t* addr, uint64_t* shift) {
  if (mask != ref.mask) return false;
  const unsigned first = static_cast<unsigned>(__builtin_ctz(mask));
  const uint64_t d = addr[first] - ref.addr[first];
  *shift = d;
  // One active lane (a single thread's access) moved by d by definition:
  // only the 2^63 bound is left to check.
  if ((mask & (mask - 1)) == 0) return shift_stays_low(ref, d);
  return shift_stays_low(ref, d) && lanes_shifted(mask, addr, ref.addr, d);
}

}  // namespace smemlab::check
