// A stand-in for `smemlab bench` used only for tuning on the GPU machine,
// which lacks fmt/CLI11/nlohmann: implements bench/bench.h, the three anchors
// (device copy, cuBLAS SGEMM FP32, CUB DeviceReduce::Sum) and a main that runs
// the registered benchmarks whose names contain any of the arguments and
// prints a table. Build (on the GPU machine):
//   nvcc -O3 -std=c++20 -arch=sm_90 -I. bench/matmul_bench.cu bench/reduction_bench.cu
//        bench/filter_bench.cu scripts/tune/mini_runner.cu -lcublas -o tune
// The real runner is bench/bench.cc + bench/runner.cc + bench/anchors.cu.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench.h"

namespace smemlab::bench {

void check_cuda(cudaError_t err, const char* what, const char* file, int line) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " +
                             cudaGetErrorString(err));
}

KernelInfo kernel_info(const void* kernel, int block_threads, size_t dynamic_smem) {
  KernelInfo k;
  cudaFuncAttributes a{};
  SMEMLAB_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
  k.registers = a.numRegs;
  k.static_smem = a.sharedSizeBytes;
  k.dynamic_smem = dynamic_smem;
  k.block_threads = block_threads;
  SMEMLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k.blocks_per_sm, kernel,
                                                                   block_threads, dynamic_smem));
  cudaDeviceProp p{};
  int dev = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&dev));
  SMEMLAB_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  k.occupancy =
      double(k.blocks_per_sm * ((block_threads + 31) / 32)) / (p.maxThreadsPerMultiProcessor / 32);
  return k;
}

std::vector<double> time_ms(const Context& ctx, const std::function<void()>& launch) {
  cudaEvent_t a, b;
  SMEMLAB_CUDA_CHECK(cudaEventCreate(&a));
  SMEMLAB_CUDA_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < ctx.warmup; ++i) launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  std::vector<double> v;
  for (int i = 0; i < ctx.reps; ++i) {
    SMEMLAB_CUDA_CHECK(cudaEventRecord(a));
    launch();
    SMEMLAB_CUDA_CHECK(cudaEventRecord(b));
    SMEMLAB_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    SMEMLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    v.push_back(ms);
  }
  SMEMLAB_CUDA_LAUNCH_CHECK();
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return v;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::vector<Benchmark>& registry() {
  static std::vector<Benchmark> r;
  return r;
}

void fill_random(std::vector<float>& v, std::mt19937_64& rng, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  for (auto& x : v) x = d(rng);
}
void fill_random(std::vector<int>& v, std::mt19937_64& rng, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi - 1);
  for (auto& x : v) x = d(rng);
}

std::string compare(const std::vector<float>& got, const std::vector<float>& ref, double tol) {
  if (got.size() != ref.size()) return "size mismatch";
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - ref[i]) <= tol * std::max(1.0, std::fabs((double)ref[i]))))
      return "index " + std::to_string(i);
  return "";
}
std::string compare(const std::vector<int>& got, const std::vector<int>& ref) {
  if (got.size() != ref.size()) return "size mismatch";
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != ref[i]) return "index " + std::to_string(i);
  return "";
}
double relative_l2(const std::vector<float>& got, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    num += (got[i] - ref[i]) * (got[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}
std::string cublas_anchor(int n) { return "anchor/cublas-sgemm/" + std::to_string(n); }
std::string cub_anchor(long long n) { return "anchor/cub-reduce/" + std::to_string(n); }

namespace {

__global__ void copy4(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}

Result anchor_copy(Context& ctx) {
  const size_t n = 64ull << 20;  // 256 MiB of floats
  std::vector<float> h(n);
  fill_random(h, ctx.rng);
  DeviceBuffer<float> a(n), b(n);
  a.upload(h);
  b.poison();
  const int grid = ctx.prop.multiProcessorCount * 8;
  auto launch = [&] {
    copy4<<<grid, 256>>>(reinterpret_cast<const float4*>(a.get()),
                         reinterpret_cast<float4*>(b.get()), n / 4);
  };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  Result r;
  r.verified = b.download() == h;
  r.samples_ms = time_ms(ctx, launch);
  r.ms = median(r.samples_ms);
  r.bytes = 8.0 * n;
  r.info = kernel_info(reinterpret_cast<const void*>(copy4), 256, 0);
  return r;
}

Result anchor_cublas(Context& ctx, int n) {
  std::vector<float> hA((size_t)n * n), hB((size_t)n * n);
  fill_random(hA, ctx.rng);
  fill_random(hB, ctx.rng);
  DeviceBuffer<float> A(hA.size()), B(hB.size()), C(hA.size());
  A.upload(hA);
  B.upload(hB);
  C.poison();
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate");
  cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);  // FP32, no TF32
  const float one = 1.f, zero = 0.f;
  auto launch = [&] {
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B.get(), n, A.get(), n, &zero, C.get(),
                n);
  };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  Result r;
  std::vector<float> hC = C.download();
  // Spot check 64 entries.
  double num = 0, den = 0;
  for (int s = 0; s < 64; ++s) {
    const int i = (s * 7919) % n, j = (s * 104729) % n;
    double ref = 0;
    for (int k = 0; k < n; ++k) ref += (double)hA[(size_t)i * n + k] * hB[(size_t)k * n + j];
    num += (hC[(size_t)i * n + j] - ref) * (hC[(size_t)i * n + j] - ref);
    den += ref * ref;
  }
  r.verified = std::sqrt(num / den) < 5e-5;
  r.note = "rel L2 (64 samples) " + std::to_string(std::sqrt(num / den));
  r.samples_ms = time_ms(ctx, launch);
  r.ms = median(r.samples_ms);
  r.flops = 2.0 * n * n * (double)n;
  r.bytes = 12.0 * n * (double)n;
  cublasDestroy(h);
  return r;
}

Result anchor_cub(Context& ctx, long long n) {
  std::vector<float> h(n);
  fill_random(h, ctx.rng);
  DeviceBuffer<float> in(n), out(1);
  in.upload(h);
  size_t temp = 0;
  SMEMLAB_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp, in.get(), out.get(), (int)n));
  DeviceBuffer<char> t(temp);
  auto launch = [&] { cub::DeviceReduce::Sum(t.get(), temp, in.get(), out.get(), (int)n); };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  double s = 0;
  for (float x : h) s += x;
  Result r;
  const double got = out.download()[0];
  r.verified = std::fabs(got - s) < 1e-3 * n * 1e-4 + 1.0;
  r.note = "sum " + std::to_string(got) + " ref " + std::to_string(s);
  r.samples_ms = time_ms(ctx, launch);
  r.ms = median(r.samples_ms);
  r.bytes = 4.0 * n;
  return r;
}

[[maybe_unused]] const bool registered = [] {
  registry().push_back({kCopyAnchor, "device copy", anchor_copy});
  for (int n : {1024, 2048, 4096, 8192})
    registry().push_back(
        {cublas_anchor(n), "cuBLAS SGEMM FP32", [n](Context& c) { return anchor_cublas(c, n); }});
  registry().push_back({cub_anchor(1LL << 28), "CUB DeviceReduce::Sum",
                        [](Context& c) { return anchor_cub(c, 1LL << 28); }});
  return true;
}();

}  // namespace
}  // namespace smemlab::bench

int main(int argc, char** argv) {
  using namespace smemlab::bench;
  // --quick: the benchmarks' smoke sizes, 1 warm-up and 2 timed runs (for
  // compute-sanitizer); the other arguments select benchmarks by substring.
  bool quick = false;
  std::vector<std::string> pats;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--quick")
      quick = true;
    else
      pats.push_back(argv[i]);
  }
  auto wanted = [&](const std::string& name) {
    if (pats.empty()) return true;
    for (auto& p : pats)
      if (name.find(p) != std::string::npos) return true;
    return false;
  };
  Context ctx;
  ctx.rng.seed(12345);
  if (quick) ctx.quick = true, ctx.warmup = 1, ctx.reps = 2;
  if (cudaGetDeviceProperties(&ctx.prop, 0) != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device\n");
    return 3;
  }
  std::printf("device %s, %d SMs\n", ctx.prop.name, ctx.prop.multiProcessorCount);
  // Anchors needed by the selected benchmarks run first.
  std::map<std::string, Result> results;
  std::vector<std::string> order;
  std::vector<std::string> needed;
  for (auto& b : registry())
    if (b.name.rfind("anchor/", 0) != 0 && wanted(b.name)) order.push_back(b.name);
  auto run_one = [&](const std::string& name) {
    for (auto& b : registry())
      if (b.name == name) {
        Result r;
        try {
          r = b.run(ctx);
        } catch (const std::exception& e) {
          r.error = std::string("exception: ") + e.what();
        }
        if (!r.verified && r.error.empty()) r.error = "not verified";
        results[name] = r;
        std::printf("%-44s %s %9.4f ms %s%s\n", name.c_str(), r.verified ? "ok  " : "FAIL", r.ms,
                    r.note.c_str(), r.error.empty() ? "" : (" ERROR: " + r.error).c_str());
        std::fflush(stdout);
        return;
      }
  };
  for (auto& b : registry())
    if (b.name.rfind("anchor/", 0) == 0 && (wanted(b.name) || pats.empty())) run_one(b.name);
  for (auto& n : order) run_one(n);
  // Anchors referenced but not run yet.
  for (auto& n : order)
    if (!quick && !results[n].anchor.empty() && !results.count(results[n].anchor))
      run_one(results[n].anchor);

  std::printf("\n%-44s %-4s %10s %9s %9s %8s %4s %6s %5s\n", "benchmark", "ok", "ms", "GB/s",
              "GFLOP/s", "%anchor", "regs", "smem", "occ");
  std::vector<std::string> all;
  for (auto& [k, v] : results) all.push_back(k);
  int fails = 0;
  for (auto& name : all) {
    const Result& r = results[name];
    fails += !r.verified;
    const double gbs = r.ms > 0 ? r.bytes / r.ms / 1e6 : 0;
    const double gfs = r.ms > 0 ? r.flops / r.ms / 1e6 : 0;
    double pct = 0;
    if (!r.anchor.empty() && results.count(r.anchor) && r.ms > 0) {
      const Result& a = results[r.anchor];
      if (r.flops > 0 && a.flops > 0)
        pct = 100.0 * (r.flops / r.ms) / (a.flops / a.ms);
      else
        pct = 100.0 * (r.bytes / r.ms) / (a.bytes / a.ms);
    }
    std::printf("%-44s %-4s %10.4f %9.1f %9.1f %8.1f %4d %6zu %5.2f\n", name.c_str(),
                r.verified ? "ok" : "FAIL", r.ms, gbs, gfs, pct, r.info.registers,
                r.info.static_smem, r.info.occupancy);
  }
  std::printf("%d failed\n", fails);
  return fails ? 1 : 0;
}
