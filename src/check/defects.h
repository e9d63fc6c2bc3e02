// The defect checkers of `smemlab check`, as one emulator observer (a
// facade: each checker is a file of its own, defects.cc dispatches a
// block's events to them over their shared state, defect_state.h):
//  - hazards (shared_hazards, global_hazards with global_streams and
//    global_records; the per-byte path in hazards.h): RAW/WAR/WAW between threads of a block on
//    shared or global memory with no barrier between them (per-byte shadow: last writer, readers,
//    barrier epoch, warp-sync epoch, instruction); `warp-race` when both threads are lanes of one
//    warp with no __syncwarp() between (the `volatile` last-warp unroll, on shared or global data);
//    `uninitialized` for shared reads of bytes no thread of the block wrote;
//  - barriers (barrier_check): bar.sync reached by part of a warp, at different barrier
//    instructions, or after part of the block exited; warp collectives whose
//    member mask names lanes that are not there;
//  - bounds (bounds_check): shared accesses outside every declared variable (static arrays
//    by declared size, the dynamic window by the launch's size), local ones
//    outside the thread's frame, accesses not aligned to their width;
//  - global-race (global_owners; a warning): a global byte written by one block and read or
//    written by another, without atomics (accesses a block makes after its
//    first global atomic are taken to follow the kernel's own protocol).
// Errors the emulator itself stops on (global out-of-bounds, deadlock) are
// turned into findings by the caller with `from_emulator_error`.
// Common patterns take fast paths with the same findings as the general
// per-lane path (docs/check-cost.md, branches `defects` and `global`):
// global lines streamed in, written once, or read and written back in place
// by the same threads, kept per line; shared words quiet for every reader
// noted per word; block records kept for the next blocks and launches.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "check/finding.h"
#include "emu/observer.h"

namespace smemlab::check {

struct SharedVar {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
};

struct MemoryLayout {
  std::vector<SharedVar> shared;  // static .shared variables
  uint32_t dynamic_offset = 0;    // where the extern .shared window starts
  uint32_t frame_bytes = 0;       // per-thread local frame
};

// A block's records of the shared and global memory it touched
// (defects.cc); kept after the block for a later block to reuse.
struct BlockRecords;
namespace detail {
class GlobalOwners;
}

class DefectCheck final : public emu::KernelObserver {
 public:
  // `fast_paths` false: every access takes the general per-lane, per-byte
  // path (full shadow records, no quiet-word notes). The findings are the
  // same either way; tests compare the two.
  explicit DefectCheck(MemoryLayout layout, bool fast_paths = true);
  ~DefectCheck() override;

  void on_kernel_begin(const emu::KernelInfo& info) override { kernel_ = info; }
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3 block) override;
  void finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> observer) override;
  void on_kernel_end(bool ok) override;

  // Findings so far, merged by (kind, instructions), in first-seen order.
  const std::vector<Finding>& findings() const { return findings_; }
  void add(Finding f);

 private:
  void drop_races_explained_by_hopper_kinds();
  friend class BlockDefects;
  MemoryLayout layout_;
  bool fast_paths_;
  emu::KernelInfo kernel_;
  std::vector<Finding> findings_;
  std::map<std::string, size_t> index_;  // merge key -> findings_ index
  // Who touched each global word first, across the blocks (global-race).
  std::unique_ptr<detail::GlobalOwners> owners_;
  // Records of finished blocks, emptied, for the next blocks: their memory
  // is faulted in already and sized for blocks like them. Blocks are made
  // on the emulator's worker threads, hence the lock. When the check ends
  // they go to a bounded pool for the next DefectCheck (defects.cc).
  std::mutex spare_mu_;
  std::vector<std::unique_ptr<BlockRecords>> spare_;
  // Plain-load-vs-atomic races held back by the load, and the loads that
  // proved to be CAS-loop reads (see docs/emulator.md, "check").
  std::vector<std::pair<const emu::InstrInfo*, Finding>> deferred_;
  std::set<const emu::InstrInfo*> cas_reads_;
};

}  // namespace smemlab::check
