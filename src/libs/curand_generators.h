// The base generators of smemlab's cuRAND, as curand_kernel.h defines them
// (the device API's generators are the host API's): XORWOW, Philox4_32_10
// and MRG32k3a, seeded as curand_init seeds them, with skip-ahead by
// subsequences and offsets (jump matrices computed here, not copied), and
// the host API's ordering of results over the generator's subsequences.
#pragma once

#include <cstdint>
#include <vector>

namespace smemlab::libs::rng {

enum class Kind { Xorwow, Philox, Mrg32k3a };

// One stream of 32-bit outputs: curand_init(seed, subsequence, offset)
// followed by curand() calls.
class Stream {
 public:
  Stream(Kind kind, uint64_t seed, uint64_t subsequence, uint64_t offset);
  uint32_t next();
  // MRG32k3a's raw output in (0, m1] as curand_MRG32k3a returns it (the
  // uniform distributions scale it); the others' are not used.
  double next_mrg_raw();

 private:
  void skip(uint64_t n);
  void skip_subsequences(uint64_t n);
  Kind kind_;
  uint32_t v_[5] = {}, d_ = 0;  // XORWOW
  uint32_t ctr_[4] = {}, key_[2] = {}, out_[4] = {};
  unsigned phase_ = 0;                // Philox: next of out_
  uint64_t s1_[3] = {}, s2_[3] = {};  // MRG32k3a
};

// The host API's orderings: result g (counted from the start of the
// sequence, the generator's offset included) comes from subsequence
// (g / chunk) mod threads, at position (g / (chunk * threads)) * chunk +
// g mod chunk in it, each result taking `draws` outputs of its subsequence.
// Fitted to an H100's and an H200's results (scripts/gpu-libs, curand_probe:
// the first 65536 of each ordering; docs/runtime.md). Default (= BEST):
// XORWOW 4096 x 1, Philox 16384 x 4, MRG32k3a 65536 x 1. LEGACY: the
// default's but MRG32k3a 4096 x 1. DYNAMIC: the default's but XORWOW
// 2816 x 1 (the H100's and H200's; a GPU-dependent layout). Philox's
// 16384 and MRG32k3a's 65536 are bounded only from below by 65536 results.
// SEEDED (XORWOW only): 4096 x 1, but subsequence t is curand_init(seed +
// t * 3133713, 0, offset), a seed per thread instead of skip-ahead.
struct Ordering {
  uint64_t threads, chunk;
  uint64_t seed_step = 0;  // nonzero: subsequence t is seed + t * seed_step's sequence 0
};
enum class Layout { Default, Legacy, Dynamic, Seeded };

// Subsequence t of `order` at `offset` (its per-thread seed, or skip-ahead).
inline Stream open_subsequence(Kind kind, const Ordering& order, uint64_t seed, uint64_t t,
                               uint64_t offset) {
  if (order.seed_step) return Stream(kind, seed + t * order.seed_step, 0, offset);
  return Stream(kind, seed, t, offset);
}
Ordering ordering_of(Kind kind, Layout layout = Layout::Default);

// Calls emit(index, stream) for results [first, first + count) laid out
// by `order`, each with its subsequence's stream positioned at that
// result's first draw; emit takes `draws` draws. With one result per chunk
// (XORWOW, MRG32k3a) a subsequence's first result g starts at draw g /
// threads whatever `draws` is (the offset counts draws per subsequence:
// the H100's doubles at an offset showed it); with chunks (Philox's four
// draws of one counter) at its chunk's position times `draws`.
template <class Emit>
void for_each_result(Kind kind, Ordering order, uint64_t seed, uint64_t first, uint64_t count,
                     unsigned draws, Emit emit) {
  const uint64_t T = order.threads, c = order.chunk, end = first + count;
  if (c == 1) {
    for (uint64_t t = 0; t < T; ++t) {
      uint64_t g = first + (t + T - first % T) % T;
      if (g >= end) continue;
      Stream s = open_subsequence(kind, order, seed, t, g / T);
      for (; g < end; g += T) emit(g - first, s);
    }
    return;
  }
  const uint64_t row0 = first / c / T;
  for (uint64_t t = 0; t < T; ++t) {
    if ((row0 * T + t) * c >= end) break;  // this and later subsequences start past the end
    Stream s = open_subsequence(kind, order, seed, t, row0 * c * draws);
    for (uint64_t row = row0;; ++row) {
      const uint64_t g0 = (row * T + t) * c;
      if (g0 >= end) break;
      for (uint64_t r = 0; r < c && g0 + r < end; ++r) {
        if (g0 + r < first) {
          for (unsigned k = 0; k < draws; ++k) s.next();
        } else {
          emit(g0 + r - first, s);
        }
      }
    }
  }
}

template <class Emit>
void for_each_result(Kind kind, uint64_t seed, uint64_t first, uint64_t count, unsigned draws,
                     Emit emit) {
  for_each_result(kind, ordering_of(kind), seed, first, count, draws, emit);
}

}  // namespace smemlab::libs::rng
