// Matrix transpose, out = in^T, in is rows x cols (row-major), out is
// cols x rows. The sequence from a plain copy (the ceiling) through the naive
// transpose to a shared tile with bank conflicts, then padding and an XOR
// swizzle that remove them, and a float4 version. Blocks are 32 x 8 threads;
// each handles one 32 x 32 tile (4 elements per thread). Any rows/cols.
// Device code only; the host side lives in bench/transpose_bench.cu.
//
// Emulator launch recipes (small sizes; parameters in, out, rows, cols):
// clang-format off
// smemlab: --kernel transposeCopy --grid 1,2 --block 32,8 --arg float[2016]=random(1) --arg float[2016]=zeros --arg int=63 --arg int=32
// smemlab: --kernel transposeCopyShared --grid 1,2 --block 32,8 --arg float[2016]=random(1) --arg float[2016]=zeros --arg int=63 --arg int=32
// smemlab: --kernel transposeNaive --grid 1,2 --block 32,8 --arg float[2016]=random(1) --arg float[2016]=zeros --arg int=63 --arg int=32
// smemlab: --kernel transposeCoalesced --grid 1,2 --block 32,8 --arg float[2016]=random(1) --arg float[2016]=zeros --arg int=63 --arg int=32
// smemlab: --kernel transposePadded --grid 1,2 --block 32,8 --arg float[2016]=random(1) --arg float[2016]=zeros --arg int=63 --arg int=32
// smemlab: --kernel transposeSwizzled --grid 1,2 --block 32,8 --arg float[2016]=random(1) --arg float[2016]=zeros --arg int=63 --arg int=32
// smemlab: --kernel transposeVec4 --grid 2,2 --block 8,32 --arg float[4096]=random(1) --arg float[4096]=zeros --arg int=64 --arg int=64
// smemlab: --kernel transposeVec4 --grid 1,2 --block 8,32 --arg float[2016]=random(1) --arg float[2016]=zeros --arg int=63 --arg int=32
// smemlab: --kernel transposePaddedRows4 --grid 1,2 --block 32,4 --arg float[2016]=random(1) --arg float[2016]=zeros --arg int=63 --arg int=32
// smemlab: --kernel transposePaddedRows16 --grid 1,2 --block 32,16 --arg float[2016]=random(1) --arg float[2016]=zeros --arg int=63 --arg int=32
// smemlab: --kernel transposeSwizzledRows4 --grid 1,2 --block 32,4 --arg float[2016]=random(1) --arg float[2016]=zeros --arg int=63 --arg int=32
// smemlab: --kernel transposeVec4Tile64 --grid 1,1 --block 16,16 --arg float[4096]=random(1) --arg float[4096]=zeros --arg int=64 --arg int=64
// smemlab: --kernel transposeVec4Tile64R8 --grid 1,1 --block 16,8 --arg float[2016]=random(1) --arg float[2016]=zeros --arg int=63 --arg int=32
// smemlab: --kernel transposeVec4Tile64R32 --grid 1,1 --block 16,32 --arg float[4096]=random(1) --arg float[4096]=zeros --arg int=64 --arg int=64
// clang-format on
#include <cstdint>

constexpr int kTile = 32;      // tile edge (elements)
constexpr int kBlockRows = 8;  // threads per block in y; each does kTile / kBlockRows rows

// Copy with the same indexing and block shape as the transposes: the
// bandwidth a transpose could reach at best.
extern "C" __global__ void transposeCopy(const float* __restrict__ in, float* __restrict__ out,
                                         int rows, int cols) {
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kBlockRows)
    if (x < cols && y + j < rows) out[(size_t)(y + j) * cols + x] = in[(size_t)(y + j) * cols + x];
}

// Copy staged through a shared tile (same element in and out of shared): the
// cost of the extra shared round trip and barrier alone.
extern "C" __global__ void transposeCopyShared(const float* __restrict__ in,
                                               float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kBlockRows)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  __syncthreads();
  for (int j = 0; j < kTile; j += kBlockRows)
    if (x < cols && y + j < rows)
      out[(size_t)(y + j) * cols + x] = tile[threadIdx.y + j][threadIdx.x];
}

// Naive: coalesced reads, but each warp's 32 writes land 4*rows bytes apart
// (one sector per element).
extern "C" __global__ void transposeNaive(const float* __restrict__ in, float* __restrict__ out,
                                          int rows, int cols) {
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kBlockRows)
    if (x < cols && y + j < rows) out[(size_t)x * rows + y + j] = in[(size_t)(y + j) * cols + x];
}

// Shared-tile transpose with a configurable row layout. PAD adds words per
// row; SWIZZLE stores column c of row r at c ^ r. Reads and writes of global
// memory are both coalesced; the tile column read hits one bank 32 times
// (32-way conflict) unless padded or swizzled.
template <int PAD, bool SWIZZLE, int ROWS = kBlockRows>
__device__ __forceinline__ void transpose_tiled(const float* __restrict__ in,
                                                float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + PAD];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += ROWS) {
    const int r = threadIdx.y + j;
    const int c = SWIZZLE ? (threadIdx.x ^ r) : threadIdx.x;
    if (x < cols && y + j < rows) tile[r][c] = in[(size_t)(y + j) * cols + x];
  }
  __syncthreads();
  // Output tile (blockIdx.x, blockIdx.y) swapped: out row = in column.
  x = blockIdx.y * kTile + threadIdx.x;  // out column = in row
  y = blockIdx.x * kTile + threadIdx.y;  // out row = in column
  for (int j = 0; j < kTile; j += ROWS) {
    const int r = threadIdx.x;       // tile row = in row within the tile
    const int c0 = threadIdx.y + j;  // tile column = in column within the tile
    const int c = SWIZZLE ? (c0 ^ r) : c0;
    if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[r][c];
  }
}

// Tile without padding: 32-way bank conflict on the column read.
extern "C" __global__ void transposeCoalesced(const float* __restrict__ in, float* __restrict__ out,
                                              int rows, int cols) {
  transpose_tiled<0, false>(in, out, rows, cols);
}

// One padding word per row: column elements fall in 32 different banks.
extern "C" __global__ void transposePadded(const float* __restrict__ in, float* __restrict__ out,
                                           int rows, int cols) {
  transpose_tiled<1, false>(in, out, rows, cols);
}

// XOR swizzle: conflict-free without spending shared memory on padding.
extern "C" __global__ void transposeSwizzled(const float* __restrict__ in, float* __restrict__ out,
                                             int rows, int cols) {
  transpose_tiled<0, true>(in, out, rows, cols);
}

// Padded tile with 32 x 4 threads: 8 elements per thread, more loads in
// flight per thread, fewer threads per tile.
extern "C" __global__ void transposePaddedRows4(const float* __restrict__ in,
                                                float* __restrict__ out, int rows, int cols) {
  transpose_tiled<1, false, 4>(in, out, rows, cols);
}

// Padded tile with 32 x 16 threads: 2 elements per thread.
extern "C" __global__ void transposePaddedRows16(const float* __restrict__ in,
                                                 float* __restrict__ out, int rows, int cols) {
  transpose_tiled<1, false, 16>(in, out, rows, cols);
}

// Swizzled tile with 32 x 4 threads.
extern "C" __global__ void transposeSwizzledRows4(const float* __restrict__ in,
                                                  float* __restrict__ out, int rows, int cols) {
  transpose_tiled<0, true, 4>(in, out, rows, cols);
}

// float4 global accesses on a T x T tile, block (T/4) x R threads, T/R
// passes: thread (tx, ty) loads the float4 at tile row ty + pass*R, columns
// 4tx..4tx+3, stores four words into the tile padded to T+1 columns, then
// gathers tile column c = ty + pass*R, rows 4tx..4tx+3, into one float4 of
// output row c. For T = 32 (block 8 x 32) both shared phases are
// conflict-free (banks r + 4tx + k); for T = 64 (16 x R) tx and tx + 8 share a
// bank (2-way), cheap next to the global traffic. All loads of a thread are
// issued before the barrier. 16-byte accesses need rows and cols to be
// multiples of 4 (aligned rows); otherwise the same block does the tile with
// coalesced scalar accesses.
template <int T, int R>
__device__ __forceinline__ void transpose_vec4(const float* __restrict__ in,
                                               float* __restrict__ out, int rows, int cols) {
  constexpr int kPasses = T / R;
  __shared__ float tile[T][T + 1];
  const int tx = threadIdx.x;  // tx < T/4, threadIdx.y < R
  const int row0 = blockIdx.y * T, col0 = blockIdx.x * T;
  const int x = col0 + 4 * tx;
  if ((rows % 4 == 0) && (cols % 4 == 0)) {
    float4 v[kPasses];  // every load in flight before the first shared store
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
      const int y = row0 + threadIdx.y + p * R;
      v[p] = make_float4(0.f, 0.f, 0.f, 0.f);
      if (y < rows && x < cols) v[p] = *reinterpret_cast<const float4*>(in + (size_t)y * cols + x);
    }
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
      const int r = threadIdx.y + p * R;
      tile[r][4 * tx + 0] = v[p].x;
      tile[r][4 * tx + 1] = v[p].y;
      tile[r][4 * tx + 2] = v[p].z;
      tile[r][4 * tx + 3] = v[p].w;
    }
    __syncthreads();
    // Output row = in column col0 + c; output columns = in rows row0 + 4tx + k.
    const int ox = row0 + 4 * tx;
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
      const int c = threadIdx.y + p * R, oy = col0 + c;
      if (oy < cols && ox < rows)
        *reinterpret_cast<float4*>(out + (size_t)oy * rows + ox) = make_float4(
            tile[4 * tx + 0][c], tile[4 * tx + 1][c], tile[4 * tx + 2][c], tile[4 * tx + 3][c]);
    }
  } else {
    // Unaligned rows: scalar accesses, the block's threads walking the tile
    // row by row (32-float coalesced runs), the write walking it column by
    // column (tile column reads hit 32 banks thanks to the padding).
    constexpr int kThreads = (T / 4) * R;
    const int lin = threadIdx.y * (T / 4) + tx;
#pragma unroll
    for (int e = lin; e < T * T; e += kThreads) {
      const int r = e / T, cc = e % T, y = row0 + r, xx = col0 + cc;
      if (y < rows && xx < cols) tile[r][cc] = in[(size_t)y * cols + xx];
    }
    __syncthreads();
#pragma unroll
    for (int e = lin; e < T * T; e += kThreads) {
      const int c = e / T, r = e % T, oy = col0 + c, ox = row0 + r;
      if (oy < cols && ox < rows) out[(size_t)oy * rows + ox] = tile[r][c];
    }
  }
}

// float4 loads and stores through a padded 32 x 32 tile (block 8 x 32).
extern "C" __global__ void transposeVec4(const float* __restrict__ in, float* __restrict__ out,
                                         int rows, int cols) {
  transpose_vec4<32, 32>(in, out, rows, cols);
}

// float4 through a padded 64 x 64 tile, block 16 x 16: 256-byte runs per
// output row and 16 floats per thread.
extern "C" __global__ void transposeVec4Tile64(const float* __restrict__ in,
                                               float* __restrict__ out, int rows, int cols) {
  transpose_vec4<64, 16>(in, out, rows, cols);
}

// The same tile with block 16 x 32 (8 floats per thread).
extern "C" __global__ void transposeVec4Tile64R32(const float* __restrict__ in,
                                                  float* __restrict__ out, int rows, int cols) {
  transpose_vec4<64, 32>(in, out, rows, cols);
}

// The same tile with block 16 x 8 (32 floats per thread).
extern "C" __global__ void transposeVec4Tile64R8(const float* __restrict__ in,
                                                 float* __restrict__ out, int rows, int cols) {
  transpose_vec4<64, 8>(in, out, rows, cols);
}
