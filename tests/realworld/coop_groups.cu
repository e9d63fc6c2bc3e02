// Cooperative groups as the CUDA samples and reduction tutorials use them:
// tiled_partition with cg::reduce, tile shuffles, ballots and any/all,
// coalesced_threads(), and thread_block_tile<16> scans with shfl_up.
// smemlab: --kernel cgReduceSum --grid 4 --block 256 --arg int[1000]=random(1) --arg int[1]=zeros --arg int=1000
// smemlab: --kernel cgTileMax --grid 2 --block 128 --arg float[256]=random(2) --arg float[16]=zeros
// smemlab: --kernel cgBallotCount --grid 2 --block 64 --arg int[128]=random(3) --arg int[4]=zeros --arg unsigned[4]=zeros
// smemlab: --kernel cgCoalescedAppend --grid 2 --block 64 --arg int[128]=random(4) --arg int[128]=zeros --arg int[1]=zeros --arg int=500
// smemlab: --kernel cgTileScan --grid 1 --block 64 --arg int[64]=random(5) --arg int[64]=zeros
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__global__ void cgReduceSum(const int* in, int* total, int n) {
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  int i = block.group_index().x * block.size() + block.thread_rank();
  int v = i < n ? in[i] : 0;
  int s = cg::reduce(warp, v, cg::plus<int>());
  if (warp.thread_rank() == 0) atomicAdd(total, s);
}

// Maximum over each tile of 16 threads with the tile's own shuffles.
__global__ void cgTileMax(const float* in, float* out) {
  auto block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int off = tile.size() / 2; off > 0; off /= 2) v = fmaxf(v, tile.shfl_down(v, off));
  v = tile.shfl(v, 0);
  if (tile.thread_rank() == 0) out[blockIdx.x * 8 + tile.meta_group_rank()] = v;
}

// Per warp: how many values are even (ballot), and whether any/all are < 500.
__global__ void cgBallotCount(const int* in, int* counts, unsigned* flags) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  unsigned even = warp.ballot(v % 2 == 0);
  int w = blockIdx.x * 2 + warp.meta_group_rank();
  bool any = warp.any(v < 500), all = warp.all(v < 500);
  if (warp.thread_rank() == 0) {
    counts[w] = __popc(even);
    flags[w] = (any ? 1u : 0u) | (all ? 2u : 0u);
  }
}

// Stream compaction: threads with in[i] < limit append through one atomic
// per coalesced group (the order inside out[] is not fixed; the reference
// compares the sorted set).
__global__ void cgCoalescedAppend(const int* in, int* out, int* count, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  if (v < limit) {
    cg::coalesced_group g = cg::coalesced_threads();
    int base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(count, g.size());
    base = g.shfl(base, 0);
    out[base + g.thread_rank()] = v;
  }
}

// Inclusive scan within tiles of 16 (cg::inclusive_scan) and an exclusive
// scan written with shfl_up for comparison: out = inclusive * 1000 + exclusive.
__global__ void cgTileScan(const int* in, int* out) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  int v = in[threadIdx.x];
  int inc = cg::inclusive_scan(tile, v);
  int x = v;
  for (int d = 1; d < 16; d *= 2) {
    int y = tile.shfl_up(x, d);
    if (tile.thread_rank() >= d) x += y;
  }
  out[threadIdx.x] = inc * 1000 + (x - v);
}
