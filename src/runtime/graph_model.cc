// The graph model (graph_model.h): kernel calls, graph memory, conditional
// handles, graphs and nodes, deep copies, and the operation an instantiated
// graph runs for each node.
#include "runtime/graph_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "runtime/driver.h"

namespace smemlab::runtime::graphs {

using GraphLock = std::lock_guard<DriverMutex>;

CUresult KernelCall::operator()() const {
  Driver& d = Driver::get();
  GraphLock lock(d.mu);
  std::vector<void*> p;
  for (const auto& a : args) p.push_back(const_cast<uint8_t*>(a.data()));
  return d.launch(f, grid, block, shared, have_args ? p.data() : nullptr, nullptr, cooperative,
                  cluster);
}

CUresult make_kernel_call(Function* f, emu::Dim3 grid, emu::Dim3 block, uint32_t shared,
                          void** params, void** extra, KernelCall* out) {
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  *out = KernelCall{};
  out->f = f, out->grid = grid, out->block = block, out->shared = shared;
  if (!f->module || !f->module->emu) return CUDA_SUCCESS;  // the launch says why it cannot run
  const emu::Program* prog;
  try {
    prog = &f->module->emu->kernel(f->name);
  } catch (const std::exception&) {
    return CUDA_SUCCESS;  // as above
  }
  const uint8_t* buffer = nullptr;
  size_t buffer_size = 0;
  for (void** e = extra; e && *e != CU_LAUNCH_PARAM_END; e += 2) {
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = static_cast<const uint8_t*>(e[1]);
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) buffer_size = *static_cast<size_t*>(e[1]);
  }
  for (size_t i = 0; i < prog->params.size(); ++i) {
    const auto& p = prog->params[i];
    const uint8_t* src = params ? static_cast<const uint8_t*>(params[i])
                         : buffer && p.offset + p.size <= buffer_size ? buffer + p.offset
                                                                      : nullptr;
    if (!src) return CUDA_ERROR_INVALID_VALUE;
    out->args.emplace_back(src, src + p.size);
  }
  out->have_args = true;
  return CUDA_SUCCESS;
}

namespace {
std::map<uint64_t, GraphMemory*>& graph_memories() {
  static auto* m = new std::map<uint64_t, GraphMemory*>();
  return *m;
}
}  // namespace

bool is_graph_memory(uint64_t base) { return graph_memories().count(base) != 0; }
void register_graph_memory(GraphMemory* m) { graph_memories()[m->base] = m; }

GraphMemUse graph_memory_use() {
  Driver& d = Driver::get();
  GraphMemUse u;
  for (const auto& [base, m] : graph_memories()) {
    bool live = d.allocs.count(base) != 0;
    if (live) u.used += m->bytes;
    if (live || !m->trimmed) u.reserved += m->bytes;
  }
  return u;
}

void trim_graph_memory() {
  Driver& d = Driver::get();
  for (auto& [base, m] : graph_memories())
    if (!d.allocs.count(base)) m->trimmed = true;
}

CUresult GraphMemory::allocate(bool auto_free) {
  Driver& d = Driver::get();
  GraphLock lock(d.mu);
  if (d.allocs.count(base)) {
    if (!auto_free) {
      d.error_line(fmt::format(
          "cuGraphLaunch: the graph allocation of {} bytes at 0x{:x} from its last launch was "
          "not freed (free it with a free node, cudaFree or cudaFreeAsync first, or instantiate "
          "with cudaGraphInstantiateFlagAutoFreeOnLaunch)",
          bytes, base));
      return CUDA_ERROR_INVALID_VALUE;
    }
    d.release(base, "cudaGraphInstantiateFlagAutoFreeOnLaunch");
  }
  if (CUresult r = d.map_graph_memory(base, bytes); r != CUDA_SUCCESS) return r;
  trimmed = false;
  GraphMemUse u = graph_memory_use();
  d.graph_mem_used_high = std::max(d.graph_mem_used_high, u.used);
  d.graph_mem_reserved_high = std::max(d.graph_mem_reserved_high, u.reserved);
  return CUDA_SUCCESS;
}

GraphMemory::~GraphMemory() {
  Driver& d = Driver::get();
  GraphLock lock(d.mu);
  if (!base) return;
  graph_memories().erase(base);
  d.unmap_graph_memory(base, bytes);
}

unsigned CondHandle::value() const {
  unsigned v;
  std::memcpy(&v, reinterpret_cast<const void*>(cell), 4);
  return v;
}
void CondHandle::set(unsigned v) const { std::memcpy(reinterpret_cast<void*>(cell), &v, 4); }

std::set<Graph*>& all_graphs() {
  static auto* s = new std::set<Graph*>();
  return *s;
}
Graph* graph_of(CUgraph h) {
  auto* g = reinterpret_cast<Graph*>(h);
  return all_graphs().count(g) ? g : nullptr;
}
Node* node_of(CUgraphNode h) {
  auto* n = reinterpret_cast<Node*>(h);
  if (!n) return nullptr;
  for (Graph* g : all_graphs())
    for (auto& m : g->nodes)
      if (m.get() == n) return n;
  return nullptr;
}

Node* add_node(Graph* g, CUgraphNodeType type, std::vector<Node*> deps,
               std::function<CUresult()> run) {
  g->nodes.push_back(std::make_unique<Node>());
  Node* n = g->nodes.back().get();
  n->graph = g;
  n->type = type;
  n->deps = std::move(deps);
  n->run = std::move(run);
  return n;
}

Graph* new_owned_graph(Node* owner) {
  auto* g = new Graph();
  g->owner = owner;
  all_graphs().insert(g);
  owner->owned.push_back(g);
  owner->owned_handles.push_back(handle(g));
  return g;
}

void destroy_graph(Graph* g) {
  for (auto& n : g->nodes)
    for (Graph* o : n->owned) destroy_graph(o);
  all_graphs().erase(g);
  delete g;
}

bool topological(const Graph& g, std::vector<Node*>* out) {
  std::map<const Node*, size_t> index;
  for (size_t i = 0; i < g.nodes.size(); ++i) index[g.nodes[i].get()] = i;
  std::vector<size_t> pending(g.nodes.size());
  std::vector<std::vector<size_t>> users(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    std::set<const Node*> seen(g.nodes[i]->deps.begin(), g.nodes[i]->deps.end());
    pending[i] = seen.size();
    for (const Node* dep : seen) users[index.at(dep)].push_back(i);
  }
  std::set<size_t> ready;
  for (size_t i = 0; i < pending.size(); ++i)
    if (!pending[i]) ready.insert(i);
  out->clear();
  while (!ready.empty()) {
    size_t i = *ready.begin();
    ready.erase(ready.begin());
    out->push_back(g.nodes[i].get());
    for (size_t u : users[i])
      if (--pending[u] == 0) ready.insert(u);
  }
  return out->size() == g.nodes.size();
}

void copy_nodes(const Graph& g, Graph* into) {
  std::map<const Node*, Node*> map;
  for (const auto& n : g.nodes) {
    Node* c = add_node(into, n->type, {}, n->run);
    for (const Node* dep : n->deps) c->deps.push_back(map.at(dep));
    if (n->kernel) {
      c->kernel = std::make_shared<KernelCall>(*n->kernel);
      c->kernel->ptrs.clear();
      std::shared_ptr<KernelCall> k = c->kernel;
      c->run = [k] { return (*k)(); };
    }
    c->copy = n->copy, c->copy_known = n->copy_known, c->memset = n->memset, c->host = n->host;
    c->event = n->event, c->cond_type = n->cond_type, c->cond = n->cond;
    c->memory = n->memory, c->freed = n->freed;
    c->origin = n.get();
    for (Graph* o : n->owned) copy_nodes(*o, new_owned_graph(c));
    map[n.get()] = c;
  }
}

namespace {

// The operations of `g`'s nodes in topological order (the caller checked
// that it has one).
std::vector<std::function<CUresult()>> compile_graph(
    const Graph& g, std::vector<std::shared_ptr<CondHandle>>* handles) {
  std::vector<Node*> order;
  topological(g, &order);
  std::vector<std::function<CUresult()>> runs;
  for (const Node* n : order)
    if (auto r = compile_node(*n, handles)) runs.push_back(std::move(r));
  return runs;
}

CUresult run_all(const std::vector<std::function<CUresult()>>& runs) {
  for (const auto& r : runs)
    if (CUresult e = r(); e != CUDA_SUCCESS) return e;
  return CUDA_SUCCESS;
}

}  // namespace

std::function<CUresult()> compile_node(const Node& n,
                                       std::vector<std::shared_ptr<CondHandle>>* handles,
                                       bool auto_free) {
  if (n.kernel) {
    auto k = std::make_shared<KernelCall>(*n.kernel);
    return [k] { return (*k)(); };
  }
  if (n.type == CU_GRAPH_NODE_TYPE_GRAPH) {
    auto body = std::make_shared<std::vector<std::function<CUresult()>>>(
        compile_graph(*n.owned.at(0), handles));
    return [body] { return run_all(*body); };
  }
  if (n.type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
    std::vector<std::shared_ptr<std::vector<std::function<CUresult()>>>> bodies;
    for (const Graph* b : n.owned)
      bodies.push_back(
          std::make_shared<std::vector<std::function<CUresult()>>>(compile_graph(*b, handles)));
    handles->push_back(n.cond);
    std::shared_ptr<CondHandle> h = n.cond;
    CUgraphConditionalNodeType type = n.cond_type;
    return [h, type, bodies]() -> CUresult {
      switch (type) {
        case CU_GRAPH_COND_TYPE_IF:
          if (h->value()) return run_all(*bodies[0]);
          return bodies.size() > 1 ? run_all(*bodies[1]) : CUDA_SUCCESS;
        case CU_GRAPH_COND_TYPE_WHILE:
          // The body runs while the value, re-read after each pass, is non-zero.
          while (h->value())
            if (CUresult e = run_all(*bodies[0]); e != CUDA_SUCCESS) return e;
          return CUDA_SUCCESS;
        default: {  // SWITCH: body[value], none when the value is past the last body
          unsigned v = h->value();
          return v < bodies.size() ? run_all(*bodies[v]) : CUDA_SUCCESS;
        }
      }
    };
  }
  if (n.type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
    std::shared_ptr<GraphMemory> m = n.memory;  // the exec keeps the address reserved
    return [m, auto_free] { return m->allocate(auto_free); };
  }
  if (n.type == CU_GRAPH_NODE_TYPE_MEM_FREE) {
    uint64_t p = n.freed;  // a graph allocation of this graph or another
    return [p] {
      Driver& d = Driver::get();
      GraphLock lock(d.mu);
      return d.release(p, "cudaGraphAddMemFreeNode");
    };
  }
  return n.run;
}

}  // namespace smemlab::runtime::graphs
