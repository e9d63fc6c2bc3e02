// The classic per-generation results: Professional CUDA C ch. 5 tiles, the
// CUDA guide's Kepler and CC 1.x examples.
#include <gtest/gtest.h>

#include <numeric>

#include "bank/bank.h"
#include "bank/test_util.h"

namespace smemlab::bank {
namespace {

using testing::block_cost;
using testing::make_request;

// Wavefronts per request of one 32x32 block reading a square tile of
// `elem`-byte elements with `pad` extra columns: by row (tile[ty][tx]) or
// by column (tile[tx][ty]).
double per_request(const char* arch, unsigned elem, unsigned pad, bool by_column) {
  auto m = make_model(arch);
  unsigned row = (32 + pad) * elem;
  auto c = block_cost(*m, Op::Load, elem, 32, 32, [&](unsigned tx, unsigned ty) {
    return by_column ? uint64_t(tx) * row + ty * elem : uint64_t(ty) * row + tx * elem;
  });
  return double(c.wavefronts) / c.requests;
}

TEST(Tiles, SetRowReadRowIsConflictFreeEverywhere) {
  EXPECT_EQ(per_request("sm_90", 4, 0, false), 1.0);
  EXPECT_EQ(per_request("sm_20", 4, 0, false), 1.0);
  EXPECT_EQ(per_request("sm_35:4", 4, 0, false), 1.0);
  EXPECT_EQ(per_request("sm_35:8", 4, 0, false), 1.0);
  EXPECT_EQ(per_request("sm_13", 4, 0, false), 2.0);  // two half-warps, one step each
}

TEST(Tiles, SetColReadColPerGeneration) {
  EXPECT_EQ(per_request("sm_90", 4, 0, true), 32.0);
  EXPECT_EQ(per_request("sm_20", 4, 0, true), 32.0);
  EXPECT_EQ(per_request("sm_35:4", 4, 0, true), 16.0);
  EXPECT_EQ(per_request("sm_35:8", 4, 0, true), 16.0);
  EXPECT_EQ(per_request("sm_13", 4, 0, true), 32.0);  // 16 per half-warp
}

TEST(Tiles, PaddingTheColumnRead) {
  EXPECT_EQ(per_request("sm_90", 4, 1, true), 1.0);
  EXPECT_EQ(per_request("sm_90", 4, 2, true), 2.0);
  EXPECT_EQ(per_request("sm_20", 4, 1, true), 1.0);
  EXPECT_EQ(per_request("sm_35:4", 4, 1, true), 1.0);
  EXPECT_EQ(per_request("sm_13", 4, 1, true), 2.0);
}

TEST(Tiles, DoubleTile) {
  EXPECT_EQ(per_request("sm_90", 8, 0, false), 2.0);  // the 64-bit floor: two half-warps
  EXPECT_EQ(per_request("sm_90", 8, 0, true), 32.0);
  EXPECT_EQ(per_request("sm_90", 8, 1, true), 2.0);
  EXPECT_EQ(per_request("sm_35:8", 8, 0, false), 1.0);
  EXPECT_EQ(per_request("sm_35:8", 8, 1, true), 1.0);
}

// setRowReadColRect: block 32x16, int tile[16][32 + pad], written by row,
// read back transposed: idx = ty*32 + tx, tile[idx % 16][idx / 16].
double rect_per_request(const char* arch, unsigned pad) {
  auto m = make_model(arch);
  unsigned row = 32 + pad;
  auto c = block_cost(*m, Op::Load, 4, 32, 16, [&](unsigned tx, unsigned ty) {
    unsigned idx = ty * 32 + tx, irow = idx / 16, icol = idx % 16;
    return (uint64_t(icol) * row + irow) * 4;
  });
  return double(c.wavefronts) / c.requests;
}

TEST(Tiles, RectangularTiles) {
  EXPECT_EQ(rect_per_request("sm_90", 0), 16.0);
  // One column of padding leaves the two half-warps' banks overlapping
  // (banks icol+irow and icol+irow+1): 2-way; two columns separate them.
  EXPECT_EQ(rect_per_request("sm_90", 1), 2.0);
  EXPECT_EQ(rect_per_request("sm_90", 2), 1.0);
  EXPECT_EQ(rect_per_request("sm_20", 0), 16.0);
  EXPECT_EQ(rect_per_request("sm_35:4", 0), 8.0);
}

TEST(Kepler, Float2OffTheRowBoundaryConflictsOnlyIn4ByteMode) {
  auto m4 = make_model("sm_35", 4), m8 = make_model("sm_35", 8);
  for (uint64_t base : {8u, 64u, 128u, 248u}) {
    Request r = make_request(Op::Load, 8, [&](unsigned i) { return base + 8 * i; });
    EXPECT_EQ(m4->evaluate(r).wavefronts, 2u) << base;
    EXPECT_EQ(m8->evaluate(r).wavefronts, 1u) << base;
  }
  Request aligned = make_request(Op::Load, 8, [](unsigned i) { return 256 + 8 * i; });
  EXPECT_EQ(m4->evaluate(aligned).wavefronts, 1u);
  EXPECT_EQ(m8->evaluate(aligned).wavefronts, 1u);
}

TEST(Tesla, StridedAccessIsConflictFreeIffStrideIsOdd) {
  auto m = make_model("sm_13");
  for (unsigned s = 1; s <= 64; ++s) {
    for (unsigned base = 0; base < 40; base += 3) {
      Request r = make_request(Op::Load, 4, [&](unsigned tid) { return 4ull * (base + s * tid); });
      Result res = m->evaluate(r);
      bool conflict_free = res.wavefronts == res.ideal;
      EXPECT_EQ(conflict_free, s % 2 == 1) << "s=" << s << " base=" << base;
      // Per half-warp: threads tid, tid+n collide iff 16 | s*n, so the
      // ways are 16 / (16 / gcd(16, s)) = gcd(16, s).
      EXPECT_EQ(res.wavefronts, 2 * std::gcd(16u, s)) << "s=" << s;
      EXPECT_EQ(res.worst_wavefronts, res.wavefronts);
    }
  }
}

TEST(Tesla, BroadcastExamplesOfTheGuide) {
  auto m = make_model("sm_13");
  // Every thread reads one word: one step per half-warp.
  Result all = m->evaluate(make_request(Op::Load, 4, [](unsigned) { return 20; }));
  EXPECT_EQ(all.wavefronts, 2u);
  EXPECT_EQ(all.worst_wavefronts, 2u);
  // Several threads share the word of bank 5, the rest hit other banks:
  // conflict-free if that word is the broadcast word, 2-way otherwise.
  Result choice = m->evaluate(make_request(Op::Load, 4, [](unsigned tid) {
    unsigned t = tid % 16;
    return t == 3 || t == 4 || t == 6 ? 4ull * 5 : 4ull * (t == 5 ? 3 : t);
  }));
  EXPECT_EQ(choice.wavefronts, 2u);
  EXPECT_EQ(choice.worst_wavefronts, 4u);
  // Bytes of one word are distinct addresses of one bank: char by tid conflicts.
  Result chars = m->evaluate(make_request(Op::Load, 1, [](unsigned tid) { return tid; }));
  EXPECT_GT(chars.wavefronts, chars.ideal);
  // A double array read by consecutive tid is a 2-way conflict.
  Result dbl = m->evaluate(make_request(Op::Load, 8, [](unsigned tid) { return 8ull * tid; }));
  EXPECT_EQ(dbl.ideal, 4u);
  EXPECT_EQ(dbl.wavefronts, 8u);
}

TEST(Fermi, WideAccesses) {
  auto m = make_model("sm_20");
  Result d = m->evaluate(make_request(Op::Load, 8, [](unsigned tid) { return 8ull * tid; }));
  EXPECT_EQ(d.wavefronts, 2u);
  EXPECT_EQ(d.bank_conflicts, 0u);
  // 128-bit: the guide's extra pass per quarter-warp even without conflicts.
  Result q = m->evaluate(make_request(Op::Load, 16, [](unsigned tid) { return 16ull * tid; }));
  EXPECT_EQ(q.wavefronts, 8u);
  EXPECT_EQ(q.ideal, 4u);
  EXPECT_EQ(q.ways, 2u);
  // 32-bit: any number of words broadcast in one pass.
  Result b = m->evaluate(make_request(Op::Load, 4, [](unsigned tid) { return 4ull * (tid % 4); }));
  EXPECT_EQ(b.wavefronts, 1u);
}

}  // namespace
}  // namespace smemlab::bank
