// WordMap and LineMap against std::map: dense slots in first-insertion
// order, lines visited in increasing order, and both reusable after clear().
#include "check/word_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>
#include <vector>

namespace smemlab::check {
namespace {

// Keys clustered on a few pages (streams), spread over 2^52 (scatter), and
// the extremes of the line range.
uint64_t random_line(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return rng() % 200;
    case 1:
      return (uint64_t{1} << 30) + rng() % 5000;
    case 2:
      return rng() % (uint64_t{1} << 57);
    default:
      return (uint64_t{1} << 57) - 1 - rng() % 40;
  }
}

TEST(LineMap, SlotsInInsertionOrderAndLinesInAddressOrder) {
  std::mt19937_64 rng(7);
  LineMap lines;
  WordMap words;
  for (int round = 0; round < 4; ++round) {
    std::map<uint64_t, uint32_t> want;
    // Round 2 is small after a large one: clear() must leave nothing behind.
    int n = round == 2 ? 10 : 3000 + round * 1000;
    for (int i = 0; i < n; ++i) {
      uint64_t line = random_line(rng);
      auto [it, fresh] = want.try_emplace(line, static_cast<uint32_t>(want.size()));
      ASSERT_EQ(lines.slot(line), it->second) << "line " << line;
      ASSERT_EQ(words.slot(line), it->second) << "key " << line;
      if (!fresh) continue;
      ASSERT_EQ(lines.slot(line), it->second);  // and again, found
    }
    ASSERT_EQ(lines.size(), want.size());
    ASSERT_EQ(words.size(), want.size());
    std::vector<std::pair<uint64_t, uint32_t>> seen;
    lines.for_each_in_order([&](uint32_t slot, uint64_t line) { seen.emplace_back(line, slot); });
    using Pairs = std::vector<std::pair<uint64_t, uint32_t>>;
    EXPECT_EQ(seen, Pairs(want.begin(), want.end()));
    for (const auto& [key, slot] : want) EXPECT_EQ(words.keys()[slot], key);
    lines.clear();
    words.clear();
    EXPECT_EQ(lines.size(), 0u);
    EXPECT_EQ(words.size(), 0u);
  }
}

}  // namespace
}  // namespace smemlab::check
