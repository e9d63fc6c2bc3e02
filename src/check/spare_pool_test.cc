#include "check/spare_pool.h"

#include <gtest/gtest.h>

namespace smemlab::check {
namespace {

struct Table {
  size_t size = 8;
  size_t bytes() const { return size; }
};

std::unique_ptr<Table> table(size_t size) {
  auto t = std::make_unique<Table>();
  t->size = size;
  return t;
}

TEST(SparePool, TakeHandsBackWhatWasGivenThenNewOnes) {
  SparePool<Table> pool(4, 100, 1000);
  auto t = table(10);
  const Table* given = t.get();
  pool.give(std::move(t));
  auto back = pool.take();
  EXPECT_EQ(back.get(), given);
  EXPECT_EQ(pool.take()->size, 8u);  // a new one
}

TEST(SparePool, KeepsWithinEveryBound) {
  SparePool<Table> by_count(2, 100, 1000);
  for (int i = 0; i < 3; ++i) by_count.give(table(10));
  EXPECT_EQ(by_count.take()->size, 10u);
  EXPECT_EQ(by_count.take()->size, 10u);
  EXPECT_EQ(by_count.take()->size, 8u);  // the third was dropped

  SparePool<Table> by_size(4, 100, 1000);
  by_size.give(table(101));
  EXPECT_EQ(by_size.take()->size, 8u);

  SparePool<Table> by_total(4, 100, 150);
  by_total.give(table(100));
  by_total.give(table(60));  // 160 > 150: dropped
  by_total.give(table(50));
  EXPECT_EQ(by_total.take()->size, 50u);
  EXPECT_EQ(by_total.take()->size, 100u);
  // Taking gives the bytes back: two of 75 fit again.
  by_total.give(table(75));
  by_total.give(table(75));
  EXPECT_EQ(by_total.take()->size, 75u);
  EXPECT_EQ(by_total.take()->size, 75u);
  EXPECT_EQ(by_total.take()->size, 8u);
}

}  // namespace
}  // namespace smemlab::check
