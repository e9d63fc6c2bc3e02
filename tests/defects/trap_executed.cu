// A kernel that gives up with __trap() on one input: the launch fails.
// `check` reports a finding of kind trap, which its SARIF log declares a
// rule for (the trap row of src/emu/fault_kinds.def).
// smemlab-gpu: skip (the trap spoils the context)
// smemlab: --kernel guardedCopy --grid 1 --block 32 --arg int[32]=iota --arg int[32]=zeros
__global__ void guardedCopy(const int* in, int* out) {
  int x = in[threadIdx.x];
  if (x == 31) __trap();  // EXPECT: trap
  out[threadIdx.x] = x;
}
