// Small open-addressing tables for the defect checker's global-memory
// records. WordMap maps 64-bit keys to dense slot numbers 0, 1, 2, ... in
// first-insertion order; LineMap does the same for 128-byte line numbers a
// 4 KB page at a time. The checker looks up every global access here, so
// they must be cheaper than std::unordered_map (no node per entry, one probe
// for most lookups), and their memory grows with the distinct lines touched,
// never with the number of accesses.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace smemlab::check {

class WordMap {
 public:
  // The slot of `key`, adding it as slot size() if new.
  uint32_t slot(uint64_t key) {
    if ((size_ + 1) * 4 > table_.size() * 3) grow();
    size_t mask = table_.size() - 1;
    for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      Entry& e = table_[i];
      if (e.slot == kEmpty) {
        e = {key, static_cast<uint32_t>(size_)};
        keys_.push_back(key);
        return static_cast<uint32_t>(size_++);
      }
      if (e.key == key) return e.slot;
    }
  }
  size_t size() const { return size_; }
  // Key of each slot, in slot order.
  const std::vector<uint64_t>& keys() const { return keys_; }
  // Empty again. The table is kept for reuse unless it is much larger than
  // its last contents needed (then a small map after a large one does not
  // pay for clearing the large table every time).
  void clear() {
    if (table_.size() > 8 * (size_ + 64))
      table_ = {};
    else
      std::fill(table_.begin(), table_.end(), Entry{});
    keys_.clear();
    size_ = 0;
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Entry {
    uint64_t key = 0;
    uint32_t slot = kEmpty;
  };
  static size_t hash(uint64_t k) {
    k *= 0x9e3779b97f4a7c15ull;  // Fibonacci hashing: neighbouring words spread out
    return static_cast<size_t>(k ^ (k >> 29));
  }
  void grow() {
    std::vector<Entry> old = std::move(table_);
    table_.assign(old.empty() ? 64 : old.size() * 2, Entry{});
    size_t mask = table_.size() - 1;
    for (const Entry& e : old) {
      if (e.slot == kEmpty) continue;
      size_t i = hash(e.key) & mask;
      while (table_[i].slot != kEmpty) i = (i + 1) & mask;
      table_[i] = e;
    }
  }
  std::vector<Entry> table_;
  std::vector<uint64_t> keys_;
  size_t size_ = 0;
};

// Dense slots for line numbers, like WordMap, but pages of 32 consecutive
// lines share one hash entry and an array of their lines' slots: a
// coalesced stream (a warp's lines, the next warp's lines) hashes once per
// page and the rest are array lookups, and the slots can be visited in line
// order by sorting the pages alone. A page touched at all costs 128 bytes.
class LineMap {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kPageLines = 32;

  // The slot of `line`, adding it as slot size() if new.
  uint32_t slot(uint64_t line) {
    uint32_t& s = entry(line);
    if (s == kNone) s = size_++;
    return s;
  }
  uint32_t size() const { return size_; }
  // f(slot, line) for every line added, in increasing line order.
  template <class F>
  void for_each_in_order(F f) const {
    const std::vector<uint64_t>& pages = pages_.keys();
    std::vector<uint32_t> order(pages.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](uint32_t x, uint32_t y) { return pages[x] < pages[y]; });
    for (uint32_t p : order)
      for (uint32_t i = 0; i < kPageLines; ++i)
        if (uint32_t s = index_[p * kPageLines + i]; s != kNone) f(s, pages[p] * kPageLines + i);
  }
  void clear() {
    pages_.clear();
    index_.clear();
    size_ = 0;
    last_page_ = kNoPage;
  }

 private:
  static constexpr uint64_t kNoPage = UINT64_MAX;  // line numbers are addresses / 128
  uint32_t& entry(uint64_t line) {
    uint64_t page = line / kPageLines;
    if (page != last_page_) {
      uint32_t p = pages_.slot(page);
      if (size_t{p} * kPageLines == index_.size()) index_.resize(index_.size() + kPageLines, kNone);
      last_page_ = page;
      last_base_ = p * kPageLines;
    }
    return index_[last_base_ + line % kPageLines];
  }
  WordMap pages_;
  std::vector<uint32_t> index_;  // page slot * kPageLines + line % kPageLines -> slot
  uint32_t size_ = 0;
  uint64_t last_page_ = kNoPage;
  uint32_t last_base_ = 0;
};

}  // namespace smemlab::check
