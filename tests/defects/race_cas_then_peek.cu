// A CAS loop elsewhere in the kernel does not make every plain read of an
// atomically updated word benign: here each thread adds with a CAS loop on
// a global counter, then (no barrier) reads the counter again and stores
// what it saw. The second read feeds no CAS: a race with the other warps'
// CAS writes.
// smemlab: --kernel casThenPeek --grid 1 --block 128 --arg int[1]=zeros --arg int[128]=zeros
__device__ int casAdd(int* addr, int v) {
  int old = *addr, assumed;
  do {
    assumed = old;
    old = atomicCAS(addr, assumed, assumed + v);
  } while (assumed != old);
  return old;
}

__global__ void casThenPeek(int* counter, int* seen) {
  casAdd(counter, 1);
  seen[threadIdx.x] = *counter;  // EXPECT: race
}
