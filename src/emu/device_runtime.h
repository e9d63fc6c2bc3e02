// Dynamic parallelism (CDP2, CUDA 12+): what a grid's threads ask of the
// device runtime — parameter buffers (cudaGetParameterBufferV2), launches
// (cudaLaunchDeviceV2, what `kernel<<<...>>>` in device code lowers to),
// streams (cudaStreamCreateWithFlags/Destroy), events
// (cudaEventCreateWithFlags/Record/Destroy, cudaStreamWaitEvent), device
// attributes (cudaDeviceGetAttribute, through the driver's table) and each
// thread's last error (cudaGetLastError/PeekAtLastError) — kept for whoever launched the grid,
// which runs the child grids after it (runtime/driver.cc; emu::launch_raw
// when the caller gives no DeviceRuntime). Running a child after its parent
// grid is one order CDP2 allows: a parent never waits for its children
// (device-side cudaDeviceSynchronize is gone), the block's default stream
// and named streams order only launches of one block, and a tail launch
// (cudaStreamTailLaunch) starts once the parent and all its other work are
// done. Thread-safe: blocks run in parallel.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "emu/memory.h"
#include "emu/observer.h"
#include "emu/program.h"
#include "ptx/ir.h"

namespace smemlab::emu {

// The device runtime's stream handles (cuda_device_runtime_api.h).
constexpr uint64_t kTailLaunchStream = 0x3, kFireAndForgetStream = 0x4;
// cudaError_t values a device-side call returns (driver_types.h).
constexpr uint32_t kCudaSuccess = 0, kCudaErrorInvalidValue = 1, kCudaErrorMemoryAllocation = 2,
                   kCudaErrorInvalidConfiguration = 9, kCudaErrorInvalidDevicePointer = 17,
                   kCudaErrorLaunchPendingCountExceeded = 69, kCudaErrorInvalidDeviceFunction = 98,
                   kCudaErrorInvalidResourceHandle = 400;
// Launches made and not yet started, at most (the emulator's bound: the H100
// ran 12 launches pending from one thread with
// cudaLimitDevRuntimePendingLaunchCount set to 4, tests/data/h100_cdp.txt).
constexpr uint64_t kMaxPendingLaunches = uint64_t{1} << 20;

struct ChildLaunch {
  std::string kernel;  // mangled name
  Dim3 grid, block;
  uint32_t shared = 0;                     // dynamic shared memory
  std::vector<std::vector<uint8_t>> args;  // the parameter buffer split per parameter
  uint64_t stream =
      0;  // 0: the block's default stream; kTailLaunchStream, kFireAndForgetStream, or created
  Dim3 parent_block, parent_thread;
  uint64_t block_linear = 0;  // the parent block's index in its grid
  uint64_t order = 0;         // the block's launches in issue order
  bool tail() const { return stream == kTailLaunchStream; }
};

class DeviceRuntime {
 public:
  // `module`: the launching grid's (its function addresses name kernels).
  // `pending`: launches already waiting elsewhere (counted against the bound).
  DeviceRuntime(const ptx::Module& module, uint64_t pending = 0)
      : module_(module), pending_(pending) {}

  // cudaGetParameterBufferV2: the buffer (a device-heap allocation of
  // `heap`), or 0 with the thread's last error set.
  uint64_t parameter_buffer(DeviceHeap& heap, uint64_t thread, uint64_t function, Dim3 grid,
                            Dim3 block, uint32_t shared);
  // cudaLaunchDeviceV2: records the launch of `buffer`'s kernel; the
  // buffer's bytes (at `bytes`, read by the caller) become its arguments.
  uint32_t launch(DeviceHeap& heap, uint64_t thread, Dim3 block_id, Dim3 thread_id, uint64_t buffer,
                  const uint8_t* bytes, uint64_t stream);
  // The size of `buffer`'s parameters (0: not a parameter buffer).
  uint64_t buffer_bytes(uint64_t buffer) const;
  uint32_t stream_create(uint64_t* handle);
  uint32_t stream_destroy(uint64_t handle);
  // Events: handles a block's threads record into its streams and wait on.
  // A block's launches run in its issue order (see above), so a wait on an
  // event recorded before it is already met. Timing is not available on the
  // device: the flags must include cudaEventDisableTiming (CDP2's guide).
  uint32_t event_create(uint64_t* handle, uint32_t flags);
  uint32_t event_destroy(uint64_t handle);
  bool known_event(uint64_t handle);
  // cudaDeviceGetAttribute: the driver's answer (set_attributes). The H100
  // answered cudaSuccess for device 1 of its one (tests/data/h100_cdp.txt,
  // cdp_runtime_api): the device argument is not checked; the value given is
  // the one device's.
  using AttributeFn = std::function<bool(uint32_t attr, int32_t* value)>;
  void set_attributes(AttributeFn fn) { attributes_ = std::move(fn); }
  uint32_t device_attribute(uint32_t attr, int32_t* value) const;
  // A call's result: a failure becomes the thread's last error, as on the
  // H100 (a failed cudaEventCreateWithFlags is what the next
  // cudaGetLastError returns).
  uint32_t result(uint64_t thread, uint32_t code);
  uint32_t last_error(uint64_t thread, bool clear);
  // A stream handle a launch may name (0, tail, fire-and-forget, created).
  bool known_stream(uint64_t stream);
  // Whether block `block_linear` launched into `stream` already (its
  // default stream 0 included; fire-and-forget orders nothing).
  bool launched_into(uint64_t block_linear, uint64_t stream);

  // After the grid: its launches in the order they run (block by block in
  // block order, each block's in issue order; tail launches after the rest),
  // and frees the parameter buffers never launched.
  std::vector<ChildLaunch> take(DeviceHeap& heap);

 private:
  struct Buffer {
    const ptx::Function* kernel;
    Dim3 grid, block;
    uint32_t shared;
    uint64_t bytes;
  };
  uint32_t fail(uint64_t thread, uint32_t code);
  const ptx::Module& module_;
  uint64_t pending_;
  std::mutex mu_;
  std::map<uint64_t, Buffer> buffers_;
  std::vector<ChildLaunch> launches_;
  std::map<uint64_t, uint32_t>
      errors_;  // thread (block-linear * 1024 + thread-linear) -> last error
  std::map<uint64_t, uint64_t> block_order_;  // launches per block so far
  std::map<uint64_t, bool> streams_;
  uint64_t next_stream_ = 0x1000;
  std::map<uint64_t, bool> events_;
  uint64_t next_event_ = 0x1008;
  AttributeFn attributes_;
};

// cudaGetErrorName/cudaGetErrorString in a kernel: the toolkit runtime's
// texts (cuda_errors.def, written by scripts/gen-cuda-errors).
const char* cuda_error_name(uint32_t code);
const char* cuda_error_string(uint32_t code);

// The parameter layout of kernel `f` (offset, size per parameter), as
// nvcc lays out a parameter buffer: each at its alignment.
std::vector<std::pair<uint64_t, uint64_t>> param_layout(const ptx::Function& f);

}  // namespace smemlab::emu
