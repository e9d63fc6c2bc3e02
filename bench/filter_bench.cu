// Benchmarks of kernels/filter.cu (21-point FIR, zero boundary) at n = 2^26
// points against the device copy kernel (bytes: n floats read + n written).
//
// Verification: fresh random x in [-1, 1) and taps in [-1, 1), outputs
// poisoned; every output y[i] is compared with the double-precision sum
// r[i] = sum_k c[k] x[i+k] (the same float taps) and must satisfy
// |y[i] - r[i]| <= 21 * u * sum_k |c[k] x[i+k]| (u = 2^-24): the standard
// error bound gamma_21 of a 21-term float dot product, in any order, with or
// without FMA. Checked at n = 1, 7, 1000003 (tails, halos at both ends) and
// at 2^26.
#include <cmath>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "bench/compute_verify.h"
#include "kernels/filter.cu"

namespace smemlab::bench {
namespace {

using FirKernel = void (*)(const float*, float*, int);

struct FirVariant {
  const char* name;
  const char* desc;
  FirKernel kernel;
  int per_thread;  // outputs per thread
};

int grid_for(const FirVariant& v, int n) {
  const long long span = (long long)kFirBlock * v.per_thread;
  return static_cast<int>((n + span - 1) / span);
}

constexpr int kN = 1 << 26;

Result run_fir(Context& ctx, const FirVariant& v) {
  Result r;
  std::vector<float> c(kFirTaps);
  fill_random(c, ctx.rng);
  SMEMLAB_CUDA_CHECK(cudaMemcpyToSymbol(c_fir, c.data(), sizeof(float) * kFirTaps));
  const int n_run = ctx.quick ? 1 << 20 : kN;  // --quick: smoke and sanitizer runs
  for (int n : {1, 7, 1000003, n_run}) {
    std::vector<float> hx(n);
    fill_random(hx, ctx.rng);
    DeviceBuffer<float> x(n), y(n);
    x.upload(hx);
    y.poison();
    v.kernel<<<grid_for(v, n), kFirBlock>>>(x.get(), y.get(), n);
    SMEMLAB_CUDA_LAUNCH_CHECK();
    r.error = verify::check_fir(hx, y.download(), c);
    if (!r.error.empty()) return r;
    if (n == n_run) {
      r.samples_ms =
          time_ms(ctx, [&] { v.kernel<<<grid_for(v, n), kFirBlock>>>(x.get(), y.get(), n); });
      r.ms = median(r.samples_ms);
    }
  }
  r.verified = true;
  r.bytes = 8.0 * n_run;
  r.anchor = kCopyAnchor;
  r.info = kernel_info(reinterpret_cast<const void*>(v.kernel), kFirBlock, 0);
  r.note = "n=" + std::to_string(n_run) + "; checked at n = 1, 7, 1000003, " +
           std::to_string(n_run) + " (per-element gamma_21 bound)";
  return r;
}

[[maybe_unused]] const bool registered = [] {
  const FirVariant variants[] = {
      {"one-per-thread", "shared tile + halo, one output per thread", fir_one_per_thread, 1},
      {"two-per-thread", "shared tile + halo, two outputs per thread as float2", fir_two_per_thread,
       2},
      {"best", "four outputs per thread, float4 global and shared accesses, registers", fir_best,
       4},
  };
  for (const FirVariant& v : variants)
    registry().push_back({std::string("filter/") + v.name + "/" + std::to_string(kN), v.desc,
                          [v](Context& c) { return run_fir(c, v); }});
  return true;
}();

}  // namespace
}  // namespace smemlab::bench
