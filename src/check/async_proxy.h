// The Hopper pipeline checks on a block's shared memory (issue 28): the
// async proxy's accesses (a TMA load's shared writes, a TMA store's shared
// reads, wgmma's operand reads) against the generic proxy's and each other,
// ordered by happens-before at warp granularity: a vector clock per warp
// with one component per warp of the block and one per mbarrier (its
// completed phases), joined at bar.sync releases and the cluster barrier,
// and from mbarrier arrivals through the phase's completion to the waits
// that saw it complete. Records are per 16-byte chunk (TMA's and wgmma's
// unit). Reported:
//  - early-read: a read of bytes a TMA load writes not ordered after the
//    phase that completes the copy (the reader had not the previous
//    contents either);
//  - stage-overwrite: a write (TMA load or generic store) into a chunk a
//    wgmma may still read (its wgmma-group not waited for, or the wait not
//    ordered before the writer), or a TMA load into a chunk whose readers
//    of the previous contents are not ordered before the copy's issue;
//  - proxy-fence: a generic write that the async proxy reads with no
//    fence.proxy.async by the writing warp after the write, ordered before
//    the read.
// The checker starts at the block's first Hopper event (an mbarrier,
// fence, bulk copy or wgmma); generic writes before it are kept per chunk
// in a flat array so that proxy-fence still sees them; in a kernel
// without such instructions (KernelInfo::hopper) it does nothing.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "check/defect_state.h"

namespace smemlab::check::detail {

class AsyncProxy {
 public:
  AsyncProxy(const BlockState& s, BlockFindings& out) : s_(s), out_(out) {}

  void on_block_begin(uint32_t warps, uint32_t shared_bytes);
  // A shared-memory access of the generic proxy (the caller passes only
  // those: Load, Store, Atomic, Reduction).
  void on_memory(const emu::MemAccess& a);
  void on_barrier(const emu::BarrierArrive& b);
  void on_barrier_release(const emu::BarrierRelease& r);
  void on_bulk_copy(const emu::BulkCopy& c);
  void on_wgmma(const emu::Wgmma& g);
  void on_mbarrier(const emu::Mbarrier& m);
  void on_fence(const emu::Fence& f);

 private:
  using Clock = std::vector<uint32_t>;
  struct AsyncWrite {   // a TMA load's write of the chunk
    uint64_t copy = 0;  // 0: none
    uint32_t warp = 0, clock = 0;
    bool foreign = false;  // issued by a cluster peer (its clocks are not ours)
    uint8_t lane = 0;
    const emu::InstrInfo* instr = nullptr;
  };
  struct Access {  // a warp's latest generic read or write of the chunk
    uint32_t warp, clock;
    uint8_t lane;
    bool acquired;  // reads: the reader was ordered after the contents it read
    const emu::InstrInfo* instr;
  };
  struct WgmmaRead {  // a warp's latest wgmma read of the chunk
    uint32_t warp, group;
    bool acquired;  // the warp was ordered after the contents it read
    const emu::InstrInfo* instr;
  };
  struct Chunk {
    AsyncWrite cur, prev;
    std::vector<Access> reads, writes;
    std::vector<WgmmaRead> wgmma;
  };
  struct Mbar {
    uint32_t comp = 0;    // its clock component
    uint32_t phases = 0;  // phases completed (kept across a re-init: clocks only grow)
    Clock accum;          // the arrivals of the current phase
    Clock done[2];        // the last completed phase of each parity
    bool has_done[2] = {false, false};
  };
  struct CopyInfo {  // where a TMA load's bytes completed
    uint32_t mbar, comp, phase, bytes;
    int32_t tx_after;
    uint32_t pending_after;
  };

  static uint32_t at(const Clock& c, size_t i) { return i < c.size() ? c[i] : 0; }
  static void join(Clock& a, const Clock& b);
  // Publishes warp w's clock (returned) and starts its next interval.
  Clock release(uint32_t w);
  uint32_t thread(uint32_t warp, uint32_t lane) const { return warp * 32 + lane; }
  Chunk& chunk(uint32_t c);
  void activate();
  bool local(emu::Dim3 target) const { return target == s_.block; }
  // Whether warp w is ordered after the completion of copy `write`.
  bool acquired(uint32_t w, const AsyncWrite& write) const;
  // Whether a wgmma read is complete and its completion ordered before warp w.
  bool wgmma_done_before(const WgmmaRead& r, uint32_t w) const;

  void generic_read(uint32_t c, uint32_t w, uint8_t lane, const emu::InstrInfo* instr);
  void generic_write(uint32_t c, uint32_t w, uint8_t lane, const emu::InstrInfo* instr);
  // A read by the async proxy for warp w (a wgmma operand, a TMA store's source).
  void async_read(uint32_t c, uint32_t w, uint8_t lane, const emu::InstrInfo* instr,
                  const char* what);
  void async_write(uint32_t c, const emu::BulkCopy& copy);
  void report_read(FindingKind kind, uint32_t c, const AsyncWrite& write, uint32_t w, uint8_t lane,
                   const emu::InstrInfo* instr, const char* what);
  std::string copy_text(const AsyncWrite& write) const;

  const BlockState& s_;
  BlockFindings& out_;
  bool active_ = false;
  uint32_t warps_ = 0, chunks_total_ = 0;
  std::vector<Clock> vc_;                      // by warp
  std::vector<std::vector<uint32_t>> fences_;  // by warp: fence.proxy.async clocks
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> waits_;  // by warp: (below, clock)
  Clock bar_accum_[16];
  uint32_t bar_warps_[16] = {};
  uint32_t pending_mbar_releases_ = 0;
  std::unordered_map<uint32_t, Mbar> mbars_;  // by shared offset
  std::unordered_map<uint64_t, CopyInfo> copies_;
  uint32_t next_comp_ = 0;
  std::unordered_map<uint32_t, Chunk> chunk_map_;
  std::vector<Access> early_writes_;  // by chunk, before activation (warp UINT32_MAX: none)
};

}  // namespace smemlab::check::detail
