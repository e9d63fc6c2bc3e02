#include "bank/bank.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "bank/ldmatrix.h"
#include "bank/models.h"
#include "bank/test_util.h"

namespace smemlab::bank {
namespace {

using testing::make_request;

TEST(Bank, Sm90Stride32IsA32WayConflict) {
  auto m = make_model("sm_90");
  Result r = m->evaluate(make_request(Op::Load, 4, [](unsigned i) { return i * 128; }));
  EXPECT_EQ(r.wavefronts, 32u);
  EXPECT_EQ(r.ideal, 1u);
  EXPECT_EQ(r.bank_conflicts, 31u);
  EXPECT_EQ(r.ways, 32u);
  ASSERT_EQ(r.passes.size(), 32u);
  EXPECT_EQ(r.passes[5].slots.size(), 1u);
  EXPECT_EQ(r.passes[5].slots[0].lanes, 1u << 5);
}

TEST(Bank, Sm90SameWordBroadcastsAndStoresCostNothingExtra) {
  auto m = make_model("sm_90");
  for (Op op : {Op::Load, Op::Store}) {
    Result r = m->evaluate(make_request(op, 4, [](unsigned) { return 64; }));
    EXPECT_EQ(r.wavefronts, 1u);
    EXPECT_EQ(r.passes[0].slots[0].lanes, 0xffffffffu);
  }
  // Bytes of one word are one word.
  Result r = m->evaluate(make_request(Op::Load, 1, [](unsigned i) { return i; }));
  EXPECT_EQ(r.wavefronts, 1u);
}

TEST(Bank, Sm90AtomicsSerializeLanesOnOneBank) {
  auto m = make_model("sm_90");
  Result r = m->evaluate(make_request(Op::Atomic, 4, [](unsigned) { return 0; }));
  EXPECT_EQ(r.wavefronts, 32u);
  r = m->evaluate(make_request(Op::Atomic, 4, [](unsigned i) { return 4 * i; }));
  EXPECT_EQ(r.wavefronts, 1u);
}

TEST(Bank, Sm90WideAccessesUseLaneGroups) {
  auto m = make_model("sm_90");
  Result r8 = m->evaluate(make_request(Op::Store, 8, [](unsigned i) { return 8 * i; }));
  EXPECT_EQ(r8.wavefronts, 2u);
  EXPECT_EQ(r8.ideal, 2u);
  EXPECT_EQ(r8.ways, 1u);
  Result r16 = m->evaluate(make_request(Op::Load, 16, [](unsigned i) { return 16 * i; }));
  EXPECT_EQ(r16.wavefronts, 4u);
  EXPECT_EQ(r16.bank_conflicts, 0u);
  // A 16-byte broadcast still costs two passes: halves never merge.
  Result b16 = m->evaluate(make_request(Op::Load, 16, [](unsigned) { return 32; }));
  EXPECT_EQ(b16.wavefronts, 2u);
  // Stores never merge: one group per quarter.
  Result s16 = m->evaluate(make_request(Op::Store, 16, [](unsigned) { return 32; }));
  EXPECT_EQ(s16.wavefronts, 4u);
}

TEST(Bank, InactiveLanesAreIgnoredAndEmptyMaskCostsZero) {
  auto m = make_model("sm_90");
  Result r = m->evaluate(make_request(
      Op::Load, 4, [](unsigned i) { return i * 128; }, 0x1));
  EXPECT_EQ(r.wavefronts, 1u);
  Result z = m->evaluate(make_request(
      Op::Load, 4, [](unsigned i) { return i * 128; }, 0));
  EXPECT_EQ(z.wavefronts, 0u);
  EXPECT_EQ(z.ideal, 0u);
  EXPECT_TRUE(z.passes.empty());
}

TEST(Bank, BadRequestsAreErrors) {
  auto m = make_model("sm_90");
  EXPECT_THROW(m->evaluate(make_request(Op::Load, 3, [](unsigned i) { return 3 * i; })), Error);
  EXPECT_THROW(m->evaluate(make_request(Op::Load, 8, [](unsigned i) { return 4 * i; })), Error);
  EXPECT_THROW(m->evaluate(make_request(Op::Atomic, 2, [](unsigned i) { return 2 * i; })), Error);
  // A misaligned address on an inactive lane is not an error.
  EXPECT_NO_THROW(m->evaluate(make_request(
      Op::Load, 8, [](unsigned i) { return i ? 8 * i : 4; }, ~1u)));
  try {
    m->evaluate(make_request(Op::Load, 4, [](unsigned i) { return i == 7 ? 30 : 4 * i; }));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lane 7"), std::string::npos) << e.what();
  }
}

TEST(Bank, ArchitectureNames) {
  EXPECT_EQ(make_model("sm_90")->name(), "sm_90");
  EXPECT_EQ(make_model("sm_90a")->name(), "sm_90");
  EXPECT_EQ(make_model("sm_35")->name(), "sm_35:4");
  EXPECT_EQ(make_model("sm_35:8")->name(), "sm_35:8");
  EXPECT_EQ(make_model("sm_30", 8)->name(), "sm_30:8");
  EXPECT_NE(make_model("sm_100")->description().find("not measured"), std::string::npos);
  EXPECT_NE(make_model("sm_120")->description().find("not measured"), std::string::npos);
  EXPECT_THROW(make_model("sm_90:8"), Error);
  EXPECT_THROW(make_model("sm_35:5"), Error);
  EXPECT_THROW(make_model("sm_61"), Error);
  EXPECT_THROW(make_model("hopper"), Error);
  EXPECT_THROW(make_model("sm_"), Error);
  EXPECT_THROW(make_model("sm_999"), Error);
  EXPECT_EQ(all_generations().size(), 5u);
  EXPECT_EQ(parse_op("st"), Op::Store);
  EXPECT_THROW(parse_op("load2"), Error);
}

// Whatever the model, every word an active lane touches is served exactly
// once by one of the passes, and the pass count is the wavefront count.
TEST(Bank, PassesServeEveryLaneWordExactlyOnce) {
  std::mt19937 rng(1234);
  for (const char* arch : {"sm_90", "sm_35:4", "sm_35:8", "sm_20", "sm_13"}) {
    auto m = make_model(arch);
    for (int trial = 0; trial < 300; ++trial) {
      unsigned width = 1u << (rng() % 5);
      Request r = make_request(
          Op::Load, width, [&](unsigned) { return width * (rng() % 96); },
          static_cast<uint32_t>(rng()) | 1u);
      r.op = trial % 2 ? Op::Load : Op::Store;
      Result res = m->evaluate(r);
      ASSERT_EQ(res.passes.size(), res.wavefronts) << arch;
      EXPECT_GE(res.wavefronts, res.ideal);
      EXPECT_GE(res.worst_wavefronts, res.wavefronts);
      unsigned unit = m->bank_bytes();
      for (unsigned lane = 0; lane < 32; ++lane) {
        if (!(r.mask >> lane & 1u)) continue;
        for (uint64_t w = r.addr[lane] / unit; w <= (r.addr[lane] + width - 1) / unit; ++w) {
          // CC 1.x splits 8/16-byte accesses into 32-bit parts; count slots
          // carrying this (lane, word).
          int seen = 0;
          for (const auto& p : res.passes)
            for (const auto& s : p.slots)
              if (s.word == w && (s.lanes >> lane & 1u)) {
                ++seen;
                EXPECT_EQ(s.bank, w % m->banks());
              }
          EXPECT_EQ(seen, 1) << arch << " lane " << lane << " word " << w;
        }
      }
    }
  }
}

// What callers memoize on (Model::period): shifting every address by a
// multiple of the width's period leaves every count and the refusal unchanged, for
// random requests of every width, op and mask, misaligned ones included; and
// half the period does change some request (the period is not padded).
TEST(Bank, CostsDependOnlyOnThePatternModuloThePeriod) {
  std::mt19937_64 rng(std::random_device{}());
  auto outcome = [](const Model& m, const Request& r, const MatrixRequest* mx) {
    try {
      Result res = mx ? m.evaluate_matrix(*mx) : m.evaluate(r);
      return std::vector<unsigned>{res.wavefronts, res.ideal, res.bank_conflicts, res.ways,
                                   res.worst_wavefronts};
    } catch (const Error&) {
      return std::vector<unsigned>{~0u};
    }
  };
  for (const char* arch : {"sm_90", "sm_75", "sm_70", "sm_35:4", "sm_35:8", "sm_20", "sm_13"}) {
    auto m = make_model(arch);
    bool half_matters = false;
    for (int trial = 0; trial < 400; ++trial) {
      unsigned width = 1u << (rng() % 5);
      Request r = make_request(
          Op::Load, width, [&](unsigned) { return width * (rng() % 96) + 4096; },
          rng() % 4 ? static_cast<uint32_t>(rng()) : 0xffffffffu);
      r.op = static_cast<Op>(rng() % 3);
      if (rng() % 10 == 0) r.addr[rng() % 32] += rng() % 16;  // misaligned, sometimes
      MatrixRequest mx;
      bool matrix = rng() % 4 == 0;
      if (matrix) {
        mx.store = rng() % 2;
        mx.matrices = 1u << (rng() % 3);
        mx.mask = r.mask;
        for (unsigned l = 0; l < 32; ++l) mx.addr[l] = 16 * (rng() % 64) + 4096;
      }
      auto shifted = [&](int64_t by) {
        Request s = r;
        MatrixRequest t = mx;
        for (unsigned l = 0; l < 32; ++l) {
          s.addr[l] = static_cast<uint64_t>(static_cast<int64_t>(s.addr[l]) + by);
          t.addr[l] = static_cast<uint64_t>(static_cast<int64_t>(t.addr[l]) + by);
        }
        return outcome(*m, s, matrix ? &t : nullptr);
      };
      uint64_t period = m->period(matrix ? 16 : width);
      ASSERT_EQ(period % (matrix ? 16 : width), 0u) << arch;
      auto base = outcome(*m, r, matrix ? &mx : nullptr);
      int64_t k = static_cast<int64_t>(rng() % 64) - 16;
      ASSERT_EQ(shifted(k * static_cast<int64_t>(period)), base) << arch << " trial " << trial;
      if (shifted(static_cast<int64_t>(period / 2)) != base) half_matters = true;
    }
    EXPECT_TRUE(half_matters) << arch;
  }
}

// Model::cost is evaluate's counts without the passes, through a separate
// count (count_in_groups) on the models that override it: on random
// requests of every op, width and mask -- clustered addresses for
// conflicts and broadcasts, pairs of lanes on one address for the load
// merge, misaligned lanes now and then -- both give the same counts, or
// the same Error.
TEST(Bank, CostMatchesEvaluateOnRandomRequests) {
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  auto counts = [](auto&& run) {
    try {
      Cost c = run();
      return std::vector<unsigned>{c.wavefronts, c.ideal, c.bank_conflicts, c.ways,
                                   c.worst_wavefronts};
    } catch (const Error& e) {
      return std::vector<unsigned>{~0u, static_cast<unsigned>(std::hash<std::string>{}(e.what()))};
    }
  };
  for (const char* arch :
       {"sm_90", "sm_80", "sm_70", "sm_120", "sm_35:4", "sm_35:8", "sm_20", "sm_13"}) {
    auto m = make_model(arch);
    unsigned conflicted = 0;
    for (int trial = 0; trial < 3000; ++trial) {
      const unsigned width = 1u << (rng() % 5);
      const unsigned span = 1u + static_cast<unsigned>(rng() % 512);  // in widths
      Request r = make_request(
          static_cast<Op>(rng() % 3), width, [&](unsigned) { return width * (rng() % span); },
          rng() % 3 ? 0xffffffffu : static_cast<uint32_t>(rng() >> (rng() % 33)));
      if (rng() % 4 == 0)  // lanes pair up (i ^ 1 or i ^ 2): loads may merge
        for (unsigned l = 0, d = 1u + rng() % 2; l < 32; ++l) r.addr[l] = r.addr[l & ~d];
      if (rng() % 20 == 0) r.addr[rng() % 32] += 1 + rng() % 15;  // misaligned, sometimes
      if (rng() % 20 == 0) r.width = 3;                           // unsupported width
      auto full = counts([&] { return cost_of(m->evaluate(r)); });
      auto fast = counts([&] { return m->cost(r); });
      ASSERT_EQ(fast, full) << arch << " trial " << trial << " seed " << seed;
      if (full.size() == 5 && full[2] > 0) ++conflicted;
    }
    EXPECT_GT(conflicted, 100u) << arch;  // the trials reach the conflict paths
  }
}

// serve_group (chains per bank, touches sorted into slots) against the
// rule written plainly: the k-th distinct key of a bank in touch order goes
// to pass k, each pass's slots are its distinct (bank, word) pairs with the
// lanes that asked, sorted by bank then word. Random touches, keys as the
// models make them (the word, the 256-byte row, the lane), more than 128 of
// them now and then; a quarter of the trials keep to one word per bank
// (conflict-free but for lane keys), the rest conflict.
TEST(Bank, ServeGroupMatchesThePlainRule) {
  using detail::Touch;
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  auto plain = [](const std::vector<Touch>& t, unsigned group, std::vector<Wavefront>& passes) {
    std::vector<unsigned> pass(t.size());
    std::vector<std::vector<uint64_t>> keys(64);
    unsigned cost = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      auto& k = keys[t[i].bank];
      auto it = std::find(k.begin(), k.end(), t[i].key);
      pass[i] = static_cast<unsigned>(it - k.begin());
      if (it == k.end()) k.push_back(t[i].key);
      cost = std::max(cost, pass[i] + 1);
    }
    size_t base = passes.size();
    passes.resize(base + cost);
    for (unsigned p = 0; p < cost; ++p) {
      passes[base + p].group = group;
      auto& slots = passes[base + p].slots;
      for (size_t i = 0; i < t.size(); ++i) {
        if (pass[i] != p) continue;
        auto it = std::find_if(slots.begin(), slots.end(), [&](const Slot& s) {
          return s.bank == t[i].bank && s.word == t[i].word;
        });
        if (it == slots.end()) it = slots.insert(slots.end(), {t[i].bank, t[i].word, 0});
        it->lanes |= 1u << t[i].lane;
      }
      std::sort(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) {
        return a.bank != b.bank ? a.bank < b.bank : a.word < b.word;
      });
    }
    return cost;
  };
  for (int trial = 0; trial < 3000; ++trial) {
    const unsigned banks = rng() % 2 ? 32 : 16;
    const size_t n = rng() % 8 == 0 ? 129 + rng() % 40 : rng() % 129;
    const uint64_t words = 1 + rng() % 300;
    const unsigned keying = static_cast<unsigned>(rng() % 3);
    // One word per bank: `banks` consecutive words, or fewer.
    const bool one_word_per_bank = rng() % 4 == 0;
    const uint64_t base = rng() % 1000, spread = 1 + rng() % banks;
    std::vector<Touch> touches;
    for (size_t i = 0; i < n; ++i) {
      const unsigned lane = static_cast<unsigned>(rng() % 32);
      const uint64_t w = one_word_per_bank ? base + rng() % spread : rng() % words;
      const uint64_t key = keying == 0 ? w : keying == 1 ? w / 64 : lane;
      touches.push_back({lane, static_cast<unsigned>(w % banks), w, key});
    }
    std::vector<Wavefront> got(1), want(1);  // appended after an earlier group's pass
    const unsigned group = static_cast<unsigned>(rng() % 4);
    ASSERT_EQ(detail::serve_group(touches, group, got), plain(touches, group, want))
        << "seed " << seed << " trial " << trial;
    ASSERT_EQ(got.size(), want.size());
    for (size_t p = 0; p < got.size(); ++p) {
      ASSERT_EQ(got[p].group, want[p].group) << "seed " << seed << " trial " << trial;
      ASSERT_EQ(got[p].slots.size(), want[p].slots.size()) << "seed " << seed << " trial " << trial;
      for (size_t k = 0; k < got[p].slots.size(); ++k) {
        const Slot &a = got[p].slots[k], &b = want[p].slots[k];
        ASSERT_TRUE(a.bank == b.bank && a.word == b.word && a.lanes == b.lanes)
            << "seed " << seed << " trial " << trial << " pass " << p << " slot " << k;
      }
    }
  }
}

}  // namespace
}  // namespace smemlab::bank
