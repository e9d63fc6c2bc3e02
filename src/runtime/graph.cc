// Graphs as lists of nodes with dependencies; an instantiated graph (exec)
// is a snapshot of its nodes' operations in a topological order (ties in
// creation order, so a replay is deterministic). Operations are closures
// over the driver's own entry points, found by name as cudart finds them.
#include "runtime/graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "runtime/driver.h"
#include "runtime/graph_model.h"
#include "runtime/guard.h"

namespace smemlab::runtime {
namespace {

using graphs::add_node;
using graphs::Graph;
using graphs::graph_of;
using graphs::KernelCall;
using graphs::make_kernel_call;
using graphs::Node;
using graphs::node_of;
using graphs::topological;

// A node's place in its graph's topology, for exec updates.
struct Shape {
  CUgraphNodeType type;
  size_t index;              // creation order in its graph
  std::vector<size_t> deps;  // creation indices, sorted
  bool operator==(const Shape& o) const {
    return type == o.type && index == o.index && deps == o.deps;
  }
};

struct Exec {
  std::vector<Node*> order;  // the source graph's nodes, topologically sorted
  std::vector<Shape> shape;  // theirs, in that order
  std::vector<std::function<CUresult()>> runs;
  std::vector<std::shared_ptr<KernelCall>> kernels;  // copies the exec owns
  // Conditional handles of its nodes (nested ones too): each launch applies
  // the defaults of those created with CU_GRAPH_COND_ASSIGN_DEFAULT.
  std::vector<std::shared_ptr<graphs::CondHandle>> handles;
  bool auto_free = false;  // cudaGraphInstantiateFlagAutoFreeOnLaunch
};

std::set<Exec*>& execs() {
  static auto* s = new std::set<Exec*>();
  return *s;
}
Exec* exec_of(CUgraphExec h) {
  auto* e = reinterpret_cast<Exec*>(h);
  return execs().count(e) ? e : nullptr;
}
std::set<Graph*>& graphs() { return graphs::all_graphs(); }

using Lock = std::lock_guard<DriverMutex>;
#define LOCKED               \
  Driver& d = Driver::get(); \
  Lock lock(d.mu);           \
  (void)d

std::vector<Shape> shape_of(const Graph& g, const std::vector<Node*>& order) {
  std::map<const Node*, size_t> index;
  for (size_t i = 0; i < g.nodes.size(); ++i) index[g.nodes[i].get()] = i;
  std::vector<Shape> out;
  for (const Node* n : order) {
    Shape sh{n->type, index.at(n), {}};
    for (const Node* dep : n->deps) sh.deps.push_back(index.at(dep));
    std::sort(sh.deps.begin(), sh.deps.end());
    out.push_back(std::move(sh));
  }
  return out;
}

void snapshot(Exec* e) {
  e->runs.clear();
  e->kernels.clear();
  e->handles.clear();
  for (Node* n : e->order) {
    if (n->kernel) {
      auto k = std::make_shared<KernelCall>(*n->kernel);
      e->kernels.push_back(k);
      e->runs.push_back([k] { return (*k)(); });
    } else {
      e->kernels.push_back(nullptr);
      e->runs.push_back(graphs::compile_node(*n, &e->handles, e->auto_free));
    }
  }
}

// ---- capture ---------------------------------------------------------------

struct Session {
  Graph* graph = nullptr;
  CUstream origin = nullptr;
  uint64_t id = 0;
  bool invalid = false;
  // cuStreamBeginCaptureToGraph: the program's own graph (a conditional
  // node's body, say), which the capture adds to and never destroys; its end
  // may pass no graph pointer (the program holds the graph already).
  bool into_existing = false;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
};
struct StreamCapture {
  std::shared_ptr<Session> session;
  std::vector<Node*> tips;  // what the stream's next operation depends on
};
std::map<CUstream, StreamCapture>& capturing() {
  static auto* m = new std::map<CUstream, StreamCapture>();
  return *m;
}
// Events recorded in a capture: the nodes a wait on them depends on.
std::map<CUevent, StreamCapture>& captured_events() {
  static auto* m = new std::map<CUevent, StreamCapture>();
  return *m;
}
uint64_t g_capture_ids = 0;
thread_local CUstreamCaptureMode t_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

bool legacy_stream(CUstream s) {
  auto v = reinterpret_cast<uintptr_t>(s);
  return v == 0 || v == 1;  // CU_STREAM_LEGACY; 2 is the per-thread default stream
}

StreamCapture* capture_of(CUstream s) {
  auto it = capturing().find(s);
  return it == capturing().end() ? nullptr : &it->second;
}

Node* record(StreamCapture& c, CUgraphNodeType type, std::function<CUresult()> run) {
  Node* n = add_node(c.session->graph, type, c.tips, std::move(run));
  c.tips.assign(1, n);  // not `= {n}`: gcc 13 -O1 + ASan warns (array-bounds) on that copy
  return n;
}

CUresult begin_capture(CUstream s, CUstreamCaptureMode mode) {
  LOCKED;
  if (legacy_stream(s)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (capture_of(s)) return CUDA_ERROR_ILLEGAL_STATE;
  auto session = std::make_shared<Session>();
  session->graph = new Graph();
  graphs().insert(session->graph);
  session->origin = s;
  session->id = ++g_capture_ids;
  session->mode = mode;
  capturing()[s] = {session, {}};
  return CUDA_SUCCESS;
}
CUresult begin_capture_v1(CUstream s) { return begin_capture(s, CU_STREAM_CAPTURE_MODE_GLOBAL); }
CUresult begin_capture_to_graph(CUstream s, CUgraph hg, const CUgraphNode* deps,
                                const CUgraphEdgeData*, size_t ndeps, CUstreamCaptureMode mode) {
  LOCKED;
  Graph* g = graph_of(hg);
  if (!g || (ndeps && !deps)) return CUDA_ERROR_INVALID_VALUE;
  if (legacy_stream(s)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (capture_of(s)) return CUDA_ERROR_ILLEGAL_STATE;
  std::vector<Node*> tips;
  for (size_t i = 0; i < ndeps; ++i) {
    Node* n = node_of(deps[i]);
    if (!n || n->graph != g) return CUDA_ERROR_INVALID_VALUE;
    tips.push_back(n);
  }
  auto session = std::make_shared<Session>();
  session->graph = g;
  session->into_existing = true;
  session->origin = s;
  session->id = ++g_capture_ids;
  session->mode = mode;
  capturing()[s] = {session, tips};
  return CUDA_SUCCESS;
}

// Nodes reachable backwards from `from`.
std::set<Node*> ancestors(const std::vector<Node*>& from) {
  std::set<Node*> seen;
  std::vector<Node*> todo(from);
  while (!todo.empty()) {
    Node* n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    for (Node* dep : n->deps) todo.push_back(dep);
  }
  return seen;
}

CUresult end_capture(CUstream s, CUgraph* out) {
  LOCKED;
  StreamCapture* c = capture_of(s);
  if (!out && !(c && c->session->into_existing)) return CUDA_ERROR_INVALID_VALUE;
  if (!c) return CUDA_ERROR_ILLEGAL_STATE;
  std::shared_ptr<Session> session = c->session;
  if (session->origin != s) return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
  // Every stream that joined the capture must have been joined back into
  // the origin stream (its last work an ancestor of the origin's tips).
  std::set<Node*> joined = ancestors(c->tips);
  bool unjoined = false;
  for (auto it = capturing().begin(); it != capturing().end();) {
    if (it->second.session != session) {
      ++it;
      continue;
    }
    for (Node* t : it->second.tips) unjoined |= !joined.count(t);
    it = capturing().erase(it);
  }
  for (auto it = captured_events().begin(); it != captured_events().end();)
    it = it->second.session == session ? captured_events().erase(it) : std::next(it);
  if (out) *out = nullptr;
  if (session->invalid || unjoined) {
    if (unjoined)
      d.error_line(
          fmt::format("cuStreamEndCapture (cudaStreamEndCapture): a stream that joined "
                      "the capture was not joined back into the origin stream"));
    if (!session->into_existing) graphs::destroy_graph(session->graph);
    return unjoined ? CUDA_ERROR_STREAM_CAPTURE_UNJOINED : CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  if (out) *out = reinterpret_cast<CUgraph>(session->graph);
  return CUDA_SUCCESS;
}

CUresult is_capturing(CUstream s, CUstreamCaptureStatus* st) {
  LOCKED;
  if (!st) return CUDA_ERROR_INVALID_VALUE;
  StreamCapture* c = capture_of(s);
  *st = !c                    ? CU_STREAM_CAPTURE_STATUS_NONE
        : c->session->invalid ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                              : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  return CUDA_SUCCESS;
}
CUresult capture_info_v3(CUstream s, CUstreamCaptureStatus* st, cuuint64_t* id, CUgraph* graph,
                         const CUgraphNode** deps, const CUgraphEdgeData** edges, size_t* ndeps) {
  LOCKED;
  if (CUresult r = is_capturing(s, st); r != CUDA_SUCCESS) return r;
  StreamCapture* c = capture_of(s);
  if (id && c) *id = c->session->id;
  if (graph) *graph = c ? reinterpret_cast<CUgraph>(c->session->graph) : nullptr;
  if (deps)
    *deps = c && !c->tips.empty() ? reinterpret_cast<const CUgraphNode*>(c->tips.data()) : nullptr;
  if (edges) *edges = nullptr;  // default edges only
  if (ndeps) *ndeps = c ? c->tips.size() : 0;
  return CUDA_SUCCESS;
}
// The capturing stream's next work depends on `deps` (SET) or on them
// besides what it depended on (ADD): how a program puts nodes it added to
// the capture's graph itself (a conditional node, say) into the stream's order.
CUresult update_capture_deps_v2(CUstream s, CUgraphNode* deps, const CUgraphEdgeData* edges,
                                size_t n, unsigned flags) {
  LOCKED;
  if ((n && !deps) ||
      (flags != CU_STREAM_ADD_CAPTURE_DEPENDENCIES && flags != CU_STREAM_SET_CAPTURE_DEPENDENCIES))
    return CUDA_ERROR_INVALID_VALUE;
  StreamCapture* c = capture_of(s);
  if (!c) return CUDA_ERROR_ILLEGAL_STATE;
  if (c->session->invalid) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  static const CUgraphEdgeData kDefaultEdge{};
  std::vector<Node*> tips;
  for (size_t i = 0; i < n; ++i) {
    Node* node = node_of(deps[i]);
    if (!node || node->graph != c->session->graph) return CUDA_ERROR_INVALID_VALUE;
    if (edges && std::memcmp(&edges[i], &kDefaultEdge, sizeof kDefaultEdge) != 0) {
      d.error_line(
          "cuStreamUpdateCaptureDependencies: edge data other than the default (programmatic "
          "dependent launch edges) is not supported");
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    tips.push_back(node);
  }
  if (flags == CU_STREAM_ADD_CAPTURE_DEPENDENCIES)
    for (Node* t : c->tips)
      if (std::find(tips.begin(), tips.end(), t) == tips.end()) tips.push_back(t);
  c->tips = std::move(tips);
  return CUDA_SUCCESS;
}
CUresult update_capture_deps(CUstream s, CUgraphNode* deps, size_t n, unsigned flags) {
  return update_capture_deps_v2(s, deps, nullptr, n, flags);
}
CUresult capture_info_v2(CUstream s, CUstreamCaptureStatus* st, cuuint64_t* id, CUgraph* graph,
                         const CUgraphNode** deps, size_t* ndeps) {
  return capture_info_v3(s, st, id, graph, deps, nullptr, ndeps);
}
CUresult capture_info_v1(CUstream s, CUstreamCaptureStatus* st, cuuint64_t* id) {
  return capture_info_v3(s, st, id, nullptr, nullptr, nullptr, nullptr);
}
CUresult exchange_capture_mode(CUstreamCaptureMode* m) {
  if (!m) return CUDA_ERROR_INVALID_VALUE;
  std::swap(*m, t_capture_mode);
  return CUDA_SUCCESS;
}

// ---- explicit graphs -------------------------------------------------------

CUresult graph_create(CUgraph* out, unsigned flags) {
  LOCKED;
  if (!out || flags) return CUDA_ERROR_INVALID_VALUE;
  auto* g = new Graph();
  graphs().insert(g);
  *out = reinterpret_cast<CUgraph>(g);
  return CUDA_SUCCESS;
}
CUresult graph_destroy(CUgraph h) {
  LOCKED;
  Graph* g = graph_of(h);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  for (auto& [s, c] : capturing())
    if (c.session->graph == g) return CUDA_ERROR_ILLEGAL_STATE;  // still being captured into
  if (g->owner) return CUDA_ERROR_INVALID_VALUE;  // a node's graph goes with its node
  graphs::destroy_graph(g);                       // execs hold their own copies of the operations
  return CUDA_SUCCESS;
}

CUresult deps_of(Graph* g, const CUgraphNode* deps, size_t n, std::vector<Node*>* out) {
  if (n && !deps) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < n; ++i) {
    Node* dep = node_of(deps[i]);
    if (!dep || dep->graph != g) return CUDA_ERROR_INVALID_VALUE;
    out->push_back(dep);
  }
  return CUDA_SUCCESS;
}

// Adds a node of `type` to graph `h` after `deps`.
CUresult add(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n, CUgraphNodeType type,
             std::function<CUresult()> run, std::shared_ptr<KernelCall> kernel = nullptr) {
  Graph* g = graph_of(h);
  if (!out || !g) return CUDA_ERROR_INVALID_VALUE;
  std::vector<Node*> ds;
  if (CUresult r = deps_of(g, deps, n, &ds); r != CUDA_SUCCESS) return r;
  Node* node = add_node(g, type, std::move(ds), std::move(run));
  node->kernel = std::move(kernel);
  *out = reinterpret_cast<CUgraphNode>(node);
  return CUDA_SUCCESS;
}

template <typename Fn>
Fn entry(const char* name, int version) {
  const EntryPoint* e = find_entry(name, version);
  return e ? reinterpret_cast<Fn>(e->fn) : nullptr;
}

CUresult kernel_call_of(const CUDA_KERNEL_NODE_PARAMS* p, std::shared_ptr<KernelCall>* out) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  CUfunction f = p->func;
  if (!f && p->kern) {
    auto get = entry<CUresult (*)(CUfunction*, CUkernel)>("cuKernelGetFunction", 12000);
    if (CUresult r = get(&f, p->kern); r != CUDA_SUCCESS) return r;
  }
  auto k = std::make_shared<KernelCall>();
  CUresult r =
      make_kernel_call(reinterpret_cast<Function*>(f), {p->gridDimX, p->gridDimY, p->gridDimZ},
                       {p->blockDimX, p->blockDimY, p->blockDimZ}, p->sharedMemBytes,
                       p->kernelParams, p->extra, k.get());
  k->kern = p->kern;
  if (r == CUDA_SUCCESS) *out = std::move(k);
  return r;
}
std::function<CUresult()> kernel_run(const std::shared_ptr<KernelCall>& k) {
  return [k] { return (*k)(); };
}

CUresult add_kernel_node(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n,
                         const CUDA_KERNEL_NODE_PARAMS* p) {
  LOCKED;
  std::shared_ptr<KernelCall> k;
  if (CUresult r = kernel_call_of(p, &k); r != CUDA_SUCCESS) return r;
  return add(out, h, deps, n, CU_GRAPH_NODE_TYPE_KERNEL, kernel_run(k), k);
}
CUresult kernel_node_set_params(CUgraphNode h, const CUDA_KERNEL_NODE_PARAMS* p) {
  LOCKED;
  Node* node = node_of(h);
  if (!node || !node->kernel) return CUDA_ERROR_INVALID_VALUE;
  std::shared_ptr<KernelCall> k;
  if (CUresult r = kernel_call_of(p, &k); r != CUDA_SUCCESS) return r;
  k->cooperative = node->kernel->cooperative;  // the node's attributes stay
  k->cluster = node->kernel->cluster;
  node->kernel = k;
  node->run = kernel_run(k);
  return CUDA_SUCCESS;
}

// cuGraphKernelNodeSetAttribute / GetAttribute: the launch attributes that
// change what a kernel node computes (its cluster shape, cooperative) are
// kept with the node; the scheduling hints (priority, access policy, ...)
// are accepted and change nothing, as for cuLaunchKernelEx.
CUresult kernel_node_set_attribute(CUgraphNode h, CUlaunchAttributeID id,
                                   const CUlaunchAttributeValue* v) {
  LOCKED;
  Node* node = node_of(h);
  if (!node || !node->kernel || !v) return CUDA_ERROR_INVALID_VALUE;
  auto k = std::make_shared<KernelCall>(*node->kernel);  // an exec keeps its own copy
  if (id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
    k->cluster = {v->clusterDim.x, v->clusterDim.y, v->clusterDim.z};
    if (k->cluster.count() == 0) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  } else if (id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
    k->cooperative = v->cooperative != 0;
  }
  node->kernel = k;
  node->run = kernel_run(k);
  return CUDA_SUCCESS;
}
CUresult kernel_node_get_attribute(CUgraphNode h, CUlaunchAttributeID id,
                                   CUlaunchAttributeValue* v) {
  LOCKED;
  Node* node = node_of(h);
  if (!node || !node->kernel || !v) return CUDA_ERROR_INVALID_VALUE;
  *v = CUlaunchAttributeValue{};
  if (id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
    v->clusterDim.x = node->kernel->cluster.x;
    v->clusterDim.y = node->kernel->cluster.y;
    v->clusterDim.z = node->kernel->cluster.z;
  } else if (id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
    v->cooperative = node->kernel->cooperative ? 1 : 0;
  }
  return CUDA_SUCCESS;
}
CUresult exec_kernel_node_set_params(CUgraphExec he, CUgraphNode h,
                                     const CUDA_KERNEL_NODE_PARAMS* p) {
  LOCKED;
  Exec* e = exec_of(he);
  Node* node = node_of(h);
  if (!e || !node) return CUDA_ERROR_INVALID_VALUE;
  auto it = std::find(e->order.begin(), e->order.end(), node);
  if (it == e->order.end() || !e->kernels[it - e->order.begin()]) return CUDA_ERROR_INVALID_VALUE;
  std::shared_ptr<KernelCall> k;
  if (CUresult r = kernel_call_of(p, &k); r != CUDA_SUCCESS) return r;
  // Only the arguments and dimensions may change, not the kernel.
  if (k->f != e->kernels[it - e->order.begin()]->f) return CUDA_ERROR_INVALID_VALUE;
  size_t i = static_cast<size_t>(it - e->order.begin());
  k->cooperative = e->kernels[i]->cooperative;
  k->cluster = e->kernels[i]->cluster;
  e->kernels[i] = k;
  e->runs[i] = kernel_run(k);
  return CUDA_SUCCESS;
}

CUresult add_memcpy_node(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n,
                         const CUDA_MEMCPY3D* p, CUcontext) {
  LOCKED;
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  auto copy = entry<CUresult (*)(const CUDA_MEMCPY3D*)>("cuMemcpy3D", 3020);
  CUDA_MEMCPY3D c = *p;
  CUresult r = add(out, h, deps, n, CU_GRAPH_NODE_TYPE_MEMCPY, [copy, c] { return copy(&c); });
  if (r == CUDA_SUCCESS) node_of(*out)->copy = c, node_of(*out)->copy_known = true;
  return r;
}
CUresult add_memset_node(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n,
                         const CUDA_MEMSET_NODE_PARAMS* p, CUcontext) {
  LOCKED;
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  CUDA_MEMSET_NODE_PARAMS m = *p;
  if (m.height > 1 && !m.pitch) return CUDA_ERROR_INVALID_VALUE;
  size_t pitch = m.height > 1 ? m.pitch : m.width * m.elementSize;
  std::function<CUresult()> run;
  switch (m.elementSize) {
    case 1: {
      auto f = entry<CUresult (*)(CUdeviceptr, size_t, unsigned char, size_t, size_t)>(
          "cuMemsetD2D8", 3020);
      run = [f, m, pitch] {
        return f(m.dst, pitch, static_cast<unsigned char>(m.value), m.width, m.height);
      };
      break;
    }
    case 2: {
      auto f = entry<CUresult (*)(CUdeviceptr, size_t, unsigned short, size_t, size_t)>(
          "cuMemsetD2D16", 3020);
      run = [f, m, pitch] {
        return f(m.dst, pitch, static_cast<unsigned short>(m.value), m.width, m.height);
      };
      break;
    }
    case 4: {
      auto f =
          entry<CUresult (*)(CUdeviceptr, size_t, unsigned, size_t, size_t)>("cuMemsetD2D32", 3020);
      run = [f, m, pitch] { return f(m.dst, pitch, m.value, m.width, m.height); };
      break;
    }
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  CUresult r = add(out, h, deps, n, CU_GRAPH_NODE_TYPE_MEMSET, run);
  if (r == CUDA_SUCCESS) node_of(*out)->memset = m;
  return r;
}
CUresult add_host_node(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n,
                       const CUDA_HOST_NODE_PARAMS* p) {
  LOCKED;
  if (!p || !p->fn) return CUDA_ERROR_INVALID_VALUE;
  CUhostFn fn = p->fn;
  void* user = p->userData;
  CUresult r = add(out, h, deps, n, CU_GRAPH_NODE_TYPE_HOST, [fn, user] {
    fn(user);
    return CUDA_SUCCESS;
  });
  if (r == CUDA_SUCCESS) node_of(*out)->host = *p;
  return r;
}
CUresult add_empty_node(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n) {
  LOCKED;
  return add(out, h, deps, n, CU_GRAPH_NODE_TYPE_EMPTY, nullptr);
}
CUresult add_event_record_node(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n,
                               CUevent e) {
  LOCKED;
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  auto rec = entry<CUresult (*)(CUevent, CUstream)>("cuEventRecord", 2000);
  CUresult r =
      add(out, h, deps, n, CU_GRAPH_NODE_TYPE_EVENT_RECORD, [rec, e] { return rec(e, nullptr); });
  if (r == CUDA_SUCCESS) node_of(*out)->event = e;
  return r;
}
// Streams run in issue order: the event waited on has always happened.
CUresult add_event_wait_node(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n,
                             CUevent e) {
  LOCKED;
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  CUresult r = add(out, h, deps, n, CU_GRAPH_NODE_TYPE_WAIT_EVENT, nullptr);
  if (r == CUDA_SUCCESS) node_of(*out)->event = e;
  return r;
}

CUresult add_dependencies(CUgraph h, const CUgraphNode* from, const CUgraphNode* to,
                          const CUgraphEdgeData* edges, size_t n) {
  LOCKED;
  Graph* g = graph_of(h);
  if (!g || (n && (!from || !to))) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < n; ++i) {
    if (edges && (edges[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT || edges[i].from_port ||
                  edges[i].to_port)) {
      d.not_supported("cuGraphAddDependencies with programmatic edge data");
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    Node *a = node_of(from[i]), *b = node_of(to[i]);
    if (!a || !b || a->graph != g || b->graph != g || a == b) return CUDA_ERROR_INVALID_VALUE;
    if (std::find(b->deps.begin(), b->deps.end(), a) != b->deps.end())
      return CUDA_ERROR_INVALID_VALUE;
    b->deps.push_back(a);
  }
  return CUDA_SUCCESS;
}
CUresult add_dependencies_v1(CUgraph h, const CUgraphNode* from, const CUgraphNode* to, size_t n) {
  return add_dependencies(h, from, to, nullptr, n);
}

CUresult get_nodes(CUgraph h, CUgraphNode* nodes, size_t* count) {
  LOCKED;
  Graph* g = graph_of(h);
  if (!g || !count) return CUDA_ERROR_INVALID_VALUE;
  if (nodes)
    for (size_t i = 0; i < std::min(*count, g->nodes.size()); ++i)
      nodes[i] = reinterpret_cast<CUgraphNode>(g->nodes[i].get());
  // As the driver: with a buffer, the count says how many were written.
  *count = nodes ? std::min(*count, g->nodes.size()) : g->nodes.size();
  return CUDA_SUCCESS;
}
CUresult node_type(CUgraphNode h, CUgraphNodeType* t) {
  LOCKED;
  Node* n = node_of(h);
  if (!n || !t) return CUDA_ERROR_INVALID_VALUE;
  *t = n->type;
  return CUDA_SUCCESS;
}

// ---- instantiate, launch, update -------------------------------------------

CUresult instantiate_with(CUgraphExec* out, CUgraph h, CUgraphInstantiateResult* result,
                          bool auto_free) {
  LOCKED;
  Graph* g = graph_of(h);
  if (!out || !g) return CUDA_ERROR_INVALID_VALUE;
  auto e = std::make_unique<Exec>();
  e->auto_free = auto_free;
  if (!topological(*g, &e->order)) {
    if (result) *result = CUDA_GRAPH_INSTANTIATE_ERROR;
    d.error_line("cuGraphInstantiate: the graph's dependencies form a cycle");
    return CUDA_ERROR_INVALID_VALUE;
  }
  e->shape = shape_of(*g, e->order);
  snapshot(e.get());
  if (result) *result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
  *out = reinterpret_cast<CUgraphExec>(e.get());
  execs().insert(e.release());
  return CUDA_SUCCESS;
}
CUresult instantiate_flags(CUgraphExec* out, CUgraph h, unsigned long long flags) {
  LOCKED;
  // Auto-free-on-launch frees the graph's live allocations at each launch
  // (GraphMemory::allocate); upload and priority change nothing here.
  // Device launch is a GPU-side feature.
  if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) {
    d.error_line(
        "cuGraphInstantiate: device-launchable graphs "
        "(cudaGraphInstantiateFlagDeviceLaunch) "
        "are not supported by the emulator");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  return instantiate_with(out, h, nullptr, flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
}
CUresult instantiate_v2(CUgraphExec* out, CUgraph h, CUgraphNode* err, char* log, size_t log_size) {
  if (err) *err = nullptr;
  if (log && log_size) *log = 0;
  return instantiate_flags(out, h, 0);
}
CUresult instantiate_params(CUgraphExec* out, CUgraph h, CUDA_GRAPH_INSTANTIATE_PARAMS* p) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  p->hErrNode_out = nullptr;
  CUresult r = instantiate_flags(out, h, p->flags);
  p->result_out = r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
  return r;
}
CUresult exec_destroy(CUgraphExec h) {
  Driver::get().synchronize_all();  // a launch of it may still be queued
  LOCKED;
  Exec* e = exec_of(h);
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  execs().erase(e);
  delete e;
  return CUDA_SUCCESS;
}
CUresult upload(CUgraphExec h, CUstream) {
  LOCKED;
  return exec_of(h) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult graph_launch(CUgraphExec h, CUstream s) {
  LOCKED;
  Exec* e = exec_of(h);
  if (!e) return CUDA_ERROR_INVALID_VALUE;
  if (captured(s)) {
    d.error_line(
        "cuGraphLaunch into a capturing stream (a child graph node) is not supported by "
        "the emulator");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  // A kernel the emulator cannot run is refused by the launch itself, as a
  // plain launch of it is (the GPU's is refused before it runs, too).
  for (const auto& k : e->kernels) {
    CUresult refused = CUDA_SUCCESS;
    if (k && k->f && !d.program(k->f, "", &refused)) {
      ++d.launches, ++d.failed_kernels;  // counted as its plain launch is
      d.write_summary(false);
      return refused;
    }
  }
  // The graph runs on the device worker in stream order, its nodes one
  // after another (device_queue.h). Copied: a host node may destroy or
  // update the exec it belongs to (cuGraphExecDestroy waits for the device).
  auto handles = e->handles;
  std::vector<std::function<CUresult()>> runs = e->runs;
  d.enqueue(
      s,
      [handles, runs, &d] {
        for (const auto& h : handles)
          if (h->assign_default) h->set(h->default_value);
        // A kernel that faults leaves the context's sticky error; the launch
        // of the graph itself succeeded, as on the GPU, and its later nodes
        // do not run (a node's API error was reported by the node).
        for (const auto& run : runs)
          if (run)
            if (CUresult r = run(); r != CUDA_SUCCESS || d.sticky != CUDA_SUCCESS) return;
      },
      "cuGraphLaunch");
  return CUDA_SUCCESS;
}

// Accepted when the graph has the exec's topology (same node types, same
// dependencies, in creation order): the exec takes the graph's operations.
CUresult exec_update(CUgraphExec he, CUgraph h, CUgraphExecUpdateResultInfo* info) {
  LOCKED;
  Exec* e = exec_of(he);
  Graph* g = graph_of(h);
  if (!e || !g || !info) return CUDA_ERROR_INVALID_VALUE;
  *info = {CU_GRAPH_EXEC_UPDATE_SUCCESS, nullptr, nullptr};
  std::vector<Node*> order;
  auto fail = [&](CUgraphExecUpdateResult why, Node* n) {
    info->result = why;
    info->errorNode = reinterpret_cast<CUgraphNode>(n);
    return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
  };
  if (!topological(*g, &order) || order.size() != e->order.size())
    return fail(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, nullptr);
  std::vector<Shape> shape = shape_of(*g, order);
  for (size_t i = 0; i < order.size(); ++i) {
    if (shape[i].type != e->shape[i].type)
      return fail(CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED, order[i]);
    if (!(shape[i] == e->shape[i]))
      return fail(CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED, order[i]);
    if (order[i]->kernel && order[i]->kernel->f != e->kernels[i]->f)
      return fail(CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED, order[i]);
  }
  std::vector<Node*> keep = e->order;
  e->order = order;
  snapshot(e);
  e->order = keep;  // SetParams names the nodes of the graph it was instantiated from
  return CUDA_SUCCESS;
}
CUresult exec_update_v1(CUgraphExec he, CUgraph h, CUgraphNode* err,
                        CUgraphExecUpdateResult* result) {
  CUgraphExecUpdateResultInfo info{};
  CUresult r = exec_update(he, h, &info);
  if (err) *err = info.errorNode;
  if (result) *result = info.result;
  return r;
}

}  // namespace

bool captured(CUstream s) {
  LOCKED;
  return capture_of(s) != nullptr;
}

CUresult capture_node(CUstream s, CUgraphNodeType type, std::function<CUresult()> run) {
  LOCKED;
  StreamCapture* c = capture_of(s);
  if (!c) return CUDA_ERROR_ILLEGAL_STATE;
  if (c->session->invalid) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  record(*c, type, std::move(run));
  return CUDA_SUCCESS;
}

CUresult capture_mem_alloc(CUstream s, size_t bytes, CUdeviceptr* out) {
  LOCKED;
  StreamCapture* c = capture_of(s);
  if (!c) return CUDA_ERROR_ILLEGAL_STATE;
  if (c->session->invalid) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  if (!out || !bytes) return CUDA_ERROR_INVALID_VALUE;
  CUresult r;
  auto mem = graphs::graph_memory(bytes, &r);
  if (!mem) return r;
  record(*c, CU_GRAPH_NODE_TYPE_MEM_ALLOC, nullptr)->memory = mem;
  *out = mem->base;
  return CUDA_SUCCESS;
}
CUresult capture_mem_free(CUstream s, CUdeviceptr p) {
  LOCKED;
  StreamCapture* c = capture_of(s);
  if (!c) return CUDA_ERROR_ILLEGAL_STATE;
  if (c->session->invalid) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  record(*c, CU_GRAPH_NODE_TYPE_MEM_FREE, nullptr)->freed = p;
  return CUDA_SUCCESS;
}

CUresult capture_kernel(CUstream s, Function* f, emu::Dim3 grid, emu::Dim3 block, uint32_t shared,
                        void** params, void** extra, bool cooperative, emu::Dim3 cluster) {
  LOCKED;
  StreamCapture* c = capture_of(s);
  if (!c) return CUDA_ERROR_ILLEGAL_STATE;
  if (c->session->invalid) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  auto k = std::make_shared<KernelCall>();
  if (CUresult r = make_kernel_call(f, grid, block, shared, params, extra, k.get());
      r != CUDA_SUCCESS)
    return r;
  k->cooperative = cooperative;
  k->cluster = cluster;
  Node* n = record(*c, CU_GRAPH_NODE_TYPE_KERNEL, kernel_run(k));
  n->kernel = k;
  return CUDA_SUCCESS;
}

bool capture_event_record(CUevent e, CUstream s) {
  LOCKED;
  StreamCapture* c = capture_of(s);
  if (!c) {
    captured_events().erase(e);  // a plain record replaces a captured one
    return false;
  }
  captured_events()[e] = *c;
  return true;
}

bool capture_wait_event(CUstream s, CUevent e) {
  LOCKED;
  auto ev = captured_events().find(e);
  if (ev == captured_events().end()) return captured(s);  // an outside event: nothing to wait for
  StreamCapture* c = capture_of(s);
  if (!c) {
    // The stream joins the capture, after the event's work.
    capturing()[s] = ev->second;
    return true;
  }
  if (c->session != ev->second.session) {
    c->session->invalid = true;  // two captures cannot be merged
    return true;
  }
  for (Node* n : ev->second.tips)
    if (std::find(c->tips.begin(), c->tips.end(), n) == c->tips.end()) c->tips.push_back(n);
  return true;
}

CUresult capture_forbids(CUstream s, const char* api) {
  LOCKED;
  StreamCapture* c = capture_of(s);
  if (!c) return CUDA_SUCCESS;
  c->session->invalid = true;
  d.error_line(
      fmt::format("{} on a stream being captured: not allowed during stream capture (the "
                  "capture is invalidated, as on a GPU)",
                  api));
  return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

const std::vector<EntryPoint>& graph_entries() {
#define E SMEMLAB_ENTRY
  static const std::vector<EntryPoint> entries = [] {
    std::vector<EntryPoint> v = {
        E("cuStreamBeginCapture", 10000, begin_capture_v1),
        E("cuStreamBeginCapture", 10010, begin_capture),
        E("cuStreamBeginCaptureToGraph", 12030, begin_capture_to_graph),
        E("cuStreamEndCapture", 10000, end_capture),
        E("cuStreamIsCapturing", 10000, is_capturing),
        E("cuStreamGetCaptureInfo", 10010, capture_info_v1),
        E("cuStreamGetCaptureInfo", 11030, capture_info_v2),
        E("cuStreamGetCaptureInfo", 12030, capture_info_v3),
        E("cuStreamUpdateCaptureDependencies", 11030, update_capture_deps),
        E("cuStreamUpdateCaptureDependencies", 12030, update_capture_deps_v2),
        E("cuThreadExchangeStreamCaptureMode", 10010, exchange_capture_mode),
        E("cuGraphCreate", 10000, graph_create),
        E("cuGraphDestroy", 10000, graph_destroy),
        E("cuGraphAddKernelNode", 12000, add_kernel_node),
        E("cuGraphKernelNodeSetParams", 12000, kernel_node_set_params),
        E("cuGraphExecKernelNodeSetParams", 12000, exec_kernel_node_set_params),
        E("cuGraphKernelNodeSetAttribute", 11000, kernel_node_set_attribute),
        E("cuGraphKernelNodeGetAttribute", 11000, kernel_node_get_attribute),
        E("cuGraphAddMemcpyNode", 10000, add_memcpy_node),
        E("cuGraphAddMemsetNode", 10000, add_memset_node),
        E("cuGraphAddHostNode", 10000, add_host_node),
        E("cuGraphAddEmptyNode", 10000, add_empty_node),
        E("cuGraphAddEventRecordNode", 11010, add_event_record_node),
        E("cuGraphAddEventWaitNode", 11010, add_event_wait_node),
        E("cuGraphAddDependencies", 10000, add_dependencies_v1),
        E("cuGraphAddDependencies", 12030, add_dependencies),
        E("cuGraphGetNodes", 10000, get_nodes),
        E("cuGraphNodeGetType", 10000, node_type),
        E("cuGraphInstantiate", 10000, instantiate_v2),
        E("cuGraphInstantiate", 11000, instantiate_v2),
        E("cuGraphInstantiateWithFlags", 11040, instantiate_flags),
        E("cuGraphInstantiateWithParams", 12000, instantiate_params),
        E("cuGraphExecDestroy", 10000, exec_destroy),
        E("cuGraphUpload", 11010, upload),
        E("cuGraphLaunch", 10000, graph_launch),
        E("cuGraphExecUpdate", 10020, exec_update_v1),
        E("cuGraphExecUpdate", 12000, exec_update),
    };
    const auto& more = graphs::node_entries();
    v.insert(v.end(), more.begin(), more.end());
    return v;
  }();
#undef E
  return entries;
}

}  // namespace smemlab::runtime
