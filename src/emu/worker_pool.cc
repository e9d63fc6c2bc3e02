#include "emu/worker_pool.h"

#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace smemlab::emu {
namespace {

// One launch's jobs: how many copies are still running.
struct Batch {
  std::mutex mu;
  std::condition_variable cv;
  unsigned running = 0;
  void done() {
    std::lock_guard<std::mutex> lock(mu);
    if (--running == 0) cv.notify_all();
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

  void submit(Task t) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(t);
    }
    cv_.notify_one();
  }

 private:
  void loop() {
    for (;;) {
      Task t;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !queue_.empty(); });
        t = queue_.front();
        queue_.pop_front();
      }
      (*t.job)();
      t.batch->done();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
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
    for (unsigned i = 0; i < n; ++i) p.submit({&job, &batch});
  }
  std::exception_ptr failed;
  try {
    job();
  } catch (...) {
    failed = std::current_exception();
  }
  {
    std::unique_lock<std::mutex> lock(batch.mu);
    batch.cv.wait(lock, [&] { return batch.running == 0; });
  }
  if (failed) std::rethrow_exception(failed);
}

}  // namespace smemlab::emu
