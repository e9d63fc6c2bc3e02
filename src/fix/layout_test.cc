#include "fix/layout.h"

#include <gtest/gtest.h>

#include <set>

#include "bank/bank.h"
#include "fix/whatif.h"

namespace smemlab::fix {
namespace {

Layout pad(uint32_t width, uint32_t p, uint32_t elem = 4) {
  Layout l;
  l.change = Change::Pad;
  l.elem = elem;
  l.width = width;
  l.pad = p;
  return l;
}

Layout swizzle(uint32_t width, uint32_t unit = 1, uint32_t rows = 0, uint32_t elem = 4) {
  Layout l;
  l.change = Change::Swizzle;
  l.elem = elem;
  l.width = width;
  l.unit = unit;
  l.rows = rows;
  return l;
}

TEST(Layout, PadMovesEachRowByThePadding) {
  Layout l = pad(32, 1);
  EXPECT_EQ(l.remap(0), 0u);
  EXPECT_EQ(l.remap(124), 124u);  // last element of row 0
  EXPECT_EQ(l.remap(128), 132u);  // row 1 starts one element later
  EXPECT_EQ(l.remap(31 * 128 + 4), 31u * 132 + 4);
  EXPECT_EQ(l.bytes(4096), 4224u);          // float[32][33]
  EXPECT_EQ(l.bytes(4096 + 8), 4224u + 8);  // a partial last row keeps its length
}

TEST(Layout, SwizzleXorsTheColumnByTheRowAndStaysABijection) {
  Layout l = swizzle(32, 1, 32);
  EXPECT_EQ(l.remap(128), 128u + 4);              // (1,0) -> (1,1)
  EXPECT_EQ(l.remap(3 * 128 + 8), 3u * 128 + 4);  // (3,2) -> (3,1)
  std::set<uint64_t> seen;
  for (uint64_t o = 0; o < 4096; o += 4) seen.insert(l.remap(o));
  EXPECT_EQ(seen.size(), 1024u);
  EXPECT_EQ(*seen.rbegin(), 4092u);
  EXPECT_EQ(l.bytes(4096), 4096u);
}

TEST(Layout, SwizzleUnitsKeepVectorsTogether) {
  Layout l = swizzle(32, 4);  // float4 units, 8 per row
  // Row 1: unit u -> u ^ 1; the four floats of a unit stay adjacent.
  EXPECT_EQ(l.remap(128 + 0), 128u + 16);
  EXPECT_EQ(l.remap(128 + 12), 128u + 28);
  EXPECT_EQ(l.remap(128 + 16), 128u + 0);
}

// The column read of a 32x32 int tile: 32 wavefronts per request; padded
// by one element or swizzled, 1.
TEST(WhatIf, ColumnReadOfASquareTileBecomesConflictFree) {
  std::vector<SharedAccess> acc(1);
  acc[0].count = 32;
  acc[0].request.op = bank::Op::Load;
  acc[0].request.width = 4;
  for (unsigned lane = 0; lane < 32; ++lane) acc[0].request.addr[lane] = lane * 128 + 8;
  auto model = bank::make_model("sm_90");
  Span span{0, 4096};
  Cost before = cost_of(acc, span, nullptr, *model);
  EXPECT_EQ(before.requests, 32u);
  EXPECT_EQ(before.wavefronts, 32u * 32);
  Layout p = pad(32, 1), s = swizzle(32, 1, 32);
  EXPECT_EQ(cost_of(acc, span, &p, *model).wavefronts, 32u);
  EXPECT_EQ(cost_of(acc, span, &s, *model).wavefronts, 32u);
  Layout p2 = pad(32, 2);  // stride 34 words: 2-way
  EXPECT_EQ(cost_of(acc, span, &p2, *model).wavefronts, 64u);
  // Outside the span nothing moves or counts.
  EXPECT_EQ(cost_of(acc, Span{8192, 4096}, &p, *model).requests, 0u);
}

TEST(WhatIf, ALayoutThatMisalignsAVectorAccessIsInvalid) {
  std::vector<SharedAccess> acc(1);
  acc[0].count = 1;
  acc[0].request.width = 16;
  for (unsigned lane = 0; lane < 32; ++lane) acc[0].request.addr[lane] = lane * 128;
  auto model = bank::make_model("sm_90");
  Layout p = pad(32, 1);
  Cost c = cost_of(acc, Span{0, 4096}, &p, *model);
  EXPECT_FALSE(c.valid);
  EXPECT_FALSE(c.error.empty());
}

}  // namespace
}  // namespace smemlab::fix
