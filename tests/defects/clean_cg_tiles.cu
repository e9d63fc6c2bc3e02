// Cooperative groups: a block reduction through tiled_partition<32> and
// tiled_partition<8> tiles (shfl_down within the tile, tile.sync()), the
// tile leaders combining in shared memory, and cg::reduce over a
// coalesced_threads() group in divergent code.
// smemlab: --kernel cgReduce --grid 2 --block 128 --arg int[256]=random(7) --arg int[2]=zeros --arg int[2]=zeros
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

template <class Tile>
__device__ int tileSum(Tile tile, int v) {
  for (int off = tile.size() / 2; off > 0; off /= 2) v += tile.shfl_down(v, off);
  return v;
}

__global__ void cgReduce(const int* in, int* sums, int* oddSums) {
  __shared__ int warpSums[4];
  __shared__ int eightSums[16];
  cg::thread_block block = cg::this_thread_block();
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  auto warp = cg::tiled_partition<32>(block);
  auto eight = cg::tiled_partition<8>(block);
  int w = tileSum(warp, v);
  int e = tileSum(eight, v);
  if (warp.thread_rank() == 0) warpSums[warp.meta_group_rank()] = w;
  if (eight.thread_rank() == 0) eightSums[eight.meta_group_rank()] = e;
  eight.sync();
  block.sync();
  if (threadIdx.x == 0) {
    int a = 0, b = 0;
    for (int i = 0; i < 4; ++i) a += warpSums[i];
    for (int i = 0; i < 16; ++i) b += eightSums[i];
    sums[blockIdx.x] = a == b ? a : -1;
  }
  if (v & 1) {
    cg::coalesced_group odd = cg::coalesced_threads();
    int r = cg::reduce(odd, v, cg::plus<int>());
    if (odd.thread_rank() == 0) atomicAdd(&oddSums[blockIdx.x], r);
  }
}
