// Occupancy by the CUDA occupancy calculator's rules: how many blocks of a
// launch fit on one SM (warps, registers, shared memory, the block limit),
// which of them binds, and how the grid falls into waves.
#pragma once

#include <cstdint>
#include <string>

#include "timing/gpu.h"

namespace smemlab::timing {

struct Occupancy {
  uint32_t blocks_per_sm = 0;  // 0: the block does not fit at all
  std::string limited_by;      // "warps", "registers", "shared memory", "blocks"
  uint32_t warps_per_block = 0;
  uint32_t resident_warps = 0;  // per SM, with blocks_per_sm blocks
};

// regs_per_thread 0: unknown (registers are not a limit then).
Occupancy occupancy(const Gpu& gpu, uint32_t threads_per_block, uint32_t regs_per_thread,
                    uint32_t shared_per_block);

struct Waves {
  uint64_t full = 0;            // waves with every SM's every slot busy
  uint64_t tail_blocks = 0;     // blocks of the last, partial wave (0: none)
  uint64_t per_busiest_sm = 0;  // blocks the busiest SM runs over the launch
  double count() const { return double(full) + (tail_blocks ? 1.0 : 0.0); }
};
// Blocks are handed out round-robin to the SMs, blocks_per_sm at a time.
Waves waves(const Gpu& gpu, uint64_t blocks, uint32_t blocks_per_sm);

}  // namespace smemlab::timing
