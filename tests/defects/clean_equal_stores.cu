// Every thread stores the same bits to one shared location with no barrier
// between the stores (the CUDA samples' eigenvalues: all_threads_converged
// = 1 before a barrier): every order of the stores leaves the same memory,
// and compute-sanitizer's racecheck reports no hazard. Words, a vector
// store, a byte and a float (docs/check-rules.md, "Equal stores");
// volatile, so that the compiler keeps every store and load.
// smemlab: --kernel equalStores --grid 2 --block 128 --arg int[256]=zeros
__global__ void equalStores(int* out) {
  volatile __shared__ int converged;
  __shared__ int2 pair;
  volatile __shared__ unsigned char tag[4];
  volatile __shared__ float scale;
  converged = 1;
  asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"((unsigned)__cvta_generic_to_shared(&pair)),
               "r"(3), "r"(-4)
               : "memory");
  tag[1] = 7;
  scale = 0.5f;
  __syncthreads();
  out[blockIdx.x * 128 + threadIdx.x] = converged + pair.x + pair.y + tag[1] + (int)(scale * 2);
}
