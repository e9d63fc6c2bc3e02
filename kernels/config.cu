// Shared-memory configuration: a bandwidth-bound kernel whose blocks each
// stage a chunk of the input in a dynamic shared buffer of a chosen size (and
// write it back reversed within the chunk). The bench varies the buffer size
// (above 48 KiB only after the opt-in attribute) and the carveout preference
// and reports occupancy and time. Device code only; the host side lives in
// bench/config_bench.cu.
//
// Emulator launch recipes (small sizes; parameters in, out, n, chunk floats):
// clang-format off
// smemlab: --kernel smemChunkReverse --grid 2 --block 128 --shared 2048 --arg float[1500]=random(1) --arg float[1500]=zeros --arg long=1500 --arg int=512
// smemlab: --kernel smemOptinProbe --grid 2 --block 128 --shared 2048 --arg float[1500]=random(1) --arg float[1500]=zeros --arg long=1500 --arg int=512
// clang-format on
#include <cstdint>

// The chunk is the whole dynamic buffer (chunk floats = dynamic bytes / 4,
// passed by the host); blocks walk the chunks grid-stride. Larger chunks mean fewer resident
// blocks per SM (lower occupancy) and fewer loads in flight.
__device__ __forceinline__ void chunk_reverse(const float* __restrict__ in, float* __restrict__ out,
                                              long long n, int chunk_floats) {
  extern __shared__ float chunk[];
  const long long S = chunk_floats;
  for (long long base = (long long)blockIdx.x * S; base < n; base += (long long)gridDim.x * S) {
    const long long len = n - base < S ? n - base : S;
#pragma unroll 4
    for (long long i = threadIdx.x; i < len; i += blockDim.x) chunk[i] = in[base + i];
    __syncthreads();
#pragma unroll 4
    for (long long i = threadIdx.x; i < len; i += blockDim.x) out[base + i] = chunk[len - 1 - i];
    __syncthreads();
  }
}

// The kernel the size and carveout sweeps use.
extern "C" __global__ void smemChunkReverse(const float* __restrict__ in, float* __restrict__ out,
                                            long long n, int chunk_floats) {
  chunk_reverse(in, out, n, chunk_floats);
}

// The same code as a separate function, so that its (never raised) dynamic
// shared limit shows that > 48 KiB launches fail without the opt-in.
extern "C" __global__ void smemOptinProbe(const float* __restrict__ in, float* __restrict__ out,
                                          long long n, int chunk_floats) {
  chunk_reverse(in, out, n, chunk_floats);
}
