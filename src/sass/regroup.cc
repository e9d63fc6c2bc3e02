#include "sass/regroup.h"

#include <algorithm>
#include <map>
#include <vector>

namespace smemlab::sass {
namespace {

// A merged SASS instruction of one warp, waiting for its other members.
struct Pending {
  uint32_t mask = 0, seen = 0;
  uint64_t start[32] = {};
  std::vector<emu::MemAccess> members;  // as the PTX made them, for the fallback
  // Empty again, keeping the members' storage: no allocation per access.
  void reset() {
    mask = seen = 0;
    members.clear();
  }
};

class Block final : public emu::BlockObserver {
 public:
  Block(std::unique_ptr<emu::BlockObserver> inner, const KernelMap& map)
      : inner_(std::move(inner)), map_(map) {}

  bool wants_instruction_counts() const override { return inner_->wants_instruction_counts(); }
  void on_instruction_counts(const std::vector<emu::InstrCount>& c,
                             const std::vector<const emu::InstrInfo*>& info) override {
    inner_->on_instruction_counts(c, info);
  }
  void on_block_begin(emu::Dim3 b, emu::Dim3 d, uint32_t s) override {
    inner_->on_block_begin(b, d, s);
  }
  void on_barrier(const emu::BarrierArrive& a) override { inner_->on_barrier(a); }
  void on_barrier_release(const emu::BarrierRelease& r) override { inner_->on_barrier_release(r); }
  void on_warp_sync(const emu::WarpSync& w) override { inner_->on_warp_sync(w); }
  void on_branch(const emu::Branch& b) override { inner_->on_branch(b); }
  void on_exit(const emu::Exit& e) override { inner_->on_exit(e); }
  void on_block_end(emu::Dim3 b) override {
    for (auto& [key, p] : pending_) flush(p);
    pending_.clear();
    inner_->on_block_end(b);
  }

  void on_memory(const emu::MemAccess& a) override {
    const std::vector<Part>* parts =
        a.instr->pc < map_.parts.size() ? &map_.parts[a.instr->pc] : nullptr;
    if (!parts || parts->empty() || a.mask == 0 ||
        (a.op != emu::MemOp::Load && a.op != emu::MemOp::Store)) {
      inner_->on_memory(a);
      return;
    }
    for (const Part& part : *parts) {
      const Group& g = map_.groups[part.group];
      if (g.members == 1) {
        emu::MemAccess r = a;
        r.width = part.width;
        for (auto& x : r.addr) x += static_cast<uint64_t>(static_cast<int64_t>(part.rel));
        r.instr = &g.info;
        inner_->on_memory(r);
        continue;
      }
      add_member(a, part, g);
    }
  }

  uint64_t fallbacks = 0;

 private:
  void flush(Pending& p) {
    if (p.members.empty()) return;
    ++fallbacks;
    for (const auto& m : p.members) inner_->on_memory(m);
    p.reset();
  }

  void add_member(const emu::MemAccess& a, const Part& part, const Group& g) {
    Pending& p = pending_[{a.warp, part.group}];
    uint64_t start[32];
    for (unsigned l = 0; l < 32; ++l)
      start[l] = a.addr[l] + static_cast<uint64_t>(static_cast<int64_t>(part.rel));
    auto same_start = [&] {
      for (unsigned l = 0; l < 32; ++l)
        if ((a.mask >> l & 1u) && start[l] != p.start[l]) return false;
      return true;
    };
    if (!p.members.empty() && ((p.seen >> part.member & 1u) || p.mask != a.mask || !same_start()))
      flush(p);
    if (p.members.empty()) {
      p.mask = a.mask;
      std::copy(std::begin(start), std::end(start), p.start);
    }
    p.seen |= 1u << part.member;
    p.members.push_back(a);
    if (p.members.size() < g.members) return;
    emu::MemAccess r = a;
    r.width = g.width;
    std::copy(std::begin(p.start), std::end(p.start), r.addr);
    r.instr = &g.info;
    p.reset();
    inner_->on_memory(r);
  }

 public:
  std::unique_ptr<emu::BlockObserver> inner_;

 private:
  const KernelMap& map_;
  std::map<std::pair<uint32_t, uint32_t>, Pending> pending_;  // (warp, group)
};

}  // namespace

std::unique_ptr<emu::BlockObserver> Regroup::make_block_observer(emu::Dim3 block) {
  auto inner = inner_->make_block_observer(block);
  if (!inner) return nullptr;
  return std::make_unique<Block>(std::move(inner), *map_);
}

void Regroup::finish_block(emu::Dim3 block, std::unique_ptr<emu::BlockObserver> o) {
  auto* b = static_cast<Block*>(o.get());
  fallbacks_ += b->fallbacks;
  inner_->finish_block(block, std::move(b->inner_));
}

}  // namespace smemlab::sass
