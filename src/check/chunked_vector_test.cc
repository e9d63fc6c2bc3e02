// ChunkedVector against std::vector: same elements across chunk boundaries,
// elements never move, and reuse after clear() starts from default values.
#include "check/chunked_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace smemlab::check {
namespace {

struct Item {
  uint64_t a = 7;
  uint32_t b = 0;
};

TEST(ChunkedVector, GrowsInChunksWithoutMovingElements) {
  ChunkedVector<Item, 3> v;  // chunks of 8
  std::vector<uint64_t> want;
  for (int round = 0; round < 2; ++round) {
    const Item* first = nullptr;
    for (size_t n : {1u, 7u, 1u, 32u, 5u}) {
      size_t start = v.size();
      v.grow(n);
      ASSERT_EQ(v.size(), start + n);
      for (size_t i = start; i < v.size(); ++i) {
        EXPECT_EQ(v[i].a, 7u) << i;  // default-initialized, also after clear()
        v[i].a = i * 3 + static_cast<uint64_t>(round);
        want.push_back(v[i].a);
      }
      if (!first) first = &v[0];
      EXPECT_EQ(first, &v[0]);  // never moved
    }
    v.emplace_back().b = 5;
    want.push_back(7);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(v[i].a, want[i]) << i;
    EXPECT_EQ(v[v.size() - 1].b, 5u);
    v.clear();
    want.clear();
    EXPECT_EQ(v.size(), 0u);
  }
}

}  // namespace
}  // namespace smemlab::check
