// The course example: a 4x4 int matrix walked by rows (neighbouring threads
// read neighbouring words) and by columns (neighbouring threads are a row
// apart). Sixteen threads, one element each.
// smemlab: --kernel walkRows --grid 1 --block 16 --arg int[16]=iota --arg int[16]=zeros
// smemlab: --kernel walkColumns --grid 1 --block 16 --arg int[16]=iota --arg int[16]=zeros
extern "C" __global__ void walkRows(const int* m, int* out) {
  int t = threadIdx.x;
  out[t] = m[(t / 4) * 4 + t % 4];
}

extern "C" __global__ void walkColumns(const int* m, int* out) {
  int t = threadIdx.x;
  out[t] = m[(t % 4) * 4 + t / 4];
}

// The same walks over a 64x64 matrix, where a column step is 256 bytes: every
// thread of a warp lands in its own 32-byte sector.
// smemlab: --kernel walkRows64 --grid 4 --block 32,32 --arg int[4096]=iota --arg int[4096]=zeros
// smemlab: --kernel walkColumns64 --grid 4 --block 32,32 --arg int[4096]=iota --arg int[4096]=zeros
extern "C" __global__ void walkRows64(const int* m, int* out) {
  int r = blockIdx.x * 16 + threadIdx.y / 2, c = (threadIdx.y % 2) * 32 + threadIdx.x;
  out[r * 64 + c] = m[r * 64 + c];
}

extern "C" __global__ void walkColumns64(const int* m, int* out) {
  int r = blockIdx.x * 16 + threadIdx.y / 2, c = (threadIdx.y % 2) * 32 + threadIdx.x;
  out[r * 64 + c] = m[c * 64 + r];
}
