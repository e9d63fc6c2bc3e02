// Shared-memory tile access patterns from Professional CUDA C Programming,
// ch. 5: row-major vs column-major writes and reads of a square 32x32 tile
// and a rectangular 32x16 one, static and dynamic, with and without padding,
// for 4-byte (int) and 8-byte (long long) elements. Each block fills its own
// tile with global indices and writes them back in the read order, so a grid
// of many blocks measures the cost of the conflicts and the output proves
// the mapping. Block shapes: 32x32 (square) and 32x16 (rect); out holds
// gridDim.x tiles. Device code only; the host side is bench/tiles_bench.cu.
//
// Emulator launch recipes (two tiles each; parameter: out):
// clang-format off
// smemlab: --kernel setRowReadRow --grid 2 --block 32,32 --arg int[2048]=zeros
// smemlab: --kernel setColReadCol --grid 2 --block 32,32 --arg int[2048]=zeros
// smemlab: --kernel setRowReadCol --grid 2 --block 32,32 --arg int[2048]=zeros
// smemlab: --kernel setRowReadColDyn --grid 2 --block 32,32 --shared 4096 --arg int[2048]=zeros
// smemlab: --kernel setRowReadColPad --grid 2 --block 32,32 --arg int[2048]=zeros
// smemlab: --kernel setRowReadColPad2 --grid 2 --block 32,32 --arg int[2048]=zeros
// smemlab: --kernel setRowReadColDynPad --grid 2 --block 32,32 --shared 4224 --arg int[2048]=zeros
// smemlab: --kernel setRowReadColRect --grid 2 --block 32,16 --arg int[1024]=zeros
// smemlab: --kernel setRowReadColRectPad --grid 2 --block 32,16 --arg int[1024]=zeros
// smemlab: --kernel setRowReadColRectDyn --grid 2 --block 32,16 --shared 2048 --arg int[1024]=zeros
// smemlab: --kernel setRowReadColRectDynPad --grid 2 --block 32,16 --shared 2176 --arg int[1024]=zeros
// smemlab: --kernel setRowReadRow8 --grid 2 --block 32,32 --arg long[2048]=zeros
// smemlab: --kernel setColReadCol8 --grid 2 --block 32,32 --arg long[2048]=zeros
// smemlab: --kernel setRowReadCol8 --grid 2 --block 32,32 --arg long[2048]=zeros
// smemlab: --kernel setRowReadColPad8 --grid 2 --block 32,32 --arg long[2048]=zeros
// smemlab: --kernel setRowReadColDyn8 --grid 2 --block 32,32 --shared 8192 --arg long[2048]=zeros
// smemlab: --kernel setRowReadColDynPad8 --grid 2 --block 32,32 --shared 8448 --arg long[2048]=zeros
// smemlab: --kernel setRowReadColRect8 --grid 2 --block 32,16 --arg long[1024]=zeros
// smemlab: --kernel setRowReadColRectPad8 --grid 2 --block 32,16 --arg long[1024]=zeros
// clang-format on
#include <cstdint>

constexpr int kSq = 32;     // square tile: 32 x 32, block 32 x 32
constexpr int kRectX = 32;  // rectangular tile: 16 rows of 32, block 32 x 16
constexpr int kRectY = 16;

// Index of this thread in its block, and the first output of the block.
__device__ __forceinline__ unsigned tile_idx() { return threadIdx.y * blockDim.x + threadIdx.x; }
__device__ __forceinline__ size_t tile_base() {
  return (size_t)blockIdx.x * blockDim.x * blockDim.y;
}

// Row-major write, row-major read: each warp touches one row, 32 banks.
template <class T>
__device__ __forceinline__ void row_read_row(T* out) {
  __shared__ T tile[kSq][kSq];
  const unsigned idx = tile_idx();
  const size_t base = tile_base();
  tile[threadIdx.y][threadIdx.x] = T(base + idx);
  __syncthreads();
  out[base + idx] = tile[threadIdx.y][threadIdx.x];
}

// Column-major write and read: a warp walks down a column, one bank
// (32-way conflict for 4-byte words).
template <class T>
__device__ __forceinline__ void col_read_col(T* out) {
  __shared__ T tile[kSq][kSq];
  const unsigned idx = tile_idx();
  const size_t base = tile_base();
  tile[threadIdx.x][threadIdx.y] = T(base + idx);
  __syncthreads();
  out[base + idx] = tile[threadIdx.x][threadIdx.y];
}

// Row-major write (conflict-free), column-major read (conflicts unless PAD
// spreads the column over the banks): the transpose pattern.
template <class T, int PAD>
__device__ __forceinline__ void row_read_col(T* out) {
  __shared__ T tile[kSq][kSq + PAD];
  const unsigned idx = tile_idx();
  const size_t base = tile_base();
  tile[threadIdx.y][threadIdx.x] = T(base + idx);
  __syncthreads();
  out[base + idx] = tile[threadIdx.x][threadIdx.y];
}

// The same on a dynamic 1-D buffer with explicit index arithmetic; PAD words
// per row of blockDim.x.
template <class T, int PAD>
__device__ __forceinline__ void row_read_col_dyn(T* out) {
  extern __shared__ __align__(16) unsigned char dyn_raw[];
  T* tile = reinterpret_cast<T*>(dyn_raw);
  const unsigned row_idx = threadIdx.y * (blockDim.x + PAD) + threadIdx.x;
  const unsigned col_idx = threadIdx.x * (blockDim.x + PAD) + threadIdx.y;
  const unsigned g = tile_idx();
  const size_t base = tile_base();
  tile[row_idx] = T(base + g);
  __syncthreads();
  out[base + g] = tile[col_idx];
}

// Rectangular 16 x 32 tile (block 32 x 16): the thread with linear index idx
// reads element (idx % 16, idx / 16), i.e. walks the transposed layout.
template <class T, int PAD>
__device__ __forceinline__ void row_read_col_rect(T* out) {
  __shared__ T tile[kRectY][kRectX + PAD];
  const unsigned idx = tile_idx();
  const unsigned irow = idx / blockDim.y, icol = idx % blockDim.y;
  const size_t base = tile_base();
  tile[threadIdx.y][threadIdx.x] = T(base + idx);
  __syncthreads();
  out[base + idx] = tile[icol][irow];
}

template <class T, int PAD>
__device__ __forceinline__ void row_read_col_rect_dyn(T* out) {
  extern __shared__ __align__(16) unsigned char dyn_raw[];
  T* tile = reinterpret_cast<T*>(dyn_raw);
  const unsigned idx = tile_idx();
  const unsigned irow = idx / blockDim.y, icol = idx % blockDim.y;
  const unsigned row_idx = threadIdx.y * (blockDim.x + PAD) + threadIdx.x;
  const unsigned col_idx = icol * (blockDim.x + PAD) + irow;
  const size_t base = tile_base();
  tile[row_idx] = T(base + idx);
  __syncthreads();
  out[base + idx] = tile[col_idx];
}

// 4-byte elements, square tile.
// Row write, row read: conflict-free.
extern "C" __global__ void setRowReadRow(int* out) { row_read_row<int>(out); }
// Column write, column read: 32-way conflicts both ways.
extern "C" __global__ void setColReadCol(int* out) { col_read_col<int>(out); }
// Row write, column read: 32-way conflict on the read.
extern "C" __global__ void setRowReadCol(int* out) { row_read_col<int, 0>(out); }
// Row write, column read on a dynamic buffer: same conflicts as the static one.
extern "C" __global__ void setRowReadColDyn(int* out) { row_read_col_dyn<int, 0>(out); }
// One padding column: the column read becomes conflict-free.
extern "C" __global__ void setRowReadColPad(int* out) { row_read_col<int, 1>(out); }
// Two padding columns: 2-way conflicts come back (stride 34 words).
extern "C" __global__ void setRowReadColPad2(int* out) { row_read_col<int, 2>(out); }
// Dynamic buffer with one padding word per row: conflict-free.
extern "C" __global__ void setRowReadColDynPad(int* out) { row_read_col_dyn<int, 1>(out); }

// 4-byte elements, rectangular 32 x 16 block.
// Column-order read of a 32-wide tile: 16-way conflicts.
extern "C" __global__ void setRowReadColRect(int* out) { row_read_col_rect<int, 0>(out); }
// Padded by 2 words per row: spreads the column read over the banks.
extern "C" __global__ void setRowReadColRectPad(int* out) { row_read_col_rect<int, 2>(out); }
// Dynamic rectangular tile, unpadded: same conflicts as the static one.
extern "C" __global__ void setRowReadColRectDyn(int* out) { row_read_col_rect_dyn<int, 0>(out); }
// Dynamic rectangular tile padded by 2 words per row.
extern "C" __global__ void setRowReadColRectDynPad(int* out) { row_read_col_rect_dyn<int, 2>(out); }

// 8-byte elements (two banks each): a warp's 256 bytes need at least two
// wavefronts; column walks collide in 16 bank pairs.
// Row write, row read, 8-byte: conflict-free (2 wavefronts).
extern "C" __global__ void setRowReadRow8(long long* out) { row_read_row<long long>(out); }
// Column write and read, 8-byte: a warp's column sits in one bank pair.
extern "C" __global__ void setColReadCol8(long long* out) { col_read_col<long long>(out); }
// Row write, column read, 8-byte.
extern "C" __global__ void setRowReadCol8(long long* out) { row_read_col<long long, 0>(out); }
// One 8-byte pad per row: column elements spread over all bank pairs.
extern "C" __global__ void setRowReadColPad8(long long* out) { row_read_col<long long, 1>(out); }
// Dynamic 8-byte tile, unpadded.
extern "C" __global__ void setRowReadColDyn8(long long* out) {
  row_read_col_dyn<long long, 0>(out);
}
// Dynamic 8-byte tile, one pad element per row.
extern "C" __global__ void setRowReadColDynPad8(long long* out) {
  row_read_col_dyn<long long, 1>(out);
}
// Rectangular 8-byte tile, unpadded.
extern "C" __global__ void setRowReadColRect8(long long* out) {
  row_read_col_rect<long long, 0>(out);
}
// Rectangular 8-byte tile padded by one element per row.
extern "C" __global__ void setRowReadColRectPad8(long long* out) {
  row_read_col_rect<long long, 1>(out);
}
