// A vector that grows a chunk of 2^kBits elements at a time instead of by
// doubling, for the defect checker's tables that grow with the global memory
// a launch touches (a record per 128-byte line): no element is ever moved,
// and the memory touched is the final size, not the up to twice as much a
// doubling vector allocates, fills and copies on the way (page faults
// were a tenth of a streaming kernel's check time). clear() keeps the chunks
// for reuse. Chunks of 256: a small launch's first chunk of each table is
// a few KB from malloc's free lists, not a fresh mapping (a tenth of a
// 64-thread launch's check time with chunks of 1,024).
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace smemlab::check {

template <class T, unsigned kBits = 8>
class ChunkedVector {
 public:
  static_assert(std::is_trivially_destructible_v<T>, "clear() and grow() destroy nothing");
  static constexpr size_t kChunk = size_t{1} << kBits;

  T& operator[](size_t i) { return chunks_[i >> kBits][i & (kChunk - 1)]; }
  const T& operator[](size_t i) const { return chunks_[i >> kBits][i & (kChunk - 1)]; }
  size_t size() const { return size_; }
  // Appends `n` default-initialized elements (members without an
  // initializer are left as they are: no zeroing of arrays the caller
  // fills anyway).
  void grow(size_t n) {
    for (size_t end = size_ + n; size_ < end; ++size_) {
      if (size_ == chunks_.size() * kChunk)
        chunks_.push_back(std::make_unique_for_overwrite<T[]>(kChunk));
      new (&(*this)[size_]) T;
    }
  }
  T& emplace_back() {
    grow(1);
    return (*this)[size_ - 1];
  }
  void clear() { size_ = 0; }
  // Memory held (whole chunks), whatever size() is.
  size_t capacity_bytes() const { return chunks_.size() * kChunk * sizeof(T); }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace smemlab::check
