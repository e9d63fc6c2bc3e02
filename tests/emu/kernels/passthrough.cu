// nvcc options from the command line and from a recipe, and an error in the
// user's code reported at its .cu line.
// smemlab: --kernel fill --grid 1 --block 32 --arg int[4]=zeros -D FILL_VALUE=7 --std c++17
#ifndef FILL_VALUE
#error "FILL_VALUE must be given with -D"
#endif

__global__ void fill(int* out) {
  if (threadIdx.x < 4) out[threadIdx.x] = FILL_VALUE;
}

__global__ void unsupported(int* out, int a, int b) {
  int r;
  asm("fns.b32 %0, %1, %2, 1;" : "=r"(r) : "r"(a), "r"(b));
  out[0] = r;
}
