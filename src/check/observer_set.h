// Fans the emulator's events out to several analyses in one run (analyze
// runs bank statistics, memory-access statistics and the defect checkers
// over a single emulation).
#pragma once

#include <memory>
#include <vector>

#include "emu/observer.h"

namespace smemlab::check {

class ObserverSet final : public emu::KernelObserver {
 public:
  void add(emu::KernelObserver* o) { children_.push_back(o); }

  void on_kernel_begin(const emu::KernelInfo& info) override {
    for (auto* c : children_) c->on_kernel_begin(info);
  }
  // One child (check's DefectCheck alone): its own block observers, with no
  // fan-out per event.
  std::unique_ptr<emu::BlockObserver> make_block_observer(emu::Dim3 block) override {
    if (children_.size() == 1) return children_[0]->make_block_observer(block);
    auto set = std::make_unique<BlockSet>();
    set->parts.reserve(children_.size());
    for (auto* c : children_) set->parts.push_back(c->make_block_observer(block));
    return set;
  }
  void finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> o) override {
    if (children_.size() == 1) {
      if (o) children_[0]->finish_block(block, std::move(o));
      return;
    }
    auto* set = static_cast<BlockSet*>(o.get());
    if (!set) return;
    // A child that made no observer for this block gets no finish_block.
    for (size_t i = 0; i < children_.size(); ++i)
      if (set->parts[i]) children_[i]->finish_block(block, std::move(set->parts[i]));
  }
  void on_kernel_end(bool ok) override {
    for (auto* c : children_) c->on_kernel_end(ok);
  }

 private:
  struct BlockSet final : emu::BlockObserver {
    std::vector<std::unique_ptr<emu::BlockObserver>> parts;
    bool wants_instruction_counts() const override {
      for (auto& p : parts)
        if (p && p->wants_instruction_counts()) return true;
      return false;
    }
    void on_instruction_counts(const std::vector<emu::InstrCount>& c,
                               const std::vector<const emu::InstrInfo*>& info) override {
      for (auto& p : parts)
        if (p && p->wants_instruction_counts()) p->on_instruction_counts(c, info);
    }
    void on_block_begin(emu::Dim3 b, emu::Dim3 d, uint32_t s) override {
      for (auto& p : parts)
        if (p) p->on_block_begin(b, d, s);
    }
    void on_memory(const emu::MemAccess& a) override {
      for (auto& p : parts)
        if (p) p->on_memory(a);
    }
    void on_barrier(const emu::BarrierArrive& a) override {
      for (auto& p : parts)
        if (p) p->on_barrier(a);
    }
    void on_barrier_release(const emu::BarrierRelease& r) override {
      for (auto& p : parts)
        if (p) p->on_barrier_release(r);
    }
    void on_warp_sync(const emu::WarpSync& w) override {
      for (auto& p : parts)
        if (p) p->on_warp_sync(w);
    }
    void on_branch(const emu::Branch& b) override {
      for (auto& p : parts)
        if (p) p->on_branch(b);
    }
    void on_bulk_copy(const emu::BulkCopy& c) override {
      for (auto& p : parts)
        if (p) p->on_bulk_copy(c);
    }
    void on_wgmma(const emu::Wgmma& g) override {
      for (auto& p : parts)
        if (p) p->on_wgmma(g);
    }
    void on_mbarrier(const emu::Mbarrier& m) override {
      for (auto& p : parts)
        if (p) p->on_mbarrier(m);
    }
    void on_fence(const emu::Fence& f) override {
      for (auto& p : parts)
        if (p) p->on_fence(f);
    }
    void on_dshared(const emu::DsharedAccess& d) override {
      for (auto& p : parts)
        if (p) p->on_dshared(d);
    }
    void on_exit(const emu::Exit& e) override {
      for (auto& p : parts)
        if (p) p->on_exit(e);
    }
    void on_block_end(emu::Dim3 b) override {
      for (auto& p : parts)
        if (p) p->on_block_end(b);
    }
  };
  std::vector<emu::KernelObserver*> children_;
};

}  // namespace smemlab::check
