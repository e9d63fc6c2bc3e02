#include "sass/regroup.h"

#include <algorithm>
#include <vector>

namespace smemlab::sass {
namespace {

// A merged SASS instruction of one warp, waiting for its other members.
// The members arrived with one lane mask and one start address per lane
// (add_member tests that), so each is kept as what tells it apart: its
// instruction, width and offset from the start. (Lanes outside the mask
// carry no address: no observer reads them.)
struct Pending {
  uint32_t mask = 0, seen = 0;
  emu::Space space{};
  emu::MemOp op{};
  uint8_t matrices = 0;
  uint64_t start[32] = {};
  struct Member {
    const emu::InstrInfo* instr;
    int32_t rel;
    uint8_t width;
  };
  std::vector<Member> members;
  // Empty again, keeping the members' storage: no allocation per access.
  void reset() {
    mask = seen = 0;
    members.clear();
  }
};

// `a` with the address of each lane moved by `rel` (start = addr + rel).
void shifted(const emu::MemAccess& a, const uint64_t* from, int64_t by, emu::MemAccess* r) {
  r->space = a.space;
  r->op = a.op;
  r->matrices = a.matrices;
  r->mask = a.mask;
  r->block = a.block;
  r->warp = a.warp;
  for (unsigned l = 0; l < 32; ++l) r->addr[l] = from[l] + static_cast<uint64_t>(by);
}

class Block final : public emu::BlockObserver {
 public:
  Block(std::unique_ptr<emu::BlockObserver> inner, const KernelMap& map)
      : inner_(std::move(inner)), map_(map), groups_(static_cast<uint32_t>(map.groups.size())) {}

  bool wants_instruction_counts() const override { return inner_->wants_instruction_counts(); }
  void on_instruction_counts(const std::vector<emu::InstrCount>& c,
                             const std::vector<const emu::InstrInfo*>& info) override {
    inner_->on_instruction_counts(c, info);
  }
  void on_block_begin(emu::Dim3 b, emu::Dim3 d, uint32_t s) override {
    block_ = b;
    slot_.assign(((d.count() + 31) / 32) * groups_, kNone);
    inner_->on_block_begin(b, d, s);
  }
  void on_barrier(const emu::BarrierArrive& a) override { inner_->on_barrier(a); }
  void on_barrier_release(const emu::BarrierRelease& r) override { inner_->on_barrier_release(r); }
  void on_warp_sync(const emu::WarpSync& w) override { inner_->on_warp_sync(w); }
  void on_branch(const emu::Branch& b) override { inner_->on_branch(b); }
  void on_exit(const emu::Exit& e) override { inner_->on_exit(e); }
  // Hopper's events have no PTX-to-SASS regrouping: passed on as they are.
  void on_bulk_copy(const emu::BulkCopy& c) override { inner_->on_bulk_copy(c); }
  void on_wgmma(const emu::Wgmma& g) override {
    inner_->on_wgmma(g);
    // The commit's SASS-only HGMMA (sass_only_gmma.cc), right after it.
    const auto& extra = map_.sass_only_gmma;
    if (g.kind != emu::WgmmaKind::Commit || !g.instr || g.instr->pc >= extra.size() ||
        !extra[g.instr->pc])
      return;
    emu::Wgmma h;
    h.kind = emu::WgmmaKind::Mma;
    h.sass_only = true;
    h.a_shared = true;
    h.m = 64;
    h.n = extra[g.instr->pc];
    h.k = 16;
    h.group = g.group;
    h.instr = g.instr;
    h.block = g.block;
    h.warp = g.warp;
    inner_->on_wgmma(h);
  }
  void on_mbarrier(const emu::Mbarrier& m) override { inner_->on_mbarrier(m); }
  void on_fence(const emu::Fence& f) override { inner_->on_fence(f); }
  void on_dshared(const emu::DsharedAccess& d) override { inner_->on_dshared(d); }
  void on_cp_async(const emu::CpAsyncCopy& c) override {
    // The form ptxas gave a src-size operand (ldgsts_forms.cc): only the
    // SASS says, and the H100 costs them apart.
    const auto& forms = map_.ldgsts_form;
    if (!c.src_size || !c.instr || c.instr->pc >= forms.size() ||
        forms[c.instr->pc] == emu::LdgstsForm::Unknown)
      return inner_->on_cp_async(c);
    emu::CpAsyncCopy s = c;
    s.form = forms[c.instr->pc];
    inner_->on_cp_async(s);
  }
  void on_block_end(emu::Dim3 b) override {
    // In (warp, group) order: the order the analyses see them in.
    for (uint32_t i = 0; i < slot_.size(); ++i)
      if (slot_[i] != kNone) flush(pool_[slot_[i]], i / groups_);
    inner_->on_block_end(b);
  }

  void on_memory(const emu::MemAccess& a) override {
    const std::vector<Part>* parts =
        a.instr->pc < map_.parts.size() ? &map_.parts[a.instr->pc] : nullptr;
    if (!parts || parts->empty() || a.mask == 0 || a.mbarrier ||
        (a.op != emu::MemOp::Load && a.op != emu::MemOp::Store)) {
      inner_->on_memory(a);
      return;
    }
    for (const Part& part : *parts) {
      const Group& g = map_.groups[part.group];
      if (g.members == 1) {
        shifted(a, a.addr, part.rel, &r_);
        r_.width = part.width;
        r_.instr = &g.info;
        inner_->on_memory(r_);
        continue;
      }
      add_member(a, part, g);
    }
  }

  uint64_t fallbacks = 0;

 private:
  // The members so far at PTX level, as they came.
  void flush(Pending& p, uint32_t warp) {
    if (p.members.empty()) return;
    ++fallbacks;
    r_.space = p.space;
    r_.op = p.op;
    r_.matrices = p.matrices;
    r_.block = block_;
    r_.mask = p.mask;
    r_.warp = warp;
    for (const Pending::Member& m : p.members) {
      for (unsigned l = 0; l < 32; ++l) r_.addr[l] = p.start[l] - static_cast<uint64_t>(m.rel);
      r_.width = m.width;
      r_.instr = m.instr;
      inner_->on_memory(r_);
    }
    p.reset();
  }

  Pending& pending(uint32_t warp, uint32_t group) {
    const size_t at = size_t{warp} * groups_ + group;
    if (at >= slot_.size()) slot_.resize(at + 1, kNone);  // (a warp past on_block_begin's)
    uint32_t& slot = slot_[at];
    if (slot == kNone) {
      slot = static_cast<uint32_t>(used_++);
      if (slot == pool_.size()) pool_.emplace_back();
    }
    return pool_[slot];
  }

  void add_member(const emu::MemAccess& a, const Part& part, const Group& g) {
    Pending& p = pending(a.warp, part.group);
    const auto rel = static_cast<uint64_t>(static_cast<int64_t>(part.rel));
    auto same_start = [&] {
      uint64_t diff = 0;  // (branch-free: it vectorizes)
      if (a.mask == UINT32_MAX) {
        for (unsigned l = 0; l < 32; ++l) diff |= a.addr[l] + rel - p.start[l];
      } else {
        for (unsigned l = 0; l < 32; ++l)
          diff |= (a.addr[l] + rel - p.start[l]) & (uint64_t{0} - (a.mask >> l & 1u));
      }
      return diff == 0;
    };
    if (!p.members.empty() && ((p.seen >> part.member & 1u) || p.mask != a.mask || !same_start()))
      flush(p, a.warp);
    if (p.members.empty()) {
      p.mask = a.mask;
      p.space = a.space;
      p.op = a.op;
      p.matrices = a.matrices;
      for (unsigned l = 0; l < 32; ++l) p.start[l] = a.addr[l] + rel;
    }
    p.seen |= 1u << part.member;
    p.members.push_back({a.instr, part.rel, a.width});
    if (p.members.size() < g.members) return;
    shifted(a, p.start, 0, &r_);
    r_.width = g.width;
    r_.instr = &g.info;
    p.reset();
    inner_->on_memory(r_);
  }

 public:
  std::unique_ptr<emu::BlockObserver> inner_;

 private:
  const KernelMap& map_;
  // By warp * groups_ + group: its Pending in pool_ (kNone: none yet).
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t groups_ = 0;
  emu::Dim3 block_{};
  std::vector<uint32_t> slot_;
  std::vector<Pending> pool_;
  size_t used_ = 0;
  emu::MemAccess r_{};  // the access handed on (built in place, not copied)
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
