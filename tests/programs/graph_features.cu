// CUDA graphs beyond capture and replay: cloning, child graphs, conditional
// nodes (if/else, while, switch; cudaGraphSetConditional in a kernel), memory
// nodes (explicit and cudaMallocAsync/cudaFreeAsync captured), the generic
// cudaGraphAddNode, node parameter getters, edges, node removal and
// cudaGraphDebugDotPrint. Each part checks its results on the host and says
// "ok PART"; natively on an H100 (scripts/conform/gpu) the output is
// tests/data/h100_graph_features.txt, and programs.run_graph_features
// expects the same lines under smemlab.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "conform_checks.h"

constexpr int N = 256;

__global__ void add(int* v, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) v[i] += k;
}
__global__ void scale(int* v, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) v[i] *= k;
}
// The loop body of the while test: counts down and keeps the loop going while positive.
__global__ void count_down(int* counter, int* trips, cudaGraphConditionalHandle h) {
  if (threadIdx.x == 0) {
    *counter -= 1;
    *trips += 1;
    cudaGraphSetConditional(h, *counter > 0 ? 1 : 0);
  }
}
__global__ void set_condition(cudaGraphConditionalHandle h, const int* value) {
  if (threadIdx.x == 0) cudaGraphSetConditional(h, static_cast<unsigned>(*value));
}
__global__ void fill(int* v, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) v[i] = k + i;
}

static std::vector<int> read(const int* d) {
  std::vector<int> h(N);
  CHECK(cudaMemcpy(h.data(), d, N * sizeof(int), cudaMemcpyDeviceToHost));
  return h;
}
static void set_all(int* d, int k) {
  std::vector<int> h(N, k);
  CHECK(cudaMemcpy(d, h.data(), N * sizeof(int), cudaMemcpyHostToDevice));
}

static cudaGraphNode_t add_kernel(cudaGraph_t g, const cudaGraphNode_t* deps, size_t n, void* fn,
                                  void** args) {
  cudaKernelNodeParams p{};
  p.func = fn;
  p.gridDim = dim3(N / 128);
  p.blockDim = dim3(128);
  p.kernelParams = args;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddKernelNode(&node, g, deps, n, &p));
  return node;
}

static void launch(cudaGraph_t g, cudaStream_t s, int times = 1) {
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  for (int i = 0; i < times; ++i) CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaGraphExecDestroy(e));
}

static void clone_test(int* v, cudaStream_t s) {
  cudaGraph_t g, c;
  CHECK(cudaGraphCreate(&g, 0));
  int k = 3;
  void* args[] = {&v, &k};
  cudaGraphNode_t a = add_kernel(g, nullptr, 0, (void*)add, args);
  int two = 2;
  void* args2[] = {&v, &two};
  add_kernel(g, &a, 1, (void*)scale, args2);
  CHECK(cudaGraphClone(&c, g));
  cudaGraphNode_t in_clone;
  CHECK(cudaGraphNodeFindInClone(&in_clone, a, c));
  // The clone's first node adds 10 instead; the original is unchanged.
  int ten = 10;
  void* args3[] = {&v, &ten};
  cudaKernelNodeParams p{};
  CHECK(cudaGraphKernelNodeGetParams(in_clone, &p));
  EXPECT(p.func == (void*)add && p.gridDim.x == N / 128 && p.blockDim.x == 128);
  p.kernelParams = args3;
  CHECK(cudaGraphKernelNodeSetParams(in_clone, &p));
  size_t n = 0;
  CHECK(cudaGraphGetNodes(c, nullptr, &n));
  EXPECT(n == 2);
  set_all(v, 1);
  launch(g, s);
  EXPECT(read(v)[7] == (1 + 3) * 2);
  set_all(v, 1);
  launch(c, s);
  EXPECT(read(v)[7] == (1 + 10) * 2);
  CHECK(cudaGraphDestroy(g));
  set_all(v, 1);
  launch(c, s);  // the clone outlives its original
  EXPECT(read(v)[9] == (1 + 10) * 2);
  CHECK(cudaGraphDestroy(c));
  std::printf("ok clone\n");
}

static void child_test(int* v, cudaStream_t s) {
  cudaGraph_t child, parent;
  CHECK(cudaGraphCreate(&child, 0));
  int k = 5, three = 3;
  void* args[] = {&v, &k};
  void* args3[] = {&v, &three};
  add_kernel(child, nullptr, 0, (void*)add, args);
  CHECK(cudaGraphCreate(&parent, 0));
  cudaGraphNode_t first = add_kernel(parent, nullptr, 0, (void*)scale, args3);
  cudaGraphNode_t node;
  CHECK(cudaGraphAddChildGraphNode(&node, parent, &first, 1, child));
  add_kernel(parent, &node, 1, (void*)scale, args3);
  // The node holds a copy: changing the child graph afterwards changes nothing.
  add_kernel(child, nullptr, 0, (void*)add, args);
  cudaGraph_t inner;
  CHECK(cudaGraphChildGraphNodeGetGraph(node, &inner));
  size_t n = 0;
  CHECK(cudaGraphGetNodes(inner, nullptr, &n));
  EXPECT(n == 1);
  cudaGraphNodeType t;
  CHECK(cudaGraphNodeGetType(node, &t));
  EXPECT(t == cudaGraphNodeTypeGraph);
  set_all(v, 1);
  launch(parent, s, 2);
  // ((1*3+5)*3 *3 +5)*3
  EXPECT(read(v)[0] == ((1 * 3 + 5) * 3 * 3 + 5) * 3);
  CHECK(cudaGraphDestroy(parent));
  CHECK(cudaGraphDestroy(child));
  std::printf("ok child graph\n");
}

// if (*value) body[0] else body[1]; the handle's value comes from a kernel.
static void if_test(int* v, int* value, cudaStream_t s, bool with_else) {
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle h;
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, cudaGraphCondAssignDefault));
  void* sargs[] = {&h, &value};
  cudaGraphNode_t setter = add_kernel(g, nullptr, 0, (void*)set_condition, sargs);
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = cudaGraphCondTypeIf;
  p.conditional.size = with_else ? 2 : 1;
  cudaGraphNode_t cond;
  CHECK(cudaGraphAddNode(&cond, g, &setter, nullptr, 1, &p));
  int k = 100, m = -1;
  void* then_args[] = {&v, &k};
  void* else_args[] = {&v, &m};
  add_kernel(p.conditional.phGraph_out[0], nullptr, 0, (void*)add, then_args);
  if (with_else) add_kernel(p.conditional.phGraph_out[1], nullptr, 0, (void*)scale, else_args);
  for (int c : {1, 0, 7}) {
    CHECK(cudaMemcpy(value, &c, sizeof(int), cudaMemcpyHostToDevice));
    set_all(v, 2);
    launch(g, s);
    int want = c ? 102 : with_else ? -2 : 2;
    EXPECT(read(v)[N - 1] == want);
  }
  CHECK(cudaGraphDestroy(g));
  std::printf("ok if%s\n", with_else ? "/else" : "");
}

static void while_test(int* counter, cudaStream_t s) {
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle h;
  // Default 1, applied at each launch: the body runs at least once.
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = cudaGraphCondTypeWhile;
  p.conditional.size = 1;
  cudaGraphNode_t cond;
  CHECK(cudaGraphAddNode(&cond, g, nullptr, nullptr, 0, &p));
  int* trips = counter + 1;
  void* args[] = {&counter, &trips, &h};
  cudaKernelNodeParams kp{};
  kp.func = (void*)count_down;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(32);
  kp.kernelParams = args;
  cudaGraphNode_t body;
  CHECK(cudaGraphAddKernelNode(&body, p.conditional.phGraph_out[0], nullptr, 0, &kp));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  for (int start : {5, 1, 12}) {
    int host[2] = {start, 0};
    CHECK(cudaMemcpy(counter, host, sizeof(host), cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(host, counter, sizeof(host), cudaMemcpyDeviceToHost));
    EXPECT(host[0] == 0 && host[1] == start);
  }
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  std::printf("ok while\n");
}

static void switch_test(int* v, int* value, cudaStream_t s) {
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle h;
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, cudaGraphCondAssignDefault));
  void* sargs[] = {&h, &value};
  cudaGraphNode_t setter = add_kernel(g, nullptr, 0, (void*)set_condition, sargs);
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = cudaGraphCondTypeSwitch;
  p.conditional.size = 3;
  cudaGraphNode_t cond;
  CHECK(cudaGraphAddNode(&cond, g, &setter, nullptr, 1, &p));
  int ks[3] = {10, 20, 30};
  void* a0[] = {&v, &ks[0]};
  void* a1[] = {&v, &ks[1]};
  void* a2[] = {&v, &ks[2]};
  add_kernel(p.conditional.phGraph_out[0], nullptr, 0, (void*)add, a0);
  add_kernel(p.conditional.phGraph_out[1], nullptr, 0, (void*)add, a1);
  // Body 2 is itself two nodes in a chain.
  cudaGraphNode_t b2 = add_kernel(p.conditional.phGraph_out[2], nullptr, 0, (void*)add, a2);
  add_kernel(p.conditional.phGraph_out[2], &b2, 1, (void*)add, a2);
  for (int c : {0, 1, 2, 3, 9}) {
    CHECK(cudaMemcpy(value, &c, sizeof(int), cudaMemcpyHostToDevice));
    set_all(v, 0);
    launch(g, s);
    int want = c == 0 ? 10 : c == 1 ? 20 : c == 2 ? 60 : 0;
    EXPECT(read(v)[3] == want);
  }
  CHECK(cudaGraphDestroy(g));
  std::printf("ok switch\n");
}

static void memory_nodes_test(int* out, cudaStream_t s) {
  // Captured: a buffer allocated, filled, copied out and freed inside the graph.
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  int* tmp = nullptr;
  CHECK(cudaMallocAsync(&tmp, N * sizeof(int), s));
  fill<<<N / 128, 128, 0, s>>>(tmp, 7);
  CHECK(cudaMemcpyAsync(out, tmp, N * sizeof(int), cudaMemcpyDeviceToDevice, s));
  CHECK(cudaFreeAsync(tmp, s));
  CHECK(cudaStreamEndCapture(s, &g));
  size_t n = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &n));
  EXPECT(n == 4);
  std::vector<cudaGraphNode_t> nodes(n);
  CHECK(cudaGraphGetNodes(g, nodes.data(), &n));
  cudaGraphNodeType t0, t3;
  CHECK(cudaGraphNodeGetType(nodes[0], &t0));
  CHECK(cudaGraphNodeGetType(nodes[3], &t3));
  EXPECT(t0 == cudaGraphNodeTypeMemAlloc && t3 == cudaGraphNodeTypeMemFree);
  cudaMemAllocNodeParams ap{};
  CHECK(cudaGraphMemAllocNodeGetParams(nodes[0], &ap));
  EXPECT(ap.bytesize == N * sizeof(int) && ap.dptr == tmp);
  void* freed = nullptr;
  CHECK(cudaGraphMemFreeNodeGetParams(nodes[3], &freed));
  EXPECT(freed == tmp);
  set_all(out, 0);
  launch(g, s, 3);
  EXPECT(read(out)[5] == 12);
  CHECK(cudaGraphDestroy(g));

  // Explicit: alloc -> kernel -> free.
  CHECK(cudaGraphCreate(&g, 0));
  cudaMemAllocNodeParams a{};
  a.poolProps.allocType = cudaMemAllocationTypePinned;
  a.poolProps.location.type = cudaMemLocationTypeDevice;
  a.poolProps.location.id = 0;
  a.bytesize = N * sizeof(int);
  cudaGraphNode_t alloc;
  CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &a));
  int* buf = static_cast<int*>(a.dptr);
  EXPECT(buf != nullptr);
  int k = 40;
  void* args[] = {&buf, &k};
  cudaGraphNode_t f = add_kernel(g, &alloc, 1, (void*)fill, args);
  cudaMemcpy3DParms cp{};
  cp.srcPtr = make_cudaPitchedPtr(buf, N * sizeof(int), N, 1);
  cp.dstPtr = make_cudaPitchedPtr(out, N * sizeof(int), N, 1);
  cp.extent = make_cudaExtent(N * sizeof(int), 1, 1);
  cp.kind = cudaMemcpyDeviceToDevice;
  cudaGraphNode_t copy;
  CHECK(cudaGraphAddMemcpyNode(&copy, g, &f, 1, &cp));
  cudaGraphNode_t free_node;
  CHECK(cudaGraphAddMemFreeNode(&free_node, g, &copy, 1, buf));
  launch(g, s, 2);
  EXPECT(read(out)[10] == 50);
  CHECK(cudaGraphDestroy(g));
  std::printf("ok memory nodes\n");
}

static void host_fn(void* p) { *static_cast<int*>(p) += 1; }

static void getters_test(int* v, cudaStream_t s) {
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaMemsetParams mp{};
  mp.dst = v;
  mp.value = 4;
  mp.elementSize = 4;
  mp.width = N;
  mp.height = 1;
  cudaGraphNode_t ms;
  CHECK(cudaGraphAddMemsetNode(&ms, g, nullptr, 0, &mp));
  int k = 1;
  void* args[] = {&v, &k};
  cudaGraphNode_t k1 = add_kernel(g, &ms, 1, (void*)add, args);
  cudaGraphNode_t k2 = add_kernel(g, &ms, 1, (void*)add, args);
  static int calls = 0;
  cudaHostNodeParams hp{host_fn, &calls};
  cudaGraphNode_t deps[2] = {k1, k2};
  cudaGraphNode_t host;
  CHECK(cudaGraphAddHostNode(&host, g, deps, 2, &hp));
  // Generic cudaGraphAddNode: an empty node after the host node.
  cudaGraphNodeParams ep{};
  ep.type = cudaGraphNodeTypeEmpty;
  cudaGraphNode_t empty;
  CHECK(cudaGraphAddNode(&empty, g, &host, nullptr, 1, &ep));

  cudaMemsetParams mp2{};
  CHECK(cudaGraphMemsetNodeGetParams(ms, &mp2));
  EXPECT(mp2.dst == v && mp2.value == 4 && mp2.elementSize == 4 && mp2.width == N);
  cudaHostNodeParams hp2{};
  CHECK(cudaGraphHostNodeGetParams(host, &hp2));
  EXPECT(hp2.fn == host_fn && hp2.userData == &calls);

  size_t edges = 0;
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  EXPECT(edges == 5);
  size_t roots = 0;
  CHECK(cudaGraphGetRootNodes(g, nullptr, &roots));
  EXPECT(roots == 1);
  size_t nd = 0;
  CHECK(cudaGraphNodeGetDependencies(host, nullptr, nullptr, &nd));
  EXPECT(nd == 2);
  size_t users = 0;
  CHECK(cudaGraphNodeGetDependentNodes(ms, nullptr, nullptr, &users));
  EXPECT(users == 2);
  std::vector<cudaGraphNode_t> dep_nodes(users);
  CHECK(cudaGraphNodeGetDependentNodes(ms, dep_nodes.data(), nullptr, &users));
  EXPECT(dep_nodes[0] == k1 && dep_nodes[1] == k2);

  // Remove k2 (and its edges): the host node then follows k1 alone.
  CHECK(cudaGraphRemoveDependencies(g, &k2, &host, nullptr, 1));
  CHECK(cudaGraphNodeGetDependencies(host, nullptr, nullptr, &nd));
  EXPECT(nd == 1);
  CHECK(cudaGraphDestroyNode(k2));
  size_t n = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &n));
  EXPECT(n == 4);
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  EXPECT(edges == 3);
  calls = 0;
  launch(g, s, 2);
  EXPECT(read(v)[0] == 4 + 1 && calls == 2);  // a 4-byte memset of value 4, then k1
  const char* dot = "graph_features.dot";
  CHECK(cudaGraphDebugDotPrint(g, dot, cudaGraphDebugDotFlagsVerbose));
  FILE* f = std::fopen(dot, "r");
  EXPECT(f != nullptr);
  char line[256] = {0};
  EXPECT(std::fgets(line, sizeof(line), f) != nullptr);
  std::fclose(f);
  std::remove(dot);
  EXPECT(std::string_view(line).find("digraph") != std::string_view::npos);
  CHECK(cudaGraphDestroy(g));
  std::printf("ok getters and edges\n");
}

int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int *v, *w;
  CHECK(cudaMalloc(&v, N * sizeof(int)));
  CHECK(cudaMalloc(&w, N * sizeof(int)));
  clone_test(v, s);
  child_test(v, s);
  if_test(v, w, s, false);
  if_test(v, w, s, true);
  while_test(w, s);
  switch_test(v, w, s);
  memory_nodes_test(v, s);
  getters_test(v, s);
  CHECK(cudaFree(v));
  CHECK(cudaFree(w));
  CHECK(cudaStreamDestroy(s));
  std::printf("PASS graph_features\n");
  return 0;
}
