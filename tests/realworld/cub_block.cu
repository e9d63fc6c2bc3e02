// CUB block- and warp-level primitives as library users write them:
// BlockLoad/BlockStore with warp transposes, BlockReduce, BlockScan,
// WarpReduce, BlockRadixSort, BlockHistogram.
// smemlab: --kernel "blockReduceSum<128, 4>" --grid 3 --block 128 --arg float[1536]=random(1) --arg float[3]=zeros
// smemlab: --kernel blockScanExclusive --grid 2 --block 64 --arg int[512]=random(2) --arg int[512]=zeros
// smemlab: --kernel warpReduceMax --grid 2 --block 128 --arg int[256]=random(3) --arg int[8]=zeros
// smemlab: --kernel blockRadixSort --grid 2 --block 64 --arg unsigned[512]=random(4) --arg unsigned[512]=zeros
// smemlab: --kernel blockHistogram --grid 2 --block 128 --arg uchar[1024]=random(5) --arg unsigned[256]=zeros
#include <cub/cub.cuh>

template <int THREADS, int ITEMS>
__global__ void blockReduceSum(const float* in, float* out) {
  using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Reduce = cub::BlockReduce<float, THREADS>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Reduce::TempStorage reduce;
  } temp;
  float items[ITEMS];
  Load(temp.load).Load(in + blockIdx.x * THREADS * ITEMS, items);
  __syncthreads();
  float s = Reduce(temp.reduce).Sum(items);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
template __global__ void blockReduceSum<128, 4>(const float*, float*);

__global__ void blockScanExclusive(const int* in, int* out) {
  using Load = cub::BlockLoad<int, 64, 4, cub::BLOCK_LOAD_TRANSPOSE>;
  using Store = cub::BlockStore<int, 64, 4, cub::BLOCK_STORE_TRANSPOSE>;
  using Scan = cub::BlockScan<int, 64>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Scan::TempStorage scan;
  } temp;
  int items[4];
  Load(temp.load).Load(in + blockIdx.x * 256, items);
  __syncthreads();
  Scan(temp.scan).ExclusiveSum(items, items);
  __syncthreads();
  Store(temp.store).Store(out + blockIdx.x * 256, items);
}

__global__ void warpReduceMax(const int* in, int* out) {
  using WarpReduce = cub::WarpReduce<int>;
  __shared__ typename WarpReduce::TempStorage temp[4];
  int warp = threadIdx.x / 32;
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int m = WarpReduce(temp[warp]).Reduce(v, cuda::maximum<>{});
  if (threadIdx.x % 32 == 0) out[blockIdx.x * 4 + warp] = m;
}

__global__ void blockRadixSort(const unsigned* in, unsigned* out) {
  using Sort = cub::BlockRadixSort<unsigned, 64, 4>;
  __shared__ typename Sort::TempStorage temp;
  unsigned keys[4];
  for (int i = 0; i < 4; ++i) keys[i] = in[blockIdx.x * 256 + threadIdx.x * 4 + i];
  Sort(temp).Sort(keys);
  for (int i = 0; i < 4; ++i) out[blockIdx.x * 256 + threadIdx.x * 4 + i] = keys[i];
}

// 256-bin histogram of bytes; per-block shared histogram merged with atomics.
__global__ void blockHistogram(const unsigned char* in, unsigned* hist) {
  using Hist = cub::BlockHistogram<unsigned char, 128, 4, 256>;
  __shared__ typename Hist::TempStorage temp;
  __shared__ unsigned smem_hist[256];
  unsigned char items[4];
  for (int i = 0; i < 4; ++i) items[i] = in[blockIdx.x * 512 + threadIdx.x * 4 + i];
  Hist(temp).Histogram(items, smem_hist);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += 128) atomicAdd(&hist[b], smem_hist[b]);
}
