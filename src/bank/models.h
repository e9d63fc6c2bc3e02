// Internal to the bank module: the per-generation factories and the one
// piece of arithmetic they share (counting distinct keys per bank).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "bank/bank.h"

namespace smemlab::bank::detail {

std::unique_ptr<Model> make_volta(unsigned sm);
std::unique_ptr<Model> make_kepler(unsigned sm, unsigned bank_mode);
std::unique_ptr<Model> make_fermi(unsigned sm);
std::unique_ptr<Model> make_tesla(unsigned sm);

// One bank word touched by one lane. Words with equal `key` in one bank are
// served by the same pass: the key is the word itself on most generations,
// the 256-byte row on Kepler's 4-byte mode, the lane for atomics.
struct Touch {
  unsigned lane;
  unsigned bank;
  uint64_t word;
  uint64_t key;
};

// The most bank words (of 4 bytes or more) one lane's access of up to 16
// bytes covers, aligned or not.
inline constexpr unsigned kMaxWordsPerLane = 5;

// Writes the bank words of each active lane of `lanes` to `out`, which has
// room for kMaxWordsPerLane per lane (a caller's array: no allocation per
// request), and returns how many: the access of `width` bytes at addr
// covers words [addr/word_bytes, (addr+width-1)/word_bytes].
size_t add_touches(const Request& r, uint32_t lanes, unsigned word_bytes, unsigned banks,
                   Touch* out);

// Cost of serving `touches` as one group: the maximum over banks of distinct
// keys. Appends one Wavefront per pass (the k-th distinct key of every bank
// goes to pass k) tagged with `group`. Returns the cost (0 for no touches).
unsigned serve_group(std::span<const Touch> touches, unsigned group,
                     std::vector<Wavefront>& passes);

// Serves the active lanes in groups of `group_size` consecutive lanes (32:
// the whole warp), each group costing serve_group over 4-byte words, plus
// `extra_pass` empty passes per group (Fermi's 128-bit rule). Fills
// wavefronts, ideal (one per non-empty group), bank_conflicts, ways and
// worst_wavefronts. `lane_keys`: every lane is its own key (atomics).
Result serve_in_groups(const Request& r, unsigned group_size, unsigned banks, bool lane_keys,
                       unsigned extra_pass = 0);

// serve_in_groups' counts alone, without building the passes (bank::Cost):
// the same numbers, through a per-bank chain of distinct keys instead of
// wavefront slot lists. `r` must be valid (validate).
Cost count_in_groups(const Request& r, unsigned group_size, unsigned banks, bool lane_keys,
                     unsigned extra_pass = 0);

// validate(r) for the hot path: a few ORs when the request is valid, the
// full check (and its Error naming the lane) otherwise.
inline void validate_fast(const Request& r) {
  const unsigned w = r.width;
  bool ok =
      (w == 1 || w == 2 || w == 4 || w == 8 || w == 16) && (r.op != Op::Atomic || w == 4 || w == 8);
  if (ok) {
    uint64_t low = 0;
    for (unsigned lane = 0; lane < 32; ++lane)
      low |= r.addr[lane] & (uint64_t{0} - (r.mask >> lane & 1u));
    ok = (low & (w - 1)) == 0;
  }
  if (!ok) validate(r);
}

// Lanes of `mask` inside [first, first+count).
inline uint32_t lanes_in(uint32_t mask, unsigned first, unsigned count) {
  uint32_t range = count >= 32 ? 0xffffffffu : ((1u << count) - 1u) << first;
  return mask & range;
}

}  // namespace smemlab::bank::detail
