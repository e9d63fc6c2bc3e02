#include "emu/worker_pool.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace smemlab::emu {
namespace {

// Waking a sleeping thread takes tens of microseconds (more in a VM), which
// a launch of short blocks on many threads pays at both ends: the helpers
// wake one after another at its start, and the caller wakes after the last
// one at its end (a tenth of a 0.6 ms launch on 16 threads). So a thread
// that is about to sleep first polls for a while: helpers between one
// launch and the next (program mode, benchmarks), the caller for the last
// helpers. Polling spins on the CPU's pause hint first and yields only
// after that: a yield that finds other work is a context switch, and on a
// loaded machine every one of them does (program mode's host code between
// launches was two thirds kernel time in sched_yield that way).
constexpr auto kPoll = std::chrono::microseconds(200);
constexpr unsigned kSpins = 256;  // pause-spins before the first yield (~10-40 us)
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
template <class Ready>
bool poll_for(Ready ready) {
  for (unsigned i = 0; i < kSpins; ++i) {
    if (ready()) return true;
    cpu_relax();
  }
  const auto until = std::chrono::steady_clock::now() + kPoll;
  for (unsigned i = 1;; ++i) {
    if (ready()) return true;
    if (i % 16 == 0 && std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
}

// A helper polls between launches only while that pays: while the gaps it
// sees between the end of one job and the next job are shorter than the
// poll (launches back to back). After a longer gap (host code, copies,
// other work between launches) it sleeps at once, until a gap short
// enough to have been caught by polling is seen again.
class GapPolicy {
 public:
  bool poll() const { return poll_; }
  void idle_start() { since_ = std::chrono::steady_clock::now(); }
  void work_found(bool by_polling) {
    poll_ = by_polling || std::chrono::steady_clock::now() - since_ <= kPoll;
  }

 private:
  bool poll_ = true;
  std::chrono::steady_clock::time_point since_{};
};

// One launch's jobs: how many copies are still running.
struct Batch {
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<unsigned> running{0};
  void done() {
    std::lock_guard<std::mutex> lock(mu);  // (the waiter reads `running` under it)
    if (running.fetch_sub(1) == 1) cv.notify_all();
  }
};

struct Task {
  const std::function<void()>* job;
  Batch* batch;
};

class Pool {
 public:
  // Starts threads until `n` run (or the system refuses one); returns how
  // many run.
  unsigned grow(unsigned n) {
    std::lock_guard<std::mutex> lock(mu_);
    while (threads_ < n) {
      try {
        std::thread(&Pool::loop, this).detach();
      } catch (const std::system_error&) {
        break;
      }
      ++threads_;
    }
    return threads_;
  }

  // `n` copies of t, queued at once (one lock, one wake-up call).
  void submit(Task t, unsigned n) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.insert(queue_.end(), n, t);
      queued_.store(queue_.size());
    }
    if (n == 1)
      cv_.notify_one();
    else
      cv_.notify_all();
  }

 private:
  void loop() {
    GapPolicy gaps;
    for (;;) {
      gaps.idle_start();
      const bool polled =
          gaps.poll() && poll_for([&] { return queued_.load(std::memory_order_relaxed) > 0; });
      Task t;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !queue_.empty(); });
        gaps.work_found(polled);
        t = queue_.front();
        queue_.pop_front();
        queued_.store(queue_.size());
      }
      (*t.job)();
      t.batch->done();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  std::atomic<size_t> queued_{0};  // queue_.size(), for polling without the lock
  unsigned threads_ = 0;
};

// The pool lives as long as the process (never destroyed: its threads wait
// on it until exit). A process forked from one that had a pool has none of
// its threads, so it gets a pool of its own.
Pool& pool() {
  static std::mutex mu;
  static Pool* p = nullptr;
  static pid_t owner = 0;
  std::lock_guard<std::mutex> lock(mu);
  if (!p || owner != getpid()) {
    p = new Pool;
    owner = getpid();
  }
  return *p;
}

}  // namespace

void run_with_helpers(unsigned helpers, const std::function<void()>& job) {
  Batch batch;
  if (helpers > 0) {
    Pool& p = pool();
    // Jobs of launches running at the same time (program mode with several
    // host threads) share the queue; each launch asks for its own helpers.
    unsigned n = std::min(helpers, p.grow(helpers));
    batch.running = n;
    if (n > 0) p.submit({&job, &batch}, n);
  }
  std::exception_ptr failed;
  try {
    job();
  } catch (...) {
    failed = std::current_exception();
  }
  poll_for([&] { return batch.running.load(std::memory_order_relaxed) == 0; });
  {
    // (Also after polling saw 0: the last helper's done() may still hold the lock.)
    std::unique_lock<std::mutex> lock(batch.mu);
    batch.cv.wait(lock, [&] { return batch.running == 0; });
  }
  if (failed) std::rethrow_exception(failed);
}

}  // namespace smemlab::emu
