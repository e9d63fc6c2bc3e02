// Emptied tables of finished blocks and launches, kept process-wide for the
// next ones. A program makes many short launches, and a block's tables
// allocated afresh in each (their memory faulted in again) cost more than
// analysing a small block. Bounded in number, in one object's size and in
// the bytes held (T::bytes()). Thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace smemlab::check {

template <class T>
class SparePool {
 public:
  SparePool(size_t max_count, size_t max_each, size_t max_total)
      : max_count_(max_count), max_each_(max_each), max_total_(max_total) {}

  // An emptied T: one given back earlier, or a new one.
  std::unique_ptr<T> take() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!spare_.empty()) {
        std::unique_ptr<T> t = std::move(spare_.back());
        spare_.pop_back();
        total_ -= t->bytes();
        return t;
      }
    }
    return std::make_unique<T>();
  }
  // `t`, emptied by the caller, for a later take(); dropped when it would
  // pass a bound.
  void give(std::unique_ptr<T> t) {
    if (!t) return;
    const size_t b = t->bytes();
    if (b > max_each_) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (spare_.size() == max_count_ || total_ + b > max_total_) return;
    total_ += b;
    spare_.push_back(std::move(t));
  }

 private:
  const size_t max_count_, max_each_, max_total_;
  std::mutex mu_;
  std::vector<std::unique_ptr<T>> spare_;
  size_t total_ = 0;
};

}  // namespace smemlab::check
