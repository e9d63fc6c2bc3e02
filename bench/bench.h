// GPU benchmark registry and helpers for `smemlab bench`.
//
// Each topic file (bench/*_bench.cu) registers benchmarks with
// SMEMLAB_BENCHMARK. A benchmark allocates its inputs, fills them with fresh
// random values, poisons its outputs, runs the kernel once and verifies the
// result against a CPU reference, then times it with CUDA events (warm-up,
// median of >= 20 runs). Its result names an anchor benchmark (the copy
// kernel, cuBLAS SGEMM, CUB reduce) measured in the same run, so the runner
// can print the percentage of the ceiling.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace smemlab::bench {

// Throws std::runtime_error with file:line and the CUDA error string.
void check_cuda(cudaError_t err, const char* what, const char* file, int line);
#define SMEMLAB_CUDA_CHECK(call) ::smemlab::bench::check_cuda((call), #call, __FILE__, __LINE__)
// Checks cudaGetLastError() and cudaDeviceSynchronize() after a launch.
#define SMEMLAB_CUDA_LAUNCH_CHECK()                                                    \
  do {                                                                                 \
    ::smemlab::bench::check_cuda(cudaGetLastError(), "launch", __FILE__, __LINE__);    \
    ::smemlab::bench::check_cuda(cudaDeviceSynchronize(), "sync", __FILE__, __LINE__); \
  } while (0)

// Resources of one kernel at one launch configuration.
struct KernelInfo {
  int registers = 0;
  size_t static_smem = 0;
  size_t dynamic_smem = 0;
  int block_threads = 0;
  int blocks_per_sm = 0;   // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  double occupancy = 0.0;  // active warps / max warps per SM
};
KernelInfo kernel_info(const void* kernel, int block_threads, size_t dynamic_smem);

// The timed launch as `smemlab run` makes it from PTX (its --kernel,
// --grid, --block, --shared, --arg specs), so `bench --predict` can give
// the time model's prediction beside the measured time (docs/timing.md).
// Set only where one kernel launch is timed; empty kernel: none.
struct LaunchRecipe {
  std::string module;  // kernels/<module>.cu, i.e. <ptx dir>/<module>.ptx
  std::string kernel;
  std::string grid, block;  // "x[,y[,z]]"
  unsigned shared = 0;      // dynamic shared bytes
  std::vector<std::string> args;
};

// The time model's prediction of a LaunchRecipe (made by the CLI layer:
// bench does not depend on the emulator).
struct Predicted {
  bool made = false;
  double duration_ns = 0;  // launch included, as CUDA events see it
  std::string limiter;     // "shared pipe", "DRAM", ...
  std::string gpu;         // "H100"
  std::string why_not;     // when !made
};

struct Result {
  bool verified = false;
  std::string error;  // why verification failed (empty when verified)
  double ms = 0.0;    // median time of one run
  std::vector<double> samples_ms;
  double bytes = 0.0;   // bytes moved per run (read + written, the fewest needed)
  double flops = 0.0;   // floating-point operations per run (0 when not compute-bound)
  std::string anchor;   // name of the benchmark this one is compared with ("" = none)
  KernelInfo info;      // resources of the main kernel (zeros for library anchors)
  std::string note;     // e.g. problem size, or a measured table row
  LaunchRecipe recipe;  // the timed launch, where it is one suite kernel
  Predicted predicted;  // `bench --predict`: the time model's duration
};

struct Context {
  cudaDeviceProp prop{};
  std::mt19937_64 rng;  // seeded per run from --seed: fresh random inputs each run
  int warmup = 3;
  int reps = 25;             // >= 20
  bool quick = false;        // smaller sizes (for a smoke run)
  bool verify_only = false;  // time_ms runs `launch` once, untimed (e.g. under a sanitizer)
};

// Times `launch` (which enqueues work on the default stream): warm-up runs,
// then reps runs each between two events; returns the samples in ms.
std::vector<double> time_ms(const Context& ctx, const std::function<void()>& launch);
double median(std::vector<double> v);

struct Benchmark {
  std::string name;         // "topic/variant[/size]", e.g. "transpose/padded/8192"
  std::string description;  // one line: what it demonstrates
  std::function<Result(Context&)> run;
};

std::vector<Benchmark>& registry();
struct Registrar {
  explicit Registrar(Benchmark b) { registry().push_back(std::move(b)); }
};
#define SMEMLAB_BENCH_CAT2(a, b) a##b
#define SMEMLAB_BENCH_CAT(a, b) SMEMLAB_BENCH_CAT2(a, b)
// SMEMLAB_BENCHMARK("transpose/naive/8192", "what it shows", [](Context& c) { ... });
#define SMEMLAB_BENCHMARK(name, desc, fn)                              \
  static ::smemlab::bench::Registrar SMEMLAB_BENCH_CAT(smemlab_bench_, \
                                                       __COUNTER__)({name, desc, fn})

// Fills with uniform random values in [lo, hi).
void fill_random(std::vector<float>& v, std::mt19937_64& rng, float lo = -1.f, float hi = 1.f);
void fill_random(std::vector<int>& v, std::mt19937_64& rng, int lo = -1000, int hi = 1000);

// Device buffer owning its memory; poison() writes a byte pattern (0xFF:
// NaN for floats, -1 for ints) so unwritten outputs are caught.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) {
    SMEMLAB_CUDA_CHECK(cudaMalloc(&p_, n_ * sizeof(T) + (n_ == 0)));
  }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return p_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }
  void upload(const std::vector<T>& h) {
    SMEMLAB_CUDA_CHECK(cudaMemcpy(p_, h.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    SMEMLAB_CUDA_CHECK(cudaMemcpy(h.data(), p_, bytes(), cudaMemcpyDeviceToHost));
    return h;
  }
  void poison() { SMEMLAB_CUDA_CHECK(cudaMemset(p_, 0xFF, bytes())); }

 private:
  T* p_ = nullptr;
  size_t n_;
};

// Compares element-wise; returns "" when equal (within rel_tol for floats
// relative to max(|ref|, 1)), else a message naming the first bad index.
std::string compare(const std::vector<float>& got, const std::vector<float>& ref, double rel_tol);
std::string compare(const std::vector<int>& got, const std::vector<int>& ref);
// ||got - ref|| / ||ref|| in double; NaN anywhere gives +inf.
double relative_l2(const std::vector<float>& got, const std::vector<double>& ref);

// The recipe of a launch of `kernel` (its name from the CUDA runtime,
// cudaFuncGetName: call after the kernel's first launch) from
// kernels/<module>.cu; `args` in `smemlab run --arg` syntax.
LaunchRecipe recipe_of(const void* kernel, const char* module, dim3 grid, dim3 block,
                       unsigned shared, std::vector<std::string> args);

// Names of the standard anchors, registered by bench/anchors.cu.
inline constexpr const char* kCopyAnchor = "anchor/copy";  // device copy, 256 MiB each way
std::string cublas_anchor(int n);                          // "anchor/cublas-sgemm/N"
std::string cub_anchor(long long n);                       // "anchor/cub-reduce/N"

}  // namespace smemlab::bench
