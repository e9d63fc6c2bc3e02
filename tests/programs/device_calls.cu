// Real calls on the device (issue 29): virtual functions of objects the
// kernel creates, a table of function pointers in global memory, recursion
// (fib, a tree walk, quicksort with a depth limit) and lanes of one warp
// calling different functions. Each result is checked against the same
// computation on the CPU; prints PASS/FAIL per part.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                \
  do {                                                                       \
    cudaError_t e_ = (x);                                                    \
    if (e_ != cudaSuccess) {                                                 \
      printf("FAIL %s: %s\n", #x, cudaGetErrorString(e_));                   \
      return 1;                                                              \
    }                                                                        \
  } while (0)

// ---- Virtual functions ----------------------------------------------------
struct Shape {
  __host__ __device__ virtual float area() const = 0;
  __host__ __device__ virtual int sides() const { return 0; }
  __host__ __device__ virtual ~Shape() {}
};
struct Square : Shape {
  float s;
  __host__ __device__ explicit Square(float x) : s(x) {}
  __host__ __device__ float area() const override { return s * s; }
  __host__ __device__ int sides() const override { return 4; }
};
struct Circle : Shape {
  float r;
  __host__ __device__ explicit Circle(float x) : r(x) {}
  __host__ __device__ float area() const override { return 3.0f * r * r; }
};
struct Triangle : Shape {
  float b, h;
  __host__ __device__ Triangle(float x, float y) : b(x), h(y) {}
  __host__ __device__ float area() const override { return 0.5f * b * h; }
  __host__ __device__ int sides() const override { return 3; }
};

__host__ __device__ Shape* make_shape(int i) {
  switch (i % 3) {
    case 0: return new Square(static_cast<float>(i));
    case 1: return new Circle(static_cast<float>(i) * 0.5f);
    default: return new Triangle(static_cast<float>(i), 2.0f);
  }
}

__global__ void shapes(float* area, int* sides, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Shape* s = make_shape(i);  // each lane of a warp: one of three classes
  area[i] = s->area();
  sides[i] = s->sides();
  delete s;
}

// ---- Function pointers ----------------------------------------------------
typedef int (*op_t)(int, int);
__host__ __device__ int op_add(int a, int b) { return a + b; }
__host__ __device__ int op_mul(int a, int b) { return a * b; }
__host__ __device__ int op_sub(int a, int b) { return a - b; }
__host__ __device__ int op_max(int a, int b) { return a > b ? a : b; }
__device__ op_t d_ops[4] = {op_add, op_mul, op_sub, op_max};

__global__ void pointers(const int* a, const int* b, int* out, int* same, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  op_t f = d_ops[(a[i] + i) & 3];  // divergent targets within a warp
  out[i] = f(a[i], b[i]);
  // Function addresses compare as values.
  same[i] = (f == d_ops[0]) + 2 * (f == &op_mul);
}

// ---- Recursion ------------------------------------------------------------
__host__ __device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

struct Node {
  int value, left, right;  // children: indices, -1 for none
};
__host__ __device__ int tree_sum(const Node* t, int i, int depth) {
  if (i < 0) return 0;
  return t[i].value * depth + tree_sum(t, t[i].left, depth + 1) + tree_sum(t, t[i].right, depth + 1);
}

__host__ __device__ void quicksort(int* v, int lo, int hi, int depth) {
  if (lo >= hi) return;
  if (depth == 0) {  // insertion sort below the depth limit
    for (int i = lo + 1; i <= hi; ++i)
      for (int j = i; j > lo && v[j - 1] > v[j]; --j) {
        int t = v[j];
        v[j] = v[j - 1];
        v[j - 1] = t;
      }
    return;
  }
  int p = v[(lo + hi) / 2], i = lo, j = hi;
  while (i <= j) {
    while (v[i] < p) ++i;
    while (v[j] > p) --j;
    if (i <= j) {
      int t = v[i];
      v[i] = v[j];
      v[j] = t;
      ++i;
      --j;
    }
  }
  quicksort(v, lo, j, depth - 1);
  quicksort(v, i, hi, depth - 1);
}

// A local array whose address the recursion passes down: each activation
// has its own copy.
__host__ __device__ int local_chain(int n, const int* parent) {
  int mine[4];
  for (int k = 0; k < 4; ++k) mine[k] = (parent ? parent[k] : 1) + n * k;
  if (n == 0) return mine[0] + mine[1] + mine[2] + mine[3];
  int below = local_chain(n - 1, mine);
  return below + mine[n & 3];
}

__global__ void recursion(int* fibs, const Node* tree, int* sums, int* data, int len, int* chains,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fibs[i] = fib(i % 16);                      // lanes at different depths
  sums[i] = tree_sum(tree, i % 7, 1);         // different subtrees
  quicksort(data + i * len, 0, len - 1, 1 + i % 5);
  chains[i] = local_chain(i % 6, nullptr);
}

int main() {
  int failed = 0;
  const int n = 96;
  // Virtual functions.
  {
    float* area;
    int* sides;
    CK(cudaMallocManaged(&area, n * sizeof(float)));
    CK(cudaMallocManaged(&sides, n * sizeof(int)));
    shapes<<<2, 64>>>(area, sides, n);
    CK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      Shape* s = make_shape(i);
      bad += area[i] != s->area() || sides[i] != s->sides();
      delete s;
    }
    printf("%s virtual_functions (%d of %d wrong)\n", bad ? "FAIL" : "PASS", bad, n);
    failed += bad != 0;
    CK(cudaFree(area));
    CK(cudaFree(sides));
  }
  // Function pointers.
  {
    int *a, *b, *out, *same;
    CK(cudaMallocManaged(&a, n * sizeof(int)));
    CK(cudaMallocManaged(&b, n * sizeof(int)));
    CK(cudaMallocManaged(&out, n * sizeof(int)));
    CK(cudaMallocManaged(&same, n * sizeof(int)));
    for (int i = 0; i < n; ++i) {
      a[i] = (i * 37) % 23;
      b[i] = (i * 11) % 13 - 6;
    }
    pointers<<<3, 32>>>(a, b, out, same, n);
    CK(cudaDeviceSynchronize());
    op_t host_ops[4] = {op_add, op_mul, op_sub, op_max};
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      int k = (a[i] + i) & 3;
      bad += out[i] != host_ops[k](a[i], b[i]) || same[i] != (k == 0) + 2 * (k == 1);
    }
    printf("%s function_pointers (%d of %d wrong)\n", bad ? "FAIL" : "PASS", bad, n);
    failed += bad != 0;
    for (int* p : {a, b, out, same}) CK(cudaFree(p));
  }
  // Recursion.
  {
    const int len = 24;
    Node host_tree[7] = {{5, 1, 2}, {3, 3, 4}, {8, 5, 6}, {1, -1, -1}, {4, -1, -1}, {7, -1, -1}, {9, -1, -1}};
    Node* tree;
    int *fibs, *sums, *data, *chains;
    CK(cudaMallocManaged(&tree, sizeof host_tree));
    CK(cudaMallocManaged(&fibs, n * sizeof(int)));
    CK(cudaMallocManaged(&sums, n * sizeof(int)));
    CK(cudaMallocManaged(&chains, n * sizeof(int)));
    CK(cudaMallocManaged(&data, n * len * sizeof(int)));
    for (int k = 0; k < 7; ++k) tree[k] = host_tree[k];
    std::vector<int> ref(n * len);
    for (int k = 0; k < n * len; ++k) data[k] = ref[k] = (k * 7919) % 101 - 50;
    recursion<<<3, 32>>>(fibs, tree, sums, data, len, chains, n);
    CK(cudaDeviceSynchronize());
    int bad_fib = 0, bad_tree = 0, bad_sort = 0, bad_chain = 0;
    for (int i = 0; i < n; ++i) {
      bad_fib += fibs[i] != fib(i % 16);
      bad_tree += sums[i] != tree_sum(host_tree, i % 7, 1);
      quicksort(ref.data() + i * len, 0, len - 1, 1 + i % 5);
      for (int k = 0; k < len; ++k) bad_sort += data[i * len + k] != ref[i * len + k];
      for (int k = 1; k < len; ++k) bad_sort += ref[i * len + k - 1] > ref[i * len + k];
      bad_chain += chains[i] != local_chain(i % 6, nullptr);
    }
    printf("%s recursion_fib (%d wrong)\n", bad_fib ? "FAIL" : "PASS", bad_fib);
    printf("%s recursion_tree (%d wrong)\n", bad_tree ? "FAIL" : "PASS", bad_tree);
    printf("%s recursion_quicksort (%d wrong)\n", bad_sort ? "FAIL" : "PASS", bad_sort);
    printf("%s recursion_local_arrays (%d wrong)\n", bad_chain ? "FAIL" : "PASS", bad_chain);
    failed += (bad_fib != 0) + (bad_tree != 0) + (bad_sort != 0) + (bad_chain != 0);
    CK(cudaFree(tree));
    for (int* p : {fibs, sums, chains, data}) CK(cudaFree(p));
  }
  printf("%s device_calls (%d failed)\n", failed ? "FAIL" : "PASS", failed);
  return failed ? 1 : 0;
}
