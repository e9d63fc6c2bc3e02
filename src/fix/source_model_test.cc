#include "fix/source_model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace smemlab::fix {
namespace {

std::string write_temp(const std::string& text) {
  std::string path =
      ::testing::TempDir() + "/source_model_test_" + std::to_string(getpid()) + ".cu";
  std::ofstream(path) << text;
  return path;
}

std::string spelled(const SourceModel& m, Range r) {
  return m.text.substr(r.begin, r.end - r.begin);
}

TEST(SourceModel, FindsStaticAndDynamicArraysAndEverySubscript) {
  const std::string path = write_temp(R"(constexpr int kN = 32;
template <class T, int PAD>
__device__ void tile_copy(T* out) {
  __shared__ T tile[kN][kN + PAD];
  tile[threadIdx.y][threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.y] = tile[threadIdx.x][threadIdx.y];
}
extern "C" __global__ void dyn(float* out) {
  extern __shared__ __align__(16) unsigned char raw[];
  float* buf = reinterpret_cast<float*>(raw);
  buf[threadIdx.x * 33] = 1.f;
  __syncthreads();
  out[threadIdx.x] = buf[threadIdx.x];
  __shared__ float s[2 * kN];
  int i = threadIdx.x;
  s[i++] = 0.f;
}
)");
  SourceModel m = parse_source(path, {});
  EXPECT_TRUE(m.diagnostics.empty()) << m.diagnostics.front();
  ASSERT_EQ(m.arrays.size(), 3u);

  const SourceArray& tile = m.arrays[0];
  EXPECT_EQ(tile.name, "tile");
  EXPECT_EQ(tile.function, "tile_copy");
  EXPECT_FALSE(tile.is_extern);
  EXPECT_EQ(tile.line, 4);
  ASSERT_EQ(tile.extents.size(), 2u);
  EXPECT_EQ(spelled(m, tile.extents[1]), "kN + PAD");
  EXPECT_EQ(tile.extent_values[0], 32);
  EXPECT_FALSE(tile.extent_values[1]);  // depends on PAD
  EXPECT_FALSE(tile.elem_bytes);        // depends on T
  ASSERT_EQ(tile.subscripts.size(), 2u);
  EXPECT_EQ(spelled(m, tile.subscripts[1].whole), "tile[threadIdx.x][threadIdx.y]");
  EXPECT_EQ(spelled(m, tile.subscripts[1].index[0]), "threadIdx.x");

  const SourceArray& raw = m.arrays[1];
  EXPECT_TRUE(raw.is_extern);
  EXPECT_EQ(raw.elem_bytes, 1u);
  EXPECT_EQ(raw.alias_elem_bytes, 4u);  // subscripts through `buf` count floats
  ASSERT_EQ(raw.subscripts.size(), 2u);
  EXPECT_TRUE(raw.subscripts[0].via_alias);
  EXPECT_EQ(spelled(m, raw.subscripts[0].index[0]), "threadIdx.x * 33");

  const SourceArray& s = m.arrays[2];
  EXPECT_EQ(s.extent_values[0], 64);
  EXPECT_EQ(s.elem_bytes, 4u);
  ASSERT_EQ(s.subscripts.size(), 1u);
  EXPECT_TRUE(s.subscripts[0].side_effects);
}

// The tensor-map encode's swizzle argument, found by type: a direct call with
// a constant, a call through the function pointer cudaGetDriverEntryPoint
// returns, and a value computed at run time; the CUDA headers themselves
// parse without an error (the real toolkit's, not the prelude).
TEST(SourceModel, FindsTheTensorMapSwizzleArgument) {
  const std::string path = write_temp(R"(#include <cuda.h>
#include <cuda_runtime.h>
using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                            const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                            CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
void maps(void* g, int sw) {
  CUtensorMap m;
  cuuint64_t d[2] = {64, 64}, st[1] = {256};
  cuuint32_t b[2] = {64, 8}, e[2] = {1, 1};
  cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, g, d, st, b, e, CU_TENSOR_MAP_INTERLEAVE_NONE,
                         CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
  reinterpret_cast<Encode>(fn)(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, g, d, st, b, e,
                               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_64B,
                               CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  reinterpret_cast<Encode>(fn)(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, g, d, st, b, e,
                               CU_TENSOR_MAP_INTERLEAVE_NONE, static_cast<CUtensorMapSwizzle>(sw),
                               CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}
)");
  if (cuda_toolkit().empty()) GTEST_SKIP() << "no CUDA toolkit for the front end";
  SourceModel m = parse_source(path, {});
  EXPECT_TRUE(m.diagnostics.empty()) << m.diagnostics.front();
  ASSERT_EQ(m.swizzle_arguments.size(), 3u);
  EXPECT_EQ(m.swizzle_arguments[0].text, "CU_TENSOR_MAP_SWIZZLE_NONE");
  EXPECT_EQ(m.swizzle_arguments[0].value, 0);
  EXPECT_EQ(m.swizzle_arguments[0].line, 11);
  EXPECT_EQ(m.swizzle_arguments[1].text, "CU_TENSOR_MAP_SWIZZLE_64B");
  EXPECT_EQ(m.swizzle_arguments[1].value, 2);
  EXPECT_EQ(m.swizzle_arguments[2].text, "static_cast<CUtensorMapSwizzle>(sw)");
  EXPECT_FALSE(m.swizzle_arguments[2].value.has_value());
  EXPECT_TRUE(m.swizzle_arguments[2].rewritable);
}

TEST(SourceModel, UnreadableFileIsAnError) {
  EXPECT_THROW(parse_source("/nonexistent/x.cu", {}), Error);
}

}  // namespace
}  // namespace smemlab::fix
