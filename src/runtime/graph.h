// CUDA graphs: stream capture (the stream's work is recorded as nodes
// instead of run), explicitly built graphs (kernel, memcpy, memset, host,
// empty and event nodes with dependencies), instantiation and replay. A
// replay runs the nodes in a dependency-respecting order through the same
// entry points as direct calls, so each kernel node is one launch that
// analyze and check see and count.
#pragma once

#include <cuda.h>

#include <functional>
#include <vector>

#include "emu/launch.h"
#include "runtime/api.h"

namespace smemlab::runtime {

struct Function;

// True while `s` is being captured: the entry point records its operation
// with capture_node/capture_kernel instead of running it.
bool captured(CUstream s);
// Record an operation of type `type` (run at each replay) on capturing `s`.
CUresult capture_node(CUstream s, CUgraphNodeType type, std::function<CUresult()> run);
// Record a kernel launch; its arguments are copied now, as the driver does.
// `cluster`: a cluster shape given at launch (cudaLaunchKernelEx), 0 for none.
CUresult capture_kernel(CUstream s, Function* f, emu::Dim3 grid, emu::Dim3 block, uint32_t shared,
                        void** params, void** extra, bool cooperative = false,
                        emu::Dim3 cluster = {0, 0, 0});
// An event recorded in / waited on by a capturing stream joins the capture
// graph's dependencies (fork/join across streams); returns true when handled.
bool capture_event_record(CUevent e, CUstream s);
bool capture_wait_event(CUstream s, CUevent e);
// A call not allowed while `s` is captured (synchronization): it invalidates
// the capture and returns CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, naming `api`.
CUresult capture_forbids(CUstream s, const char* api);

// The entry points, for cuGetProcAddress (find_entry).
const std::vector<EntryPoint>& graph_entries();

}  // namespace smemlab::runtime
