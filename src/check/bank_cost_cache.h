// A memo of bank::Model::evaluate's counts per distinct request. A kernel
// issues the same shared-memory request pattern again and again (every loop
// iteration, every block: shared offsets are block-relative), and costing
// one with the bank model is far dearer than recognizing it. Direct-mapped
// and of fixed size, so memory stays bounded; a collision just evaluates
// again. Not thread-safe: one per worker at a time (BankAnalysis pools them).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "bank/bank.h"

namespace smemlab::check {

// What BankAnalysis adds up from one bank::Result.
struct BankCost {
  unsigned wavefronts = 0, ideal = 0, bank_conflicts = 0, worst_wavefronts = 0, ways = 0;
  bool unmodelled = false;  // the model refused the request (bank::Error)
};

class BankCostCache {
 public:
  explicit BankCostCache(size_t models)
      : models_(models), keys_(kEntries), costs_(kEntries * models) {}

  // The costs of `r` under each model (models() entries), evaluated on a
  // miss. `models` must be the ones the cache was made for.
  const BankCost* costs(const std::vector<std::unique_ptr<bank::Model>>& models,
                        const bank::Request& r) {
    Key k;
    if (!make_key(r, k)) return nullptr;
    size_t i = k.hash & (kEntries - 1);
    BankCost* out = &costs_[i * models_];
    if (keys_[i] == k) return out;
    keys_[i] = k;
    for (size_t m = 0; m < models_; ++m) out[m] = evaluate(*models[m], r, nullptr);
    return out;
  }

  // One evaluation, keeping the full result when asked.
  static BankCost evaluate(const bank::Model& model, const bank::Request& r, bank::Result* full) {
    BankCost c;
    try {
      bank::Result res = model.evaluate(r);
      c = {res.wavefronts, res.ideal, res.bank_conflicts, res.worst_wavefronts, res.ways, false};
      if (full) *full = std::move(res);
    } catch (const bank::Error&) {
      c.unmodelled = true;
    }
    return c;
  }

 private:
  static constexpr size_t kEntries = 2048;  // power of two
  struct Key {
    uint64_t hash = 0;
    uint32_t mask = 0;
    uint8_t op = 0, width = 0;
    bool valid = false;
    uint32_t addr[32] = {};  // active lanes only; 0 elsewhere
    bool operator==(const Key& o) const {
      if (!valid || !o.valid || hash != o.hash || mask != o.mask || op != o.op ||
          width != o.width)
        return false;
      for (int l = 0; l < 32; ++l)
        if (addr[l] != o.addr[l]) return false;
      return true;
    }
  };
  static bool make_key(const bank::Request& r, Key& k) {
    k.mask = r.mask;
    k.op = static_cast<uint8_t>(r.op);
    k.width = static_cast<uint8_t>(r.width);
    k.valid = true;
    uint64_t h = (uint64_t{r.mask} << 8 | k.op << 5 | k.width) * 0x9e3779b97f4a7c15ull;
    for (int l = 0; l < 32; ++l) {
      uint64_t a = r.mask >> l & 1u ? r.addr[l] : 0;
      if (a > UINT32_MAX) return false;  // not a shared offset: don't memoize
      k.addr[l] = static_cast<uint32_t>(a);
      h = (h ^ a) * 0x100000001b3ull + static_cast<uint64_t>(l);
    }
    k.hash = h ^ (h >> 31);
    return true;
  }
  size_t models_;
  std::vector<Key> keys_;
  std::vector<BankCost> costs_;
};

// Caches handed to the blocks that run at one time (one per worker, as a
// block returns its cache when it ends), so a cache keeps what earlier
// blocks taught it.
class BankCostCachePool {
 public:
  std::unique_ptr<BankCostCache> take(size_t models) {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) return std::make_unique<BankCostCache>(models);
    auto c = std::move(free_.back());
    free_.pop_back();
    return c;
  }
  void give(std::unique_ptr<BankCostCache> c) {
    if (!c) return;
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(c));
  }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<BankCostCache>> free_;
};

}  // namespace smemlab::check
