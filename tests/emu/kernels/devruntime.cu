// The device runtime's functions as users call them: printf from a few
// threads, assert, and a per-block scratch list built with new/delete and
// malloc/free.
#include <cassert>
#include <cstdio>

__global__ void hello(const float* x, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n && t % 3 == 0)
    printf("block %d thread %d: x=%.2f %s %c %lld %5u|%-4x|%%\n", blockIdx.x, threadIdx.x, x[t],
           t % 2 ? "odd" : "even", 'a' + t, -1234567890123ll * t, t, t);
}

__global__ void checkPositive(const int* v, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) assert(v[t] > 0);
}

struct Node {
  int value;
  Node* next;
};

// Each thread 0 builds a list of its block's values on the device heap,
// sums it, and frees it.
__global__ void heapList(const int* v, int per_block, long long* sums) {
  if (threadIdx.x != 0) return;
  Node* head = nullptr;
  for (int i = 0; i < per_block; ++i) {
    Node* nd = new Node{v[blockIdx.x * per_block + i], head};
    head = nd;
  }
  int* scratch = static_cast<int*>(malloc(per_block * sizeof(int)));
  long long s = 0;
  int k = 0;
  for (Node* p = head; p; p = p->next) scratch[k++] = p->value;
  for (int i = 0; i < k; ++i) s += scratch[i];
  free(scratch);
  while (head) {
    Node* nx = head->next;
    delete head;
    head = nx;
  }
  sums[blockIdx.x] = s;
}

// Writes one int past the end of a malloc'd array (a planted bug).
__global__ void heapOverrun(int n) {
  int* a = static_cast<int*>(malloc(n * sizeof(int)));
  for (int i = 0; i <= n; ++i) a[i] = i;
  free(a);
}
