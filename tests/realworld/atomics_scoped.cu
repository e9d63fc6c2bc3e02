// Atomics as modern code writes them: scoped atomicAdd_block / _system,
// cuda::atomic_ref with memory orders, a float atomicMax through
// atomicCAS, a shared-memory histogram, and a ticket-based last-block
// reduction with __threadfence.
// smemlab: --kernel scopedCounters --grid 4 --block 128 --arg int[3]=zeros
// smemlab: --kernel atomicRefSum --grid 3 --block 96 --arg ulong[1]=zeros --arg int=288
// smemlab: --kernel floatAtomicMax --grid 2 --block 128 --arg float[256]=random(1) --arg float[1]={-1}
// smemlab: --kernel sharedHistogram --grid 2 --block 128 --arg int[1024]=random(2) --arg unsigned[16]=zeros
// smemlab: --kernel lastBlockReduce --grid 4 --block 64 --arg float[256]=random(3) --arg float[4]=zeros --arg unsigned[1]=zeros --arg float[1]=zeros
#include <cuda/atomic>

__global__ void scopedCounters(int* c) {
  __shared__ int local;
  if (threadIdx.x == 0) local = 0;
  __syncthreads();
  atomicAdd_block(&local, 1);
  atomicAdd(&c[0], 1);
  atomicAdd_system(&c[1], 2);
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&c[2], local + blockIdx.x);
}

__global__ void atomicRefSum(unsigned long long* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> ref(*total);
  ref.fetch_add(static_cast<unsigned long long>(i) * i, cuda::memory_order_relaxed);
}

// The CAS loop of the CUDA programming guide's atomicAdd(double) example,
// with the first read made atomic too: the guide's plain `*p` read is
// reported by check as a race with the other threads' CAS (a race in the
// C++ memory model, benign on the GPU).
__device__ float atomicMaxFloat(float* addr, float v) {
  int* p = reinterpret_cast<int*>(addr);
  int old = atomicOr(p, 0), assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(p, assumed, __float_as_int(v));
  } while (old != assumed);
  return __int_as_float(old);
}

__global__ void floatAtomicMax(const float* in, float* m) {
  atomicMaxFloat(m, in[blockIdx.x * blockDim.x + threadIdx.x]);
}

__global__ void sharedHistogram(const int* in, unsigned* hist) {
  __shared__ unsigned h[16];
  if (threadIdx.x < 16) h[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 1024; i += gridDim.x * blockDim.x)
    atomicInc(&h[in[i] % 16], 0xffffffffu);
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}

// The CUDA samples' threadFenceReduction: each block writes its partial sum,
// the last block to finish (ticket counter) adds them up.
__global__ void lastBlockReduce(const float* in, float* partial, unsigned* ticket, float* total) {
  __shared__ float s[64];
  __shared__ bool last;
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  for (int k = 32; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    unsigned v = atomicInc(ticket, gridDim.x);
    last = v == gridDim.x - 1;
  }
  __syncthreads();
  if (last && t == 0) {
    float sum = 0;
    for (int b = 0; b < gridDim.x; ++b) sum += __ldcg(&partial[b]);
    *total = sum;
  }
}
