// The ceilings every other benchmark is compared with, measured in the same
// run: a device copy kernel (bandwidth), cuBLAS FP32 SGEMM without TF32
// (matrix multiply) and CUB DeviceReduce::Sum (reduction).
#include <cublas_v2.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <cub/device/device_reduce.cuh>
#include <functional>
#include <stdexcept>
#include <string>

#include "bench/bench.h"

namespace smemlab::bench {
namespace {

// Grid-stride copy with 16-byte accesses: the usual bandwidth ceiling.
__global__ void copy_float4_gridstride(const float4* __restrict__ in, float4* __restrict__ out,
                                       size_t n4) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n4;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

// One float4 per thread, many blocks: no loop overhead, many loads in flight.
__global__ void copy_float4_flat(const float4* __restrict__ in, float4* __restrict__ out,
                                 size_t n4) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n4) out[i] = in[i];
}

// Four float4 per thread, all loads issued before the stores (64 bytes in
// flight per thread), blocks of 256 x 4 float4.
__global__ void copy_float4_x4(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  const size_t base = blockIdx.x * size_t(blockDim.x) * 4 + threadIdx.x;
  float4 v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const size_t i = base + size_t(k) * blockDim.x;
    if (i < n4) v[k] = in[i];
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const size_t i = base + size_t(k) * blockDim.x;
    if (i < n4) out[i] = v[k];
  }
}

// cuBLAS is opened when an anchor first needs it, not linked: every
// `smemlab` process (each `smemlab run`, most of them on machines without a
// GPU) otherwise pays the dynamic relocation of libcublas and libcublasLt,
// 0.9 M relocations over 600 MB of libraries (docs/emulator.md, "Issue 30").
struct CublasApi {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasDestroy_v2) destroy = nullptr;
  decltype(&::cublasSetMathMode) set_math_mode = nullptr;
  decltype(&::cublasSgemm_v2) sgemm = nullptr;
};
template <typename F>
void cublas_symbol(void* lib, const char* name, F* f) {
  *f = reinterpret_cast<F>(dlsym(lib, name));
  if (!*f) throw std::runtime_error(std::string("libcublas.so.13 has no symbol ") + name);
}
const CublasApi& cublas_api() {
  static const CublasApi api = [] {
    void* lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    // (Where the loader's path lacks the toolkit: the one built against.)
    if (!lib) lib = dlopen(SMEMLAB_CUBLAS_DIR "/libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      throw std::runtime_error(std::string("cannot load libcublas.so.13 for the cuBLAS anchor: ") +
                               (e ? e : "unknown error"));
    }
    CublasApi a;
    cublas_symbol(lib, "cublasCreate_v2", &a.create);
    cublas_symbol(lib, "cublasDestroy_v2", &a.destroy);
    cublas_symbol(lib, "cublasSetMathMode", &a.set_math_mode);
    cublas_symbol(lib, "cublasSgemm_v2", &a.sgemm);
    return a;
  }();
  return api;
}

void check_cublas(cublasStatus_t s, const char* what, int line) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(line) + ": " + what +
                             ": cuBLAS status " + std::to_string(int(s)));
}
#define CUBLAS_CHECK(call) check_cublas((call), #call, __LINE__)

std::string fixed(double v, int prec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

Result copy_anchor(Context& c) {
  const size_t bytes = (c.quick ? 64ull : 256ull) << 20;
  const size_t n = bytes / sizeof(float), n4 = n / 4;
  std::vector<float> h(n);
  fill_random(h, c.rng);
  DeviceBuffer<float> in(n), out(n);
  in.upload(h);
  const int threads = 256;
  const float4* src = reinterpret_cast<const float4*>(in.get());
  float4* dst = reinterpret_cast<float4*>(out.get());
  int per_sm = 0;
  SMEMLAB_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy_float4_gridstride, threads, 0));
  const int grid_gs = c.prop.multiProcessorCount * per_sm;
  const unsigned grid_flat = unsigned((n4 + threads - 1) / threads);
  const unsigned grid_x4 = unsigned((n4 + 4 * threads - 1) / (4 * threads));

  struct Candidate {
    const char* name;
    const void* fn;
    std::function<void()> launch;
    std::vector<double> samples;
  };
  std::vector<Candidate> cands = {
      {"grid-stride",
       reinterpret_cast<const void*>(copy_float4_gridstride),
       [&] { copy_float4_gridstride<<<grid_gs, threads>>>(src, dst, n4); },
       {}},
      {"one float4/thread",
       reinterpret_cast<const void*>(copy_float4_flat),
       [&] { copy_float4_flat<<<grid_flat, threads>>>(src, dst, n4); },
       {}},
      {"4 float4/thread",
       reinterpret_cast<const void*>(copy_float4_x4),
       [&] { copy_float4_x4<<<grid_x4, threads>>>(src, dst, n4); },
       {}},
      {"cudaMemcpy D2D",
       nullptr,
       [&] { SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); },
       {}},
  };
  Result r;
  // Each candidate verified bit-exactly on a poisoned output, then timed.
  for (auto& cand : cands) {
    out.poison();
    cand.launch();
    SMEMLAB_CUDA_LAUNCH_CHECK();
    const std::vector<float> got = out.download();
    if (std::memcmp(got.data(), h.data(), bytes) != 0) {
      r.error = std::string(cand.name) + ": output differs from input";
      return r;
    }
    cand.samples = time_ms(c, cand.launch);
  }
  const double moved = 2.0 * double(bytes);
  auto gb = [&](const Candidate& k) { return moved / (median(k.samples) * 1e6); };
  // The anchor is the fastest copy kernel (cudaMemcpy is reported, not
  // chosen), so the ceiling is not understated.
  size_t best = 0;
  for (size_t k = 1; k < cands.size(); ++k)
    if (cands[k].fn && median(cands[k].samples) < median(cands[best].samples)) best = k;
  r.verified = true;
  r.samples_ms = cands[best].samples;
  r.ms = median(r.samples_ms);
  r.bytes = moved;
  r.info = kernel_info(cands[best].fn, threads, 0);
  r.note = std::to_string(bytes >> 20) + " MiB each way;";
  for (const auto& k : cands)
    r.note += std::string(" ") + k.name + " " + fixed(gb(k), 1) + " GB/s,";
  r.note += std::string(" anchor = ") + cands[best].name;
  return r;
}

// Column-major C = A * B with cuBLAS, FP32 accumulate and inputs: TF32 off.
Result cublas_anchor_run(Context& c, int n) {
  const size_t nn = size_t(n) * n;
  std::vector<float> ha(nn), hb(nn);
  fill_random(ha, c.rng);
  fill_random(hb, c.rng);
  DeviceBuffer<float> a(nn), b(nn), cm(nn);
  a.upload(ha);
  b.upload(hb);
  cm.poison();
  const CublasApi& api = cublas_api();
  cublasHandle_t handle = nullptr;
  CUBLAS_CHECK(api.create(&handle));
  struct Guard {
    const CublasApi& api;
    cublasHandle_t h;
    ~Guard() { api.destroy(h); }
  } guard{api, handle};
  // CUBLAS_PEDANTIC_MATH: FP32 arithmetic only, never TF32 tensor cores.
  CUBLAS_CHECK(api.set_math_mode(handle, CUBLAS_PEDANTIC_MATH));
  const float alpha = 1.f, beta = 0.f;
  auto launch = [&] {
    CUBLAS_CHECK(api.sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.get(), n, b.get(),
                           n, &beta, cm.get(), n));
  };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  const std::vector<float> got = cm.download();

  // Sampled check against double dot products. Per entry, any FP32 summation
  // order is within gamma_n * sum|a_k b_k| (gamma_n = n u / (1 - n u),
  // u = 2^-24). The relative L2 error of the sample must also stay under
  // 5e-5: FP32 accumulation gives ~u sqrt(n) <= 6e-6 at n = 8192, while TF32
  // inputs (10-bit mantissa) would give ~1e-4..1e-3, so this also proves TF32 off.
  Result r;
  const int samples = 1024;
  std::uniform_int_distribution<int> pick(0, n - 1);
  const double u = std::ldexp(1.0, -24), gamma = n * u / (1 - n * u);
  std::vector<float> gs;
  std::vector<double> rs;
  for (int s = 0; s < samples; ++s) {
    const int i = pick(c.rng), j = pick(c.rng);
    double ref = 0, absum = 0;
    for (int k = 0; k < n; ++k) {
      const double p = double(ha[i + size_t(k) * n]) * hb[k + size_t(j) * n];
      ref += p;
      absum += std::fabs(p);
    }
    const float g = got[i + size_t(j) * n];
    if (!(std::fabs(g - ref) <= gamma * absum)) {
      r.error = "C(" + std::to_string(i) + "," + std::to_string(j) + ") = " + std::to_string(g) +
                ", expected " + std::to_string(ref);
      return r;
    }
    gs.push_back(g);
    rs.push_back(ref);
  }
  const double rel = relative_l2(gs, rs);
  if (!(rel < 5e-5)) {
    r.error = "relative L2 error " + fixed(rel * 1e6, 2) + "e-6 (TF32 in use?)";
    return r;
  }
  r.samples_ms = time_ms(c, launch);
  r.ms = median(r.samples_ms);
  r.verified = true;
  r.flops = 2.0 * double(n) * n * n;
  r.bytes = 3.0 * nn * sizeof(float);
  r.note = "n=" + std::to_string(n) + ", PEDANTIC math (no TF32), " + std::to_string(samples) +
           " sampled entries, rel L2 " + fixed(rel * 1e9, 1) + "e-9";
  return r;
}

// cub::DeviceReduce::Sum over n floats (time excludes the one-time
// temp-storage allocation, as a real caller would reuse it).
Result cub_anchor_run(Context& c, long long n) {
  std::vector<float> h(n);
  // Positive inputs: the bound below is then relative to the sum itself.
  fill_random(h, c.rng, 0.f, 1.f);
  double ref = 0;
  for (float x : h) ref += x;
  DeviceBuffer<float> in(n), out(1);
  in.upload(h);
  size_t temp_bytes = 0;
  SMEMLAB_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.get(), out.get(), n));
  DeviceBuffer<char> temp(temp_bytes);
  auto launch = [&] {
    SMEMLAB_CUDA_CHECK(cub::DeviceReduce::Sum(temp.get(), temp_bytes, in.get(), out.get(), n));
  };
  out.poison();
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  const float got = out.download()[0];
  // Any summation order whose longest chain of dependent float additions is
  // L has error <= L u sum|x|. CUB splits the input over >= 2^14 threads, so
  // L <= n / 2^14 + log2(2^14) and, for n = 2^28, L u <= 2^-10. Losing or
  // double-counting a single 1/1000 of the data would exceed it.
  const double L = double(n) / 16384.0 + 14.0;
  const double tol = L * std::ldexp(1.0, -24);
  Result r;
  const double rel = std::fabs(double(got) - ref) / ref;
  if (!(rel <= tol)) {
    r.error = "sum " + std::to_string(got) + ", expected " + std::to_string(ref);
    return r;
  }
  r.samples_ms = time_ms(c, launch);
  r.ms = median(r.samples_ms);
  r.verified = true;
  r.bytes = double(n) * sizeof(float);
  r.note = "n=" + std::to_string(n) + ", relative error " + fixed(rel * 1e9, 2) + "e-9 (bound " +
           fixed(tol * 1e6, 1) + "e-6)";
  return r;
}

SMEMLAB_BENCHMARK(kCopyAnchor, "device copy kernel, float4: the bandwidth ceiling", copy_anchor);
SMEMLAB_BENCHMARK(cublas_anchor(1024), "cuBLAS SGEMM FP32 (no TF32), 1024^3",
                  [](Context& c) { return cublas_anchor_run(c, 1024); });
SMEMLAB_BENCHMARK(cublas_anchor(2048), "cuBLAS SGEMM FP32 (no TF32), 2048^3",
                  [](Context& c) { return cublas_anchor_run(c, 2048); });
SMEMLAB_BENCHMARK(cublas_anchor(4096), "cuBLAS SGEMM FP32 (no TF32), 4096^3",
                  [](Context& c) { return cublas_anchor_run(c, 4096); });
SMEMLAB_BENCHMARK(cublas_anchor(8192), "cuBLAS SGEMM FP32 (no TF32), 8192^3",
                  [](Context& c) { return cublas_anchor_run(c, 8192); });
SMEMLAB_BENCHMARK(cub_anchor(1LL << 28), "CUB DeviceReduce::Sum over 2^28 floats",
                  [](Context& c) { return cub_anchor_run(c, 1LL << 28); });

}  // namespace
}  // namespace smemlab::bench
