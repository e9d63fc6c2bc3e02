// Benchmarks for kernels/demos.cu: divergence (same work, branch per thread
// vs per warp) and coalescing (useful bandwidth of reads at stride s).
#include "bench/bench.h"
#include "bench/suite_util.h"
#include "kernels/demos.cu"

namespace smemlab::bench {
namespace {

unsigned cpu_path(int path, unsigned x, int iters) {
  if (path == 0) {
    for (int k = 0; k < iters; ++k) x = x * 1664525u + 1013904223u;
  } else if (path == 1) {
    for (int k = 0; k < iters; ++k) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
    }
  } else {
    for (int k = 0; k < iters; ++k) x = ((x << 7) | (x >> 25)) * 0x9E3779B9u + 7u;
  }
  return x;
}

unsigned cpu_hash(unsigned long long j, unsigned seed) {
  unsigned long long z = j * 0x9E3779B97F4A7C15ull + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return unsigned(z ^ (z >> 31));
}

Result divergence(Context& c, bool by_warp) {
  const int n = c.quick ? 1 << 20 : 1 << 22, iters = 256, threads = 256;
  DeviceBuffer<unsigned> out(n);
  out.poison();
  const int grid = (n + threads - 1) / threads;
  auto launch = [&] {
    if (by_warp)
      divergenceByWarp<<<grid, threads>>>(out.get(), n, iters);
    else
      divergenceMod3<<<grid, threads>>>(out.get(), n, iters);
  };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  const std::vector<unsigned> got = out.download();
  Result r;
  for (int i = 0; i < n; ++i) {
    const int t = i % threads;
    const unsigned want = cpu_path(by_warp ? (t / 32) % 3 : t % 3, unsigned(i), iters);
    if (got[i] != want) {
      r.error = "index " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", expected " +
                std::to_string(want);
      break;
    }
  }
  r.bytes = double(n) * sizeof(unsigned);
  r.info = kernel_info(by_warp ? reinterpret_cast<const void*>(divergenceByWarp)
                               : reinterpret_cast<const void*>(divergenceMod3),
                       threads, 0);
  r.note = std::to_string(n) + " threads x " + std::to_string(iters) +
           " iterations of one of 3 paths; " +
           (by_warp ? "path = warp % 3 (no divergence)" : "path = thread % 3 (divergent)");
  return time_into(r, c, launch);
}

Result stride(Context& c, int s) {
  const long long n = c.quick ? 1 << 22 : 1 << 24;  // outputs; 64 MiB useful each way
  const long long nin = n * s;
  DeviceBuffer<unsigned> in(nin), out(n);
  const unsigned seed = unsigned(c.rng());
  fillHash<<<c.prop.multiProcessorCount * 8, 256>>>(in.get(), nin, seed);
  SMEMLAB_CUDA_LAUNCH_CHECK();
  out.poison();
  int per_sm = 0;
  SMEMLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, strideRead, 256, 0));
  const int grid = c.prop.multiProcessorCount * per_sm;
  auto launch = [&] { strideRead<<<grid, 256>>>(in.get(), out.get(), n, s); };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  const std::vector<unsigned> got = out.download();
  Result r;
  for (long long i = 0; i < n; ++i)
    if (got[i] != cpu_hash((unsigned long long)(i * s), seed)) {
      r.error = "index " + std::to_string(i) + " wrong";
      break;
    }
  r.bytes = 2.0 * double(n) * sizeof(unsigned);  // useful bytes only
  r.anchor = kCopyAnchor;
  r.info = kernel_info(reinterpret_cast<const void*>(strideRead), 256, 0);
  const double sectors = s >= 8 ? 32.0 : 4.0 * s;  // 32-byte sectors per warp read
  r.note = "stride " + std::to_string(s) + ": " + fixed(sectors, 0) +
           " sectors per warp read (useful bytes counted)";
  return time_into(r, c, launch);
}

SMEMLAB_BENCHMARK("demos/divergence/mod3", "branch on threadIdx.x % 3: every warp runs 3 paths",
                  [](Context& c) { return divergence(c, false); });
SMEMLAB_BENCHMARK("demos/divergence/by-warp", "the same work branched per warp: one path per warp",
                  [](Context& c) { return divergence(c, true); });

struct Register {
  Register() {
    for (int s : {1, 2, 4, 8, 16, 32})
      registry().push_back({"demos/stride/" + std::to_string(s),
                            "global reads at stride " + std::to_string(s) + " (coalescing)",
                            [s](Context& c) { return stride(c, s); }});
  }
} register_all;

}  // namespace
}  // namespace smemlab::bench
