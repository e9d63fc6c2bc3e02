// The analyses' counts of one launch (src/check) as the time model's
// LaunchWork: per source line, issued warp-instructions by pipe, shared
// wavefronts of the GPU's bank model, global sectors, load requests and
// barriers.
#pragma once

#include "check/access_stats.h"
#include "check/bank_stats.h"
#include "timing/model.h"

namespace smemlab::timing {

struct LaunchShape {
  uint64_t blocks = 0;
  uint32_t threads_per_block = 0;
  uint32_t regs_per_thread = 0;  // 0: unknown
  uint32_t shared_per_block = 0;
  double footprint_bytes = -1;  // footprint.h; < 0: unknown
};

// `banks` may be null (no shared counts); its model named "sm_90" is used,
// else its first. Counts must already be scaled to the whole grid.
LaunchWork launch_work(const LaunchShape& shape, const check::AccessAnalysis& access,
                       const check::BankAnalysis* banks);

}  // namespace smemlab::timing
