// The emulator's host API, shaped like CUDA host code:
//
//   emu::Device dev;
//   auto mod = emu::Module::load_file(dev, "k.ptx");      // parse (errors: FILE:LINE:COL)
//   uint64_t d_x = dev.malloc(n * sizeof(float));          // cudaMalloc
//   dev.copy_to(d_x, host.data(), n * sizeof(float));      // cudaMemcpy H2D
//   mod->set_constant("c_coef", coef, sizeof coef);        // cudaMemcpyToSymbol
//   auto st = emu::launch(*mod, "kernel", {grid, block, shared}, d_x, n);
//   if (!st.ok()) puts(st.error->what().c_str());          // block, thread, line
//   dev.copy_from(host.data(), d_x, n * sizeof(float));    // cudaMemcpy D2H
//
// Blocks run in parallel on all cores; each block is deterministic, and so
// is the whole launch unless blocks race on global memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "emu/decode.h"
#include "emu/device_runtime.h"
#include "emu/fault_kinds.h"
#include "emu/memory.h"
#include "emu/observer.h"
#include "emu/ops_texture.h"
#include "emu/program.h"
#include "emu/schedule.h"
#include "ptx/ir.h"

namespace smemlab::emu {

class Device {
 public:
  uint64_t malloc(uint64_t bytes, std::string name = "");
  bool free(uint64_t addr) { return mem_.free(addr); }
  // Throw std::out_of_range when the range is not inside one allocation.
  void copy_to(uint64_t dst, const void* src, uint64_t bytes);
  void copy_from(void* dst, uint64_t src, uint64_t bytes) const;
  void memset(uint64_t dst, int value, uint64_t bytes);
  GlobalMemory& memory() { return mem_; }
  const GlobalMemory& memory() const { return mem_; }

  // Texture objects (cudaCreateTextureObject / cuTexObjectCreate): a view of
  // device memory described by `desc` (emu/ops_texture.h: base address,
  // format and channels, 1D/2D/3D or layered extent, row pitch, address
  // mode per axis, point/linear filter, element/normalized-float read,
  // normalized coordinates, border colour). The base must lie in an
  // allocation (each texel read is bounds-checked, as a GPU does not check
  // the extent). Returns the 64-bit handle a kernel receives as its
  // cudaTextureObject_t parameter (pass it with launch() like any u64).
  // Throws std::invalid_argument for a bad descriptor.
  uint64_t create_texture(const texture::Descriptor& desc);
  // cudaDestroyTextureObject; false for an unknown handle.
  bool destroy_texture(uint64_t handle);
  // nullptr for a handle that names no live texture object.
  const texture::Descriptor* texture(uint64_t handle) const;

  // Surface objects (cudaCreateSurfaceObject): device memory read and
  // written by suld/sust (ops_surface.cc). The descriptor's base, format,
  // channels, dims/layered, extent and pitch are used; sampling fields are
  // ignored. Returns the handle a kernel receives as cudaSurfaceObject_t.
  // Throws std::invalid_argument for a bad descriptor.
  uint64_t create_surface(const texture::Descriptor& desc);
  bool destroy_surface(uint64_t handle);
  const texture::Descriptor* surface(uint64_t handle) const;

  // cudaLimitStackSize: the per-thread call stack of kernels decoded after
  // it is set (Module::kernel; program.h's size_stack).
  void set_stack_bytes(uint32_t bytes) { stack_bytes_ = bytes; }
  uint32_t stack_bytes() const { return stack_bytes_; }

 private:
  GlobalMemory mem_;
  std::atomic<uint32_t> stack_bytes_{kDefaultStackBytes};
  std::vector<std::optional<texture::Descriptor>> textures_;
  std::vector<std::optional<texture::Descriptor>> surfaces_;
};

class Module {
 public:
  // Throw ptx::ParseError.
  static std::unique_ptr<Module> load_file(Device& dev, const std::string& path);
  static std::unique_ptr<Module> load_text(Device& dev, const std::string& text,
                                           const std::string& name);
  // A module parsed (or linked, ptx/link.h) already.
  static std::unique_ptr<Module> load_parsed(Device& dev, ptx::Module m);

  const ptx::Module& ptx() const { return ptx_; }
  std::vector<std::string> kernel_names() const;
  // The decoded kernel (decoded on first use; throws DecodeError), its
  // call stack sized for the device's stack_bytes() (one program per size).
  const Program& kernel(const std::string& name);
  // cudaMemcpyToSymbol for .const and .global variables; throws std::out_of_range.
  void set_symbol(const std::string& symbol, const void* data, uint64_t bytes, uint64_t offset = 0);
  void set_constant(const std::string& symbol, const void* data, uint64_t bytes,
                    uint64_t offset = 0) {
    set_symbol(symbol, data, bytes, offset);
  }
  uint64_t global_address(const std::string& symbol) const;  // 0 if none
  Device& device() { return dev_; }
  const std::vector<uint8_t>& const_bank() const { return const_bank_; }

 private:
  Module(Device& dev, ptx::Module m);
  Device& dev_;
  ptx::Module ptx_;
  ModuleLayout layout_;
  std::vector<uint8_t> const_bank_;
  std::map<std::string, std::unique_ptr<Program>> programs_;
  std::mutex mu_;
};

// CUDA's launch limits (compute capability 9.0), checked by launch_raw.
constexpr uint32_t kMaxBlockThreads = 1024;
constexpr uint32_t kMaxBlockDimXY = 1024, kMaxBlockDimZ = 64;
constexpr uint32_t kMaxGridDimX = 0x7fffffff, kMaxGridDimYZ = 65535;
// Host threads running blocks (each holds one block's registers, local and
// shared memory); more than this is an error, not 100,000 OS threads.
constexpr unsigned kMaxHostThreads = 256;
// All blocks in flight together hold at most this much emulator state:
// launch_raw runs fewer blocks in parallel rather than exceed it.
constexpr uint64_t kMaxBlockStateBytes = 4ull << 30;
// A cooperative launch runs every block at once, each on its own host
// thread (the most a GPU holds co-resident: 132 SMs x 32 blocks).
constexpr unsigned kMaxCooperativeBlocks = 132 * 32;
// Blocks per cluster: 8 portable, 16 with the non-portable size attribute
// (cudaFuncAttributeNonPortableClusterSizeAllowed; the runtime checks which).
constexpr uint32_t kMaxClusterBlocks = 16, kMaxPortableClusterBlocks = 8;
// Shared memory per block (static + dynamic): the most any GPU allows
// (227 KiB on sm_90, opted in with cudaFuncSetAttribute).
constexpr uint32_t kMaxSharedPerBlock = 227 * 1024;

// The shared memory a launch may use: the one check of it is the launch's
// (launch_refusal / launch_raw). Kernel mode allows the most; program mode
// passes the device's default per-block limit, or the kernel's opted-in
// cudaFuncAttributeMaxDynamicSharedMemorySize, and the device's opt-in
// maximum so that the refusal can say how to raise the limit.
struct SharedLimit {
  uint32_t bytes = kMaxSharedPerBlock;
  uint32_t optin = kMaxSharedPerBlock;
};

// "" when grid and block are within CUDA's limits, else which limit is
// exceeded, e.g. "block (2048,1,1) has 2048 threads; the limit is 1024".
std::string launch_limits_error(Dim3 grid, Dim3 block);

struct LaunchConfig {
  Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  SharedLimit shared_limit = {};
  unsigned threads = 0;           // host threads; 0 = all cores
  uint64_t budget = 500'000'000;  // warp-instructions per block
  KernelObserver* observer = nullptr;
  // Run only these blocks, in this order (finish_block follows it); empty =
  // the whole grid. For sampling large grids; %nctaid stays the full grid.
  // Block indices are 0-based: spell out z ({x, y, 0}); Dim3 defaults to 1.
  std::vector<Dim3> only_blocks = {};
  // Where the kernel's printf output goes, block by block in increasing
  // block order (within a block in execution order); unset = stdout.
  std::function<void(const std::string&)> printf_sink = {};
  // When it becomes true (a signal handler sets it), running blocks stop
  // and the launch ends with kind "interrupted".
  const std::atomic<bool>* stop = nullptr;
  // Called after each block, serialized, with blocks done and in all; once
  // more with end = true when the launch is over (to clear a progress line).
  std::function<void(uint64_t done, uint64_t total, bool end)> progress = {};
  // A cooperative launch (cudaLaunchCooperativeKernel): all blocks are
  // resident together and make progress concurrently, and the kernel gets a
  // zeroed grid-sync workspace, so cooperative_groups::this_grid().sync()
  // (a spin on a global barrier word) works. When for `stall_seconds` no
  // block finishes and none stores or performs an atomic, the blocks still
  // running are waiting for something no block will do: the launch ends
  // with kind "deadlock". The caller checks co-residency (occupancy).
  bool cooperative = false;
  double stall_seconds = 10;
  // Program mode: the program's host threads blocked on the device. While
  // it reads 0 the host runs and may still write memory a kernel spins on
  // (a flag in managed or mapped memory), so neither the instruction budget
  // nor the stall watchdog ends the launch. Null: the budget always holds.
  const std::atomic<int>* host_waiting = nullptr;
  // How a block's warps take turns (emu/schedule.h): `gpu` interleaves them
  // at every memory op, as the hardware does, so a race the GPU's
  // scheduling makes benign is benign here too.
  Schedule schedule = {};
  // Thread-block clusters (cudaLaunchKernelEx's cluster dimension): the
  // blocks per cluster in x, y, z. 1x1x1 and explicit_cluster false: the
  // kernel's own (.reqnctapercluster, from __cluster_dims__), else a plain
  // launch (a grid of 1x1x1 clusters, %is_explicit_cluster false). The
  // blocks of a cluster run together on one host thread (block.h,
  // ClusterRunner); with only_blocks, the clusters of the blocks listed
  // run whole, in the order of their first block in the list.
  Dim3 cluster = {1, 1, 1};
  bool explicit_cluster = false;
  // Dynamic parallelism (emu/device_runtime.h): where the grid's
  // device-side launches go, for the caller to run (runtime/driver.cc).
  // Null: launch_raw runs them itself after the grid, depth first, without
  // the observer.
  DeviceRuntime* device_runtime = nullptr;
};

// The cluster shape a launch of kernel `f` with `cfg` runs with: cfg's, or
// the kernel's .reqnctapercluster (its __cluster_dims__); *explicit_cluster
// tells whether it is a cluster launch. "" when valid, else why not (a
// shape that differs from the kernel's, more than kMaxClusterBlocks
// blocks, a grid that is not a whole number of clusters).
std::string resolve_cluster(const ptx::Function& f, const LaunchConfig& cfg, Dim3* cluster,
                            bool* explicit_cluster);

struct LaunchError {
  FaultKind kind = FaultKind::Internal;  // fault_kinds.def
  std::string message;
  Dim3 block, thread;
  bool has_thread = false;
  int ptx_line = 0;
  std::string instruction;          // "st.global.f32"
  OpClass op_class = OpClass::Alu;  // what `instruction` does (Alu when there is none)
  std::string source;               // "file.cu:12" (with inlining), "" if unknown
  std::string source_file;          // the outermost line of `source`, typed: file.cu
  int source_line = 0;              // 12; 0 if unknown
  std::string what() const;
};

struct LaunchStatus {
  std::optional<LaunchError> error;
  uint64_t warp_instructions = 0;
  uint64_t lane_instructions = 0;  // sum of lanes at each warp-instruction's PC
  uint64_t blocks_run = 0;
  unsigned threads = 0;  // host threads that ran blocks
  bool ok() const { return !error; }
};

// One kernel argument as raw bytes (use arg() to make one from a value).
using ArgBytes = std::vector<uint8_t>;
template <class A>
ArgBytes arg(const A& v) {
  ArgBytes b(sizeof(A));
  std::memcpy(b.data(), &v, sizeof(A));
  return b;
}

LaunchStatus launch_raw(Module& m, const std::string& kernel, const LaunchConfig& cfg,
                        const std::vector<ArgBytes>& args);
// One grid, its device-side launches left in cfg.device_runtime (which must be set).
LaunchStatus launch_grid(Module& m, const std::string& kernel, const LaunchConfig& cfg,
                         const std::vector<ArgBytes>& args);
// Why launch_raw would refuse the launch before running a block (its
// arguments, configuration, cluster shape, the interpreter's ISA), "" when
// it would not: a driver that runs launches later says it at the launch.
std::string launch_refusal(Module& m, const std::string& kernel, const LaunchConfig& cfg,
                           const std::vector<ArgBytes>& args);

template <class... A>
LaunchStatus launch(Module& m, const std::string& kernel, const LaunchConfig& cfg,
                    const A&... args) {
  return launch_raw(m, kernel, cfg, std::vector<ArgBytes>{arg(args)...});
}

}  // namespace smemlab::emu
