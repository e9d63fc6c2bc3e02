#include "runtime/device_queue.h"

#include <algorithm>

namespace smemlab::runtime {

namespace {
thread_local int t_driver_lock_depth = 0;
}

void DriverMutex::lock() {
  if (!mu_.try_lock()) {
    // Blocked behind the worker (a running kernel holds the lock): the host
    // waits for the device and makes no progress of its own meanwhile.
    const bool counted = blocked_counter && std::this_thread::get_id() != worker;
    if (counted) blocked_counter->fetch_add(1);
    mu_.lock();
    if (counted) blocked_counter->fetch_sub(1);
  }
  ++t_driver_lock_depth;
}

bool DriverMutex::try_lock() {
  if (!mu_.try_lock()) return false;
  ++t_driver_lock_depth;
  return true;
}

void DriverMutex::unlock() {
  --t_driver_lock_depth;
  mu_.unlock();
}

int DriverMutex::depth() { return t_driver_lock_depth; }

DeviceQueue::DeviceQueue(DriverMutex& mu, bool synchronous) : mu_(mu), synchronous_(synchronous) {
  mu_.blocked_counter = &host_waiting_;
}

DeviceQueue::Seq DeviceQueue::submit(const void* stream, std::function<void()> op) {
  if (on_worker()) {
    // Part of the operation running (a graph's node, an operation a host
    // function submits): it runs now, and counts as that operation.
    const Seq s = running_.load();
    {
      std::lock_guard<std::mutex> q(qmu_);
      last_[stream] = std::max(last_[stream], s);
    }
    std::lock_guard<DriverMutex> lock(mu_);
    op();
    return s;
  }
  if (synchronous_) {
    // SMEMLAB_SYNC: nothing is ever queued; the host is inside the call.
    Seq s;
    {
      std::lock_guard<std::mutex> q(qmu_);
      s = ++submitted_;
      last_[stream] = s;
    }
    host_waiting_.fetch_add(1);
    const Seq outer = running_.exchange(s);
    {
      std::lock_guard<DriverMutex> lock(mu_);
      op();
    }
    running_.store(outer);
    host_waiting_.fetch_sub(1);
    std::lock_guard<std::mutex> q(qmu_);
    completed_.store(std::max(completed_.load(), s), std::memory_order_release);
    finished_.notify_all();
    return s;
  }
  std::lock_guard<std::mutex> q(qmu_);
  if (!started_) {
    started_ = true;
    worker_ = std::thread([this] { run_worker(); });
    worker_id_.store(worker_.get_id());
    mu_.worker.store(worker_.get_id());
  }
  Seq s = ++submitted_;
  last_[stream] = s;
  ops_.emplace_back(s, std::move(op));
  work_.notify_one();
  return s;
}

DeviceQueue::~DeviceQueue() {
  {
    std::lock_guard<std::mutex> q(qmu_);
    stopping_ = true;
  }
  work_.notify_one();
  if (worker_.joinable()) worker_.join();
}

void DeviceQueue::run_worker() {
  for (;;) {
    std::pair<Seq, std::function<void()>> next;
    {
      std::unique_lock<std::mutex> q(qmu_);
      work_.wait(q, [&] { return !ops_.empty() || stopping_; });
      if (ops_.empty()) return;
      next = std::move(ops_.front());
      ops_.pop_front();
    }
    running_.store(next.first);
    {
      std::lock_guard<DriverMutex> lock(mu_);
      next.second();
    }
    std::lock_guard<std::mutex> q(qmu_);
    completed_.store(next.first, std::memory_order_release);
    finished_.notify_all();
  }
}

void DeviceQueue::wait(Seq s) {
  // SMEMLAB_SYNC: what is not done runs on this call stack (an operation
  // that waits, as a blocking copy inside a queued one does).
  if (synchronous_ || on_worker() || done(s)) return;
  host_waiting_.fetch_add(1);
  // The worker needs the driver's lock to finish: give up this thread's hold.
  const int held = DriverMutex::depth();
  for (int i = 0; i < held; ++i) mu_.unlock();
  {
    std::unique_lock<std::mutex> q(qmu_);
    finished_.wait(q, [&] { return done(s); });
  }
  for (int i = 0; i < held; ++i) mu_.lock();
  host_waiting_.fetch_sub(1);
}

DeviceQueue::Seq DeviceQueue::last_of(const void* stream) const {
  std::lock_guard<std::mutex> q(const_cast<std::mutex&>(qmu_));
  auto it = last_.find(stream);
  return it == last_.end() ? 0 : it->second;
}

void DeviceQueue::forget(const void* stream) {
  std::lock_guard<std::mutex> q(qmu_);
  last_.erase(stream);
}

}  // namespace smemlab::runtime
