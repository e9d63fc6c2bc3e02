// Benchmarks for kernels/reverse.cu: verified on fresh random inputs with
// poisoned outputs, then timed.
#include <algorithm>
#include <cstring>

#include "bench/bench.h"
#include "bench/suite_util.h"
#include "kernels/reverse.cu"

namespace smemlab::bench {
namespace {

std::vector<int> reversed(std::vector<int> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

// The classic 64-int in-place reversal in one block, static or dynamic shared.
Result small_reverse(Context& c, bool dynamic) {
  const int n = 64;
  std::vector<int> h(n);
  fill_random(h, c.rng);
  DeviceBuffer<int> d(n);
  d.upload(h);
  auto launch = [&] {
    if (dynamic)
      dynamicReverse<<<1, n, n * sizeof(int)>>>(d.get(), n);
    else
      staticReverse<<<1, n>>>(d.get(), n);
  };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  Result r;
  r.error = compare(d.download(), reversed(h));
  r.bytes = 2.0 * n * sizeof(int);
  r.info = dynamic ? kernel_info(reinterpret_cast<const void*>(dynamicReverse), n, n * 4)
                   : kernel_info(reinterpret_cast<const void*>(staticReverse), n, 0);
  r.note = "n=64, one block, in place (time is launch-bound)";
  return time_into(r, c, launch);
}

// Out-of-place reversal of n ints with the shared-tile or the int4 kernel.
Result large_reverse(Context& c, bool vec4, long long n, bool anchored) {
  std::vector<int> h(n);
  fill_random(h, c.rng);
  DeviceBuffer<int> in(n), out(n);
  in.upload(h);
  out.poison();
  const int threads = vec4 ? 256 : 256;
  unsigned grid;
  size_t smem = 0;
  const void* fn;
  if (vec4) {
    int per_sm = 0;
    SMEMLAB_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reverseVec4, threads, 0));
    // Enough blocks for several waves of loads in flight, capped by the work.
    const long long n4 = std::max(1LL, n / 4);
    grid = unsigned(std::min<long long>(c.prop.multiProcessorCount * per_sm * 4LL,
                                        (n4 + threads - 1) / threads));
    fn = reinterpret_cast<const void*>(reverseVec4);
  } else {
    const long long per_block = threads * kReverseItems;
    grid = unsigned((n + per_block - 1) / per_block);
    fn = reinterpret_cast<const void*>(reverseBlocksShared);
  }
  auto launch = [&] {
    if (vec4)
      reverseVec4<<<grid, threads>>>(in.get(), out.get(), n);
    else
      reverseBlocksShared<<<grid, threads>>>(in.get(), out.get(), n);
  };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  Result r;
  r.error = compare(out.download(), reversed(h));
  r.bytes = 2.0 * n * sizeof(int);
  r.anchor = anchored ? kCopyAnchor : "";
  r.info = kernel_info(fn, threads, smem);
  r.note = "n=" + std::to_string(n) + " ints, grid " + std::to_string(grid);
  return time_into(r, c, launch);
}

// One dynamic buffer carved into int, float and char arrays.
Result carve(Context& c) {
  const int ni = 1000, nf = 777, nc = 301;
  std::vector<int> hi(ni);
  std::vector<float> hf(nf);
  std::vector<int> hc_wide(nc);
  fill_random(hi, c.rng);
  fill_random(hf, c.rng);
  fill_random(hc_wide, c.rng, -128, 127);
  std::vector<char> hc(hc_wide.begin(), hc_wide.end());
  DeviceBuffer<int> di(ni);
  DeviceBuffer<float> df(nf);
  DeviceBuffer<char> dc(nc);
  di.upload(hi);
  df.upload(hf);
  dc.upload(hc);
  const size_t smem = ni * sizeof(int) + nf * sizeof(float) + nc;
  auto launch = [&] { carveShared<<<1, 256, smem>>>(di.get(), df.get(), dc.get(), ni, nf, nc); };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  Result r;
  std::string e = compare(di.download(), reversed(hi));
  if (e.empty()) {
    std::vector<float> rf(hf.rbegin(), hf.rend());
    e = compare(df.download(), rf, 0.0);
  }
  if (e.empty()) {
    std::vector<char> gc = dc.download(), rc(hc.rbegin(), hc.rend());
    if (gc != rc) e = "char array not reversed";
  }
  r.error = e.empty() ? "" : e;
  r.bytes = 2.0 * double(smem);
  r.info = kernel_info(reinterpret_cast<const void*>(carveShared), 256, smem);
  r.note = "1000 int + 777 float + 301 char in one extern __shared__ buffer, in place";
  return time_into(r, c, launch);
}

SMEMLAB_BENCHMARK("reverse/static/64",
                  "64 ints reversed in one block through a static __shared__ array",
                  [](Context& c) { return small_reverse(c, false); });
SMEMLAB_BENCHMARK("reverse/dynamic/64", "the same through extern __shared__ sized at launch",
                  [](Context& c) { return small_reverse(c, true); });
SMEMLAB_BENCHMARK("reverse/carve", "one extern __shared__ buffer carved into int/float/char arrays",
                  carve);
SMEMLAB_BENCHMARK("reverse/blocks-shared/256MiB",
                  "large reversal, mirrored segment staged in a shared tile (coalesced both ways)",
                  [](Context& c) { return large_reverse(c, false, big_elems(c), true); });
SMEMLAB_BENCHMARK("reverse/vec4/256MiB",
                  "large reversal with int4 loads/stores swapped in registers (no shared needed)",
                  [](Context& c) { return large_reverse(c, true, big_elems(c), true); });
SMEMLAB_BENCHMARK("reverse/blocks-shared/odd", "shared-tile reversal, n = 2^24 + 3 (tails)",
                  [](Context& c) { return large_reverse(c, false, (1LL << 24) + 3, false); });
SMEMLAB_BENCHMARK("reverse/vec4/odd", "int4 reversal, n = 2^24 + 3 (misaligned window + tail)",
                  [](Context& c) { return large_reverse(c, true, (1LL << 24) + 3, false); });

}  // namespace
}  // namespace smemlab::bench
