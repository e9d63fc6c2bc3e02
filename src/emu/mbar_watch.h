// What the emulator keeps of a block's mbarriers beyond their 64-bit words
// (issue 28), for the defects only it can see: each barrier's init site and
// whether the init is published to the cluster (mbarrier-init-fence), a use
// before init or a re-init while in use (mbarrier), the last expect_tx and
// copy that signalled it (named when a hang is a tx-mismatch), and the spin
// detector, which turns a block (cluster) whose warps only poll mbarriers
// that can no longer complete into a deadlock naming the barriers
// (mbarrier-deadlock, or tx-mismatch when every arrival is made and the
// tx-count is not zero), where the loop would otherwise run to the
// instruction budget. A block that merely ends with a tx-count left is no
// fault: the GPU runs on (check/tx_balance.h reports it under `check`).
// Kept for every launch: one hash lookup per mbarrier operation.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace smemlab::emu {

struct BlockCtx;
struct Warp;

struct MbarSite {  // an instruction of one thread
  uint32_t pc = 0, warp = 0, lane = 0;
  bool set = false;
};
struct MbarRecord {
  bool valid = false;           // initialized and not invalidated since
  bool released = false;        // its initializing thread has since made a cluster-scope release
  uint64_t release_phase = 0;   // the cluster barrier's completed phases at that release
  MbarSite init, expect, copy;  // mbarrier.init, the last expect_tx, the last copy's completion
  uint64_t phases = 0;          // phases completed
};
struct MbarSpin {  // a warp's last failed test_wait/try_wait
  uint64_t round = 0;
  uint32_t pc = 0, lanes = 0, addr = 0, rank = 0, parity = 0;
};
struct MbarWatch {
  std::unordered_map<uint32_t, MbarRecord> bars;  // by shared offset in the block
  std::vector<MbarSpin> spins;                    // by warp
  uint64_t changes = 0;                           // operations that changed an mbarrier word
  uint64_t failed_waits = 0;                      // test_wait/try_wait lanes answered "not yet"
  uint64_t round = 0;  // scheduling rounds so far (the spin detector counts them)
  void reset(uint32_t warps) {
    bars.clear();
    spins.assign(warps, MbarSpin{});
    changes = failed_waits = round = 0;
  }
};

// Before lane `lane` of warp `w` of block `b` operates (mbarrier op kind
// `kind`, MbarKind of program.h; `copy`: a bulk copy's complete_tx) on the
// mbarrier at shared offset `off` of block `owner`: faults for a use
// before init, a re-init while in use, a peer's use of an unpublished init.
void mbar_check(BlockCtx& b, const Warp& w, uint32_t pc, uint32_t lane, BlockCtx& owner,
                uint32_t off, unsigned kind, bool copy);
// After it: `before`/`after` the word; a wait's answer `ready` for the
// phase of parity `parity`.
void mbar_note(BlockCtx& b, const Warp& w, uint32_t pc, uint32_t lane, BlockCtx& owner,
               uint32_t off, unsigned kind, bool copy, uint64_t before, uint64_t after,
               bool ready = true, uint32_t parity = 0);
// A cluster-scope release by `lanes` of warp `w` (fence.mbarrier_init, a
// fence, barrier.cluster.arrive without .relaxed): inits they made are
// published once a cluster barrier phase completes after it.
void mbar_release(BlockCtx& b, const Warp& w, uint32_t lanes);

// Watches the rounds of a block or cluster for a spin that cannot end: no
// memory written, no mbarrier changed, some wait polled in vain, round
// after round, until the whole state repeats (registers, predicates,
// positions, shared memory: Brent's cycle detection over a fingerprint).
class SpinDetector {
 public:
  void reset();
  // After a round of `blocks`; throws the deadlock Fault when it is one.
  void after_round(std::span<BlockCtx* const> blocks);
  // The rank of the block the deadlock Fault's warp and pc are in.
  uint32_t rank() const { return rank_; }

 private:
  uint64_t writes_ = 0, changes_ = 0, failed_ = 0;
  uint64_t streak_ = 0, saved_ = 0, power_ = 1, since_ = 0, first_round_ = 0;
  uint32_t rank_ = 0;
};

}  // namespace smemlab::emu
