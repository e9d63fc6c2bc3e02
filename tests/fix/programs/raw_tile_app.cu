// A program whose kernel copies its shared tile out byte for byte (as laid
// out in shared memory): any padding or swizzle changes its output, so every
// candidate `smemlab fix -- APP` proves must be rejected.
#include <cstdio>
#include <vector>

__global__ void dumpTile(unsigned* out) {
  __shared__ unsigned tile[32][32];
  unsigned r = threadIdx.x, t = threadIdx.y;
  for (unsigned c = t; c < 32; c += blockDim.y) tile[r][c] = r * 32 + c + blockIdx.x;
  __syncthreads();
  // The raw words of the array, in address order, including any padding.
  const unsigned* raw = &tile[0][0];
  unsigned words = sizeof(tile) / sizeof(unsigned);
  for (unsigned i = t * 32 + r; i < words; i += 32 * blockDim.y) out[blockIdx.x * words + i] = raw[i];
}

int main() {
  const int blocks = 2, words = 32 * 32;
  unsigned* d;
  cudaMalloc(&d, blocks * words * sizeof(unsigned));
  dumpTile<<<blocks, dim3(32, 4)>>>(d);
  std::vector<unsigned> h(blocks * words);
  cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
  unsigned long long sum = 0;
  for (size_t i = 0; i < h.size(); ++i) sum += h[i] * (i % 13);
  std::printf("dump checksum %llu\n", sum);
  cudaFree(d);
  return 0;
}
