// An assert() that fails in one thread: the GPU stops the kernel (and the
// context) with cudaErrorAssert's device-side message. `check` reports it
// as a finding of kind assert, which its SARIF log declares a rule for.
// smemlab-gpu: skip (the failed assert spoils the context)
// smemlab: --kernel checkedScale --grid 1 --block 64 --arg int[64]=iota
#include <cassert>

__global__ void checkedScale(int* v) {
  int x = v[threadIdx.x];
  assert(x < 63);  // EXPECT: assert
  v[threadIdx.x] = 2 * x;
}
