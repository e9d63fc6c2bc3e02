// A small open-addressing hash map from 64-bit keys (global 4-byte word
// numbers) to dense slot numbers 0, 1, 2, ... in first-insertion order. The
// defect checker looks up every lane of every global access here, so it
// must be cheaper than std::unordered_map (no node per entry, one probe for
// most lookups), and its memory grows with the distinct words touched, never
// with the number of accesses.
#pragma once

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

}  // namespace smemlab::check
