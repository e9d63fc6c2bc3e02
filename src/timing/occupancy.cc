#include "timing/occupancy.h"

#include <algorithm>

namespace smemlab::timing {

namespace {
uint64_t round_up(uint64_t v, uint64_t unit) { return (v + unit - 1) / unit * unit; }
}  // namespace

Occupancy occupancy(const Gpu& gpu, uint32_t threads_per_block, uint32_t regs_per_thread,
                    uint32_t shared_per_block) {
  Occupancy o;
  o.warps_per_block = std::max<uint32_t>(1, (threads_per_block + 31) / 32);
  struct Limit {
    uint64_t blocks;
    const char* name;
  };
  Limit limits[4] = {
      {static_cast<uint64_t>(gpu.max_blocks), "blocks"},
      {static_cast<uint64_t>(gpu.max_warps) / o.warps_per_block, "warps"},
      {UINT64_MAX, "registers"},
      {UINT64_MAX, "shared memory"},
  };
  if (regs_per_thread) {
    // Registers are allocated per warp in units of reg_granule.
    uint64_t per_warp = round_up(uint64_t{regs_per_thread} * 32, uint64_t(gpu.reg_granule));
    limits[2].blocks = uint64_t(gpu.regs_per_sm) / (per_warp * o.warps_per_block);
  }
  // Every block holds shared_reserved bytes besides its own (cc >= 8.0).
  uint64_t shared = round_up(uint64_t{shared_per_block} + uint64_t(gpu.shared_reserved),
                             uint64_t(gpu.shared_granule));
  // Before cc 8.0 nothing is reserved: a block without shared memory has no
  // shared limit.
  limits[3].blocks = shared_per_block > gpu.shared_per_block ? 0
                     : shared == 0                           ? UINT64_MAX
                                                             : uint64_t(gpu.shared_per_sm) / shared;
  if (threads_per_block > gpu.max_block_threads) {
    o.limited_by = "threads per block";
    return o;
  }
  const Limit* bind = &limits[0];
  for (const Limit& l : limits)
    if (l.blocks < bind->blocks) bind = &l;
  o.blocks_per_sm = static_cast<uint32_t>(bind->blocks);
  o.limited_by = bind->name;
  o.resident_warps = o.blocks_per_sm * o.warps_per_block;
  return o;
}

Waves waves(const Gpu& gpu, uint64_t blocks, uint32_t blocks_per_sm) {
  Waves w;
  uint64_t sms = static_cast<uint64_t>(gpu.sms);
  uint64_t slots = sms * std::max<uint32_t>(1, blocks_per_sm);
  w.full = blocks / slots;
  w.tail_blocks = blocks % slots;
  w.per_busiest_sm = (blocks + sms - 1) / sms;
  return w;
}

}  // namespace smemlab::timing
