// `divergent-barrier` findings of a block: bar.sync reached by part of a
// warp, at different barrier instructions by different warps, or after part
// of the block exited; warp collectives whose member mask names lanes that
// are not there. (A barrier no thread can complete is the emulator's
// deadlock: session::finding_kind_of.)
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "check/defect_state.h"

namespace smemlab::check::detail {

class BarrierCheck {
 public:
  BarrierCheck(const BlockState& s, BlockFindings& out) : s_(s), out_(out) {}

  void on_barrier(const emu::BarrierArrive& b);
  void on_barrier_release(const emu::BarrierRelease& r) { waiting_[r.barrier].clear(); }
  void on_warp_sync(const emu::WarpSync& w);

 private:
  const BlockState& s_;
  BlockFindings& out_;
  // Per barrier id: the first waiter of the current epoch (instruction, warp).
  std::map<uint32_t, std::vector<std::pair<const emu::InstrInfo*, uint32_t>>> waiting_;
};

}  // namespace smemlab::check::detail
