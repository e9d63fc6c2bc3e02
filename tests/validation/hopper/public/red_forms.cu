// Which PTX atom forms ptxas makes REDs, and where Nsight Compute files
// them (issue 28, run 16, h-hop28h): CUTLASS example 54's amax
// (`atom.global.max.s32` whose result is unused) is a RED in SASS, which ncu
// counts under op_red and analyze counted under atomic. One kernel per
// form, each one block of 64 threads (two warps), launched in this order;
// ptxas's SASS for each (nvcc 13.0, -O3, sm_90a) is in docs/bank-model.md
// ("Atomics whose result is unused").
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#define K(name, body)                                                                    \
  __global__ void name(uint32_t* g, uint64_t* g64, float* f, double* d, uint32_t* out) { \
    uint32_t r = 0;                                                                      \
    uint64_t r64 = 0;                                                                    \
    float rf = 0;                                                                        \
    double rd = 0;                                                                       \
    (void)r;                                                                             \
    (void)r64;                                                                           \
    (void)rf;                                                                            \
    (void)rd;                                                                            \
    body                                                                                 \
  }
K(add_u32_unused, asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(r) : "l"(g) : "memory");)
K(add_u32_used, asm volatile("atom.global.add.u32 %0, [%1], 1;"
                             : "=r"(r)
                             : "l"(g)
                             : "memory");
  out[threadIdx.x] = r;)
K(max_s32_unused, asm volatile("atom.global.max.s32 %0, [%1], 1;" : "=r"(r) : "l"(g) : "memory");)
K(min_u32_unused, asm volatile("atom.global.min.u32 %0, [%1], 1;" : "=r"(r) : "l"(g) : "memory");)
K(exch_unused, asm volatile("atom.global.exch.b32 %0, [%1], 1;" : "=r"(r) : "l"(g) : "memory");)
K(cas_unused, asm volatile("atom.global.cas.b32 %0, [%1], 1, 2;" : "=r"(r) : "l"(g) : "memory");)
K(and_unused, asm volatile("atom.global.and.b32 %0, [%1], 1;" : "=r"(r) : "l"(g) : "memory");)
K(inc_unused, asm volatile("atom.global.inc.u32 %0, [%1], 7;" : "=r"(r) : "l"(g) : "memory");)
K(add_f32_unused, asm volatile("atom.global.add.f32 %0, [%1], 1.0;"
                               : "=f"(rf)
                               : "l"(f)
                               : "memory");)
K(add_u64_unused, asm volatile("atom.global.add.u64 %0, [%1], 1;"
                               : "=l"(r64)
                               : "l"(g64)
                               : "memory");)
K(add_f64_unused, asm volatile("atom.global.add.f64 %0, [%1], 1.0;"
                               : "=d"(rd)
                               : "l"(d)
                               : "memory");)
K(acquire_unused, asm volatile("atom.acquire.gpu.global.add.u32 %0, [%1], 1;"
                               : "=r"(r)
                               : "l"(g)
                               : "memory");)
K(release_unused, asm volatile("atom.release.gpu.global.add.u32 %0, [%1], 1;"
                               : "=r"(r)
                               : "l"(g)
                               : "memory");)
K(acqrel_unused, asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
                              : "=r"(r)
                              : "l"(g)
                              : "memory");)
K(relaxed_sys_unused, asm volatile("atom.relaxed.sys.global.add.u32 %0, [%1], 1;"
                                   : "=r"(r)
                                   : "l"(g)
                                   : "memory");)
K(generic_unused, asm volatile("atom.add.u32 %0, [%1], 1;" : "=r"(r) : "l"(g) : "memory");)
K(red_add, asm volatile("red.global.add.u32 [%0], 1;" ::"l"(g) : "memory");)
K(shared_unused, __shared__ uint32_t s[64]; s[threadIdx.x] = 0; __syncthreads();
  asm volatile("atom.shared.add.u32 %0, [%1], 1;"
               : "=r"(r)
               : "r"((uint32_t)__cvta_generic_to_shared(s))
               : "memory");
  __syncthreads(); out[threadIdx.x] = s[threadIdx.x];)
K(used_by_pred_only, asm volatile("atom.global.add.u32 %0, [%1], 1;"
                                  : "=r"(r)
                                  : "l"(g)
                                  : "memory");
  if (r == 12345) out[0] = 1;)
K(cuda_atomicmax, atomicMax((int*)g, 3);)
K(cuda_atomicadd_f, atomicAdd(f, 1.0f);)

int main() {
  uint32_t* g;
  uint64_t* g64;
  float* f;
  double* d;
  uint32_t* out;
  cudaMalloc(&g, 256);
  cudaMalloc(&g64, 256);
  cudaMalloc(&f, 256);
  cudaMalloc(&d, 256);
  cudaMalloc(&out, 256);
  cudaMemset(g, 0, 256);
  cudaMemset(g64, 0, 256);
  cudaMemset(f, 0, 256);
  cudaMemset(d, 0, 256);
  using Kernel = void (*)(uint32_t*, uint64_t*, float*, double*, uint32_t*);
  const struct {
    const char* name;
    Kernel k;
  } kernels[] = {
      {"add_u32_unused", add_u32_unused},
      {"add_u32_used", add_u32_used},
      {"max_s32_unused", max_s32_unused},
      {"min_u32_unused", min_u32_unused},
      {"exch_unused", exch_unused},
      {"cas_unused", cas_unused},
      {"and_unused", and_unused},
      {"inc_unused", inc_unused},
      {"add_f32_unused", add_f32_unused},
      {"add_u64_unused", add_u64_unused},
      {"add_f64_unused", add_f64_unused},
      {"acquire_unused", acquire_unused},
      {"release_unused", release_unused},
      {"acqrel_unused", acqrel_unused},
      {"relaxed_sys_unused", relaxed_sys_unused},
      {"generic_unused", generic_unused},
      {"red_add", red_add},
      {"shared_unused", shared_unused},
      {"used_by_pred_only", used_by_pred_only},
      {"cuda_atomicmax", cuda_atomicmax},
      {"cuda_atomicadd_f", cuda_atomicadd_f},
  };
  int status = 0;
  for (const auto& k : kernels) {
    k.k<<<1, 64>>>(g, g64, f, d, out);
    cudaError_t e = cudaDeviceSynchronize();
    uint32_t v = 0;
    cudaMemcpy(&v, g, 4, cudaMemcpyDeviceToHost);
    std::printf("%s: %s; g[0] %u\n", k.name, cudaGetErrorString(e), v);
    if (e != cudaSuccess) status = 1;
  }
  return status;
}
