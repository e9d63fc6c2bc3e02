// Warp-synchronous intrinsics executed by the lanes of both sides of an
// if/else with the full mask: legal since sm_70 (independent thread
// scheduling); each *_sync converges the lanes its mask names, whichever
// instruction they are at. Each side stores first so that the compiler
// keeps two copies of every collective.
// smemlab: --kernel bothSides --grid 1 --block 64 --arg int[64]=iota --arg unsigned[256]=zeros
__global__ void bothSides(const int* in, unsigned* out) {
  __shared__ int s[64];
  int t = threadIdx.x, v = in[t];
  unsigned b, any;
  int x;
  if (v & 1) {
    s[t] = v * 3;
    b = __ballot_sync(0xffffffffu, v % 3 == 0);
    x = __shfl_sync(0xffffffffu, v, 0);
    any = __any_sync(0xffffffffu, v == 7);
    __syncwarp();
    x += s[t ^ 1];  // written on the other side, ordered by the __syncwarp()s
  } else {
    s[t] = v * 5;
    b = __ballot_sync(0xffffffffu, v % 4 == 0);
    x = __shfl_sync(0xffffffffu, v, 1) * 2;
    any = __any_sync(0xffffffffu, v == 12);
    __syncwarp();
    x -= s[t ^ 1];
  }
  out[t * 4 + 0] = b;
  out[t * 4 + 1] = static_cast<unsigned>(x);
  out[t * 4 + 2] = any;
  out[t * 4 + 3] = __all_sync(0xffffffffu, v < 64);
}
