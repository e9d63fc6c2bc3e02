// Emulator speed: warp-instructions and lane-operations per second on a
// shared-tile transpose, a shuffle reduction, a tiled matmul and two tensor-
// core GEMMs (mma.sync, wgmma) (PTX from
// tests/emu/ptx, nvcc 13 for sm_90). `threads` is the host threads running
// blocks (1 = per-core speed). Results are recorded in docs/emulator.md.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include "emu/launch.h"

namespace smemlab::emu {
namespace {

// SMEMLAB_EMU_PTX_DIR in the environment overrides the build-time path (for
// running the binary on another machine).
std::string ptx(const char* name) {
  const char* dir = std::getenv("SMEMLAB_EMU_PTX_DIR");
  return std::string(dir ? dir : SMEMLAB_EMU_PTX_DIR) + "/" + name;
}

// SMEMLAB_PERF_SCHEDULE (gpu, serial, random:N) sets the warp schedule, so
// one binary measures what the GPU-like schedule costs (default gpu).
Schedule schedule() {
  const char* s = std::getenv("SMEMLAB_PERF_SCHEDULE");
  if (!s) return {};
  if (auto v = parse_schedule(s)) return *v;
  std::fprintf(stderr, "SMEMLAB_PERF_SCHEDULE=%s is no schedule\n", s);
  std::exit(2);
}

uint64_t random_buffer(Device& dev, size_t n) {
  std::vector<float> v(n);
  std::mt19937 g(1);
  for (auto& x : v) x = std::uniform_real_distribution<float>(-1, 1)(g);
  uint64_t p = dev.malloc(n * 4);
  dev.copy_to(p, v.data(), n * 4);
  return p;
}

// The loop of every benchmark: launches of `kernel` with `args`, on the host
// threads of the benchmark's argument under the schedule of
// SMEMLAB_PERF_SCHEDULE, reported as warp-instructions and lane-operations
// per second.
template <typename... Args>
void run_launches(benchmark::State& state, Module& m, const std::string& kernel, LaunchConfig cfg,
                  Args... args) {
  cfg.threads = static_cast<unsigned>(state.range(0));
  cfg.schedule = schedule();
  uint64_t warp_instr = 0, lane_instr = 0;
  for (auto _ : state) {
    auto st = launch(m, kernel, cfg, args...);
    if (!st.ok()) state.SkipWithError(st.error->what().c_str());
    warp_instr += st.warp_instructions;
    lane_instr += st.lane_instructions;
  }
  state.counters["warp_instr/s"] =
      benchmark::Counter(static_cast<double>(warp_instr), benchmark::Counter::kIsRate);
  state.counters["lane_ops/s"] =
      benchmark::Counter(static_cast<double>(lane_instr), benchmark::Counter::kIsRate);
}

void BM_Transpose(benchmark::State& state) {
  Device dev;
  auto m = Module::load_file(dev, ptx("transpose.sm90.ptx"));
  std::string k = m->kernel_names()[0];
  int n = 1024;
  uint64_t in = random_buffer(dev, n * n), out = dev.malloc(uint64_t(n) * n * 4);
  LaunchConfig cfg{{32, 32}, {32, 8}};
  run_launches(state, *m, k, cfg, out, in, n, n);
}

void BM_Reduction(benchmark::State& state) {
  Device dev;
  auto m = Module::load_file(dev, ptx("reduce.sm90.ptx"));
  std::string k = m->kernel_names()[0];
  int n = 1 << 20;
  uint64_t in = random_buffer(dev, n), out = dev.malloc(4);
  LaunchConfig cfg{{256}, {256}};
  run_launches(state, *m, k, cfg, in, out, n);
}

void BM_Matmul(benchmark::State& state) {
  Device dev;
  auto m = Module::load_file(dev, ptx("matmul.sm90.ptx"));
  std::string k = m->kernel_names()[0];
  int n = 256;
  uint64_t a = random_buffer(dev, n * n), b = random_buffer(dev, n * n),
           c = dev.malloc(uint64_t(n) * n * 4);
  LaunchConfig cfg{{16, 16}, {16, 16}};
  run_launches(state, *m, k, cfg, a, b, c, n, n, n);
}

// Tensor cores (issue 27's speed target: a wgmma GEMM launch emulates at no
// less than the mma.sync kernels' warp-instructions per second). f16 inputs
// of 256 x 256 x 256: the mma.sync GEMM of tests/emu/kernels/tensor.cu
// (ldmatrix + mma.sync.m16n8k16, one warp per 16 x 8 tile) and the wgmma
// GEMM of tests/programs/wgmma_gemm.cu (two warpgroups per 128 x 128 tile,
// 128B-swizzled shared tiles, wgmma.m64n128k16).
uint64_t half_buffer(Device& dev, size_t n) {
  std::vector<uint16_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint16_t>(0x3000 + (i * 37) % 0x800);
  uint64_t p = dev.malloc(n * 2);
  dev.copy_to(p, v.data(), n * 2);
  return p;
}

void BM_MmaSyncGemm(benchmark::State& state) {
  Device dev;
  auto m = Module::load_file(dev, ptx("tensor.sm90.ptx"));
  std::string k;
  for (const auto& name : m->kernel_names())
    if (name.find("mmaLdmatrix") != std::string::npos) k = name;
  int n = 256;
  uint64_t a = half_buffer(dev, n * n), b = half_buffer(dev, n * n),
           c = dev.malloc(uint64_t(n) * n * 4), c16 = dev.malloc(uint64_t(n) * n * 2);
  LaunchConfig cfg{{static_cast<uint32_t>(n / 8), static_cast<uint32_t>(n / 16)}, {32}};
  run_launches(state, *m, k, cfg, a, b, c, c16, n, n);
}

void BM_WgmmaGemm(benchmark::State& state) {
  Device dev;
  auto m = Module::load_file(dev, ptx("wgmma_gemm.sm90a.ptx"));
  std::string k = m->kernel_names()[0];
  int n = 256;
  uint64_t a = half_buffer(dev, n * n), b = half_buffer(dev, n * n),
           c = dev.malloc(uint64_t(n) * n * 4);
  LaunchConfig cfg{{static_cast<uint32_t>(n / 128), static_cast<uint32_t>(n / 128)}, {256}};
  run_launches(state, *m, k, cfg, a, b, c, n, n, n);
}

// Issue 27's launch: the same GEMM at 4096 x 4096 x 4096 (f16 -> f32). Its
// 1,024 blocks each compute one 128 x 128 tile over the whole K with the
// same instructions (64 k-tiles of 4 wgmma per warp), so a slice of the
// launch, its first two blocks (grid 2 x 1, the kernel still told M = N =
// K = 4096), runs at the whole launch's rate in 1/512 of its time.
void BM_WgmmaGemm4096Slice(benchmark::State& state) {
  Device dev;
  auto m = Module::load_file(dev, ptx("wgmma_gemm.sm90a.ptx"));
  std::string k = m->kernel_names()[0];
  const int n = 4096;
  uint64_t a = half_buffer(dev, size_t(n) * n), b = half_buffer(dev, size_t(n) * n),
           c = dev.malloc(uint64_t(n) * n * 4);
  LaunchConfig cfg{{2, 1}, {256}};
  run_launches(state, *m, k, cfg, a, b, c, n, n, n);
}

// threads: 1, 2, 4, ... up to the host's cores (and at least 2).
void thread_args(benchmark::internal::Benchmark* b) {
  unsigned hw = std::max(2u, std::thread::hardware_concurrency());
  for (unsigned t = 1; t <= hw; t *= 2) b->Arg(t);
}

BENCHMARK(BM_Transpose)
    ->ArgName("threads")
    ->Apply(thread_args)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Reduction)
    ->ArgName("threads")
    ->Apply(thread_args)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Matmul)
    ->ArgName("threads")
    ->Apply(thread_args)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_MmaSyncGemm)
    ->ArgName("threads")
    ->Apply(thread_args)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_WgmmaGemm)
    ->ArgName("threads")
    ->Apply(thread_args)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_WgmmaGemm4096Slice)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace smemlab::emu

BENCHMARK_MAIN();
