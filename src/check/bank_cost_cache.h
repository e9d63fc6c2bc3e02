// A memo of the bank models' counts per request *address pattern*
// (address_pattern.h, modulo the models' common bank::Model::period). A
// kernel issues the same pattern again and again (every loop iteration,
// every warp and block at one pc, shifted by a tile offset), and costing it
// with the bank model is far dearer than recognizing it. The hot path is one
// compare with the last pattern seen at the same pc; other patterns go
// through a direct-mapped table of fixed size (memory stays bounded, a
// collision just evaluates again). Not thread-safe: one per worker at a
// time (BankAnalysis pools them, with the other analyses of the same
// models: a launch starts with what earlier launches taught the caches,
// which a program launching a kernel again and again meets every time).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <numeric>
#include <vector>

#include "bank/bank.h"
#include "check/address_pattern.h"
#include "check/address_shift.h"

namespace smemlab::check {

// What BankAnalysis adds up from one bank::Result.
struct BankCost {
  unsigned wavefronts = 0, ideal = 0, bank_conflicts = 0, worst_wavefronts = 0, ways = 0;
  bool unmodelled = false;  // the model refused the request (bank::Error)
};

class BankCostCache {
 public:
  explicit BankCostCache(const std::vector<std::unique_ptr<bank::Model>>& models)
      : models_(models.size()) {
    for (unsigned w = 0; w < std::size(period_); ++w) period_[w] = period_of(models, w);
  }

  // Whether a request of `pc` was costed through this cache before.
  bool knows(uint32_t pc) const { return pc < last_at_.size() && last_at_[pc]; }

  // The models' common period for requests of `width` bytes per lane
  // (bank::Model::period): the pattern's modulus.
  uint64_t period(unsigned width, const std::vector<std::unique_ptr<bank::Model>>& models) const {
    return width < std::size(period_) ? period_[width] : period_of(models, width);
  }

  // The hot path: the costs of this pc's last request if this one has the
  // same pattern, i.e. is the last one shifted by a multiple of `period`
  // (one pass over the addresses, no key built); else nullptr.
  const BankCost* same_as_last(uint32_t pc, uint8_t op, unsigned width, unsigned matrices,
                               uint32_t mask, const uint64_t* addr, uint64_t period) const {
    if (pc >= last_at_.size() || !last_at_[pc]) return nullptr;
    const size_t i = last_at_[pc] - 1;
    const Last& s = last_[i];
    if (!s.valid || s.ref.mask != mask || s.op != op || s.width != width || s.matrices != matrices)
      return nullptr;
    const unsigned first = static_cast<unsigned>(__builtin_ctz(mask));
    if (residue(addr[first], period) != s.residue) return nullptr;
    // Every active lane moved by d, and none reaches 2^63 (the last
    // request's addresses did not): then the requests differ by one exact
    // shift, a multiple of the period.
    uint64_t d;
    if (!same_shift(s.ref, mask, addr, &d)) return nullptr;
    return &last_costs_[i * models_];
  }

  // The memoized costs of `k` (models() entries), or nullptr; a hit
  // becomes the pc's last request (`addr`: its addresses). `hash`: k.hash(),
  // made once for find and store.
  const BankCost* find(uint32_t pc, const AddressPattern& k, uint64_t hash, const uint64_t* addr) {
    if (keys_.empty()) return nullptr;
    size_t i = hash & (keys_.size() - 1);
    if (!keys_[i].valid || !(keys_[i].key == k)) return nullptr;
    return remember_at(pc, k, addr, &costs_[i * models_]);
  }
  // Records the costs of `k` (models() entries, from a full evaluation).
  void store(uint32_t pc, const AddressPattern& k, uint64_t hash, const uint64_t* addr,
             const BankCost* costs) {
    // The table is made by the first store (a launch whose every request
    // repeats its pc's last pattern makes none) with kFirstEntries; one that
    // has taken as many patterns as it has entries doubles (up to
    // kEntries), starting empty again: a launch with few patterns sets up
    // and touches a few KiB, not the whole table.
    if (keys_.empty() || (++stored_ > keys_.size() && keys_.size() < kEntries)) {
      const size_t entries = keys_.empty() ? kFirstEntries : 2 * keys_.size();
      keys_.assign(entries, Slot{});
      costs_.assign(entries * models_, BankCost{});
      stored_ = 1;
    }
    size_t i = hash & (keys_.size() - 1);
    keys_[i] = {k, true};
    std::copy(costs, costs + models_, &costs_[i * models_]);
    remember_at(pc, k, addr, costs);
  }

  // One evaluation, keeping the full result when asked; otherwise only the
  // counts (bank::Model::cost: no passes built).
  static BankCost evaluate(const bank::Model& model, const bank::Request& r, bank::Result* full) {
    BankCost c;
    try {
      if (!full) {
        const bank::Cost k = model.cost(r);
        return {k.wavefronts, k.ideal, k.bank_conflicts, k.worst_wavefronts, k.ways, false};
      }
      bank::Result res = model.evaluate(r);
      c = {res.wavefronts, res.ideal, res.bank_conflicts, res.worst_wavefronts, res.ways, false};
      *full = std::move(res);
    } catch (const bank::Error&) {
      c.unmodelled = true;
    }
    return c;
  }

  static uint64_t period_of(const std::vector<std::unique_ptr<bank::Model>>& models,
                            unsigned width) {
    uint64_t p = 1;
    for (const auto& m : models) p = std::lcm(p, m->period(width));
    return p;
  }

 private:
  // Powers of two. The per-pc slot answers most requests; this table holds
  // a pc's other patterns (different masks or strides in turn).
  static constexpr size_t kFirstEntries = 32, kEntries = 512;
  struct Slot {
    AddressPattern key;
    bool valid = false;
  };
  // A pc's last request as it came (the addresses, not the offsets: the
  // hot-path compare needs no key).
  struct Last {
    bool valid = false;
    uint8_t op = 0, width = 0, matrices = 0;
    uint32_t residue = 0;
    ShiftRef ref;
  };
  // Makes `addr` the pc's last request; returns its costs' copy.
  const BankCost* remember_at(uint32_t pc, const AddressPattern& k, const uint64_t* addr,
                              const BankCost* costs) {
    if (pc >= last_at_.size()) last_at_.resize(std::max<size_t>(pc + 1, 2 * last_at_.size()), 0);
    if (!last_at_[pc]) {
      last_.emplace_back();
      last_costs_.resize(last_.size() * models_);
      last_at_[pc] = static_cast<uint32_t>(last_.size());
    }
    const size_t i = last_at_[pc] - 1;
    Last& s = last_[i];
    // Always true here (a pattern is made only of addresses below 2^63).
    s.valid = make_shift_ref(s.ref, k.mask, addr);
    s.op = k.op;
    s.width = k.width;
    s.matrices = k.matrices;
    s.residue = k.residue;
    std::copy(costs, costs + models_, &last_costs_[i * models_]);
    return &last_costs_[i * models_];
  }
  size_t models_;
  uint64_t period_[17];  // by width
  std::vector<Slot> keys_;
  std::vector<BankCost> costs_;
  size_t stored_ = 0;  // patterns stored since keys_ last grew
  // A pc's last request lives at last_[last_at_[pc] - 1] (0: none yet):
  // 4 bytes per pc, the ~300-byte records only for pcs that reach shared
  // memory.
  std::vector<uint32_t> last_at_;
  std::vector<Last> last_;
  std::vector<BankCost> last_costs_;  // last_ x model
};

// Caches handed to the blocks that run at one time (one per worker, as a
// block returns its cache when it ends), so a cache keeps what earlier
// blocks, and earlier launches, taught it. Holds at most kMaxFree.
class BankCostCachePool {
 public:
  std::unique_ptr<BankCostCache> take(const std::vector<std::unique_ptr<bank::Model>>& models) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        auto c = std::move(free_.back());
        free_.pop_back();
        return c;
      }
    }
    return std::make_unique<BankCostCache>(models);
  }
  void give(std::unique_ptr<BankCostCache> c) {
    if (!c) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.size() < kMaxFree) free_.push_back(std::move(c));
  }

 private:
  static constexpr size_t kMaxFree = 64;  // emu's most host threads
  std::mutex mu_;
  std::vector<std::unique_ptr<BankCostCache>> free_;
};

// The full results (bank maps) of the requests that became an
// instruction's costliest, by the exact request (every lane's address): a
// program that launches a kernel again meets the same costliest requests,
// and evaluating them in full is a short launch's largest analysis cost.
// Direct-mapped with a fixed number of entries (bounded memory; a
// collision evaluates again). Thread-safe.
class WorstResults {
 public:
  // `entries`: a power of two (tests take 1: every request shares one entry).
  explicit WorstResults(size_t entries = 512) : mask_(entries - 1) {}

  // The result of model `model` (its index in the set) for `r` (an
  // ldmatrix/stmatrix of `matrices` when nonzero, as cost_of takes it)
  // into `out`; false when not held.
  bool find(uint32_t pc, size_t model, const bank::Request& r, unsigned matrices,
            bank::Result* out) {
    const size_t i = slot(pc, model, r);
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.empty()) return false;
    const Entry& e = entries_[i];
    if (!e.valid || e.model != model || e.matrices != matrices || e.request.op != r.op ||
        e.request.width != r.width || e.request.mask != r.mask || e.request.addr != r.addr)
      return false;
    *out = e.result;
    return true;
  }
  void store(uint32_t pc, size_t model, const bank::Request& r, unsigned matrices,
             const bank::Result& result) {
    const size_t i = slot(pc, model, r);
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.empty()) entries_.resize(mask_ + 1);
    Entry& e = entries_[i];
    e.valid = true;
    e.model = model;
    e.matrices = matrices;
    e.request = r;
    e.result = result;
  }

 private:
  struct Entry {
    bool valid = false;
    size_t model = 0;
    unsigned matrices = 0;
    bank::Request request;
    bank::Result result;
  };
  // By the request too (its first and last active lanes' addresses: a few
  // products, not 32): a pc's costliest request may change from block to
  // block, and each of them is met again in the next launch.
  size_t slot(uint32_t pc, size_t model, const bank::Request& r) const {
    const unsigned first = r.mask ? static_cast<unsigned>(__builtin_ctz(r.mask)) : 0;
    const unsigned last = r.mask ? 31 - static_cast<unsigned>(__builtin_clz(r.mask)) : 31;
    uint64_t h = (uint64_t{pc} << 32 | r.mask) * 0x9e3779b97f4a7c15ull + model +
                 r.addr[first] * 0xc2b2ae3d27d4eb4full + r.addr[last] * 0x165667b19e3779f9ull;
    return static_cast<size_t>((h ^ h >> 29) & mask_);
  }
  const size_t mask_;
  std::mutex mu_;
  std::vector<Entry> entries_;  // made by the first store
};

// What the BankAnalyses of one set of models share, across launches: the
// worker caches and the costliest requests' full results. Both are
// functions of the requests and the models alone, so sharing them changes
// no count and no bank map.
struct BankMemo {
  BankCostCachePool caches;
  WorstResults worsts;
  // The memo of a set of models (by name and type; the sets used last are
  // kept, a few at most). Never null.
  static std::shared_ptr<BankMemo> of(const std::vector<std::unique_ptr<bank::Model>>& models);
};

}  // namespace smemlab::check
