// DeviceQueue: submission order, waits and queries, per-stream tails,
// operations an operation submits (inline), SMEMLAB_SYNC's inline mode, and
// a wait that releases the driver's lock its caller holds.
#include "runtime/device_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <vector>

namespace smemlab::runtime {
namespace {

TEST(DeviceQueue, RunsInSubmissionOrderOnTheWorker) {
  DriverMutex mu;
  DeviceQueue q(mu, false);
  std::vector<int> order;
  std::atomic<bool> on_worker{true};
  const int a = 1, b = 2;
  for (int i = 0; i < 50; ++i)
    q.submit(i % 2 ? &a : &b, [&, i] {
      order.push_back(i);
      on_worker = on_worker && q.on_worker();
    });
  q.wait_all();
  ASSERT_EQ(order.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(order[i], i);
  EXPECT_TRUE(on_worker);
  EXPECT_FALSE(q.on_worker());
  EXPECT_EQ(q.last_of(&a), 50u);  // stream a got the odd operations: the last is the 50th
  EXPECT_EQ(q.last_of(&b), 49u);
  EXPECT_EQ(q.last_of(nullptr), 0u);
}

TEST(DeviceQueue, QueriesSayNotDoneWhileAnOperationRuns) {
  DriverMutex mu;
  DeviceQueue q(mu, false);
  std::atomic<bool> release{false}, started{false};
  const int s = 0;
  auto seq = q.submit(&s, [&] {
    started = true;
    while (!release) std::this_thread::yield();
  });
  while (!started) std::this_thread::yield();
  EXPECT_FALSE(q.done(seq));
  EXPECT_EQ(q.host_waiting().load(), 0);  // the host runs
  release = true;
  q.wait(seq);
  EXPECT_TRUE(q.done(seq));
  EXPECT_EQ(q.host_waiting().load(), 0);
}

TEST(DeviceQueue, AnOperationsOwnOperationsRunInlineAndCountAsIt) {
  DriverMutex mu;
  DeviceQueue q(mu, false);
  std::vector<int> order;
  const int s = 0, t = 1;
  auto outer = q.submit(&s, [&] {
    order.push_back(1);
    auto inner = q.submit(&t, [&] { order.push_back(2); });
    EXPECT_EQ(inner, q.running());
    order.push_back(3);
  });
  q.wait(outer);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(q.last_of(&t), outer);
  EXPECT_EQ(q.submitted(), outer);
}

TEST(DeviceQueue, SynchronousModeRunsInTheCaller) {
  DriverMutex mu;
  DeviceQueue q(mu, true);
  bool ran = false;
  const int s = 0;
  auto seq = q.submit(&s, [&] {
    ran = true;
    EXPECT_EQ(q.host_waiting().load(), 1);  // the host is inside the call
  });
  EXPECT_TRUE(ran);
  EXPECT_TRUE(q.done(seq));
  EXPECT_EQ(q.host_waiting().load(), 0);
}

TEST(DeviceQueue, AWaitGivesUpTheDriversLockItsCallerHolds) {
  DriverMutex mu;
  DeviceQueue q(mu, false);
  const int s = 0;
  std::lock_guard<DriverMutex> outer(mu);
  std::lock_guard<DriverMutex> nested(mu);
  EXPECT_EQ(DriverMutex::depth(), 2);
  bool ran = false;
  auto seq = q.submit(&s, [&] { ran = true; });  // the worker takes `mu` to run it
  q.wait(seq);
  EXPECT_TRUE(ran);
  EXPECT_EQ(DriverMutex::depth(), 2);
}

}  // namespace
}  // namespace smemlab::runtime
