#include "emu/device_runtime.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "emu/launch.h"

namespace smemlab::emu {

std::vector<std::pair<uint64_t, uint64_t>> param_layout(const ptx::Function& f) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  uint64_t at = 0;
  for (const auto& p : f.params) {
    uint64_t align = p.align ? static_cast<uint64_t>(p.align)
                             : static_cast<uint64_t>(std::max(ptx::type_size(p.type), 1));
    at = (at + align - 1) / align * align;
    uint64_t size = static_cast<uint64_t>(std::max<int64_t>(p.size_bytes(), 0));
    out.push_back({at, size});
    at += size;
  }
  return out;
}

uint32_t DeviceRuntime::fail(uint64_t thread, uint32_t code) {
  errors_[thread] = code;
  return code;
}

uint64_t DeviceRuntime::parameter_buffer(DeviceHeap& heap, uint64_t thread, uint64_t function,
                                         Dim3 grid, Dim3 block, uint32_t shared) {
  std::lock_guard<std::mutex> lock(mu_);
  const ptx::Function* f = nullptr;
  if (function >= kFunctionWindow && (function - kFunctionWindow) % 16 == 0 &&
      (function - kFunctionWindow) / 16 < module_.functions.size())
    f = &module_.functions[(function - kFunctionWindow) / 16];
  if (!f || !f->is_entry || !f->has_body) {
    fail(thread, kCudaErrorInvalidDeviceFunction);
    return 0;
  }
  // What the GPU refuses at the launch (an empty grid, too many threads):
  // no buffer, the launch skipped, the error the thread's.
  if (grid.count() == 0 || block.count() == 0 || !launch_limits_error(grid, block).empty() ||
      shared > kMaxSharedPerBlock) {
    fail(thread, kCudaErrorInvalidConfiguration);
    return 0;
  }
  auto layout = param_layout(*f);
  uint64_t bytes = layout.empty() ? 0 : layout.back().first + layout.back().second;
  uint64_t addr = heap.allocate(std::max<uint64_t>(bytes, 8));
  if (!addr) {
    fail(thread, kCudaErrorLaunchPendingCountExceeded);
    return 0;
  }
  buffers_[addr] = Buffer{f, grid, block, shared, bytes};
  return addr;
}

uint64_t DeviceRuntime::buffer_bytes(uint64_t buffer) const {
  auto& self = const_cast<DeviceRuntime&>(*this);
  std::lock_guard<std::mutex> lock(self.mu_);
  auto it = buffers_.find(buffer);
  return it == buffers_.end() ? 0 : it->second.bytes;
}

uint32_t DeviceRuntime::launch(DeviceHeap& heap, uint64_t thread, Dim3 block_id, Dim3 thread_id,
                               uint64_t buffer, const uint8_t* bytes, uint64_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = buffers_.find(buffer);
  if (it == buffers_.end()) return fail(thread, kCudaErrorInvalidValue);
  if (stream != 0 && stream != kTailLaunchStream && stream != kFireAndForgetStream &&
      !streams_.count(stream))
    return fail(thread, kCudaErrorInvalidResourceHandle);
  if (pending_ + launches_.size() >= kMaxPendingLaunches)
    return fail(thread, kCudaErrorLaunchPendingCountExceeded);
  const Buffer& b = it->second;
  ChildLaunch c;
  c.kernel = b.kernel->name;
  c.grid = b.grid;
  c.block = b.block;
  c.shared = b.shared;
  for (const auto& [off, size] : param_layout(*b.kernel))
    c.args.emplace_back(bytes + off, bytes + off + size);
  c.stream = stream;
  c.parent_block = block_id;
  c.parent_thread = thread_id;
  c.block_linear = thread / 1024;
  c.order = block_order_[c.block_linear]++;
  launches_.push_back(std::move(c));
  heap.free(buffer);  // the launch consumed it
  buffers_.erase(it);
  return kCudaSuccess;
}

uint32_t DeviceRuntime::stream_create(uint64_t* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  *handle = next_stream_;
  next_stream_ += 0x10;
  streams_[*handle] = true;
  return kCudaSuccess;
}

uint32_t DeviceRuntime::stream_destroy(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mu_);
  // Launches already made into it still run: a stream is destroyed once its work is done.
  return streams_.erase(handle) ? kCudaSuccess : kCudaErrorInvalidResourceHandle;
}

uint32_t DeviceRuntime::result(uint64_t thread, uint32_t code) {
  if (code == kCudaSuccess) return code;
  std::lock_guard<std::mutex> lock(mu_);
  return fail(thread, code);
}

uint32_t DeviceRuntime::event_create(uint64_t* handle, uint32_t flags) {
  constexpr uint32_t kDisableTiming = 0x2, kKnown = 0x1 | 0x2 | 0x4;
  if ((flags & ~kKnown) || !(flags & kDisableTiming)) return kCudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(mu_);
  *handle = next_event_;
  next_event_ += 0x10;
  events_[*handle] = true;
  return kCudaSuccess;
}

uint32_t DeviceRuntime::event_destroy(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mu_);
  return events_.erase(handle) ? kCudaSuccess : kCudaErrorInvalidResourceHandle;
}

bool DeviceRuntime::known_event(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mu_);
  return events_.count(handle) != 0;
}

uint32_t DeviceRuntime::device_attribute(uint32_t attr, int32_t* value) const {
  if (!attributes_ || !attributes_(attr, value)) return kCudaErrorInvalidValue;
  return kCudaSuccess;
}

namespace {
struct CudaError {
  int code;
  const char* name;
  const char* text;
};
constexpr CudaError kCudaErrors[] = {
#define X(code, name, text) {code, name, text},
#include "emu/cuda_errors.def"
#undef X
};
const CudaError& cuda_error(uint32_t code) {
  for (const CudaError& e : kCudaErrors)
    if (e.code >= 0 && static_cast<uint32_t>(e.code) == code) return e;
  return kCudaErrors[std::size(kCudaErrors) - 1];  // the row for any other code
}
}  // namespace

const char* cuda_error_name(uint32_t code) { return cuda_error(code).name; }
const char* cuda_error_string(uint32_t code) { return cuda_error(code).text; }

bool DeviceRuntime::known_stream(uint64_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  return stream == 0 || stream == kTailLaunchStream || stream == kFireAndForgetStream ||
         streams_.count(stream);
}

bool DeviceRuntime::launched_into(uint64_t block_linear, uint64_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stream == kFireAndForgetStream) return false;
  for (const ChildLaunch& c : launches_)
    if (c.stream == stream && c.block_linear == block_linear) return true;
  return false;
}

uint32_t DeviceRuntime::last_error(uint64_t thread, bool clear) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = errors_.find(thread);
  if (it == errors_.end()) return kCudaSuccess;
  uint32_t e = it->second;
  if (clear) errors_.erase(it);
  return e;
}

std::vector<ChildLaunch> DeviceRuntime::take(DeviceHeap& heap) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [addr, b] : buffers_) heap.free(addr);
  buffers_.clear();
  auto linear = [](const ChildLaunch& c) {
    return (uint64_t{c.parent_block.z} << 48) | (uint64_t{c.parent_block.y} << 32) |
           c.parent_block.x;
  };
  std::stable_sort(launches_.begin(), launches_.end(),
                   [&](const ChildLaunch& a, const ChildLaunch& b) {
                     if (a.tail() != b.tail()) return b.tail();
                     if (linear(a) != linear(b)) return linear(a) < linear(b);
                     return a.order < b.order;
                   });
  std::vector<ChildLaunch> out = std::move(launches_);
  launches_.clear();
  return out;
}

}  // namespace smemlab::emu

namespace smemlab::emu {

LaunchStatus launch_raw(Module& m, const std::string& kernel, const LaunchConfig& cfg,
                        const std::vector<ArgBytes>& args) {
  if (cfg.device_runtime) return launch_grid(m, kernel, cfg, args);
  // The caller runs no device launches: run them here, each after the grid
  // that made it, depth first (a grid's children before its siblings' own).
  DeviceRuntime rt(m.ptx());
  LaunchConfig top = cfg;
  top.device_runtime = &rt;
  LaunchStatus st = launch_grid(m, kernel, top, args);
  std::vector<ChildLaunch> work = rt.take(m.device().memory().heap());
  std::reverse(work.begin(), work.end());  // a stack: the next to run last
  while (st.ok() && !work.empty()) {
    ChildLaunch c = std::move(work.back());
    work.pop_back();
    DeviceRuntime child_rt(m.ptx(), work.size());
    LaunchConfig child = cfg;
    child.grid = c.grid;
    child.block = c.block;
    child.dynamic_shared = c.shared;
    child.observer = nullptr;
    child.only_blocks.clear();
    child.cooperative = false;
    child.cluster = {1, 1, 1};
    child.explicit_cluster = false;
    child.device_runtime = &child_rt;
    LaunchStatus cs = launch_grid(m, c.kernel, child, c.args);
    if (!cs.ok()) st.error = cs.error;
    std::vector<ChildLaunch> more = child_rt.take(m.device().memory().heap());
    for (auto it = more.rbegin(); it != more.rend(); ++it) work.push_back(std::move(*it));
  }
  return st;
}

}  // namespace smemlab::emu
