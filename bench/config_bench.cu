// Benchmarks for kernels/config.cu: time and occupancy of one bandwidth-bound
// kernel versus its dynamic shared memory per block (opt-in above 48 KiB)
// and versus the carveout preference; and proof that > 48 KiB needs the
// opt-in attribute.
#include "bench/bench.h"
#include "bench/suite_util.h"
#include "kernels/config.cu"

namespace smemlab::bench {
namespace {

using ChunkKernel = void (*)(const float*, float*, long long, int);

std::vector<float> cpu_chunk_reverse(const std::vector<float>& in, long long S) {
  const long long n = (long long)in.size();
  std::vector<float> out(n);
  for (long long base = 0; base < n; base += S) {
    const long long len = std::min(S, n - base);
    for (long long i = 0; i < len; ++i) out[base + i] = in[base + len - 1 - i];
  }
  return out;
}

// carveout: percent of the unified L1/shared pool preferred as shared, or
// -1 for the default (no preference).
Result chunk_run(Context& c, int kib, int carveout) {
  const long long n = c.quick ? 1LL << 24 : 1LL << 26;
  const size_t smem = size_t(kib) << 10;
  const int threads = 256, S = int(smem / sizeof(float));
  Result r;
  if (smem > c.prop.sharedMemPerBlockOptin) {
    r.error = std::to_string(kib) + " KiB exceeds the per-block maximum";
    return r;
  }
  const void* fn = reinterpret_cast<const void*>(smemChunkReverse);
  // The opt-in: without it any launch asking for > 48 KiB fails.
  SMEMLAB_CUDA_CHECK(
      cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  std::string carve_note;
  if (cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout) !=
      cudaSuccess) {
    // Not fatal: the kernel still runs, under whatever carveout was set before.
    carve_note = std::string(" (carveout ") + std::to_string(carveout) +
                 " refused: " + cudaGetErrorName(cudaGetLastError()) + ")";
  }
  std::vector<float> h(n);
  fill_random(h, c.rng);
  DeviceBuffer<float> in(n), out(n);
  in.upload(h);
  out.poison();
  r.info = kernel_info(fn, threads, smem);
  const long long chunks = (n + S - 1) / S;
  const int grid = int(std::min<long long>(
      chunks, (long long)c.prop.multiProcessorCount * std::max(1, r.info.blocks_per_sm)));
  auto launch = [&] { smemChunkReverse<<<grid, threads, smem>>>(in.get(), out.get(), n, S); };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  r.error = compare(out.download(), cpu_chunk_reverse(h, S), 0.0);
  r.bytes = 2.0 * n * sizeof(float);
  r.anchor = kCopyAnchor;
  r.note = std::to_string(kib) + " KiB/block, carveout " +
           (carveout < 0 ? std::string("default") : std::to_string(carveout) + "%") + ", " +
           std::to_string(r.info.blocks_per_sm) + " blocks/SM, grid " + std::to_string(grid) +
           carve_note;
  return time_into(r, c, launch);
}

// A launch with 64 KiB of dynamic shared memory fails on a kernel that did
// not opt in, and succeeds (with a correct result) once it has.
Result optin(Context& c) {
  const long long n = 1 << 20;
  const size_t smem = 64 << 10;
  const int S = int(smem / sizeof(float));
  std::vector<float> h(n);
  fill_random(h, c.rng);
  DeviceBuffer<float> in(n), out(n);
  in.upload(h);
  out.poison();
  Result r;
  smemOptinProbe<<<4, 256, smem>>>(in.get(), out.get(), n, S);
  const cudaError_t before = cudaGetLastError();
  cudaDeviceSynchronize();
  if (before == cudaSuccess) {
    r.error = "64 KiB launch without the opt-in attribute did not fail";
    return r;
  }
  const void* fn = reinterpret_cast<const void*>(smemOptinProbe);
  SMEMLAB_CUDA_CHECK(
      cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  auto launch = [&] { smemOptinProbe<<<132, 256, smem>>>(in.get(), out.get(), n, S); };
  launch();
  SMEMLAB_CUDA_LAUNCH_CHECK();
  r.error = compare(out.download(), cpu_chunk_reverse(h, S), 0.0);
  r.bytes = 2.0 * n * sizeof(float);
  r.info = kernel_info(fn, 256, smem);
  r.note = std::string("without opt-in: ") + cudaGetErrorName(before) +
           "; with cudaFuncAttributeMaxDynamicSharedMemorySize = 65536: ok";
  return time_into(r, c, launch);
}

struct Register {
  Register() {
    for (int kib : {1, 4, 8, 16, 32, 48, 64, 96, 128, 192, 227})
      registry().push_back({"config/smem-kib/" + std::to_string(kib),
                            "chunk-reverse kernel with " + std::to_string(kib) +
                                " KiB dynamic shared per block: occupancy and time",
                            [kib](Context& c) { return chunk_run(c, kib, -1); }});
    for (int pct : {0, 25, 50, 100})
      registry().push_back({"config/carveout/" + std::to_string(pct),
                            "chunk-reverse kernel, 16 KiB/block, carveout preference " +
                                std::to_string(pct) + "% shared",
                            [pct](Context& c) { return chunk_run(c, 16, pct); }});
    registry().push_back(
        {"config/optin", "> 48 KiB dynamic shared fails without the opt-in", optin});
  }
} register_all;

}  // namespace
}  // namespace smemlab::bench
