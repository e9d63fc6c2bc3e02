#include "emu/worker_pool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

namespace smemlab::emu {
namespace {

TEST(WorkerPool, EveryCopyHasReturnedWhenTheCallReturns) {
  for (unsigned helpers : {0u, 1u, 3u, 7u}) {
    std::atomic<unsigned> started{0}, finished{0};
    run_with_helpers(helpers, [&] {
      started.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      finished.fetch_add(1);
    });
    EXPECT_EQ(started.load(), finished.load());
    EXPECT_GE(started.load(), 1u);
    EXPECT_LE(started.load(), helpers + 1);
  }
}

TEST(WorkerPool, CopiesRunAtTheSameTime) {
  // Four copies that each wait until all four have arrived: only possible
  // when three helpers run beside the caller.
  std::atomic<unsigned> arrived{0};
  std::atomic<bool> all{false};
  run_with_helpers(3, [&] {
    arrived.fetch_add(1);
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < 4 && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
    if (arrived.load() == 4) all.store(true);
  });
  EXPECT_TRUE(all.load());
}

TEST(WorkerPool, ThreadsAreKeptBetweenCalls) {
  std::mutex mu;
  // Kernel thread ids, not std::thread::id: a joined thread's pthread_t is
  // soon reused, its tid is not.
  std::set<pid_t> seen;
  for (int call = 0; call < 50; ++call)
    run_with_helpers(3, [&] {
      std::lock_guard<std::mutex> lock(mu);
      seen.insert(gettid());
    });
  // The caller and at most the pool's threads (3 asked for here; other tests
  // in this process may have grown it to 7), never a new thread per call.
  EXPECT_LE(seen.size(), 8u);
}

TEST(WorkerPool, TheCallersExceptionWaitsForTheHelpers) {
  std::atomic<unsigned> finished{0};
  const auto caller = std::this_thread::get_id();
  EXPECT_THROW(run_with_helpers(2,
                                [&] {
                                  if (std::this_thread::get_id() == caller)
                                    throw std::runtime_error("observer failed");
                                  std::this_thread::sleep_for(std::chrono::milliseconds(20));
                                  finished.fetch_add(1);
                                }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 2u);
}

TEST(WorkerPool, AForkedChildGetsThreadsOfItsOwn) {
  // The parent has a pool now, and its threads have started. The wait
  // matters under ASan: GCC 12's allocator is not fork-safe, and a helper
  // still starting (the runtime frees memory then) can hold its lock at the
  // fork, so the child's first allocation waits forever (seen in CI: the
  // child killed by the alarm below, 11 times in 240 loaded runs).
  std::atomic<unsigned> arrived{0};
  run_with_helpers(2, [&] {
    arrived.fetch_add(1);
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < 3 && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
  });
  ASSERT_EQ(arrived.load(), 3u);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(20);  // a child waiting on its parent's threads would hang
    std::atomic<unsigned> ran{0};
    run_with_helpers(2, [&] { ran.fetch_add(1); });
    _exit(ran.load() >= 1 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
}  // namespace smemlab::emu
