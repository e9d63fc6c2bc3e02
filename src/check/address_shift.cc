#include "check/address_shift.h"

#include <algorithm>

namespace smemlab::check {

// An AVX2 copy of the lane pass does it in a quarter of the baseline
// (SSE2) copy's vector steps, without spilling registers.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SMEMLAB_SHIFT_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SMEMLAB_SHIFT_CLONES
#endif

SMEMLAB_SHIFT_CLONES bool lanes_shifted(uint32_t mask, const uint64_t* addr, const uint64_t* ref,
                                        uint64_t d) {
  uint64_t diff = 0;  // branch-free, so the compiler vectorizes it
  if (mask == 0xffffffffu) {
    for (unsigned l = 0; l < 32; ++l) diff |= (addr[l] - ref[l]) ^ d;
  } else {
    for (unsigned l = 0; l < 32; ++l)
      diff |= ((addr[l] - ref[l]) ^ d) & (uint64_t{0} - (mask >> l & 1u));
  }
  return diff == 0;
}

bool make_shift_ref(ShiftRef& ref, uint32_t mask, const uint64_t* addr) {
  uint64_t lo = ~uint64_t{0}, hi = 0;
  for (unsigned l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u)) continue;
    lo = std::min(lo, addr[l]);
    hi = std::max(hi, addr[l]);
  }
  if (hi >> 63) return false;
  ref.mask = mask;
  ref.lo = lo;
  ref.hi = hi;
  std::copy(addr, addr + 32, ref.addr);
  return true;
}

}  // namespace smemlab::check
