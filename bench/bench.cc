// Implementation of the helpers declared in bench.h: error checks, kernel
// resources, event timing, the registry and CPU-side comparison.
#include "bench/bench.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>

namespace smemlab::bench {

void check_cuda(cudaError_t err, const char* what, const char* file, int line) {
  if (err == cudaSuccess) return;
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " +
                           cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

KernelInfo kernel_info(const void* kernel, int block_threads, size_t dynamic_smem) {
  KernelInfo k;
  cudaFuncAttributes attr{};
  SMEMLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  k.registers = attr.numRegs;
  k.static_smem = attr.sharedSizeBytes;
  k.dynamic_smem = dynamic_smem;
  k.block_threads = block_threads;
  SMEMLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k.blocks_per_sm, kernel,
                                                                   block_threads, dynamic_smem));
  int device = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  int max_threads = 0;
  SMEMLAB_CUDA_CHECK(
      cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  const int warps_per_block = (block_threads + 31) / 32;
  if (max_threads > 0)
    k.occupancy = double(k.blocks_per_sm * warps_per_block) / double(max_threads / 32);
  return k;
}

namespace {
// Owns a pair of events so that an exception in `launch` does not leak them.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    SMEMLAB_CUDA_CHECK(cudaEventCreate(&start));
    SMEMLAB_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};
}  // namespace

std::vector<double> time_ms(const Context& ctx, const std::function<void()>& launch) {
  if (ctx.verify_only) {  // one run, so that every launch path is still exercised
    launch();
    SMEMLAB_CUDA_LAUNCH_CHECK();
    return {0.0};
  }
  for (int i = 0; i < ctx.warmup; ++i) launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  EventPair ev;
  std::vector<double> samples;
  samples.reserve(ctx.reps);
  // One event pair around each run (not one around all runs): the median
  // then ignores a run disturbed by something else on the machine.
  for (int i = 0; i < ctx.reps; ++i) {
    SMEMLAB_CUDA_CHECK(cudaEventRecord(ev.start));
    launch();
    SMEMLAB_CUDA_CHECK(cudaEventRecord(ev.stop));
    SMEMLAB_CUDA_CHECK(cudaEventSynchronize(ev.stop));
    check_cuda(cudaGetLastError(), "launch", __FILE__, __LINE__);
    float ms = 0.f;
    SMEMLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.start, ev.stop));
    samples.push_back(ms);
  }
  return samples;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<Benchmark>& registry() {
  static std::vector<Benchmark> r;  // function-local: safe from static init order
  return r;
}

namespace {
// Fills v in chunks of 2^20 elements, each from its own engine seeded by one
// draw of `rng` (drawn in order, so the values depend only on the seed and
// the size), spread over the hardware threads: 2^28 floats take ~2 s on
// one core.
template <class T, class Dist>
void fill_chunked(std::vector<T>& v, std::mt19937_64& rng, const Dist& dist) {
  constexpr size_t kChunk = size_t(1) << 20;
  const size_t chunks = (v.size() + kChunk - 1) / kChunk;
  std::vector<uint64_t> seeds(chunks);
  for (auto& s : seeds) s = rng();
  auto work = [&](size_t first, size_t step) {
    for (size_t c = first; c < chunks; c += step) {
      std::mt19937_64 local(seeds[c]);
      Dist d = dist;
      const size_t end = std::min(v.size(), (c + 1) * kChunk);
      for (size_t i = c * kChunk; i < end; ++i) v[i] = d(local);
    }
  };
  const size_t workers =
      std::min<size_t>(chunks, std::max(1u, std::min(16u, std::thread::hardware_concurrency())));
  if (workers <= 1) return work(0, 1);
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work, w, workers);
  work(0, workers);
  for (auto& t : pool) t.join();
}
}  // namespace

void fill_random(std::vector<float>& v, std::mt19937_64& rng, float lo, float hi) {
  fill_chunked(v, rng, std::uniform_real_distribution<float>(lo, hi));
}

void fill_random(std::vector<int>& v, std::mt19937_64& rng, int lo, int hi) {
  fill_chunked(v, rng, std::uniform_int_distribution<int>(lo, hi));
}

std::string compare(const std::vector<float>& got, const std::vector<float>& ref, double rel_tol) {
  if (got.size() != ref.size())
    return "size " + std::to_string(got.size()) + " != expected " + std::to_string(ref.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], r = ref[i];
    const double scale = std::max(std::fabs(r), 1.0);
    if (!(std::fabs(g - r) <= rel_tol * scale))  // also catches NaN
      return "index " + std::to_string(i) + ": got " + std::to_string(g) + ", expected " +
             std::to_string(r);
  }
  return "";
}

std::string compare(const std::vector<int>& got, const std::vector<int>& ref) {
  if (got.size() != ref.size())
    return "size " + std::to_string(got.size()) + " != expected " + std::to_string(ref.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != ref[i])
      return "index " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", expected " +
             std::to_string(ref[i]);
  return "";
}

double relative_l2(const std::vector<float>& got, const std::vector<double>& ref) {
  if (got.size() != ref.size()) return INFINITY;
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i])) return INFINITY;
    const double d = double(got[i]) - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  if (den == 0.0) return num == 0.0 ? 0.0 : INFINITY;
  return std::sqrt(num / den);
}

namespace {
std::string dims(dim3 d) {
  return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
}
}  // namespace

LaunchRecipe recipe_of(const void* kernel, const char* module, dim3 grid, dim3 block,
                       unsigned shared, std::vector<std::string> args) {
  LaunchRecipe r;
  const char* name = nullptr;
  if (cudaFuncGetName(&name, kernel) != cudaSuccess || !name) {
    cudaGetLastError();
    return r;  // no kernel name: no recipe (no prediction), not an error
  }
  r.module = module;
  r.kernel = name;
  r.grid = dims(grid);
  r.block = dims(block);
  r.shared = shared;
  r.args = std::move(args);
  return r;
}

std::string cublas_anchor(int n) { return "anchor/cublas-sgemm/" + std::to_string(n); }
std::string cub_anchor(long long n) { return "anchor/cub-reduce/" + std::to_string(n); }

}  // namespace smemlab::bench
