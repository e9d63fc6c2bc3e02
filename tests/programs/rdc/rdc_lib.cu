// Separate compilation (-rdc=true), unit 2 of 2: the definitions
// rdc_main.cu uses, and static names that collide with that unit's.
#include <cstdio>

#include "rdc_shared.h"

__device__ int g_offset;
__device__ int g_table[4] = {10, 20, 30, 40};
extern __device__ int g_calls;  // defined in rdc_main.cu

static __device__ __noinline__ int local_twist(int x) { return x ^ 9; }  // rdc_main.cu has its own

__device__ int lib_scale(int x) {
  atomicAdd(&g_calls, 1);
  if (x == 0) printf("lib unit: scale called\n");
  return 3 * x + 1 + local_twist(x) + (shared_inline(x) - shared_inline(x));
}
