// Global- and local-memory traffic per instruction (32-byte sectors per
// warp-level request, like Nsight Compute's sectors/request) and branch
// divergence per branch instruction, gathered from the emulator's events.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "check/source_lines.h"
#include "emu/observer.h"

namespace smemlab::check {

struct SectorCounts {
  uint64_t requests = 0;       // warp-level instructions with >= 1 active lane
  uint64_t sectors = 0;        // distinct 32-byte sectors touched, summed over requests
  uint64_t ideal_sectors = 0;  // ceil(distinct bytes / 32) per request, summed
  uint64_t bytes = 0;          // bytes the active lanes asked for (lanes x width)
  void add(const SectorCounts& o) {
    requests += o.requests;
    sectors += o.sectors;
    ideal_sectors += o.ideal_sectors;
    bytes += o.bytes;
  }
  void scale(double f) {
    for (uint64_t* c : {&requests, &sectors, &ideal_sectors, &bytes})
      *c = static_cast<uint64_t>(static_cast<double>(*c) * f + 0.5);
  }
};

// Classes reported separately (Nsight Compute's op_ld/op_st/op_atom/op_red).
// cp.async's global reads are not global loads (ncu files them under
// LDGSTS), nor is the async proxy's traffic (TMA, bulk copies): both are
// HopperAnalysis's.
enum class AccessClass {
  GlobalLoad,
  GlobalStore,
  GlobalAtomic,
  GlobalReduction,
  LocalLoad,
  LocalStore
};
inline constexpr int kAccessClasses = 6;
const char* access_class_name(AccessClass c);

struct BranchCounts {
  uint64_t uniform = 0;    // all active lanes went the same way
  uint64_t divergent = 0;  // some lanes jumped, some fell through
  void add(const BranchCounts& o) {
    uniform += o.uniform;
    divergent += o.divergent;
  }
  void scale(double f) {
    uniform = static_cast<uint64_t>(static_cast<double>(uniform) * f + 0.5);
    divergent = static_cast<uint64_t>(static_cast<double>(divergent) * f + 0.5);
  }
};

struct AccessInstr {
  const emu::InstrInfo* instr = nullptr;
  AccessClass cls = AccessClass::GlobalLoad;
  SectorCounts counts;
  // The request with most sectors above ideal: its lane -> sector map.
  uint64_t worst_excess = 0;
  bool has_worst = false;
  uint32_t worst_mask = 0;
  uint64_t worst_addr[32] = {};
  unsigned width = 0;
};

struct BranchInstr {
  const emu::InstrInfo* instr = nullptr;
  BranchCounts counts;
};

// Warp-instructions executed and lanes active at them, for SIMT efficiency
// (average active lanes per executed warp-instruction / 32).
struct ExecCounts {
  uint64_t steps = 0, lanes = 0;
  void add(const ExecCounts& o) {
    steps += o.steps;
    lanes += o.lanes;
  }
  double efficiency() const { return steps ? double(lanes) / (32.0 * double(steps)) : 1.0; }
};

// Sectors of one request: distinct 32-byte sectors and the ideal count.
struct SectorCost {
  uint64_t sectors = 0, ideal = 0, bytes = 0;
};
SectorCost sector_cost(uint32_t mask, const uint64_t* addr, unsigned width);

// How much a block's per-pc tables held (AccessAnalysis sizes the next
// blocks' tables by the largest seen).
struct AccessSizes {
  size_t accesses = 0, branches = 0, executed = 0;
};

// An analysis' entries by pc, in ascending pc order, as a std::map would
// give them, but kept in one array with a pc-indexed table of positions:
// a short launch's blocks merge in with no tree node allocated per pc.
template <class T>
class ByPc {
 public:
  using value_type = std::pair<uint32_t, T>;
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  auto begin() { return entries_.begin(); }
  auto end() { return entries_.end(); }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // Throws std::out_of_range for a pc with no entry (as std::map::at).
  const T& at(uint32_t pc) const {
    if (pc >= index_.size() || !index_[pc]) throw std::out_of_range("ByPc::at");
    return entries_[index_[pc] - 1].second;
  }
  // Merges a block's entries (one per pc, any order; taken): a pc met
  // before gets add(entry, block's), a new one the block's.
  template <class Add>
  void merge(std::vector<value_type>&& from, Add add) {
    // The first block's entries move in whole (a short launch's only
    // block: no copy), sorted if they came out of order, and the index is
    // sized at once.
    if (entries_.empty()) {
      entries_ = std::move(from);
      uint32_t top = 0;
      bool sorted = true;
      for (size_t i = 0; i < entries_.size(); ++i) {
        top = std::max(top, entries_[i].first);
        sorted = sorted && (i == 0 || entries_[i - 1].first < entries_[i].first);
      }
      if (!sorted)
        std::sort(entries_.begin(), entries_.end(),
                  [](const value_type& a, const value_type& b) { return a.first < b.first; });
      if (!entries_.empty()) index_.resize(std::max(index_.size(), size_t{top} + 1), 0);
      for (size_t i = 0; i < entries_.size(); ++i)
        index_[entries_[i].first] = static_cast<uint32_t>(i + 1);
      return;
    }
    bool sorted = true;
    const size_t had = entries_.size();
    for (const auto& [pc, v] : from) {
      if (pc < index_.size() && index_[pc]) {
        add(entries_[index_[pc] - 1].second, v);
        continue;
      }
      if (pc >= index_.size()) index_.resize(std::max<size_t>(pc + 1, 2 * index_.size()), 0);
      sorted = sorted && (entries_.empty() || entries_.back().first < pc);
      entries_.emplace_back(pc, v);
      index_[pc] = static_cast<uint32_t>(entries_.size());
    }
    if (sorted || entries_.size() == had) return;
    std::sort(entries_.begin(), entries_.end(),
              [](const value_type& a, const value_type& b) { return a.first < b.first; });
    for (size_t i = 0; i < entries_.size(); ++i)
      index_[entries_[i].first] = static_cast<uint32_t>(i + 1);
  }

 private:
  std::vector<value_type> entries_;  // ascending pc
  std::vector<uint32_t> index_;      // by pc: position in entries_ + 1, 0 for none
};

class AccessAnalysis final : public emu::KernelObserver {
 public:
  using Executed = std::pair<const emu::InstrInfo*, ExecCounts>;

  void on_kernel_begin(const emu::KernelInfo& info) override { kernel_ = info; }
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3 block) override;
  void finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> observer) override;

  const ByPc<AccessInstr>& accesses() const { return accesses_; }
  const ByPc<BranchInstr>& branches() const { return branches_; }
  // Per instruction that ran: how often, with how many lanes.
  const ByPc<Executed>& executed() const { return executed_; }
  const emu::KernelInfo& kernel() const { return kernel_; }
  // Multiplies every count by f (rounded): sampled blocks -> whole grid.
  void scale(double f) {
    for (auto& [pc, s] : accesses_) s.counts.scale(f);
    for (auto& [pc, b] : branches_) b.counts.scale(f);
    for (auto& [pc, e] : executed_) {
      e.second.steps = static_cast<uint64_t>(static_cast<double>(e.second.steps) * f + 0.5);
      e.second.lanes = static_cast<uint64_t>(static_cast<double>(e.second.lanes) * f + 0.5);
    }
  }

 private:
  ByPc<AccessInstr> accesses_;
  ByPc<BranchInstr> branches_;
  ByPc<Executed> executed_;
  // Blocks are made on worker threads while others finish: a lock. A copy
  // starts with the original's sizes (only a hint).
  struct SeenSizes {
    std::mutex mu;
    AccessSizes seen;
    SeenSizes() = default;
    SeenSizes(const SeenSizes& o) : seen(o.seen) {}
    SeenSizes& operator=(const SeenSizes& o) {
      seen = o.seen;
      return *this;
    }
  };
  SeenSizes sizes_;
  emu::KernelInfo kernel_;
};

}  // namespace smemlab::check
