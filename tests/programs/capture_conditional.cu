// Conditional nodes built through stream capture, as the CUDA sample
// graphConditionalNodes builds them: a while node's body captured with
// cudaStreamBeginCaptureToGraph (ended with no graph pointer), and a
// conditional node added to a capture's own graph (cudaStreamGetCaptureInfo,
// cudaGraphAddNode, cudaStreamUpdateCaptureDependencies) with captured work
// before and after it. Checked on the host; prints "ok PART" per part.
#include "conform_checks.h"

__global__ void count_down(int* counter, int* trips, cudaGraphConditionalHandle h) {
  ++*trips;
  if (--*counter == 0) cudaGraphSetConditional(h, 0);
}
__global__ void set_start(int* counter, int v, cudaGraphConditionalHandle h) {
  *counter = v;
  cudaGraphSetConditional(h, v > 0 ? 1 : 0);
}
__global__ void scale(int* x, int by) { *x *= by; }

// while (counter != 0) { trips++; counter--; }, the body captured into.
void while_body_captured() {
  int *counter, *trips;
  CHECK(cudaMallocManaged(&counter, sizeof(int)));
  CHECK(cudaMallocManaged(&trips, sizeof(int)));
  *counter = 5;
  *trips = 0;
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphConditionalHandle h;
  CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams p = {cudaGraphNodeTypeConditional};
  p.conditional.handle = h;
  p.conditional.type = cudaGraphCondTypeWhile;
  p.conditional.size = 1;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &p));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamBeginCaptureToGraph(s, p.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                      cudaStreamCaptureModeGlobal));
  count_down<<<1, 1, 0, s>>>(counter, trips, h);
  CHECK(cudaStreamEndCapture(s, nullptr));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(*counter == 0 && *trips == 5);
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(counter));
  CHECK(cudaFree(trips));
  std::printf("ok while body captured into\n");
}

// set_start(v) -> while (counter) { count_down } -> scale(trips, 10), all in
// one capture; the while node added to the capture's graph by hand.
void conditional_inside_capture(int start) {
  int *counter, *trips;
  CHECK(cudaMallocManaged(&counter, sizeof(int)));
  CHECK(cudaMallocManaged(&trips, sizeof(int)));
  *trips = 0;
  cudaStream_t s, body;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamCreate(&body));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus st;
  cudaGraph_t g;
  const cudaGraphNode_t* deps;
  size_t ndeps;
  CHECK(cudaStreamGetCaptureInfo(s, &st, nullptr, &g, &deps, nullptr, &ndeps));
  cudaGraphConditionalHandle h;
  CHECK(cudaGraphConditionalHandleCreate(&h, g));
  set_start<<<1, 1, 0, s>>>(counter, start, h);
  CHECK(cudaStreamGetCaptureInfo(s, &st, nullptr, &g, &deps, nullptr, &ndeps));
  EXPECT(st == cudaStreamCaptureStatusActive && ndeps == 1);
  cudaGraphNodeParams p = {cudaGraphNodeTypeConditional};
  p.conditional.handle = h;
  p.conditional.type = cudaGraphCondTypeWhile;
  p.conditional.size = 1;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddNode(&node, g, deps, nullptr, ndeps, &p));
  CHECK(
      cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
  CHECK(cudaStreamBeginCaptureToGraph(body, p.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                      cudaStreamCaptureModeGlobal));
  count_down<<<1, 1, 0, body>>>(counter, trips, h);
  CHECK(cudaStreamEndCapture(body, nullptr));
  scale<<<1, 1, 0, s>>>(trips, 10);
  CHECK(cudaStreamEndCapture(s, &g));
  size_t n = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &n));
  EXPECT(n == 3);
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(*counter == 0 && *trips == 10 * start);
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaStreamDestroy(body));
  CHECK(cudaFree(counter));
  CHECK(cudaFree(trips));
  std::printf("ok conditional node inside a capture, %d trips\n", start);
}

int main() {
  while_body_captured();
  conditional_inside_capture(3);
  conditional_inside_capture(0);
  std::printf("PASS capture_conditional\n");
  return 0;
}
