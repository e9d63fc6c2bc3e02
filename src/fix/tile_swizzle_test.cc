#include "fix/tile_swizzle.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace smemlab::fix {
namespace {

// A kernel reading a TMA tile through byte offsets on line 10 and an element
// subscript on line 11, and a host encode whose swizzle argument is `SW`.
std::string program(const std::string& sw, const std::string& extra = "") {
  return R"(#include <cuda.h>
#include <cstdint>
#define SW_MACRO CU_TENSOR_MAP_SWIZZLE_NONE
__global__ void k(float* out) {
  extern __shared__ __align__(1024) uint8_t raw[];
  uint8_t* tile = raw;
  const float* f = reinterpret_cast<const float*>(raw);
  int r = threadIdx.x, c = threadIdx.y;
  out[0] = r;
  out[1] = *reinterpret_cast<const float*>(tile + (r * 128 + c * 4));
  out[2] = f[r * 32 + c];
  out[3] = r;
}
void host(void* g, int sw) {
  CUtensorMap m;
  cuuint64_t d[2] = {32, 64}, st[1] = {128};
  cuuint32_t b[2] = {32, 64}, e[2] = {1, 1};
  cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, g, d, st, b, e, CU_TENSOR_MAP_INTERLEAVE_NONE,
                         )" +
         sw + R"(, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
)" + extra +
         "}\n";
}

SourceModel parse_tile_source(const std::string& text) {
  std::string path =
      ::testing::TempDir() + "/tile_swizzle_test_" + std::to_string(getpid()) + ".cu";
  std::ofstream(path) << text;
  return parse_source(path, {});
}

TileSwizzle tile(std::vector<int> lines) {
  TileSwizzle t;
  t.from = 0, t.to = 3, t.row_bytes = 128, t.shared_base = 1024;
  t.reader_lines = std::move(lines);
  return t;
}

TEST(TileSwizzle, OffsetText) {
  EXPECT_EQ(swizzled_offset("o", 1, 0, 3), "((o) ^ (((o) >> 7 & 7) << 4))");
  EXPECT_EQ(swizzled_offset("i", 4, 0, 2), "((i) * 4 ^ (((i) * 4 >> 7 & 3) << 4)) / 4");
  // From 128B to 32B: undo bits 1..2 of the chunk XOR, keep bit 0.
  EXPECT_EQ(swizzled_offset("o", 1, 3, 1), "((o) ^ (((o) >> 7 & 6) << 4))");
}

TEST(TileSwizzle, RewritesTheEncodeAndEveryReader) {
  if (cuda_toolkit().empty()) GTEST_SKIP() << "no CUDA toolkit for the front end";
  SourceModel m = parse_tile_source(program("CU_TENSOR_MAP_SWIZZLE_NONE"));
  ASSERT_TRUE(m.diagnostics.empty()) << m.diagnostics.front();
  std::string why;
  auto edits = tile_swizzle_edits(m, tile({10, 11}), &why);
  ASSERT_TRUE(edits) << why;
  const std::string out = fix::apply(m.text, *edits);
  EXPECT_NE(out.find("tile + (((r * 128 + c * 4)) ^ ((((r * 128 + c * 4)) >> 7 & 7) << 4))"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("f[((r * 32 + c) * 4 ^ (((r * 32 + c) * 4 >> 7 & 7) << 4)) / 4]"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2"), std::string::npos) << out;
  EXPECT_EQ(edits->size(), 3u);
}

TEST(TileSwizzle, SaysWhyNotNamingTheLine) {
  if (cuda_toolkit().empty()) GTEST_SKIP() << "no CUDA toolkit for the front end";
  std::string why;
  // A value computed at run time.
  SourceModel m = parse_tile_source(program("static_cast<CUtensorMapSwizzle>(sw)"));
  EXPECT_FALSE(tile_swizzle_edits(m, tile({10}), &why));
  EXPECT_NE(why.find(":19:26: the swizzle is `static_cast<CUtensorMapSwizzle>(sw)`, a value "
                     "computed at run time"),
            std::string::npos)
      << why;
  // A macro.
  m = parse_tile_source(program("SW_MACRO"));
  EXPECT_FALSE(tile_swizzle_edits(m, tile({10}), &why));
  EXPECT_NE(why.find(":19:26: the swizzle `SW_MACRO` comes from a macro"), std::string::npos)
      << why;
  // Two encodes.
  m = parse_tile_source(
      program("CU_TENSOR_MAP_SWIZZLE_NONE",
              "  cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, g, d, st, b, "
              "e, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_64B, "
              "CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n"));
  EXPECT_FALSE(tile_swizzle_edits(m, tile({10}), &why));
  EXPECT_NE(why.find("2 tensor-map encodes in "), std::string::npos) << why;
  EXPECT_NE(why.find("(lines 19, 20): which one maps this tile is not followed"), std::string::npos)
      << why;
  // A reader line whose address is no offset from a shared array (line 9
  // reads nothing shared; the what-if would not name it, a helper's would).
  m = parse_tile_source(program("CU_TENSOR_MAP_SWIZZLE_NONE"));
  EXPECT_FALSE(tile_swizzle_edits(m, tile({10, 9}), &why));
  EXPECT_NE(why.find(":9: a reader's shared address is not an offset from a shared array"),
            std::string::npos)
      << why;
  // Rows of 64 B: 128 B apart under the 128B mode, 64 B as loaded.
  TileSwizzle narrow = tile({10});
  narrow.row_bytes = 64;
  EXPECT_FALSE(tile_swizzle_edits(m, narrow, &why));
  EXPECT_NE(why.find("rows of 64 B are 128 B apart under CU_TENSOR_MAP_SWIZZLE_128B and 64 B"),
            std::string::npos)
      << why;
  // A tile not aligned to the pattern.
  TileSwizzle off = tile({10});
  off.shared_base = 512;
  EXPECT_FALSE(tile_swizzle_edits(m, off, &why));
  EXPECT_NE(why.find("shared offset 512 is not 1024-byte aligned"), std::string::npos) << why;
  // The map in the file is not the one this tile was loaded with.
  TileSwizzle other = tile({10});
  other.from = 1, other.row_bytes = 32;
  EXPECT_FALSE(tile_swizzle_edits(m, other, &why));
  EXPECT_NE(why.find("is not the mode this tile was loaded with (CU_TENSOR_MAP_SWIZZLE_32B)"),
            std::string::npos)
      << why;
}

}  // namespace
}  // namespace smemlab::fix
