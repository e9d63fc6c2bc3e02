#include "fix/rewrite.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace smemlab::fix {
namespace {

SourceModel parse(const std::string& text) {
  std::string path = ::testing::TempDir() + "/rewrite_test_" + std::to_string(getpid()) + ".cu";
  std::ofstream(path) << text;
  return parse_source(path, {});
}

Layout layout(Change c, uint32_t width, uint32_t pad = 0, uint32_t unit = 1) {
  Layout l;
  l.change = c;
  l.width = width;
  l.pad = pad;
  l.unit = unit;
  return l;
}

const char* kTile = R"(__global__ void k(float* out) {
  __shared__ float tile[32][32];
  tile[threadIdx.y][threadIdx.x] = 1.f;
  out[0] = tile[threadIdx.x][threadIdx.y];
}
)";

TEST(Rewrite, PaddingA2DArrayChangesOnlyTheDeclaration) {
  SourceModel m = parse(kTile);
  std::string why;
  auto e = edits_for(m, m.arrays.at(0), layout(Change::Pad, 32, 1), &why);
  ASSERT_TRUE(e) << why;
  EXPECT_EQ(fix::apply(m.text, *e), R"(__global__ void k(float* out) {
  __shared__ float tile[32][32 + 1];
  tile[threadIdx.y][threadIdx.x] = 1.f;
  out[0] = tile[threadIdx.x][threadIdx.y];
}
)");
  EXPECT_EQ(unified_diff("k.cu", m.text, *e), R"(--- a/k.cu
+++ b/k.cu
@@ -1,5 +1,5 @@
 __global__ void k(float* out) {
-  __shared__ float tile[32][32];
+  __shared__ float tile[32][32 + 1];
   tile[threadIdx.y][threadIdx.x] = 1.f;
   out[0] = tile[threadIdx.x][threadIdx.y];
 }
)");
}

TEST(Rewrite, SwizzlingA2DArrayRewritesEveryColumnSubscript) {
  SourceModel m = parse(kTile);
  std::string why;
  auto e = edits_for(m, m.arrays.at(0), layout(Change::Swizzle, 32), &why);
  ASSERT_TRUE(e) << why;
  EXPECT_EQ(fix::apply(m.text, *e), R"(__global__ void k(float* out) {
  __shared__ float tile[32][32];
  tile[threadIdx.y][(threadIdx.x) ^ ((threadIdx.y) & 31)] = 1.f;
  out[0] = tile[threadIdx.x][(threadIdx.y) ^ ((threadIdx.x) & 31)];
}
)");
}

TEST(Rewrite, A1DArrayGetsImpliedRowsInDeclarationAndSubscripts) {
  SourceModel m = parse(R"(__global__ void k(float* out) {
  __shared__ float s[256];
  s[2 * threadIdx.x] = 1.f;
  out[0] = s[0];
}
)");
  std::string why;
  auto e = edits_for(m, m.arrays.at(0), layout(Change::Pad, 32, 1), &why);
  ASSERT_TRUE(e) << why;
  EXPECT_EQ(fix::apply(m.text, *e), R"(__global__ void k(float* out) {
  __shared__ float s[(256) + (256) / 32 * 1];
  s[(2 * threadIdx.x) + (2 * threadIdx.x) / 32 * 1] = 1.f;
  out[0] = s[(0) + (0) / 32 * 1];
}
)");
  auto x = edits_for(m, m.arrays.at(0), layout(Change::Swizzle, 32, 0, 2), &why);
  ASSERT_TRUE(x) << why;
  EXPECT_NE(fix::apply(m.text, *x).find("s[(0) ^ ((((0) / 32) & 15) * 2)]"), std::string::npos);
}

TEST(Rewrite, RefusesWhatItCannotWrite) {
  SourceModel m = parse(R"(__global__ void k(float* out, int i) {
  __shared__ float tile[32][32];
  float* row = tile[i];
  tile[i++][0] = 1.f;
  out[0] = row[0];
}
)");
  std::string why;
  EXPECT_FALSE(edits_for(m, m.arrays.at(0), layout(Change::Swizzle, 32), &why));
  EXPECT_NE(why.find("line 3 uses the array with 1 of its 2 subscripts"), std::string::npos) << why;
  // Padding the declaration needs no subscript.
  EXPECT_TRUE(edits_for(m, m.arrays.at(0), layout(Change::Pad, 32, 1), &why));
}

TEST(Rewrite, DiffOfEditsFarApartHasTwoHunks) {
  std::string text;
  for (int i = 1; i <= 20; ++i) text += "line" + std::to_string(i) + "\n";
  const auto at = static_cast<unsigned>(text.find("line18"));
  Edits e = {{{4, 5}, "ONE"}, {{at + 4, at + 6}, "X"}};
  EXPECT_EQ(unified_diff("f", text, e), R"(--- a/f
+++ b/f
@@ -1,4 +1,4 @@
-line1
+lineONE
 line2
 line3
 line4
@@ -15,6 +15,6 @@
 line15
 line16
 line17
-line18
+lineX
 line19
 line20
)");
}

}  // namespace
}  // namespace smemlab::fix
