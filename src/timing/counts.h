// The analyses' counts of one launch (src/check) as the time model's
// LaunchWork: per source line, issued warp-instructions by pipe, shared
// wavefronts of the GPU's bank model, global sectors, load requests,
// barriers, and the shared and DSMEM round trips a warp waits for.
#pragma once

#include <string_view>

#include "check/access_stats.h"
#include "check/bank_stats.h"
#include "check/hopper_stats.h"
#include "timing/model.h"

namespace smemlab::timing {

struct LaunchShape {
  uint64_t blocks = 0;
  uint32_t threads_per_block = 0;
  uint32_t regs_per_thread = 0;  // 0: unknown
  uint32_t shared_per_block = 0;
  double footprint_bytes = -1;       // footprint.h; < 0: unknown
  ReuseProfile l1_reuse{};           // footprint.h's L1Reuse: profile()
  double l1_block_bytes = 0;         // and bytes_per_block()
  double partial_store_sectors = 0;  // footprint.h, scaled to the grid
  // By pc, dependence.h's cycles (null or short: 1 an instruction).
  const std::vector<double>* dependent_issue = nullptr;
  // By pc, phases.h's barrier phases (null or short: phase 0).
  const std::vector<uint32_t>* phase = nullptr;
  // By pc, constant_loads.h's folded constant loads (null or short: none):
  // they issue on no pipe.
  const std::vector<uint8_t>* folded = nullptr;
};

// `banks` may be null (no shared counts); its model named `arch` (the
// GPU's, gpus.def) is used, else its first. `hopper` may be null (no DSMEM waits). Counts must
// already be scaled to the whole grid. `gpu`'s register byte rates turn
// each instruction's bytes into its data-path cycles (LineWork::data_path_excess).
LaunchWork launch_work(const LaunchShape& shape, const check::AccessAnalysis& access,
                       const check::BankAnalysis* banks,
                       const check::HopperAnalysis* hopper = nullptr,
                       std::string_view arch = "sm_90", const Gpu& gpu = h100());

}  // namespace smemlab::timing
