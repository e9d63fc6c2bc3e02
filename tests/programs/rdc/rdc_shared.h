// An inline function both units of the -rdc test define: nvcc emits it in
// each unit's PTX as a .weak function, and the link keeps one.
#pragma once

__device__ __noinline__ inline int shared_inline(int x) { return (x * 7) & 15; }
inline int host_inline(int x) { return (x * 7) & 15; }
