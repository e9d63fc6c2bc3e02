// Benchmarks for kernels/memory.cu: the classic memory-hierarchy table
// (type, size, latency in cycles, bandwidth, scope) measured on this GPU, and
// shared-memory bandwidth for 4/8/16-byte loads.
#include <algorithm>
#include <numeric>

#include "bench/bench.h"
#include "bench/suite_util.h"
#include "kernels/memory.cu"

namespace smemlab::bench {
namespace {

// Sattolo's algorithm: a random permutation that is one single cycle over m
// slots, so a chase from slot 0 visits every slot before repeating. Slots
// are `spacing` elements apart (spacing 32 = one 128-byte line per slot).
std::vector<unsigned> chase_array(size_t m, size_t spacing, std::mt19937_64& rng) {
  std::vector<unsigned> perm(m);
  std::iota(perm.begin(), perm.end(), 0u);
  for (size_t i = m - 1; i > 0; --i) {
    std::uniform_int_distribution<size_t> d(0, i - 1);
    std::swap(perm[i], perm[d(rng)]);
  }
  std::vector<unsigned> next(m * spacing, 0u);
  for (size_t i = 0; i < m; ++i) next[i * spacing] = unsigned(perm[i] * spacing);
  return next;
}

unsigned cpu_chase(const std::vector<unsigned>& next, long long steps) {
  unsigned j = 0;
  for (long long k = 0; k < steps; ++k) j = next[j];
  return j;
}

struct Chase {
  double cycles_per_load = 0;
  std::string error;
  double kernel_ms = 0;
};

enum class Level { kShared, kL1, kL2, kGlobal, kLocal, kConstant };

// Runs one pointer chase, checks the final index against the CPU, and
// returns cycles per dependent load.
Chase run_chase(Context& c, Level level, size_t bytes, size_t spacing, int steps) {
  const size_t m = bytes / (spacing * sizeof(unsigned));
  const std::vector<unsigned> next = chase_array(m, spacing, c.rng);
  DeviceBuffer<unsigned> d_next(next.size()), idx(1);
  DeviceBuffer<long long> cyc(1);
  d_next.upload(next);
  int warm = 0;
  std::function<void()> launch;
  switch (level) {
    case Level::kShared:
      launch = [&] {
        chaseShared<<<1, 256, bytes>>>(d_next.get(), int(next.size()), steps, idx.get(), cyc.get());
      };
      break;
    case Level::kL1:
      warm = int(m);
      launch = [&] { chaseL1<<<1, 1>>>(d_next.get(), warm, steps, idx.get(), cyc.get()); };
      break;
    case Level::kL2:
    case Level::kGlobal:
      warm = level == Level::kL2 ? int(m) : 1024;
      launch = [&] { chaseL2<<<1, 1>>>(d_next.get(), warm, steps, idx.get(), cyc.get()); };
      break;
    case Level::kLocal:
      warm = int(next.size());
      launch = [&] {
        chaseLocal<<<1, 1>>>(d_next.get(), int(next.size()), steps, idx.get(), cyc.get());
      };
      break;
    case Level::kConstant:
      // The whole 16 KiB symbol holds a cycle over its first next.size() entries.
      {
        std::vector<unsigned> full(kConstChase, 0u);
        std::copy(next.begin(), next.end(), full.begin());
        SMEMLAB_CUDA_CHECK(cudaMemcpyToSymbol(c_chase, full.data(), full.size() * 4));
      }
      warm = kConstChase;
      launch = [&] { chaseConstant<<<1, 1>>>(steps, idx.get(), cyc.get()); };
      break;
  }
  SMEMLAB_CUDA_CHECK(cudaMemset(idx.get(), 0, sizeof(unsigned)));  // start at slot 0
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  Chase r;
  const unsigned got = idx.download()[0];
  const unsigned want = cpu_chase(next, (long long)warm + steps);
  if (got != want) {
    r.error = "chase ended at " + std::to_string(got) + ", expected " + std::to_string(want);
    return r;
  }
  // Median over several launches of the cycle count (each launch re-chases).
  std::vector<double> cpl;
  for (int rep = 0; rep < 7; ++rep) {
    launch();
    SMEMLAB_CUDA_LAUNCH_CHECK();
    cpl.push_back(double(cyc.download()[0]) / steps);
  }
  r.cycles_per_load = median(cpl);
  r.kernel_ms = median(time_ms(c, launch));
  return r;
}

double register_latency(Context& c, std::string& error) {
  DeviceBuffer<float> out(1);
  DeviceBuffer<long long> cyc(1);
  const int iters = 256;
  out.poison();
  registerLatency<<<1, 1>>>(iters, out.get(), cyc.get());
  SMEMLAB_CUDA_LAUNCH_CHECK();
  float x = 0.f;  // threadIdx.x = 0
  for (int k = 0; k < iters * 16; ++k) x = std::fma(x, 0.999f, 1e-4f);
  const float got = out.download()[0];
  if (got != x) error = "register chain result " + std::to_string(got) + " != " + std::to_string(x);
  std::vector<double> v;
  for (int rep = 0; rep < 7; ++rep) {
    registerLatency<<<1, 1>>>(iters, out.get(), cyc.get());
    SMEMLAB_CUDA_LAUNCH_CHECK();
    v.push_back(double(cyc.download()[0]) / (iters * 16));
  }
  return median(v);
}

// Shared-memory bandwidth with loads of `vec` bytes; returns GB/s for the chip.
struct SmemBw {
  Result r;
  double gbps = 0, bytes_per_clk_sm = 0;
};
SmemBw smem_bandwidth_run(Context& c, int vec) {
  const int threads = 256, iters = c.quick ? 64 : 256;
  const void* fn = vec == 4   ? reinterpret_cast<const void*>(smemBandwidth4)
                   : vec == 8 ? reinterpret_cast<const void*>(smemBandwidth8)
                              : reinterpret_cast<const void*>(smemBandwidth16);
  KernelInfo info = kernel_info(fn, threads, 0);
  const int blocks = c.prop.multiProcessorCount * std::max(1, info.blocks_per_sm) * 4;
  DeviceBuffer<unsigned> out(size_t(blocks) * threads);
  out.poison();
  int it_arg = iters;
  unsigned* p = out.get();
  void* args[] = {&p, &it_arg};
  auto launch = [&] {
    SMEMLAB_CUDA_CHECK(cudaLaunchKernel(fn, dim3(blocks), dim3(threads), args, 0, nullptr));
  };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  const std::vector<unsigned> got = out.download();
  SmemBw s;
  // Check every thread of the first and the last block on the CPU.
  const int words = vec / 4, elems = kSmemBwBytes / vec;
  for (int b : {0, blocks - 1}) {
    for (int t = 0; t < threads && s.r.error.empty(); ++t) {
      unsigned acc = 0;
      for (int it = 0; it < iters; ++it)
        for (int e = t; e < elems; e += threads) {
          const int q = (e + it * 32) & (elems - 1);
          unsigned v = 0;
          for (int w = 0; w < words; ++w) v += unsigned(q * words + w) * 2654435761u + unsigned(b);
          acc += v ^ unsigned(it);
        }
      if (got[size_t(b) * threads + t] != acc)
        s.r.error = "block " + std::to_string(b) + " thread " + std::to_string(t) + " sum wrong";
    }
  }
  s.r.bytes = double(blocks) * kSmemBwBytes * iters;
  s.r.info = info;
  time_into(s.r, c, launch);
  if (s.r.verified) {
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    s.gbps = s.r.bytes / (s.r.ms * 1e6);
    s.bytes_per_clk_sm = s.gbps * 1e9 / (double(khz) * 1e3 * c.prop.multiProcessorCount);
    s.r.note = std::to_string(vec) + "-byte conflict-free loads: " + fixed(s.bytes_per_clk_sm, 1) +
               " B/clk/SM at the rated " + std::to_string(khz / 1000) + " MHz";
  }
  return s;
}

// L1 or L2 read bandwidth (kernels l1ReadBandwidth / l2ReadBandwidth) over
// words w[i] = i * 2654435761; the sums of the first and last 256 threads
// are checked on the CPU.
Result cache_bandwidth_run(Context& c, bool l1) {
  const int threads = 256, iters = (l1 ? 256 : 64) / (c.quick ? 4 : 1);
  const void* fn = l1 ? reinterpret_cast<const void*>(l1ReadBandwidth)
                      : reinterpret_cast<const void*>(l2ReadBandwidth);
  Result r;
  r.info = kernel_info(fn, threads, 0);
  const int blocks = c.prop.multiProcessorCount * std::min(8, std::max(1, r.info.blocks_per_sm));
  // L2: 16 MiB, more than the L1s hold per SM (each SM reads 1/132 of it per
  // pass, but ld.cg skips L1), well inside the 50 MiB L2.
  const int n4 = l1 ? blocks * kL1Region : 1 << 20;
  std::vector<unsigned> h(size_t(n4) * 4);
  for (size_t i = 0; i < h.size(); ++i) h[i] = unsigned(i) * 2654435761u;
  DeviceBuffer<unsigned> buf(h.size()), out(size_t(blocks) * threads);
  buf.upload(h);
  out.poison();
  const uint4* b4 = reinterpret_cast<const uint4*>(buf.get());
  auto launch = [&] {
    if (l1)
      l1ReadBandwidth<<<blocks, threads>>>(b4, out.get(), iters);
    else
      l2ReadBandwidth<<<blocks, threads>>>(b4, n4, out.get(), iters);
  };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  const std::vector<unsigned> got = out.download();
  auto vsum4 = [&](size_t e) { return h[4 * e] + h[4 * e + 1] + h[4 * e + 2] + h[4 * e + 3]; };
  const int G = blocks * threads;
  for (int g : {0, 1, 255, G - 256, G - 1}) {
    unsigned acc = 0;
    for (int it = 0; it < iters; ++it) {
      if (l1) {
        const int b = g / threads, t = g % threads;
        for (int k = 0; k < kL1Region / 256; ++k)
          acc += vsum4(size_t(b) * kL1Region + ((t + k * 256 + it * 32) & (kL1Region - 1))) ^
                 unsigned(it);
      } else {
        for (int j = g; j < n4; j += G) acc += vsum4((j + it * 32) & (n4 - 1)) ^ unsigned(it);
      }
    }
    if (got[g] != acc) {
      r.error = "thread " + std::to_string(g) + " sum wrong";
      return r;
    }
  }
  r.bytes = double(iters) * (l1 ? double(blocks) * kL1Region * 16 : double(n4) * 16);
  time_into(r, c, launch);
  if (r.verified) {
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    const double gbps = r.bytes / (r.ms * 1e6);
    r.note = std::string(l1 ? "L1 (ld.ca), 16 KiB per block, " : "L2 (ld.cg), 16 MiB, ") +
             std::to_string(blocks) +
             " blocks: " + fixed(gbps * 1e9 / (double(khz) * 1e3 * c.prop.multiProcessorCount), 1) +
             " B/clk/SM at the rated " + std::to_string(khz / 1000) + " MHz";
  }
  return r;
}

std::string row(const std::string& type, const std::string& size, const std::string& lat,
                const std::string& bw, const std::string& scope) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-10s %-24s %-16s %-26s %s\n", type.c_str(), size.c_str(),
                lat.c_str(), bw.c_str(), scope.c_str());
  return buf;
}

std::string kib(size_t b) { return std::to_string(b >> 10) + " KiB"; }

int khz0() {
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  return khz;
}

Result hierarchy_table(Context& c) {
  Result r;
  std::string err;
  const double reg = register_latency(c, err);
  const size_t gbytes = (c.quick ? 256ull : 1024ull) << 20;
  const int steps = 4096;
  struct L {
    Level level;
    size_t bytes, spacing;
    Chase ch;
  };
  L levels[] = {{Level::kShared, 16 << 10, 1, {}}, {Level::kConstant, 1 << 10, 1, {}},
                {Level::kLocal, 4 << 10, 1, {}},   {Level::kL1, 16 << 10, 32, {}},
                {Level::kL2, 8 << 20, 32, {}},     {Level::kGlobal, gbytes, 32, {}}};
  for (auto& l : levels) {
    l.ch = run_chase(c, l.level, l.bytes, l.spacing, steps);
    if (err.empty() && !l.ch.error.empty()) err = l.ch.error;
  }
  SmemBw bw = smem_bandwidth_run(c, 16);
  if (err.empty() && !bw.r.error.empty()) err = bw.r.error;
  const Result l1bw = cache_bandwidth_run(c, true), l2bw = cache_bandwidth_run(c, false);
  if (err.empty() && !l1bw.error.empty()) err = l1bw.error;
  if (err.empty() && !l2bw.error.empty()) err = l2bw.error;
  auto tbs = [&](const Result& x) {
    const double g = x.bytes / (x.ms * 1e6);
    return fixed(g / 1000, 1) + " TB/s (" +
           fixed(g * 1e9 / (double(khz0()) * 1e3 * c.prop.multiProcessorCount), 0) + " B/clk/SM)";
  };
  // Device-memory bandwidth: 256 MiB copied device to device.
  double dram_gbps = 0;
  {
    const size_t n = 64ull << 20;
    DeviceBuffer<float> a(n), b(n);
    SMEMLAB_CUDA_CHECK(cudaMemset(a.get(), 0, a.bytes()));
    const double ms = median(time_ms(c, [&] {
      SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), a.bytes(), cudaMemcpyDeviceToDevice));
    }));
    dram_gbps = 2.0 * a.bytes() / (ms * 1e6);
  }
  r.error = err;
  if (!err.empty()) return r;
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  auto cyc = [&](double v) { return fixed(v, 1) + " (" + fixed(v / (khz * 1e-6), 0) + " ns)"; };
  const auto& p = c.prop;
  std::string t = row("type", "size", "latency cycles", "bandwidth", "scope");
  t += row("register", kib(size_t(p.regsPerMultiprocessor) * 4) + "/SM", cyc(reg), "-", "thread");
  t += row("shared",
           kib(p.sharedMemPerMultiprocessor) + "/SM, " + kib(p.sharedMemPerBlockOptin) + "/block",
           cyc(levels[0].ch.cycles_per_load),
           fixed(bw.gbps / 1000, 1) + " TB/s (" + fixed(bw.bytes_per_clk_sm, 0) + " B/clk/SM)",
           "block");
  t += row("constant", kib(p.totalConstMem), cyc(levels[1].ch.cycles_per_load), "-",
           "grid, read-only");
  t += row("local", "per thread (L1-cached)", cyc(levels[2].ch.cycles_per_load), "-", "thread");
  t += row("L1", "shares SM pool w/ shared", cyc(levels[3].ch.cycles_per_load), tbs(l1bw), "SM");
  t += row("L2", std::to_string(p.l2CacheSize >> 20) + " MiB", cyc(levels[4].ch.cycles_per_load),
           tbs(l2bw), "device");
  t += row("global", std::to_string(p.totalGlobalMem >> 30) + " GiB",
           cyc(levels[5].ch.cycles_per_load), fixed(dram_gbps, 0) + " GB/s (memcpy D2D)",
           "device + host");
  t += "  latency: one thread, dependent loads over a random cycle; working sets: shared 16 KiB,\n"
       "  constant 1 KiB, local 4 KiB, L1 16 KiB (ld.ca), L2 8 MiB (ld.cg), global " +
       std::to_string(gbytes >> 20) + " MiB (ld.cg,\n  includes TLB misses); ns at the rated " +
       std::to_string(khz / 1000) + " MHz; register = dependent FFMA.";
  r.verified = true;
  r.ms = levels[5].ch.kernel_ms;
  r.note = "memory hierarchy (global chase kernel time)\n" + t;
  return r;
}

SMEMLAB_BENCHMARK("memory/hierarchy",
                  "latency by pointer chasing (shared, constant, local, L1, L2, global) and the "
                  "classic memory table",
                  hierarchy_table);
SMEMLAB_BENCHMARK("memory/l1-bw", "L1 read bandwidth: 16-byte ld.ca over 16 KiB per block",
                  [](Context& c) { return cache_bandwidth_run(c, true); });
SMEMLAB_BENCHMARK("memory/l2-bw", "L2 read bandwidth: 16-byte ld.cg over 16 MiB",
                  [](Context& c) { return cache_bandwidth_run(c, false); });
SMEMLAB_BENCHMARK("memory/smem-bw/4", "shared-memory bandwidth, conflict-free 4-byte loads",
                  [](Context& c) { return smem_bandwidth_run(c, 4).r; });
SMEMLAB_BENCHMARK("memory/smem-bw/8", "shared-memory bandwidth, conflict-free 8-byte loads",
                  [](Context& c) { return smem_bandwidth_run(c, 8).r; });
SMEMLAB_BENCHMARK("memory/smem-bw/16", "shared-memory bandwidth, conflict-free 16-byte loads",
                  [](Context& c) { return smem_bandwidth_run(c, 16).r; });

}  // namespace
}  // namespace smemlab::bench
