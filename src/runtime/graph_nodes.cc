// Graph nodes beyond kernels, copies, memsets, host functions and events:
// child graphs, conditional nodes (if/else, while, switch) with their
// handles, memory allocation and free nodes, the generic cuGraphAddNode,
// node parameter getters, edges and their removal, node removal, cloning
// and cudaGraphDebugDotPrint.
#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "runtime/driver.h"
#include "runtime/graph_model.h"
#include "runtime/guard.h"

namespace smemlab::runtime::graphs {
namespace {

#define NODES_LOCKED         \
  Driver& d = Driver::get(); \
  std::lock_guard<DriverMutex> lock(d.mu);

// Conditional handles by value (the cell's address). Never destroyed, as
// the graphs.
std::map<CUgraphConditionalHandle, std::shared_ptr<CondHandle>>& cond_handles() {
  static auto* m = new std::map<CUgraphConditionalHandle, std::shared_ptr<CondHandle>>();
  return *m;
}

CUresult deps_in(Graph* g, const CUgraphNode* deps, size_t n, std::vector<Node*>* out) {
  if (n && !deps) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < n; ++i) {
    Node* dep = node_of(deps[i]);
    if (!dep || dep->graph != g) return CUDA_ERROR_INVALID_VALUE;
    out->push_back(dep);
  }
  return CUDA_SUCCESS;
}

// A new node of `type` in graph `h` after `deps`, or null (*r says why).
Node* new_node(CUgraph h, const CUgraphNode* deps, size_t n, CUgraphNodeType type, CUresult* r) {
  Graph* g = graph_of(h);
  std::vector<Node*> ds;
  *r = g ? deps_in(g, deps, n, &ds) : CUDA_ERROR_INVALID_VALUE;
  return *r == CUDA_SUCCESS ? add_node(g, type, std::move(ds), nullptr) : nullptr;
}

// ---- conditional handles and nodes -----------------------------------------

CUresult cond_handle_create(CUgraphConditionalHandle* out, CUgraph h, CUcontext, unsigned dflt,
                            unsigned flags) {
  NODES_LOCKED;
  if (!out || !graph_of(h) || (flags & ~unsigned{CU_GRAPH_COND_ASSIGN_DEFAULT}))
    return CUDA_ERROR_INVALID_VALUE;
  auto c = std::make_shared<CondHandle>();
  if (CUresult r = d.allocate(4, MemKind::Device, &c->cell); r != CUDA_SUCCESS) return r;
  d.allocs[c->cell].internal = true;  // the driver's, never the program's leak
  c->default_value = dflt;
  c->assign_default = flags & CU_GRAPH_COND_ASSIGN_DEFAULT;
  c->set(dflt);
  cond_handles()[c->cell] = c;
  *out = c->cell;
  return CUDA_SUCCESS;
}

CUresult add_conditional(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n,
                         CUDA_CONDITIONAL_NODE_PARAMS* p) {
  Driver& d = Driver::get();
  auto it = cond_handles().find(p->handle);
  if (it == cond_handles().end()) return CUDA_ERROR_INVALID_VALUE;
  unsigned size = p->size;
  bool ok = p->type == CU_GRAPH_COND_TYPE_IF       ? size == 1 || size == 2
            : p->type == CU_GRAPH_COND_TYPE_WHILE  ? size == 1
            : p->type == CU_GRAPH_COND_TYPE_SWITCH ? size >= 1
                                                   : false;
  if (!ok) {
    d.error_line(fmt::format("cuGraphAddNode: a conditional node of type {} with {} bodies",
                             static_cast<int>(p->type), size));
    return CUDA_ERROR_INVALID_VALUE;
  }
  CUresult r;
  Node* node = new_node(h, deps, n, CU_GRAPH_NODE_TYPE_CONDITIONAL, &r);
  if (!node) return r;
  node->cond_type = p->type;
  node->cond = it->second;
  for (unsigned i = 0; i < size; ++i) new_owned_graph(node);
  p->phGraph_out = node->owned_handles.data();  // the driver's array, as documented
  *out = handle(node);
  return CUDA_SUCCESS;
}

// ---- child graphs ----------------------------------------------------------

CUresult add_child(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n, CUgraph child) {
  NODES_LOCKED;
  (void)d;
  Graph* c = graph_of(child);
  if (!out || !c) return CUDA_ERROR_INVALID_VALUE;
  for (const auto& m : c->nodes)
    if (m->type == CU_GRAPH_NODE_TYPE_CONDITIONAL || m->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ||
        m->type == CU_GRAPH_NODE_TYPE_MEM_FREE)
      return CUDA_ERROR_INVALID_VALUE;  // not allowed in a child graph (cuda.h)
  CUresult r;
  Node* node = new_node(h, deps, n, CU_GRAPH_NODE_TYPE_GRAPH, &r);
  if (!node) return r;
  copy_nodes(*c, new_owned_graph(node));  // the node holds a clone
  *out = handle(node);
  return CUDA_SUCCESS;
}
CUresult child_graph(CUgraphNode h, CUgraph* out) {
  NODES_LOCKED;
  (void)d;
  Node* n = node_of(h);
  if (!n || !out || n->type != CU_GRAPH_NODE_TYPE_GRAPH) return CUDA_ERROR_INVALID_VALUE;
  *out = handle(n->owned.at(0));
  return CUDA_SUCCESS;
}

// ---- memory nodes ----------------------------------------------------------

CUresult add_mem_alloc(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n,
                       CUDA_MEM_ALLOC_NODE_PARAMS* p) {
  NODES_LOCKED;
  if (!out || !p || p->bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  if (p->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      p->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
    d.error_line(
        "cuGraphAddMemAllocNode: only device memory (CU_MEM_ALLOCATION_TYPE_PINNED on "
        "CU_MEM_LOCATION_TYPE_DEVICE) is supported");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  CUresult r;
  auto mem = graph_memory(p->bytesize, &r);
  if (!mem) return r;
  Node* node = new_node(h, deps, n, CU_GRAPH_NODE_TYPE_MEM_ALLOC, &r);
  if (!node) return r;
  node->memory = mem;
  p->dptr = mem->base;
  *out = handle(node);
  return CUDA_SUCCESS;
}
CUresult add_mem_free(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n,
                      CUdeviceptr p) {
  NODES_LOCKED;
  (void)d;
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  CUresult r;
  Node* node = new_node(h, deps, n, CU_GRAPH_NODE_TYPE_MEM_FREE, &r);
  if (!node) return r;
  node->freed = p;
  *out = handle(node);
  return CUDA_SUCCESS;
}
CUresult mem_alloc_params(CUgraphNode h, CUDA_MEM_ALLOC_NODE_PARAMS* p) {
  NODES_LOCKED;
  (void)d;
  Node* n = node_of(h);
  if (!n || !p || n->type != CU_GRAPH_NODE_TYPE_MEM_ALLOC) return CUDA_ERROR_INVALID_VALUE;
  *p = {};
  p->poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  p->poolProps.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  p->bytesize = n->memory->bytes;
  p->dptr = n->memory->base;
  return CUDA_SUCCESS;
}
CUresult mem_free_params(CUgraphNode h, CUdeviceptr* p) {
  NODES_LOCKED;
  (void)d;
  Node* n = node_of(h);
  if (!n || !p || n->type != CU_GRAPH_NODE_TYPE_MEM_FREE) return CUDA_ERROR_INVALID_VALUE;
  *p = n->freed;
  return CUDA_SUCCESS;
}
// Freed graph memory stays reserved for the graph's next launch until trimmed.
CUresult graph_mem_trim(CUdevice dev) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  Driver::get().synchronize_all();  // the device's work decides what is free
  NODES_LOCKED;
  (void)d;
  trim_graph_memory();
  return CUDA_SUCCESS;
}
// CU_GRAPH_MEM_ATTR_*: bytes of graph allocations live (used) and held for
// graphs (reserved: live, or freed and not trimmed), and their high-water
// marks, which only a set to 0 resets.
CUresult graph_mem_get_attribute(CUdevice dev, CUgraphMem_attribute attr, void* value) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  NODES_LOCKED;
  GraphMemUse u = graph_memory_use();
  cuuint64_t v;
  switch (attr) {
    case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT:
      v = u.used;
      break;
    case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH:
      v = d.graph_mem_used_high;
      break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT:
      v = u.reserved;
      break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH:
      v = d.graph_mem_reserved_high;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  *static_cast<cuuint64_t*>(value) = v;
  return CUDA_SUCCESS;
}
CUresult graph_mem_set_attribute(CUdevice dev, CUgraphMem_attribute attr, void* value) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!value || *static_cast<cuuint64_t*>(value) != 0) return CUDA_ERROR_INVALID_VALUE;
  NODES_LOCKED;
  GraphMemUse u = graph_memory_use();
  if (attr == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)
    d.graph_mem_used_high = u.used;  // reset: to what is in use now
  else if (attr == CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)
    d.graph_mem_reserved_high = u.reserved;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

// ---- the generic cuGraphAddNode --------------------------------------------

template <typename Fn>
Fn by_name(const char* name, int version) {
  const EntryPoint* e = find_entry(name, version);
  return e ? reinterpret_cast<Fn>(e->fn) : nullptr;
}

CUresult add_generic(CUgraphNode* out, CUgraph h, const CUgraphNode* deps,
                     const CUgraphEdgeData* edges, size_t n, CUgraphNodeParams* p) {
  NODES_LOCKED;
  if (!out || !p) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; edges && i < n; ++i)
    if (edges[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT || edges[i].from_port ||
        edges[i].to_port) {
      d.not_supported("cuGraphAddNode with programmatic edge data");
      return CUDA_ERROR_NOT_SUPPORTED;
    }
  using Deps = const CUgraphNode*;
  switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
      CUDA_KERNEL_NODE_PARAMS k;
      static_assert(sizeof k == sizeof p->kernel);
      std::memcpy(&k, &p->kernel, sizeof k);
      return by_name<CUresult (*)(CUgraphNode*, CUgraph, Deps, size_t,
                                  const CUDA_KERNEL_NODE_PARAMS*)>("cuGraphAddKernelNode", 12000)(
          out, h, deps, n, &k);
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
      return by_name<CUresult (*)(CUgraphNode*, CUgraph, Deps, size_t, const CUDA_MEMCPY3D*,
                                  CUcontext)>("cuGraphAddMemcpyNode", 10000)(
          out, h, deps, n, &p->memcpy.copyParams, p->memcpy.copyCtx);
    case CU_GRAPH_NODE_TYPE_MEMSET: {
      const auto& m = p->memset;
      CUDA_MEMSET_NODE_PARAMS v1{m.dst, m.pitch, m.value, m.elementSize, m.width, m.height};
      return by_name<CUresult (*)(CUgraphNode*, CUgraph, Deps, size_t,
                                  const CUDA_MEMSET_NODE_PARAMS*, CUcontext)>(
          "cuGraphAddMemsetNode", 10000)(out, h, deps, n, &v1, m.ctx);
    }
    case CU_GRAPH_NODE_TYPE_HOST: {
      CUDA_HOST_NODE_PARAMS host{p->host.fn, p->host.userData};
      return by_name<CUresult (*)(CUgraphNode*, CUgraph, Deps, size_t,
                                  const CUDA_HOST_NODE_PARAMS*)>("cuGraphAddHostNode", 10000)(
          out, h, deps, n, &host);
    }
    case CU_GRAPH_NODE_TYPE_GRAPH:
      return add_child(out, h, deps, n, p->graph.graph);
    case CU_GRAPH_NODE_TYPE_EMPTY:
      return by_name<CUresult (*)(CUgraphNode*, CUgraph, Deps, size_t)>("cuGraphAddEmptyNode",
                                                                        10000)(out, h, deps, n);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      return by_name<CUresult (*)(CUgraphNode*, CUgraph, Deps, size_t, CUevent)>(
          p->type == CU_GRAPH_NODE_TYPE_WAIT_EVENT ? "cuGraphAddEventWaitNode"
                                                   : "cuGraphAddEventRecordNode",
          11010)(out, h, deps, n, p->eventWait.event);
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: {
      CUDA_MEM_ALLOC_NODE_PARAMS a;
      static_assert(sizeof a == sizeof p->alloc);
      std::memcpy(&a, &p->alloc, sizeof a);
      CUresult r = add_mem_alloc(out, h, deps, n, &a);
      p->alloc.dptr = a.dptr;
      return r;
    }
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
      return add_mem_free(out, h, deps, n, p->free.dptr);
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
      return add_conditional(out, h, deps, n, &p->conditional);
    default:
      d.error_line(
          fmt::format("cuGraphAddNode: node type {} (external semaphores, batch memory "
                      "operations) is not supported by the emulator",
                      static_cast<int>(p->type)));
      return CUDA_ERROR_NOT_SUPPORTED;
  }
}
CUresult add_generic_v1(CUgraphNode* out, CUgraph h, const CUgraphNode* deps, size_t n,
                        CUgraphNodeParams* p) {
  return add_generic(out, h, deps, nullptr, n, p);
}

// ---- parameter getters -----------------------------------------------------

Node* typed(CUgraphNode h, CUgraphNodeType t) {
  Node* n = node_of(h);
  return n && n->type == t ? n : nullptr;
}

CUresult kernel_params(CUgraphNode h, CUDA_KERNEL_NODE_PARAMS* p) {
  NODES_LOCKED;
  (void)d;
  Node* n = typed(h, CU_GRAPH_NODE_TYPE_KERNEL);
  if (!n || !p || !n->kernel) return CUDA_ERROR_INVALID_VALUE;
  KernelCall& k = *n->kernel;
  k.ptrs.clear();
  for (auto& a : k.args) k.ptrs.push_back(a.data());
  *p = {};
  p->func = reinterpret_cast<CUfunction>(k.f);
  p->kern = k.kern;
  p->gridDimX = k.grid.x, p->gridDimY = k.grid.y, p->gridDimZ = k.grid.z;
  p->blockDimX = k.block.x, p->blockDimY = k.block.y, p->blockDimZ = k.block.z;
  p->sharedMemBytes = k.shared;
  p->kernelParams = k.have_args ? k.ptrs.data() : nullptr;
  return CUDA_SUCCESS;
}
CUresult memcpy_params(CUgraphNode h, CUDA_MEMCPY3D* p) {
  NODES_LOCKED;
  Node* n = typed(h, CU_GRAPH_NODE_TYPE_MEMCPY);
  if (!n || !p) return CUDA_ERROR_INVALID_VALUE;
  if (!n->copy_known) {
    d.error_line(
        "cuGraphMemcpyNodeGetParams of a captured 1-D copy: its parameters are not "
        "kept by the emulator");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  *p = n->copy;
  return CUDA_SUCCESS;
}
CUresult memset_params(CUgraphNode h, CUDA_MEMSET_NODE_PARAMS* p) {
  NODES_LOCKED;
  Node* n = typed(h, CU_GRAPH_NODE_TYPE_MEMSET);
  if (!n || !p) return CUDA_ERROR_INVALID_VALUE;
  if (!n->memset.elementSize) {
    d.error_line(
        "cuGraphMemsetNodeGetParams of a captured memset: its parameters are not kept "
        "by the emulator");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  *p = n->memset;
  return CUDA_SUCCESS;
}
CUresult host_params(CUgraphNode h, CUDA_HOST_NODE_PARAMS* p) {
  NODES_LOCKED;
  Node* n = typed(h, CU_GRAPH_NODE_TYPE_HOST);
  if (!n || !p) return CUDA_ERROR_INVALID_VALUE;
  if (!n->host.fn) {
    d.error_line(
        "cuGraphHostNodeGetParams of a captured host function: its parameters are not "
        "kept by the emulator");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  *p = n->host;
  return CUDA_SUCCESS;
}
CUresult event_of(CUgraphNode h, CUevent* e, CUgraphNodeType t) {
  NODES_LOCKED;
  (void)d;
  Node* n = typed(h, t);
  if (!n || !e) return CUDA_ERROR_INVALID_VALUE;
  *e = n->event;
  return CUDA_SUCCESS;
}
CUresult record_event(CUgraphNode h, CUevent* e) {
  return event_of(h, e, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
}
CUresult wait_event(CUgraphNode h, CUevent* e) {
  return event_of(h, e, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
}

// ---- edges, removal --------------------------------------------------------

// Writes up to *count of `items`; with a null buffer, *count is how many there are.
template <typename T>
CUresult fill(const std::vector<T>& items, T* out, size_t* count) {
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  if (out) {
    size_t k = std::min(*count, items.size());
    std::copy(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(k), out);
    for (size_t i = k; i < *count; ++i) out[i] = T{};
    *count = k;
  } else {
    *count = items.size();
  }
  return CUDA_SUCCESS;
}
void zero_edges(CUgraphEdgeData* edges, size_t n) {
  for (size_t i = 0; edges && i < n; ++i) edges[i] = {};
}

CUresult get_edges(CUgraph h, CUgraphNode* from, CUgraphNode* to, CUgraphEdgeData* edges,
                   size_t* count) {
  NODES_LOCKED;
  (void)d;
  Graph* g = graph_of(h);
  if (!g || !count || (!from) != (!to)) return CUDA_ERROR_INVALID_VALUE;
  std::vector<CUgraphNode> a, b;
  for (const auto& n : g->nodes)
    for (Node* dep : n->deps) a.push_back(handle(dep)), b.push_back(handle(n.get()));
  size_t k = *count;
  fill(a, from, &k);
  CUresult r = fill(b, to, count);
  zero_edges(edges, *count);
  return r;
}
CUresult get_edges_v1(CUgraph h, CUgraphNode* from, CUgraphNode* to, size_t* count) {
  return get_edges(h, from, to, nullptr, count);
}
CUresult root_nodes(CUgraph h, CUgraphNode* out, size_t* count) {
  NODES_LOCKED;
  (void)d;
  Graph* g = graph_of(h);
  if (!g) return CUDA_ERROR_INVALID_VALUE;
  std::vector<CUgraphNode> roots;
  for (const auto& n : g->nodes)
    if (n->deps.empty()) roots.push_back(handle(n.get()));
  return fill(roots, out, count);
}
CUresult dependencies(CUgraphNode h, CUgraphNode* out, CUgraphEdgeData* edges, size_t* count) {
  NODES_LOCKED;
  (void)d;
  Node* n = node_of(h);
  if (!n) return CUDA_ERROR_INVALID_VALUE;
  std::vector<CUgraphNode> deps;
  for (Node* dep : n->deps) deps.push_back(handle(dep));
  CUresult r = fill(deps, out, count);
  if (out) zero_edges(edges, *count);
  return r;
}
CUresult dependencies_v1(CUgraphNode h, CUgraphNode* out, size_t* count) {
  return dependencies(h, out, nullptr, count);
}
CUresult dependents(CUgraphNode h, CUgraphNode* out, CUgraphEdgeData* edges, size_t* count) {
  NODES_LOCKED;
  (void)d;
  Node* n = node_of(h);
  if (!n) return CUDA_ERROR_INVALID_VALUE;
  std::vector<CUgraphNode> users;
  for (const auto& m : n->graph->nodes)
    if (std::find(m->deps.begin(), m->deps.end(), n) != m->deps.end())
      users.push_back(handle(m.get()));
  CUresult r = fill(users, out, count);
  if (out) zero_edges(edges, *count);
  return r;
}
CUresult dependents_v1(CUgraphNode h, CUgraphNode* out, size_t* count) {
  return dependents(h, out, nullptr, count);
}
CUresult remove_dependencies(CUgraph h, const CUgraphNode* from, const CUgraphNode* to,
                             const CUgraphEdgeData*, size_t n) {
  NODES_LOCKED;
  (void)d;
  Graph* g = graph_of(h);
  if (!g || (n && (!from || !to))) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < n; ++i) {  // all edges must exist before any goes
    Node *a = node_of(from[i]), *b = node_of(to[i]);
    if (!a || !b || b->graph != g || std::find(b->deps.begin(), b->deps.end(), a) == b->deps.end())
      return CUDA_ERROR_INVALID_VALUE;
  }
  for (size_t i = 0; i < n; ++i) {
    Node *a = node_of(from[i]), *b = node_of(to[i]);
    b->deps.erase(std::find(b->deps.begin(), b->deps.end(), a));
  }
  return CUDA_SUCCESS;
}
CUresult remove_dependencies_v1(CUgraph h, const CUgraphNode* from, const CUgraphNode* to,
                                size_t n) {
  return remove_dependencies(h, from, to, nullptr, n);
}
CUresult destroy_node(CUgraphNode h) {
  NODES_LOCKED;
  (void)d;
  Node* n = node_of(h);
  if (!n) return CUDA_ERROR_INVALID_VALUE;
  Graph* g = n->graph;
  for (auto& m : g->nodes)
    m->deps.erase(std::remove(m->deps.begin(), m->deps.end(), n), m->deps.end());
  for (Graph* o : n->owned) destroy_graph(o);
  g->nodes.erase(std::find_if(g->nodes.begin(), g->nodes.end(),
                              [n](const std::unique_ptr<Node>& m) { return m.get() == n; }));
  return CUDA_SUCCESS;
}

// ---- cloning ---------------------------------------------------------------

CUresult clone(CUgraph* out, CUgraph h) {
  NODES_LOCKED;
  Graph* g = graph_of(h);
  if (!out || !g) return CUDA_ERROR_INVALID_VALUE;
  for (const auto& n : g->nodes)
    if (n->type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
      // cuda.h: a graph with conditional nodes cannot be cloned.
      d.error_line("cuGraphClone: a graph with conditional nodes cannot be cloned");
      return CUDA_ERROR_NOT_SUPPORTED;
    }
  auto* c = new Graph();
  all_graphs().insert(c);
  copy_nodes(*g, c);
  *out = handle(c);
  return CUDA_SUCCESS;
}
CUresult find_in_clone(CUgraphNode* out, CUgraphNode original, CUgraph cloned) {
  NODES_LOCKED;
  (void)d;
  Node* o = node_of(original);
  Graph* c = graph_of(cloned);
  if (!out || !o || !c) return CUDA_ERROR_INVALID_VALUE;
  for (const auto& n : c->nodes)
    if (n->origin == o) {
      *out = handle(n.get());
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_VALUE;
}

// ---- cudaGraphDebugDotPrint ------------------------------------------------

const char* type_name(CUgraphNodeType t) {
  static const char* const kNames[] = {
      "KERNEL",       "MEMCPY",       "MEMSET",           "HOST",           "GRAPH",     "EMPTY",
      "WAIT_EVENT",   "EVENT_RECORD", "EXT_SEMAS_SIGNAL", "EXT_SEMAS_WAIT", "MEM_ALLOC", "MEM_FREE",
      "BATCH_MEM_OP", "CONDITIONAL"};
  unsigned i = static_cast<unsigned>(t);
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "UNKNOWN";
}

void dot_graph(const Graph& g, const std::string& prefix, std::string* out) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = *g.nodes[i];
    std::string label = type_name(n.type);
    if (n.kernel && n.kernel->f) label += "\\n" + ptx::demangle(n.kernel->f->name);
    *out += fmt::format("\"{}{}\" [label=\"{} {}\"];\n", prefix, i, i, label);
    for (const Node* dep : n.deps) {
      size_t j = static_cast<size_t>(
          std::find_if(g.nodes.begin(), g.nodes.end(),
                       [dep](const std::unique_ptr<Node>& m) { return m.get() == dep; }) -
          g.nodes.begin());
      *out += fmt::format("\"{}{}\" -> \"{}{}\";\n", prefix, j, prefix, i);
    }
    for (size_t b = 0; b < n.owned.size(); ++b) {
      std::string sub = fmt::format("{}{}_{}_", prefix, i, b);
      *out += fmt::format("subgraph \"cluster_{}\" {{\nlabel=\"{} body {}\";\n", sub, i, b);
      dot_graph(*n.owned[b], sub, out);
      *out += "}\n";
    }
  }
}

CUresult dot_print(CUgraph h, const char* path, unsigned) {
  NODES_LOCKED;
  (void)d;
  Graph* g = graph_of(h);
  if (!g || !path) return CUDA_ERROR_INVALID_VALUE;
  std::string text = "digraph dot {\n";
  dot_graph(*g, "n", &text);
  text += "}\n";
  FILE* f = std::fopen(path, "w");
  if (!f) return CUDA_ERROR_OPERATING_SYSTEM;
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok ? CUDA_SUCCESS : CUDA_ERROR_OPERATING_SYSTEM;
}

}  // namespace

// The address is reserved (no access) until a launch runs the node.
std::shared_ptr<GraphMemory> graph_memory(size_t bytes, CUresult* r) {
  const uint64_t len = std::max<uint64_t>((bytes + 4095) & ~uint64_t{4095}, 4096);
  void* p = ::mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  *r = CUDA_ERROR_OUT_OF_MEMORY;
  if (p == MAP_FAILED) return nullptr;
  const uint64_t base = reinterpret_cast<uint64_t>(p);
  if (!emu::is_global_address(base) || !emu::is_global_address(base + len - 1)) {
    ::munmap(p, len);
    return nullptr;
  }
  auto m = std::make_shared<GraphMemory>();
  m->base = base;
  m->bytes = bytes;
  register_graph_memory(m.get());
  *r = CUDA_SUCCESS;
  return m;
}

std::shared_ptr<CondHandle> cond_handle(CUgraphConditionalHandle h) {
  auto it = cond_handles().find(h);
  return it == cond_handles().end() ? nullptr : it->second;
}

const std::vector<EntryPoint>& node_entries() {
#define E SMEMLAB_ENTRY
  static const std::vector<EntryPoint> entries = {
      E("cuGraphConditionalHandleCreate", 12030, cond_handle_create),
      E("cuGraphAddNode", 12020, add_generic_v1),
      E("cuGraphAddNode", 12030, add_generic),
      E("cuGraphAddChildGraphNode", 10000, add_child),
      E("cuGraphChildGraphNodeGetGraph", 10000, child_graph),
      E("cuGraphAddMemAllocNode", 11040, add_mem_alloc),
      E("cuGraphAddMemFreeNode", 11040, add_mem_free),
      E("cuGraphMemAllocNodeGetParams", 11040, mem_alloc_params),
      E("cuGraphMemFreeNodeGetParams", 11040, mem_free_params),
      E("cuDeviceGraphMemTrim", 11040, graph_mem_trim),
      E("cuDeviceGetGraphMemAttribute", 11040, graph_mem_get_attribute),
      E("cuDeviceSetGraphMemAttribute", 11040, graph_mem_set_attribute),
      E("cuGraphKernelNodeGetParams", 12000, kernel_params),
      E("cuGraphMemcpyNodeGetParams", 10000, memcpy_params),
      E("cuGraphMemsetNodeGetParams", 10000, memset_params),
      E("cuGraphHostNodeGetParams", 10000, host_params),
      E("cuGraphEventRecordNodeGetEvent", 11010, record_event),
      E("cuGraphEventWaitNodeGetEvent", 11010, wait_event),
      E("cuGraphGetEdges", 10000, get_edges_v1),
      E("cuGraphGetEdges", 12030, get_edges),
      E("cuGraphGetRootNodes", 10000, root_nodes),
      E("cuGraphNodeGetDependencies", 10000, dependencies_v1),
      E("cuGraphNodeGetDependencies", 12030, dependencies),
      E("cuGraphNodeGetDependentNodes", 10000, dependents_v1),
      E("cuGraphNodeGetDependentNodes", 12030, dependents),
      E("cuGraphRemoveDependencies", 10000, remove_dependencies_v1),
      E("cuGraphRemoveDependencies", 12030, remove_dependencies),
      E("cuGraphDestroyNode", 10000, destroy_node),
      E("cuGraphClone", 10000, clone),
      E("cuGraphNodeFindInClone", 10000, find_in_clone),
      E("cuGraphDebugDotPrint", 11030, dot_print),
  };
#undef E
  return entries;
}

}  // namespace smemlab::runtime::graphs
