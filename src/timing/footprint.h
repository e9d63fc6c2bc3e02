// The DRAM footprint of a launch (issue 31's DRAM term): which distinct
// 32-byte global sectors the observed blocks touched, per buffer. With a
// sample of the grid, each buffer's count is scaled by the sampling factor
// and capped by the buffer's size: blocks of a grid mostly touch disjoint
// parts of their buffers (scaling is right for them), while a buffer every
// block reads (a matrix operand, a filter's taps) cannot be touched beyond
// its size (the cap is right for it).
//
// It counts the store requests' partially written sectors (the L2 merges
// those slowly), and it also measures L1 reuse (the L1 hit model): the global load sectors
// each warp request asked for, the distinct ones its block loaded, and how
// far back each re-read's previous touch was. Within a block (which stays
// on one SM) a sector re-read after its first miss can hit in L1 if fewer
// bytes than L1 holds went through it in between (a stack distance). The
// emulator runs a block's warps one after another between barriers, the
// GPU interleaves them, so the distance is taken on the warps' own clocks
// (each warp's count of memory instructions so far), not in emulation
// order: warps that read the same row in lockstep re-read it at distance 0.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "emu/memory.h"
#include "emu/observer.h"
#include "timing/model.h"

namespace smemlab::timing {

// Sums over the observed blocks (not scaled: a ratio and a per-block mean).
struct L1Reuse {
  uint64_t blocks = 0;
  uint64_t requested = 0;       // sectors the cached load requests asked for
  uint64_t block_distinct = 0;  // distinct sectors each block loaded, summed
  // Re-reads by distance, relative to the block's span on its warps'
  // clocks (x = clock difference / the longest warp's clock): entry i
  // counts those with x in (2^-(i+1), 2^-i] (x >= 1 in 0, the nearest in
  // the last, distance 0 included).
  std::array<uint64_t, kReuseOctaves> rereads{};
  // Cached load requests by how long ago (the warp's memory instructions)
  // their block first loaded the most recently first-loaded of their
  // sectors: entry 0 a sector loaded first by this request (a miss), entry
  // i >= 1 a distance in [2^(i-1), 2^i), the last entry anything farther.
  uint64_t load_requests = 0;
  std::array<uint64_t, kReuseOctaves> since_first{};
  double hit_fraction() const {
    return requested ? double(requested - block_distinct) / double(requested) : 0.0;
  }
  double bytes_per_block() const { return blocks ? 32.0 * double(block_distinct) / blocks : 0.0; }
  // model.h's ReuseProfile: within[i], the fraction of requested sectors
  // that re-read at x <= 2^-i (within[0] == hit_fraction()), and
  // waiting[i], the requests whose newest sector is under 2^i old.
  ReuseProfile profile() const;
};

class Footprint final : public emu::KernelObserver {
 public:
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3 block) override;
  void finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> observer) override;
  // Distinct sectors the observed blocks touched.
  uint64_t sectors() const;
  // Bytes of the whole grid: per buffer of `memory`, its sectors x 32 x
  // scale, capped by the buffer's size (sectors outside every buffer, e.g.
  // the device heap, scaled uncapped). DRAM moves whole granules (32, 64
  // or 128 bytes, aligned): a granule with any sector touched counts whole.
  double bytes(const emu::GlobalMemory& memory, double scale, double granule = 32) const;
  const L1Reuse& l1_reuse() const { return l1_; }
  // Of the observed blocks' global store requests, the sectors each wrote
  // only some bytes of, summed over requests (not scaled).
  uint64_t partial_store_sectors() const { return partial_stores_; }

 private:
  // A bit per 32-byte sector, by 64 KiB page: a block sets bits in its
  // own map, merged here by OR (cheap next to a set of sector numbers).
  using Bits = std::array<uint64_t, 32>;
  std::mutex mu_;
  std::unordered_map<uint64_t, Bits> pages_;  // address >> 16 -> sectors touched
  L1Reuse l1_;
  uint64_t partial_stores_ = 0;
};

}  // namespace smemlab::timing
