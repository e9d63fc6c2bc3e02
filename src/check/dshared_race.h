// Races on distributed shared memory (issue 28, `dsmem-race`): accesses to
// a block's shared memory by its cluster peers (DsharedAccess events the
// emulator delivers to the block whose memory it is) against the block's
// own accesses and other peers', per 4-byte word, ordered by epochs: a new
// epoch at every cluster barrier and every completed phase of one of the
// block's mbarriers (a peer's writes before its arrive are ordered before
// the waiters), and at each of the block's operations on a peer's mbarrier
// (taken as a release to that peer: the peer's wait is not visible here,
// so a race it leaves unordered is missed, never invented). Both accesses
// in one epoch, at least one a write, not both atomic: a race. A peer's
// access before the block has seen any cluster barrier complete is one
// too: the block may not have started (CUDA: cluster.sync() before using
// distributed shared memory). Only in a cluster launch; starts at the
// block's first cluster barrier or peer access.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "check/defect_state.h"

namespace smemlab::check::detail {

class DsharedRace {
 public:
  DsharedRace(const BlockState& s, BlockFindings& out) : s_(s), out_(out) {}

  void on_block_begin();
  // The block's own shared accesses (generic proxy and its own bulk copies).
  void on_memory(const emu::MemAccess& a);
  void on_dshared(const emu::DsharedAccess& d);
  void on_barrier_release(const emu::BarrierRelease& r);
  void on_mbarrier(const emu::Mbarrier& m);

 private:
  struct Acc {
    bool valid = false, write = false, atomic = false, remote = false;
    uint32_t epoch = 0, thread = 0, rank = 0;
    emu::Dim3 block;
    const emu::InstrInfo* instr = nullptr;
  };
  struct Word {
    Acc local_read, local_write, remote_read, remote_write;
  };
  void access(uint32_t word, const Acc& a);
  void conflict(const Acc& now, const Acc& earlier, uint32_t word);

  const BlockState& s_;
  BlockFindings& out_;
  bool active_ = false;
  uint32_t epoch_ = 0;
  uint32_t releases_ = 0;  // barrier-16 releases seen (cluster barriers, mbarrier phases)
  std::unordered_map<uint32_t, Word> words_;
};

}  // namespace smemlab::check::detail
