// Benchmarks for kernels/tiles.cu: each kernel on a grid of many blocks
// (every block its own tile and its own slice of the output), verified
// exactly against the mapping the kernel must produce.
#include "bench/bench.h"
#include "bench/suite_util.h"
#include "kernels/tiles.cu"

namespace smemlab::bench {
namespace {

enum class Order { kSame, kTransposed, kRect };

struct TileKernel {
  const char* name;
  const void* fn;
  int elem;     // 4 or 8 bytes
  bool rect;    // block 32 x 16 instead of 32 x 32
  int dyn_pad;  // -1: static shared; else dynamic with this many pad elements per row
  Order order;
  const char* what;
};

#define K(f) reinterpret_cast<const void*>(f)
const TileKernel kTiles[] = {
    {"setRowReadRow", K(setRowReadRow), 4, false, -1, Order::kSame, "row write, row read"},
    {"setColReadCol", K(setColReadCol), 4, false, -1, Order::kSame,
     "column write, column read (32-way conflicts)"},
    {"setRowReadCol", K(setRowReadCol), 4, false, -1, Order::kTransposed,
     "row write, column read (32-way conflict on read)"},
    {"setRowReadColDyn", K(setRowReadColDyn), 4, false, 0, Order::kTransposed,
     "row write, column read, dynamic shared"},
    {"setRowReadColPad", K(setRowReadColPad), 4, false, -1, Order::kTransposed,
     "row write, column read, 1 padding column (conflict-free)"},
    {"setRowReadColPad2", K(setRowReadColPad2), 4, false, -1, Order::kTransposed,
     "row write, column read, 2 padding columns (2-way)"},
    {"setRowReadColDynPad", K(setRowReadColDynPad), 4, false, 1, Order::kTransposed,
     "dynamic shared, 1 padding column"},
    {"setRowReadColRect", K(setRowReadColRect), 4, true, -1, Order::kRect,
     "32x16 tile, column-order read (16-way)"},
    {"setRowReadColRectPad", K(setRowReadColRectPad), 4, true, -1, Order::kRect,
     "32x16 tile padded by 2 (conflict-free)"},
    {"setRowReadColRectDyn", K(setRowReadColRectDyn), 4, true, 0, Order::kRect,
     "32x16 dynamic tile"},
    {"setRowReadColRectDynPad", K(setRowReadColRectDynPad), 4, true, 2, Order::kRect,
     "32x16 dynamic tile padded by 2"},
    {"setRowReadRow8", K(setRowReadRow8), 8, false, -1, Order::kSame,
     "8-byte: row write, row read"},
    {"setColReadCol8", K(setColReadCol8), 8, false, -1, Order::kSame,
     "8-byte: column write, column read"},
    {"setRowReadCol8", K(setRowReadCol8), 8, false, -1, Order::kTransposed,
     "8-byte: row write, column read"},
    {"setRowReadColPad8", K(setRowReadColPad8), 8, false, -1, Order::kTransposed,
     "8-byte: row write, column read, 1 padding element"},
    {"setRowReadColDyn8", K(setRowReadColDyn8), 8, false, 0, Order::kTransposed,
     "8-byte: dynamic shared"},
    {"setRowReadColDynPad8", K(setRowReadColDynPad8), 8, false, 1, Order::kTransposed,
     "8-byte: dynamic shared, 1 padding element"},
    {"setRowReadColRect8", K(setRowReadColRect8), 8, true, -1, Order::kRect,
     "8-byte: 32x16 tile, column-order read"},
    {"setRowReadColRectPad8", K(setRowReadColRectPad8), 8, true, -1, Order::kRect,
     "8-byte: 32x16 tile padded by 1"},
};
#undef K

// The value the thread with linear index idx must write (before the base).
long long expected_offset(Order o, long long idx) {
  switch (o) {
    case Order::kSame:
      return idx;
    case Order::kTransposed:
      return (idx % 32) * 32 + idx / 32;
    case Order::kRect:
      return (idx % 16) * 32 + idx / 16;
  }
  return -1;
}

template <class T>
Result run_tile(Context& c, const TileKernel& k) {
  const dim3 block(32, k.rect ? 16 : 32);
  const int per_block = block.x * block.y;
  const int blocks = c.prop.multiProcessorCount * (c.quick ? 16 : 128);
  const size_t n = size_t(blocks) * per_block;
  const size_t smem = k.dyn_pad < 0 ? 0 : size_t(block.y) * (block.x + k.dyn_pad) * sizeof(T);
  DeviceBuffer<T> out(n);
  out.poison();
  void* args[1];
  T* p = out.get();
  args[0] = &p;
  auto launch = [&] {
    SMEMLAB_CUDA_CHECK(cudaLaunchKernel(k.fn, dim3(blocks), block, args, smem, nullptr));
  };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  const std::vector<T> got = out.download();
  Result r;
  for (size_t b = 0; b < size_t(blocks) && r.error.empty(); ++b)
    for (int i = 0; i < per_block; ++i) {
      const long long want = (long long)(b * per_block) + expected_offset(k.order, i);
      const long long g = (long long)got[b * per_block + i];
      if (g != want) {
        r.error = "block " + std::to_string(b) + " thread " + std::to_string(i) + ": got " +
                  std::to_string(g) + ", expected " + std::to_string(want);
        break;
      }
    }
  r.bytes = double(n) * sizeof(T);  // global writes; the shared traffic is the subject
  r.info = kernel_info(k.fn, per_block, smem);
  r.note = std::to_string(blocks) + " blocks of " + std::to_string(block.x) + "x" +
           std::to_string(block.y) + ", " + std::to_string(k.elem) + "-byte";
  r.recipe = recipe_of(
      k.fn, "tiles", dim3(blocks), block, unsigned(smem),
      {std::string(sizeof(T) == 8 ? "long" : "int") + "[" + std::to_string(n) + "]=zeros"});
  return time_into(r, c, launch);
}

struct Register {
  Register() {
    for (const TileKernel& k : kTiles)
      registry().push_back({std::string("tiles/") + k.name, k.what, [&k](Context& c) {
                              return k.elem == 8 ? run_tile<long long>(c, k) : run_tile<int>(c, k);
                            }});
  }
} register_all;

}  // namespace
}  // namespace smemlab::bench
