// A Hopper GEMM as hand-written H100 kernels do it, checked by the program
// itself: C (M x N, f32) = A (M x K, f16, row-major) * B (K x N, f16, given
// column by column: bt[n * K + k]). Each 256-thread block computes a
// 128 x 128 tile with two warpgroups (64 rows each); per 64-wide k-tile it
// stores A and B into 128-byte-swizzled shared memory with plain stores
// (chunk c of row r at chunk c ^ (r % 8)), fences the async proxy, and runs
// four wgmma.mma_async.m64n128k16, advancing the descriptors' start by 32
// bytes per k16 step. Inputs are multiples of 1/8 in [-2, 2): every sum is
// exact, so the check is bit for bit. Usage: wgmma_gemm [M N K] (multiples
// of 128, 128, 64; default 256 256 128). Build: nvcc -arch=sm_90a.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// D (64 x 128, f32) += A (64 x 16, f16, descriptor) * B (16 x 128, f16, descriptor).
__device__ inline void wgmma_m64n128k16(float* d, uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "r"(scale_d));
}

__device__ inline uint32_t swizzle128(uint32_t row, uint32_t byte) {
  return row * 128 + ((((byte >> 4) ^ row) & 7) << 4) + (byte & 15);
}

// K-major, 128-byte swizzle, SBO = 1024 bytes (8 rows of 128 bytes).
__device__ inline uint64_t descriptor(const void* p) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  return uint64_t{(addr & 0x3ffff) >> 4} | uint64_t{1} << 16 | uint64_t{1024 >> 4} << 32 |
         uint64_t{1} << 62;
}

__global__ void __launch_bounds__(256) gemm(const uint16_t* a, const uint16_t* bt, float* c, int M,
                                            int N, int K) {
  __shared__ __align__(1024) uint8_t sa[128 * 128], sb[128 * 128];  // 128 rows of 64 f16
  const int m0 = blockIdx.y * 128, n0 = blockIdx.x * 128, wg = threadIdx.x / 128;
  float d[64];
  for (int i = 0; i < 64; ++i) d[i] = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 64) {
    __syncthreads();  // the previous tile's wgmma are complete (wait_group 0)
    for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) {  // 16 words of 4 bytes a row
      int r = i / 16, byte = (i % 16) * 8;
      uint2 va = *reinterpret_cast<const uint2*>(a + size_t(m0 + r) * K + k0 + byte / 2);
      uint2 vb = *reinterpret_cast<const uint2*>(bt + size_t(n0 + r) * K + k0 + byte / 2);
      *reinterpret_cast<uint2*>(sa + swizzle128(r, byte)) = va;
      *reinterpret_cast<uint2*>(sb + swizzle128(r, byte)) = vb;
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int kk = 0; kk < 4; ++kk)
      wgmma_m64n128k16(d, descriptor(sa + wg * 64 * 128 + 32 * kk), descriptor(sb + 32 * kk), 1);
    asm volatile("wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  }
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  for (int i = 0; i < 64; ++i) {
    int row = m0 + 64 * wg + 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
    int col = n0 + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    c[size_t(row) * N + col] = d[i];
  }
}

static uint16_t to_half(float f) {  // exact for the multiples of 1/8 used here
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) == 0) return uint16_t(x >> 16);
  int e = int((x >> 23) & 0xff) - 127;
  return uint16_t((x >> 16 & 0x8000) | (e + 15) << 10 | (x >> 13 & 0x3ff));
}

int main(int argc, char** argv) {
  int M = 256, N = 256, K = 128;
  if (argc == 4) M = std::atoi(argv[1]), N = std::atoi(argv[2]), K = std::atoi(argv[3]);
  if (M <= 0 || N <= 0 || K <= 0 || M % 128 || N % 128 || K % 64) {
    std::fprintf(stderr, "usage: wgmma_gemm [M N K] (multiples of 128, 128, 64)\n");
    return 2;
  }
  std::vector<float> fa(size_t(M) * K), fb(size_t(N) * K);
  std::vector<uint16_t> ha(fa.size()), hb(fb.size());
  for (size_t i = 0; i < fa.size(); ++i) fa[i] = float(int((i * 37 + 11) % 32) - 16) / 8, ha[i] = to_half(fa[i]);
  for (size_t i = 0; i < fb.size(); ++i) fb[i] = float(int((i * 53 + 5) % 32) - 16) / 8, hb[i] = to_half(fb[i]);
  uint16_t *da, *db;
  float* dc;
  cudaMalloc(&da, ha.size() * 2);
  cudaMalloc(&db, hb.size() * 2);
  cudaMalloc(&dc, size_t(M) * N * 4);
  cudaMemcpy(da, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice);
  gemm<<<dim3(N / 128, M / 128), 256>>>(da, db, dc, M, N, K);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    std::printf("FAIL wgmma_gemm: %s\n", cudaGetErrorString(err));
    return 1;
  }
  std::vector<float> c(size_t(M) * N);
  cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  size_t bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(fa[size_t(i) * K + k]) * fb[size_t(j) * K + k];
      if (c[size_t(i) * N + j] != float(s) && bad++ < 5)
        std::printf("C[%d][%d] = %g, expected %g\n", i, j, c[size_t(i) * N + j], s);
    }
  if (bad) {
    std::printf("FAIL wgmma_gemm: %zu of %d outputs differ\n", bad, M * N);
    return 1;
  }
  std::printf("PASS wgmma_gemm %dx%dx%d: every output equals the CPU reference\n", M, N, K);
  return 0;
}
