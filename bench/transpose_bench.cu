// Benchmarks for kernels/transpose.cu at 8192 x 8192 floats (256 MiB each
// way) against anchor/copy, and at 8191 x 8193 for the tile edges.
#include "bench/bench.h"
#include "bench/suite_util.h"
#include "kernels/transpose.cu"

namespace smemlab::bench {
namespace {

using TransposeKernel = void (*)(const float*, float*, int, int);

struct Variant {
  const char* name;
  TransposeKernel fn;
  bool transposes;  // false for the copies (output = input)
  int bx, by;       // block shape
  const char* what;
};

const Variant kVariants[] = {
    {"copy", transposeCopy, false, 32, 8, "copy with the transpose's indexing: its ceiling"},
    {"copy-shared", transposeCopyShared, false, 32, 8, "copy staged through a shared tile"},
    {"naive", transposeNaive, true, 32, 8, "naive transpose: strided (uncoalesced) writes"},
    {"coalesced", transposeCoalesced, true, 32, 8,
     "shared 32x32 tile, coalesced both ways, 32-way bank conflicts on the column read"},
    {"padded", transposePadded, true, 32, 8, "shared tile padded to 33 columns: no conflicts"},
    {"swizzled", transposeSwizzled, true, 32, 8, "shared tile with XOR swizzle: no conflicts"},
    {"padded-r4", transposePaddedRows4, true, 32, 4, "padded tile, 32x4 threads (8 per thread)"},
    {"padded-r16", transposePaddedRows16, true, 32, 16,
     "padded tile, 32x16 threads (2 per thread)"},
    {"swizzled-r4", transposeSwizzledRows4, true, 32, 4, "swizzled tile, 32x4 threads"},
    {"vec4", transposeVec4, true, 8, 32, "float4 loads/stores, padded tile, 8x32 threads"},
    {"vec4-t64", transposeVec4Tile64, true, 16, 16, "float4, padded 64x64 tile, 16x16 threads"},
    {"vec4-t64r32", transposeVec4Tile64R32, true, 16, 32,
     "float4, padded 64x64 tile, 16x32 threads"},
    {"vec4-t64r8", transposeVec4Tile64R8, true, 16, 8, "float4, padded 64x64 tile, 16x8 threads"},
};

// Cache-blocked CPU transpose (rows x cols -> cols x rows).
std::vector<float> cpu_transpose(const std::vector<float>& a, int rows, int cols) {
  std::vector<float> t(a.size());
  const int B = 64;
  for (int i0 = 0; i0 < rows; i0 += B)
    for (int j0 = 0; j0 < cols; j0 += B)
      for (int i = i0; i < std::min(rows, i0 + B); ++i)
        for (int j = j0; j < std::min(cols, j0 + B); ++j)
          t[(size_t)j * rows + i] = a[(size_t)i * cols + j];
  return t;
}

Result run_transpose(Context& c, const Variant& v, int rows, int cols, bool anchored) {
  const size_t n = size_t(rows) * cols;
  std::vector<float> h(n);
  fill_random(h, c.rng);
  DeviceBuffer<float> in(n), out(n);
  in.upload(h);
  out.poison();
  const dim3 block(v.bx, v.by);
  const bool t64 = v.fn == transposeVec4Tile64 || v.fn == transposeVec4Tile64R32 ||
                   v.fn == transposeVec4Tile64R8;
  const int tile = t64 ? 64 : kTile;
  const dim3 grid((cols + tile - 1) / tile, (rows + tile - 1) / tile);
  auto launch = [&] { v.fn<<<grid, block>>>(in.get(), out.get(), rows, cols); };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  Result r;
  // Exact: a transpose moves bits, it computes nothing.
  r.error = compare(out.download(), v.transposes ? cpu_transpose(h, rows, cols) : h, 0.0);
  r.bytes = 2.0 * n * sizeof(float);
  r.anchor = anchored ? kCopyAnchor : "";
  r.info = kernel_info(reinterpret_cast<const void*>(v.fn), block.x * block.y, 0);
  r.note = std::to_string(rows) + "x" + std::to_string(cols);
  const std::string elems = std::to_string(n);
  r.recipe = recipe_of(reinterpret_cast<const void*>(v.fn), "transpose", grid, block, 0,
                       {"float[" + elems + "]=random(1)", "float[" + elems + "]=zeros",
                        "int=" + std::to_string(rows), "int=" + std::to_string(cols)});
  return time_into(r, c, launch);
}

struct Register {
  Register() {
    for (const Variant& v : kVariants) {
      registry().push_back({std::string("transpose/") + v.name + "/8192", v.what, [&v](Context& c) {
                              const int n = c.quick ? 4096 : 8192;
                              return run_transpose(c, v, n, n, true);
                            }});
      registry().push_back({std::string("transpose/") + v.name + "/8191x8193",
                            std::string(v.what) + " (odd size: tile edges)", [&v](Context& c) {
                              return run_transpose(c, v, c.quick ? 2047 : 8191,
                                                   c.quick ? 2049 : 8193, false);
                            }});
    }
  }
} register_all;

}  // namespace
}  // namespace smemlab::bench
