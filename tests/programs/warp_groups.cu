// Warp collectives whose lanes name different member masks at one
// instruction: the disjoint groups of cooperative groups' labeled_partition
// (match.any, then redux/vote/shfl over each lane's own group), as the CUDA
// sample warpAggregatedAtomicsCG uses them. Each result is checked against a
// CPU reference of the same grouping; prints "ok PART" per part.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <vector>

#include "conform_checks.h"

namespace cg = cooperative_groups;

constexpr int kN = 4096, kBuckets = 7;

__host__ __device__ unsigned value_of(int i) { return (i * 2654435761u) >> 1; }
__host__ __device__ int bucket_of(int i) { return static_cast<int>(value_of(i) % kBuckets); }
__host__ __device__ bool takes_part(int i) { return value_of(i) % 3 != 0; }

// Per bucket: the maximum value and the number of threads, through the
// groups of labeled_partition (reduce with greater = redux.sync.max.s32).
__global__ void bucket_max(int* max, int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kN || !takes_part(i)) return;
  cg::coalesced_group active = cg::coalesced_threads();
  auto group = cg::labeled_partition(active, bucket_of(i));
  int m = cg::reduce(group, static_cast<int>(value_of(i)), cg::greater<int>());
  if (group.thread_rank() == 0) {
    atomicMax(&max[bucket_of(i)], m);
    atomicAdd(&count[bucket_of(i)], static_cast<int>(group.size()));
  }
}

// Per thread: the raw intrinsics over its own group's mask.
__global__ void per_lane(unsigned* sum, unsigned* mn, unsigned* ballot, unsigned* leader_val) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kN || !takes_part(i)) return;
  unsigned v = value_of(i) & 0xffff;
  unsigned mask = __match_any_sync(__activemask(), bucket_of(i));
  sum[i] = __reduce_add_sync(mask, v);
  mn[i] = __reduce_min_sync(mask, v);
  ballot[i] = __ballot_sync(mask, v & 1);
  leader_val[i] = __shfl_sync(mask, v, __ffs(mask) - 1);
}

int main() {
  int *max, *count;
  unsigned *sum, *mn, *ballot, *leader;
  CHECK(cudaMallocManaged(&max, kBuckets * sizeof(int)));
  CHECK(cudaMallocManaged(&count, kBuckets * sizeof(int)));
  for (int b = 0; b < kBuckets; ++b) max[b] = count[b] = 0;
  CHECK(cudaMallocManaged(&sum, kN * sizeof(unsigned)));
  CHECK(cudaMallocManaged(&mn, kN * sizeof(unsigned)));
  CHECK(cudaMallocManaged(&ballot, kN * sizeof(unsigned)));
  CHECK(cudaMallocManaged(&leader, kN * sizeof(unsigned)));
  bucket_max<<<kN / 128, 128>>>(max, count);
  per_lane<<<kN / 128, 128>>>(sum, mn, ballot, leader);
  CHECK(cudaDeviceSynchronize());

  std::vector<int> want_max(kBuckets, 0), want_count(kBuckets, 0);
  for (int i = 0; i < kN; ++i)
    if (takes_part(i)) {
      want_max[bucket_of(i)] = std::max(want_max[bucket_of(i)], static_cast<int>(value_of(i)));
      ++want_count[bucket_of(i)];
    }
  for (int b = 0; b < kBuckets; ++b) EXPECT(max[b] == want_max[b] && count[b] == want_count[b]);
  std::printf("ok labeled_partition reduce\n");

  for (int w = 0; w < kN / 32; ++w)
    for (int l = 0; l < 32; ++l) {
      int i = w * 32 + l;
      if (!takes_part(i)) continue;
      unsigned s = 0, m = ~0u, bal = 0, first = 0;
      bool have = false;
      for (int k = 0; k < 32; ++k) {
        int j = w * 32 + k;
        if (!takes_part(j) || bucket_of(j) != bucket_of(i)) continue;
        unsigned v = value_of(j) & 0xffff;
        s += v;
        m = std::min(m, v);
        bal |= (v & 1u) << k;
        if (!have) first = v, have = true;
      }
      EXPECT(sum[i] == s && mn[i] == m && ballot[i] == bal && leader[i] == first);
    }
  std::printf("ok per-group redux vote shfl\n");
  for (void* p : {static_cast<void*>(max), static_cast<void*>(count), static_cast<void*>(sum),
                  static_cast<void*>(mn), static_cast<void*>(ballot), static_cast<void*>(leader)})
    CHECK(cudaFree(p));
  std::printf("PASS warp_groups\n");
  return 0;
}
