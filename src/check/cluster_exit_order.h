// A block that exits while a cluster peer's access to its shared memory is
// not ordered before the exit (issue 28, `cluster-exit`). The emulator
// faults an access that reaches a block after it exited; this finds the
// ones that happened to come first in the emulated order but that nothing
// orders before the exit, so that on the GPU they may come after it (an
// mbarrier.arrive on a peer's barrier as a pipeline's last step, with no
// cluster.sync() before exit: pranjalssh/fast.cu's kernels 9 to 12).
//
// Per block, the peers' accesses to its memory (incoming DsharedAccess
// events: ld/st/atom/red.shared::cluster, remote mbarrier operations,
// multicast chunks) are numbered as they come. What orders them before the
// block's later work: a cluster barrier's completion (every access before
// it), and a wait of the block's own that sees a phase of one of its
// mbarriers complete (every access before that phase completed). At the
// block's end, accesses after the last such point are reported. Accesses
// before a barrier or phase but issued after the peer's own arrival are
// taken as ordered: a race it leaves is missed, never invented.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "check/defect_state.h"

namespace smemlab::check::detail {

class ClusterExitOrder {
 public:
  ClusterExitOrder(const BlockState& s, BlockFindings& out) : s_(s), out_(out) {}

  void on_block_begin();
  void on_dshared(const emu::DsharedAccess& d);
  void on_mbarrier(const emu::Mbarrier& m);
  void on_barrier_release(const emu::BarrierRelease& r);
  void on_block_end();

 private:
  struct Access {
    uint64_t seq;
    const emu::InstrInfo* instr;
    uint32_t thread, rank;
    emu::Dim3 block;
    bool write, mbarrier;
  };
  void ordered_up_to(uint64_t seq);

  const BlockState& s_;
  BlockFindings& out_;
  uint64_t seq_ = 0;  // peers' accesses so far
  // Peers' accesses not yet ordered before what the block does next.
  std::vector<Access> unordered_;
  // Completed phases of the block's mbarriers: (offset << 1 | parity) ->
  // seq_ at completion; and completions whose barrier-16 release (the
  // emulator sends one per completion, after the event) is still to come.
  std::unordered_map<uint64_t, uint64_t> completed_at_;
  uint32_t phase_releases_ = 0;
};

}  // namespace smemlab::check::detail
