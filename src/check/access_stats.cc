#include "check/access_stats.h"

#include <algorithm>
#include <cstdint>

#include "check/address_shift.h"
#include "check/spare_pool.h"

namespace smemlab::check {

const char* access_class_name(AccessClass c) {
  switch (c) {
    case AccessClass::GlobalLoad:
      return "global_load";
    case AccessClass::GlobalStore:
      return "global_store";
    case AccessClass::GlobalAtomic:
      return "global_atomic";
    case AccessClass::GlobalReduction:
      return "global_reduction";
    case AccessClass::LocalLoad:
      return "local_load";
    case AccessClass::LocalStore:
      return "local_store";
  }
  return "?";
}

SectorCost sector_cost(uint32_t mask, const uint64_t* addr, unsigned width) {
  SectorCost c;
  if (!mask) return c;
  // Each active lane's bytes start where the previous one's end (a
  // unit-stride access, the common case): they form one range, whose
  // sectors are those it spans; unless it wraps past 2^64 (left to the
  // general count below).
  const uint64_t begin = addr[__builtin_ctz(mask)];
  uint64_t end_of_last = begin;
  bool abutting = width > 0;
  unsigned lanes = 0;
  for (uint32_t left = mask; left; left &= left - 1, ++lanes) {
    const uint64_t a = addr[__builtin_ctz(left)];
    abutting &= a == end_of_last;
    end_of_last = a + width;
  }
  c.bytes = uint64_t{lanes} * width;
  if (abutting && end_of_last > begin) {
    c.sectors = (end_of_last - 1) / 32 - begin / 32 + 1;
    c.ideal = (c.bytes + 31) / 32;
    return c;
  }
  // The active lanes' byte ranges, sorted by start (most requests already
  // are: lanes ascend), then one pass counts the union's bytes and sectors.
  std::pair<uint64_t, uint64_t> ranges[32];  // [begin, end) bytes
  unsigned n = 0;
  bool sorted = true;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(mask >> lane & 1u)) continue;
    ranges[n] = {addr[lane], addr[lane] + width};
    if (n > 0 && ranges[n].first < ranges[n - 1].first) sorted = false;
    ++n;
  }
  if (!sorted) std::sort(ranges, ranges + n);
  uint64_t distinct = 0, end = 0, next_sector = 0;  // sectors below next_sector are counted
  for (unsigned i = 0; i < n; ++i) {
    auto [b, e] = ranges[i];
    uint64_t first = std::max(b / 32, next_sector), last = (e - 1) / 32;
    if (last >= first) {
      c.sectors += last - first + 1;
      next_sector = last + 1;
    }
    if (b < end) b = end;
    if (e > b) distinct += e - b;
    end = std::max(end, e);
  }
  c.ideal = (distinct + 31) / 32;
  return c;
}

namespace {

constexpr uint32_t kNone = ~0u;

// Per pc: its entries in a block's `accesses` and `branches` (kNone: none
// yet) and the last request costed there.
struct PcState {
  uint32_t stats = kNone;
  uint32_t branch = kNone;
  bool known = false;  // ref and width hold the last request's pattern
  unsigned width = 0;
  ShiftRef ref;
  // The pattern's counts: bytes and distinct bytes do not change with a
  // shift; sectors are kept per first-lane residue mod 32 (bit r of
  // `seen`: sectors[r] is known; at most 2 sectors a lane, so 64).
  uint64_t ideal = 0, bytes = 0;
  uint32_t seen = 0;
  uint32_t sectors[32];
};

// The per-pc states of a block, kept between blocks and launches
// (SpareStates): a block takes those an earlier one left, their entries
// unset, so that a short launch's block allocates no arrays, and a pc's
// memo (a function of the request pattern alone, checked at every use)
// holds on for any later block, of any kernel.
struct PcStates {
  // states[at[pc] - 1] (0: none yet): 4 bytes per pc, the ~450-byte
  // records only for the pcs that access memory or branch.
  std::vector<uint32_t> at;
  std::vector<PcState> states;
  // The states whose entries the block set: only these are unset for the
  // next block (states kept from larger kernels may be many).
  std::vector<uint32_t> set;
  // How much the last block with these states held (up to a bound): the
  // size hint of a launch's first block (AccessAnalysis has none yet).
  AccessSizes last;

  size_t bytes() const {
    return at.capacity() * sizeof(uint32_t) + states.capacity() * sizeof(PcState);
  }
  // Unsets the entries the block set (the memos stay).
  void clear() {
    for (uint32_t i : set) states[i].stats = states[i].branch = kNone;
    set.clear();
  }
};

// Emptied PcStates for the next block (never destroyed: a launch on another
// thread may end while the process exits).
SparePool<PcStates>& spare_states() {
  static auto* pool = new SparePool<PcStates>(64, size_t{1} << 20, SIZE_MAX);
  return *pool;
}

class BlockAccess final : public emu::BlockObserver {
 public:
  // Sized up front by what an earlier block of the kernel met (`hint`; a
  // launch's first block: what the states' last block met): no growth, and
  // no copy of the per-pc records, request by request.
  explicit BlockAccess(AccessSizes hint) : s_(spare_states().take()) {
    if (!hint.accesses && !hint.branches && !hint.executed) hint = s_->last;
    accesses.reserve(hint.accesses);
    branches.reserve(hint.branches);
    executed.reserve(hint.executed);
  }
  ~BlockAccess() override {
    s_->clear();
    spare_states().give(std::move(s_));
  }
  // Also kept as the next hint of these states (bounded: a short kernel's
  // block after a large one reserves little).
  AccessSizes note_sizes() {
    const AccessSizes got{accesses.size(), branches.size(), executed.size()};
    s_->last = {std::min<size_t>(got.accesses, 64), std::min<size_t>(got.branches, 64),
                std::min<size_t>(got.executed, 1024)};
    return got;
  }
  void on_memory(const emu::MemAccess& a) override {
    if (a.mask == 0) return;
    AccessClass cls;
    if (a.space == emu::Space::Global) {
      switch (a.op) {
        case emu::MemOp::Load:
          cls = AccessClass::GlobalLoad;
          break;
        case emu::MemOp::Store:
          cls = AccessClass::GlobalStore;
          break;
        case emu::MemOp::Atomic:
          cls = AccessClass::GlobalAtomic;
          break;
        case emu::MemOp::Reduction:
          cls = AccessClass::GlobalReduction;
          break;
        case emu::MemOp::CpAsyncLoad:
        case emu::MemOp::BulkLoad:
          cls = AccessClass::GlobalLoad;
          break;
        case emu::MemOp::BulkReduce:
          cls = AccessClass::GlobalReduction;
          break;
        default:
          return;
      }
    } else if (a.space == emu::Space::Local) {
      if (a.op == emu::MemOp::Load)
        cls = AccessClass::LocalLoad;
      else if (a.op == emu::MemOp::Store)
        cls = AccessClass::LocalStore;
      else
        return;
    } else {
      return;
    }
    PcState& p = state_of(a.instr->pc);
    if (p.stats == kNone) {
      note_set(p);
      p.stats = static_cast<uint32_t>(accesses.size());
      accesses.emplace_back(a.instr->pc, AccessInstr{});
    }
    AccessInstr& s = accesses[p.stats].second;
    s.instr = a.instr;
    s.cls = cls;
    s.width = a.width;
    // A request that is the pc's last one shifted (same offsets between its
    // lanes) asks for as many bytes, as many distinct ones, and touches as
    // many 32-byte sectors as any earlier shift whose first active address
    // had the same residue modulo 32: a loop's strides (4 bytes a step, a
    // row of odd length) walk through a few residues, each counted once.
    SectorCost c;
    uint64_t d;
    const unsigned first = static_cast<unsigned>(__builtin_ctz(a.mask));
    const unsigned r = static_cast<unsigned>(a.addr[first] % 32);
    if (p.known && p.width == a.width && same_shift(p.ref, a.mask, a.addr, &d)) {
      if (p.seen >> r & 1u) {
        c = {p.sectors[r], p.ideal, p.bytes};
      } else {
        c = sector_cost(a.mask, a.addr, a.width);
        p.sectors[r] = static_cast<uint32_t>(c.sectors);
        p.seen |= 1u << r;
      }
    } else {
      c = sector_cost(a.mask, a.addr, a.width);
      p.known = make_shift_ref(p.ref, a.mask, a.addr);
      p.width = a.width;
      p.ideal = c.ideal;
      p.bytes = c.bytes;
      p.sectors[r] = static_cast<uint32_t>(c.sectors);
      p.seen = 1u << r;
    }
    ++s.counts.requests;
    s.counts.sectors += c.sectors;
    s.counts.ideal_sectors += c.ideal;
    s.counts.bytes += c.bytes;
    uint64_t excess = c.sectors - c.ideal;
    if (!s.has_worst || excess > s.worst_excess) {
      s.has_worst = true;
      s.worst_excess = excess;
      s.worst_mask = a.mask;
      std::copy(std::begin(a.addr), std::end(a.addr), s.worst_addr);
    }
  }
  void on_branch(const emu::Branch& b) override {
    if ((b.taken | b.not_taken) == 0) return;
    PcState& p = state_of(b.instr->pc);
    if (p.branch == kNone) {
      note_set(p);
      p.branch = static_cast<uint32_t>(branches.size());
      branches.emplace_back(b.instr->pc, BranchInstr{});
    }
    BranchInstr& s = branches[p.branch].second;
    s.instr = b.instr;
    if (b.taken && b.not_taken)
      ++s.counts.divergent;
    else
      ++s.counts.uniform;
  }
  bool wants_instruction_counts() const override { return true; }
  void on_instruction_counts(const std::vector<emu::InstrCount>& counts,
                             const std::vector<const emu::InstrInfo*>& info) override {
    // (A launch's first blocks have no size hint: one allocation, not a
    // doubling per few pcs.)
    if (executed.capacity() == 0) executed.reserve(counts.size());
    for (size_t pc = 0; pc < counts.size(); ++pc)
      if (counts[pc].steps)
        executed.push_back(
            {static_cast<uint32_t>(pc), {info[pc], {counts[pc].steps, counts[pc].lanes}}});
  }
  // By pc, in the order first met (finish_block merges each pc on its own,
  // so the order does not matter): no tree node per pc and block.
  std::vector<std::pair<uint32_t, AccessInstr>> accesses;
  std::vector<std::pair<uint32_t, BranchInstr>> branches;
  std::vector<std::pair<uint32_t, AccessAnalysis::Executed>> executed;  // ascending pc

 private:
  void note_set(const PcState& p) {
    s_->set.push_back(static_cast<uint32_t>(&p - s_->states.data()));
  }
  PcState& state_of(uint32_t pc) {
    std::vector<uint32_t>& at = s_->at;
    if (pc < at.size() && at[pc]) return s_->states[at[pc] - 1];
    if (pc >= at.size()) at.resize(std::max<size_t>(pc + 1, 2 * at.size()), 0);
    s_->states.emplace_back();
    at[pc] = static_cast<uint32_t>(s_->states.size());
    return s_->states.back();
  }
  std::unique_ptr<PcStates> s_;
};

}  // namespace

std::unique_ptr<emu::BlockObserver> AccessAnalysis::make_block_observer(emu::Dim3) {
  AccessSizes hint;
  {
    std::lock_guard<std::mutex> lock(sizes_.mu);
    hint = sizes_.seen;
  }
  return std::make_unique<BlockAccess>(hint);
}

void AccessAnalysis::finish_block(emu::Dim3, std::unique_ptr<emu::BlockObserver> observer) {
  auto* b = static_cast<BlockAccess*>(observer.get());
  {
    const AccessSizes got = b->note_sizes();
    std::lock_guard<std::mutex> lock(sizes_.mu);
    AccessSizes& s = sizes_.seen;
    s = {std::max(s.accesses, got.accesses), std::max(s.branches, got.branches),
         std::max(s.executed, got.executed)};
  }
  accesses_.merge(std::move(b->accesses), [](AccessInstr& into, const AccessInstr& s) {
    into.counts.add(s.counts);
    if (s.worst_excess > into.worst_excess) {
      into.worst_excess = s.worst_excess;
      into.worst_mask = s.worst_mask;
      std::copy(std::begin(s.worst_addr), std::end(s.worst_addr), into.worst_addr);
    }
  });
  branches_.merge(std::move(b->branches),
                  [](BranchInstr& into, const BranchInstr& s) { into.counts.add(s.counts); });
  executed_.merge(std::move(b->executed),
                  [](Executed& into, const Executed& e) { into.second.add(e.second); });
}

}  // namespace smemlab::check
