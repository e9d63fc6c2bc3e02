// Benchmarks of kernels/reduction.cu at n = 2^28 floats against CUB
// DeviceReduce::Sum. Each benchmark times the whole reduction to one value
// (all passes of the multi-pass kernels; the single launch of reduce_best).
//
// Verification, two checks per benchmark:
//  1. Exact: inputs drawn from {-1, 0, 1} at n = 1, 5, 4099, 1000003. Every
//     partial sum is then an integer of magnitude <= n < 2^24, which float
//     represents exactly, so any summation order must give the exact integer;
//     a single lost, doubled or stray element fails.
//  2. At 2^28 uniform random values in [-1, 1): |S - S_ref| <= L * u * sum|x|
//     with u = 2^-24 and L the longest chain of additions any element goes
//     through in that kernel (the standard bound gamma_L, first order, for any
//     summation tree of depth L), S_ref the double sum. Per kernel, L counts
//     the elements one thread adds serially, the tree levels of a block and
//     each later pass (verify::chain_bound_passes, run_grid_stride). With
//     --quick, n = 2^20 (smoke and sanitizer runs); the names keep 2^28.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "bench/compute_verify.h"
#include "kernels/reduction.cu"

namespace smemlab::bench {
namespace {

using PassKernel = void (*)(const float*, float*, int);

struct PassVariant {
  const char* name;
  const char* desc;
  PassKernel kernel;
  int per_thread;  // elements each thread loads in a pass (1 or 2)
};

int blocks_for(int n, int per_thread) {
  const long long per_block = (long long)kReduceBlock * per_thread;
  return static_cast<int>((n + per_block - 1) / per_block);
}

// Buffers of one reduction of up to n_max elements to out[0].
struct Workspace {
  explicit Workspace(int n_max, int per_thread)
      : a(blocks_for(n_max, per_thread)), b(blocks_for(n_max, per_thread)), out(1) {}
  DeviceBuffer<float> a, b, out;
};

// Launches the passes of a multi-pass reduction of in[0..n) into ws.out.
void run_passes(const PassVariant& v, const float* in, int n, Workspace& ws) {
  const float* src = in;
  float* bufs[2] = {ws.a.get(), ws.b.get()};
  int pass = 0;
  while (true) {
    const int blocks = blocks_for(n, v.per_thread);
    float* dst = blocks == 1 ? ws.out.get() : bufs[pass % 2];
    v.kernel<<<blocks, kReduceBlock>>>(src, dst, n);
    if (blocks == 1) return;
    src = dst;
    n = blocks;
    ++pass;
  }
}

constexpr int kExactSizes[] = {1, 5, 4099, 1000003};

// The exact check of the header on prefixes of one ternary input.
template <class Reduce>
std::string exact_checks(Context& ctx, const Reduce& reduce, DeviceBuffer<float>& out) {
  const int n_max = kExactSizes[std::size(kExactSizes) - 1];
  std::vector<int> ints(n_max);
  std::uniform_int_distribution<int> ternary(-1, 1);
  for (int& v : ints) v = ternary(ctx.rng);
  std::vector<float> h(ints.begin(), ints.end());
  DeviceBuffer<float> d(n_max);
  d.upload(h);
  for (int n : kExactSizes) {
    long long ref = 0;
    for (int i = 0; i < n; ++i) ref += ints[i];
    out.poison();
    reduce(d.get(), n);
    SMEMLAB_CUDA_LAUNCH_CHECK();
    const float got = out.download()[0];
    if (!(got == static_cast<float>(ref)))
      return "exact check at n=" + std::to_string(n) + ": got " + std::to_string(got) +
             ", expected " + std::to_string(ref);
  }
  return "";
}

// Checks the big result against the double sum with the chain bound.
std::string bound_check(float got, const std::vector<float>& h, int chain, std::string* note) {
  std::string err = verify::check_sum(got, h, chain, note);
  *note += "; exact checks passed";
  return err;
}

constexpr int kN = 1 << 28;
// --quick (smoke and sanitizer runs) reduces 2^20 elements; names keep 2^28.
int size_for(const Context& ctx) { return ctx.quick ? 1 << 20 : kN; }

Result run_pass_variant(Context& ctx, const PassVariant& v) {
  Result r;
  const int n_run = size_for(ctx);
  Workspace ws(n_run, v.per_thread);
  r.error = exact_checks(
      ctx, [&](const float* in, int n) { run_passes(v, in, n, ws); }, ws.out);
  if (!r.error.empty()) return r;

  std::vector<float> h(n_run);
  fill_random(h, ctx.rng);
  DeviceBuffer<float> d(n_run);
  d.upload(h);
  ws.out.poison();
  run_passes(v, d.get(), n_run, ws);
  SMEMLAB_CUDA_LAUNCH_CHECK();
  r.error = bound_check(ws.out.download()[0], h,
                        verify::chain_bound_passes(n_run, v.per_thread, kReduceBlock), &r.note);
  if (!r.error.empty()) return r;
  r.verified = true;
  r.bytes = 4.0 * n_run;
  r.anchor = cub_anchor(kN);
  r.info = kernel_info(reinterpret_cast<const void*>(v.kernel), kReduceBlock, 0);
  r.samples_ms = time_ms(ctx, [&] { run_passes(v, d.get(), n_run, ws); });
  r.ms = median(r.samples_ms);
  return r;
}

using GridStrideKernel = void (*)(const float*, float*, unsigned int*, float*, int);

struct GridStrideVariant {
  const char* name;
  const char* desc;
  GridStrideKernel kernel;
  int unroll;  // float4 accumulators per thread
};

// Enough blocks to fill every SM at the kernel's occupancy, no more.
int grid_stride_grid(const Context& ctx, GridStrideKernel k, int n) {
  int per_sm = 0;
  SMEMLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, reinterpret_cast<const void*>(k), kReduceBlock, 0));
  const int full = std::max(1, per_sm) * ctx.prop.multiProcessorCount;
  return std::max(1, std::min(full, (n / 4 + kReduceBlock - 1) / kReduceBlock));
}

Result run_grid_stride(Context& ctx, const GridStrideVariant& v) {
  Result r;
  const int n_run = size_for(ctx);
  const int grid_max = grid_stride_grid(ctx, v.kernel, n_run);
  DeviceBuffer<float> partials(grid_max), out(1);
  DeviceBuffer<unsigned int> ticket(1);
  SMEMLAB_CUDA_CHECK(cudaMemset(ticket.get(), 0, ticket.bytes()));
  auto reduce = [&](const float* in, int n) {
    v.kernel<<<grid_stride_grid(ctx, v.kernel, n), kReduceBlock>>>(in, partials.get(), ticket.get(),
                                                                   out.get(), n);
  };
  r.error = exact_checks(ctx, reduce, out);
  if (!r.error.empty()) return r;

  std::vector<float> h(n_run);
  fill_random(h, ctx.rng);
  DeviceBuffer<float> d(n_run);
  d.upload(h);
  out.poison();
  partials.poison();
  reduce(d.get(), n_run);
  SMEMLAB_CUDA_LAUNCH_CHECK();
  // Serial adds into one accumulator lane: at most every float4 the thread
  // loads (n / 4 / threads, rounded up), then log2(4 * unroll) levels within
  // the thread, the tail element, 8 levels in the block (warp + block), then
  // the last block's serial loop over the partials and its 8 levels.
  const long long threads = (long long)grid_max * kReduceBlock;
  const int per_thread = static_cast<int>((n_run / 4 + threads - 1) / threads);
  int levels = 0;
  for (int w = 4 * v.unroll; w > 1; w /= 2) ++levels;
  const int chain = per_thread + levels + 1 + 8 + (grid_max + kReduceBlock - 1) / kReduceBlock + 8;
  r.error = bound_check(out.download()[0], h, chain, &r.note);
  if (!r.error.empty()) return r;
  r.note += ", grid " + std::to_string(grid_max);
  r.verified = true;
  r.bytes = 4.0 * n_run;
  r.anchor = cub_anchor(kN);
  r.info = kernel_info(reinterpret_cast<const void*>(v.kernel), kReduceBlock, 0);
  r.samples_ms = time_ms(ctx, [&] { reduce(d.get(), n_run); });
  r.ms = median(r.samples_ms);
  return r;
}

[[maybe_unused]] const bool registered = [] {
  const std::string size = "/" + std::to_string(kN);
  const PassVariant variants[] = {
      {"interleaved-divergent", "interleaved addressing, divergent branch (tid % 2s)",
       reduce_interleaved_divergent, 1},
      {"interleaved-strided", "interleaved addressing, strided index: bank conflicts",
       reduce_interleaved_strided, 1},
      {"sequential", "sequential addressing: conflict-free, half the threads idle",
       reduce_sequential, 1},
      {"first-add", "first add during load (2 elements per thread)", reduce_first_add, 2},
      {"unrolled-warp", "last warp unrolled, made safe with __syncwarp", reduce_unrolled_warp, 2},
      {"shuffle", "warp shuffles, shared memory only for warp sums", reduce_shuffle, 2},
  };
  for (const PassVariant& v : variants)
    registry().push_back({std::string("reduction/") + v.name + size,
                          std::string(v.desc) + " (multi-pass to one value)",
                          [v](Context& c) { return run_pass_variant(c, v); }});
  const GridStrideVariant grid_stride[] = {
      {"best", "grid-stride float4 loads (4 in flight), shuffles, last-block-done: one launch",
       reduce_best, 4},
      {"grid-stride-u2-occ8", "as best with 2 loads in flight and 8 blocks per SM",
       reduce_grid_stride_u2_occ8, 2},
      {"grid-stride-u8", "as best with 8 loads in flight and 4 blocks per SM",
       reduce_grid_stride_u8, 8},
  };
  for (const GridStrideVariant& v : grid_stride)
    registry().push_back({std::string("reduction/") + v.name + size, v.desc,
                          [v](Context& c) { return run_grid_stride(c, v); }});
  return true;
}();

}  // namespace
}  // namespace smemlab::bench
