// The address pattern of one warp-level memory access, the key under which
// bank_cost_cache.h memoizes a request's cost: active mask, op, width, each
// active lane's offset from the first active lane, and that lane's address
// modulo a period. A cost that is unchanged when every address moves by a
// multiple of the period (bank::Model::period) is a function of the
// pattern, so in a loop, or in other warps and blocks, a pc that issues the
// same pattern again is costed by a lookup (or, the pc's last pattern, by
// one compare: address_shift.h) instead of a fresh evaluation.
#pragma once

#include <cstdint>

namespace smemlab::check {

// addr modulo period (a power of two in practice: no division then).
inline uint32_t residue(uint64_t addr, uint64_t period) {
  return static_cast<uint32_t>(period & (period - 1) ? addr % period : addr & (period - 1));
}

struct AddressPattern {
  uint32_t mask;
  uint32_t residue;  // first active lane's address modulo the period
  uint8_t op, width, matrices, pad;
  int32_t delta[32];  // active lane's address - first active lane's; 0 when inactive
  // No initializers: made per event on the hot path, always through make().

  // False (no pattern: cost it afresh) when an active address is >= 2^63 or
  // lies 2^31 bytes or more from the first active lane's, so that equal
  // patterns always mean addresses that differ by one exact shift. `mask`
  // must be nonzero.
  bool make(uint8_t op_, unsigned width_, unsigned matrices_, uint32_t mask_, const uint64_t* addr,
            uint64_t period) {
    const uint64_t base = addr[__builtin_ctz(mask_)];
    uint64_t high = 0, far = 0;
    if (mask_ == 0xffffffffu) {
      // The common case, without per-lane selects: the compiler vectorizes it.
      for (unsigned l = 0; l < 32; ++l) {
        uint64_t d = addr[l] - base;
        high |= addr[l];
        far |= d + 0x80000000ull;  // above 2^32 unless -2^31 <= d < 2^31
        delta[l] = static_cast<int32_t>(static_cast<uint32_t>(d));
      }
    } else {
      for (unsigned l = 0; l < 32; ++l) {
        uint64_t on = uint64_t{0} - (mask_ >> l & 1u);
        uint64_t d = (addr[l] - base) & on;
        high |= addr[l] & on;
        far |= d + 0x80000000ull;
        delta[l] = static_cast<int32_t>(static_cast<uint32_t>(d));
      }
    }
    if ((high >> 63) | (far >> 32)) return false;
    mask = mask_;
    residue = check::residue(base, period);
    op = op_;
    width = static_cast<uint8_t>(width_);
    matrices = static_cast<uint8_t>(matrices_);
    pad = 0;
    return true;
  }
  bool operator==(const AddressPattern& o) const {
    if (mask != o.mask || residue != o.residue || op != o.op || width != o.width ||
        matrices != o.matrices)
      return false;
    uint32_t diff = 0;  // branch-free, so the compiler vectorizes it
    for (unsigned l = 0; l < 32; ++l) diff |= static_cast<uint32_t>(delta[l] ^ o.delta[l]);
    return diff == 0;
  }
  // Independent per-word products (no dependent chain), then one mix.
  uint64_t hash() const {
    uint64_t h = (uint64_t{mask} << 32 | residue) * 0x9e3779b97f4a7c15ull +
                 (uint64_t{op} << 16 | uint64_t{width} << 8 | matrices);
    for (unsigned l = 0; l < 32; ++l)
      h += (uint64_t{static_cast<uint32_t>(delta[l])} + l) * kOdd[l & 3];
    return h ^ (h >> 29);
  }

 private:
  static constexpr uint64_t kOdd[4] = {0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
                                       0x165667b19e3779f9ull, 0xd6e8feb86659fd93ull};
};
static_assert(sizeof(AddressPattern) == 35 * 4, "AddressPattern: no padding");

}  // namespace smemlab::check
