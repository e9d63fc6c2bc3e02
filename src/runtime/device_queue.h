// The emulated GPU's work queue: kernel launches and every asynchronous
// operation (copies, memsets, event records, host functions, graph launches,
// stream-ordered frees) run on one device worker thread, in submission
// order, while the program's host thread goes on (docs/emulator.md,
// "Kernels asynchronous to the host"). One worker in submission order keeps
// every stream's and event's order (and the legacy default stream's); what
// it does not model is concurrency between streams: operations of different
// streams never overlap. SMEMLAB_SYNC=1 runs each operation inside the call
// that submits it (debugging).
//
// The driver's lock (DriverMutex) is held by the worker while it runs an
// operation, so the driver's state is never seen half-changed; a host wait
// releases the caller's hold on it for the time it waits. `host_waiting`
// counts host threads blocked on the device (in a wait or on the lock): a
// kernel spinning on memory the host writes is not ended by the instruction
// budget or the stall watchdog while no host thread waits (the host's
// progress is progress).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace smemlab::runtime {

// The driver's recursive lock, which knows how deep the calling thread holds
// it (a wait releases it fully) and counts host threads blocked on it.
class DriverMutex {
 public:
  void lock();
  void unlock();
  bool try_lock();
  // How many times the calling thread holds it.
  static int depth();
  std::atomic<int>* blocked_counter = nullptr;  // host threads blocked (set by DeviceQueue)
  std::atomic<std::thread::id> worker{};        // the device worker: never counted

 private:
  std::recursive_mutex mu_;
};

class DeviceQueue {
 public:
  using Seq = uint64_t;  // 1, 2, ...: operations in submission order; 0: none
  DeviceQueue(DriverMutex& mu, bool synchronous);
  // Runs what is queued, then ends the worker (the driver's queue is never
  // destroyed: the program's exit handlers may still call in).
  ~DeviceQueue();
  // Runs `op` on the device worker after every operation submitted before it
  // (at once, in the caller, under SMEMLAB_SYNC or when the caller is the
  // worker itself: an operation's own operations, a graph's nodes, run
  // inline). `stream` is the stream it belongs to (its last operation is
  // what a stream query or synchronization waits for).
  Seq submit(const void* stream, std::function<void()> op);
  // Blocks until operation `s` (every operation up to it) has run. Returns
  // at once on the worker.
  void wait(Seq s);
  void wait_all() { wait(submitted()); }
  bool done(Seq s) const { return s <= completed_.load(std::memory_order_acquire); }
  Seq submitted() const { return submitted_.load(std::memory_order_acquire); }
  Seq completed() const { return completed_.load(std::memory_order_acquire); }
  Seq last_of(const void* stream) const;
  void forget(const void* stream);
  bool on_worker() const { return std::this_thread::get_id() == worker_id_.load(); }
  // The operation the worker is running (meaningful on the worker only).
  Seq running() const { return running_.load(); }
  bool synchronous() const { return synchronous_; }
  // Host threads blocked on the device; 0: the host is running.
  const std::atomic<int>& host_waiting() const { return host_waiting_; }

 private:
  void run_worker();
  DriverMutex& mu_;
  const bool synchronous_;
  std::mutex qmu_;
  std::condition_variable work_, finished_;
  std::deque<std::pair<Seq, std::function<void()>>> ops_;
  std::map<const void*, Seq> last_;
  std::atomic<Seq> submitted_{0}, completed_{0};
  std::atomic<int> host_waiting_{0};
  std::atomic<std::thread::id> worker_id_{};
  std::atomic<Seq> running_{0};
  bool started_ = false, stopping_ = false;
  std::thread worker_;
};

}  // namespace smemlab::runtime
