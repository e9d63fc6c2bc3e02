// printf / assert / device malloc, new and delete as user code has them.
// smemlab: --kernel debugPrint --grid 2 --block 4 --arg float[8]=iota --arg int=8
// smemlab: --kernel checkedScale --grid 2 --block 64 --arg float[128]=random(7) --arg float[128]=zeros --arg int=128 --arg float=2.5
// smemlab: --kernel perThreadScratch --grid 2 --block 32 --arg int[64]=zeros --arg int=5
#include <cassert>
#include <cstdio>

__global__ void debugPrint(const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) printf("block %d thread %d: x=%.2f sq=%d %s\n", blockIdx.x, threadIdx.x, x[i], i * i,
                    i % 2 ? "odd" : "even");
}

__global__ void checkedScale(const float* in, float* out, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(blockDim.x % warpSize == 0);
  if (i >= n) return;
  assert(in[i] >= 0.0f && in[i] < 1.0f);
  out[i] = in[i] * s;
}

struct Node {
  int value;
  Node* next;
};

// Each thread builds a list of k nodes with new, a scratch array with
// malloc, and sums both before freeing them.
__global__ void perThreadScratch(int* out, int k) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  Node* head = nullptr;
  for (int i = 0; i < k; ++i) head = new Node{t + i, head};
  int* scratch = static_cast<int*>(malloc(k * sizeof(int)));
  for (int i = 0; i < k; ++i) scratch[i] = i * t;
  int sum = 0;
  while (head) {
    Node* n = head->next;
    sum += head->value;
    delete head;
    head = n;
  }
  for (int i = 0; i < k; ++i) sum += scratch[i];
  free(scratch);
  out[t] = sum;
}
