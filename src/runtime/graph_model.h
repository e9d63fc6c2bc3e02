// The CUDA graph model shared by graph.cc (capture, instantiation, launch,
// update) and graph_nodes.cc (child graphs, conditional and memory nodes,
// the generic cuGraphAddNode, node getters, edges, removal, cloning, dot
// output): graphs of nodes with dependencies, and how a node becomes the
// operation an instantiated graph runs.
#pragma once

#include <cuda.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "emu/launch.h"
#include "runtime/api.h"

namespace smemlab::runtime {

struct Function;

namespace graphs {

// A kernel launch with its arguments copied (one byte vector per parameter).
struct KernelCall {
  Function* f = nullptr;
  CUkernel kern = nullptr;  // as the node was given it (getters return it)
  emu::Dim3 grid{1, 1, 1}, block{1, 1, 1};
  uint32_t shared = 0;
  std::vector<std::vector<uint8_t>> args;
  bool have_args = false;  // false: the kernel's parameters are unknown (no PTX)
  bool cooperative = false;
  emu::Dim3 cluster{0, 0, 0};  // a cluster shape set at launch (0: the kernel's own)
  std::vector<void*> ptrs;     // into args: what cuGraphKernelNodeGetParams hands out

  CUresult operator()() const;
};
CUresult make_kernel_call(Function* f, emu::Dim3 grid, emu::Dim3 block, uint32_t shared,
                          void** params, void** extra, KernelCall* out);

// Memory of a graph allocation node. Its address is reserved when the node
// is made and never changes; the memory is the program's from the node's run
// (each launch) until it is freed: by a free node (of any graph),
// cudaFree or cudaFreeAsync (Allocation::graph); a kernel that touches it
// then faults as after any free, and cudaGraphLaunch of a graph whose
// allocation is still live fails unless it was instantiated with
// cudaGraphInstantiateFlagAutoFreeOnLaunch. The address is given back when
// the last graph or instantiated graph holding it goes.
struct GraphMemory {
  uint64_t base = 0, bytes = 0;
  bool trimmed = true;  // freed and handed back (cudaDeviceGraphMemTrim), or never allocated
  // The allocation node's run at a launch (auto_free: free it first if live).
  CUresult allocate(bool auto_free);
  ~GraphMemory();
};
// Whether `base` is the address of a graph allocation (freed or not): its
// cudaFreeAsync is stream-ordered even before the graph's launch has run.
bool is_graph_memory(uint64_t base);
void register_graph_memory(GraphMemory* m);  // by graph_memory(), at its address
// cudaDeviceGraphMemTrim and the CU_GRAPH_MEM_ATTR_* values (graph_nodes.cc).
void trim_graph_memory();
struct GraphMemUse {
  uint64_t used = 0, reserved = 0;
};
GraphMemUse graph_memory_use();

// A conditional node's handle: its value lives in a 4-byte device cell (the
// handle is the cell's address), so cudaGraphSetConditional in a kernel is
// a store the emulator checks like any other.
struct CondHandle {
  uint64_t cell = 0;
  unsigned default_value = 0;
  bool assign_default = false;  // CU_GRAPH_COND_ASSIGN_DEFAULT: reset at each launch
  unsigned value() const;
  void set(unsigned v) const;
};
std::shared_ptr<CondHandle> cond_handle(CUgraphConditionalHandle h);

struct Graph;

struct Node {
  Graph* graph = nullptr;
  CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
  std::vector<Node*> deps;
  std::function<CUresult()> run;       // null: nothing to do (empty, event wait)
  std::shared_ptr<KernelCall> kernel;  // kernel nodes: their launch
  // The parameters the node was made from, by type, for getters and clones.
  CUDA_MEMCPY3D copy{};
  bool copy_known = false;  // captured copies keep only their closure
  CUDA_MEMSET_NODE_PARAMS memset{};
  CUDA_HOST_NODE_PARAMS host{};
  CUevent event = nullptr;
  std::vector<Graph*> owned;           // a child graph (1) or a conditional's bodies
  std::vector<CUgraph> owned_handles;  // the same, as cuGraphAddNode hands them out
  CUgraphConditionalNodeType cond_type = CU_GRAPH_COND_TYPE_IF;
  std::shared_ptr<CondHandle> cond;
  std::shared_ptr<GraphMemory> memory;  // allocation nodes
  CUdeviceptr freed = 0;                // free nodes
  const Node* origin = nullptr;         // in a clone: the node it copies
};

struct Graph {
  std::vector<std::unique_ptr<Node>> nodes;
  Node* owner = nullptr;  // a child graph's or conditional body's node
};

// Live graphs, child graphs and conditional bodies included. Never destroyed:
// cudart's exit handler may call in after static destructors.
std::set<Graph*>& all_graphs();
Graph* graph_of(CUgraph h);
Node* node_of(CUgraphNode h);
inline CUgraph handle(Graph* g) { return reinterpret_cast<CUgraph>(g); }
inline CUgraphNode handle(Node* n) { return reinterpret_cast<CUgraphNode>(n); }

Node* add_node(Graph* g, CUgraphNodeType type, std::vector<Node*> deps,
               std::function<CUresult()> run);
// A new graph owned by `owner` (a child graph node or a conditional node).
Graph* new_owned_graph(Node* owner);
// Destroys `g`, the graphs its nodes own, and (for an owned graph) nothing else.
void destroy_graph(Graph* g);
// Kahn's algorithm; among ready nodes the earliest created runs first.
bool topological(const Graph& g, std::vector<Node*>* out);
// Deep copy of `g`'s nodes into `into` (child graphs and bodies copied too).
void copy_nodes(const Graph& g, Graph* into);

// What an instantiated graph runs for `n`: its operation snapshotted now
// (kernel arguments, a child graph's nodes, a conditional's bodies), and
// the conditional handles whose defaults each launch applies.
// auto_free: the exec was instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch.
std::function<CUresult()> compile_node(const Node& n,
                                       std::vector<std::shared_ptr<CondHandle>>* handles,
                                       bool auto_free = false);

// A graph allocation of `bytes` (null: *r says why).
std::shared_ptr<GraphMemory> graph_memory(size_t bytes, CUresult* r);

// The entry points of graph_nodes.cc, for graph_entries().
const std::vector<EntryPoint>& node_entries();

}  // namespace graphs
}  // namespace smemlab::runtime
