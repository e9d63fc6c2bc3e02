// The CC 1.x model (a search over lane-count shapes) against a search over
// every concrete broadcast-word and per-bank choice, on small random patterns.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "bank/bank.h"
#include "bank/test_util.h"

namespace smemlab::bank {
namespace {

// words: the 32-bit word of each remaining lane (one half-warp, 16 banks).
void search(const std::vector<uint64_t>& words, unsigned depth, unsigned& lo, unsigned& hi) {
  if (words.empty()) {
    lo = std::min(lo, depth);
    hi = std::max(hi, depth);
    return;
  }
  std::vector<uint64_t> distinct = words;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (uint64_t bcast : distinct) {
    // Per other bank, the distinct words it could serve one lane of.
    std::map<unsigned, std::vector<uint64_t>> options;
    for (uint64_t w : distinct)
      if (w % 16 != bcast % 16) options[unsigned(w % 16)].push_back(w);
    std::vector<std::pair<unsigned, std::vector<uint64_t>>> banks(options.begin(), options.end());
    std::vector<size_t> choice(banks.size(), 0);
    while (true) {
      std::vector<uint64_t> rest;
      std::vector<bool> taken(banks.size(), false);
      for (uint64_t w : words) {
        if (w == bcast) continue;
        bool served = false;
        for (size_t b = 0; b < banks.size(); ++b)
          if (!taken[b] && banks[b].second[choice[b]] == w) served = taken[b] = true;
        if (!served) rest.push_back(w);
      }
      search(rest, depth + 1, lo, hi);
      size_t b = 0;
      while (b < banks.size() && ++choice[b] == banks[b].second.size()) choice[b++] = 0;
      if (b == banks.size()) break;
    }
  }
}

TEST(Tesla, BoundsAgainstAnIndependentSearchOverConcreteChoices) {
  auto m = make_model("sm_13");
  std::mt19937 rng(7);
  int differ = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    unsigned lanes = 2 + rng() % 7;
    // Few words over few banks, so repeats and conflicts are common.
    std::vector<uint64_t> words(lanes);
    for (auto& w : words) w = rng() % 3 * 16 + rng() % 3;
    Request r = testing::make_request(
        Op::Load, 4, [&](unsigned i) { return i < lanes ? 4 * words[i] : 0; }, (1u << lanes) - 1);
    Result res = m->evaluate(r);
    unsigned lo = ~0u, hi = 0;
    search(words, 0, lo, hi);
    EXPECT_EQ(res.wavefronts, lo) << "trial " << trial;
    EXPECT_EQ(res.worst_wavefronts, hi) << "trial " << trial;
    differ += lo != hi;
  }
  EXPECT_GT(differ, 0);  // the choice matters on some patterns
}

}  // namespace
}  // namespace smemlab::bank
