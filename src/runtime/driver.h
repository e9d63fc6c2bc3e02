// The state behind the CUDA driver API that libcuda.so.1 exports: one
// emulated device (the --arch's spec), its memory (device pointers are host
// addresses the emulator's bounds checks know exactly), the modules loaded
// from the program's fatbins, streams and events (run in issue order), and
// what `smemlab run|analyze|check -- APP` asked for (environment variables
// set by the CLI, see options.h). Every entry point takes the one lock.
// Launches and asynchronous operations run on the device worker
// (device_queue.h) while the host thread goes on.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "emu/launch.h"
#include "ptx/demangle.h"
#include "runtime/device_queue.h"
#include "runtime/device_spec.h"
#include "runtime/fatbin.h"
#include "runtime/options.h"
#include "session/launch_analysis.h"
#include "session/program_launch.h"

namespace smemlab::runtime {

struct Module;
struct MemPool;

struct Function {
  Module* module = nullptr;
  std::string name;            // mangled
  int max_dynamic_shared = 0;  // cudaFuncAttributeMaxDynamicSharedMemorySize
  int preferred_carveout = -1;
  CUsharedconfig bank_config = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
  // Thread-block clusters (cuFuncSetAttribute): the required shape set at
  // run time (0: none; __cluster_dims__ is the PTX's .reqnctapercluster),
  // whether more than 8 blocks (up to 16) are allowed, the scheduling
  // policy (a hint).
  emu::Dim3 required_cluster{0, 0, 0};
  int non_portable_cluster = 0;
  int cluster_policy = 0;
  // The counting level of its analyzed launches, chosen at the first one.
  std::optional<sass::KernelLevel> level;
};

struct Module {
  std::string name;  // "./app (fatbin 2)"
  std::vector<FatbinEntry> entries;
  uint32_t ptx_sm = 0;
  std::string ptx_text;              // the PTX the emulator runs
  std::unique_ptr<emu::Module> emu;  // null: no PTX (SASS-only)
  // An -rdc image (runtime/rdc.h): how many units' PTX were linked, or why
  // not (a unit without PTX) and the nvcc flag that adds it.
  size_t rdc_units = 0;
  std::string rdc_missing, rdc_flag;
  // The fatbin's SASS for the emulated GPU, disassembled at the first
  // analyzed launch (sass::ProgramSass says where it came from).
  std::optional<sass::Disassembly> fatbin_sass;
  sass::RegisterCounts fatbin_registers;  // the time model's occupancy input
  sass::NullHgmmas fatbin_null_hgmmas;    // Nsight Compute's SASS-only gmma requests
  sass::LdgstsInstrs fatbin_ldgsts;       // which form each cp.async took
  sass::ProgramSass sass;
  bool sass_prepared = false;
  std::map<std::string, std::unique_ptr<Function>> functions;
  // __constant__ variables: the host-visible copy cudaMemcpyToSymbol writes,
  // copied into the module's constant bank before each launch.
  struct ConstShadow {
    std::string symbol;
    uint8_t* data;
    uint64_t size;
  };
  std::vector<ConstShadow> consts;
};

enum class MemKind { Device, Host, Managed, Registered };

struct Allocation {
  uint64_t base = 0, size = 0;
  MemKind kind = MemKind::Device;
  bool owned = true;        // mmap'ed by us (not cuMemHostRegister'ed)
  bool internal = false;    // ours (a __constant__ variable's copy), never a leak
  uint64_t serial = 0;      // allocations made before this one (fix's snapshots)
  MemPool* pool = nullptr;  // cudaMallocAsync's: the pool it came from
  unsigned host_flags = 0;  // pinned or registered host memory: what cuMemHostGetFlags says
  bool graph = false;       // a graph allocation node's (graph_model.h's GraphMemory)
};

struct Event {
  double ms = 0;  // steady clock when the device reached the record
  bool recorded = false;
  uint64_t seq = 0;  // the record's operation on the device queue (0: none)
};

class Driver {
 public:
  static Driver& get();
  DriverMutex mu;
  // Held while a kernel is emulated (the worker then gives up `mu`, so
  // that the host's calls go on while the kernel runs) and by whatever
  // changes the emulated memory's map under it: allocation, module loads.
  std::recursive_mutex memory_map_mu;

  Options options;
  DeviceQueue queue{mu, options.sync};
  DeviceSpec spec;
  emu::Device device;
  bool initialized = false;
  CUsharedconfig device_bank_config = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;

  std::vector<std::unique_ptr<Module>> modules;
  std::map<uint64_t, Allocation> allocs;  // by base
  // Freed allocations, base -> what is known of them. smemlab's own memory
  // stays reserved (no access) after its free for a while, so that an
  // address in it is still known to be a use after free; once the range is
  // handed back to the system (the oldest of kQuarantined), the host's own
  // malloc may reuse it, and an address there is plain host memory again.
  struct Freed {
    uint64_t size = 0;
    bool reserved = false;  // the range is still held (an access is a use after free)
  };
  static constexpr size_t kQuarantined = 4096;
  std::map<uint64_t, Freed> freed;
  std::deque<uint64_t> quarantine;  // reserved freed ranges, oldest first
  // High-water marks of graph memory in use and held (CU_GRAPH_MEM_ATTR_*_HIGH).
  uint64_t graph_mem_used_high = 0, graph_mem_reserved_high = 0;
  std::vector<std::unique_ptr<Event>> events;
  // A kernel fault: later syncs report it (set by the device worker).
  std::atomic<CUresult> sticky{CUDA_SUCCESS};

  // Counters for the exit summary.
  uint64_t launches = 0, analyzed = 0, findings = 0, api_errors = 0, failed_kernels = 0;
  std::map<std::string, uint64_t> library_calls;  // src/libs/ entry points called

  // Module from a fatbin (never fails for a SASS-only one: its launches do).
  CUresult load_fatbin(const void* image, Module** out);
  // Memory.
  CUresult allocate(uint64_t bytes, MemKind kind, uint64_t* out);
  CUresult release(uint64_t base, const char* api);
  void quarantine_range(uint64_t base, uint64_t size);  // a freed range of smemlab's own memory
  // A graph allocation's reserved range (graph_model.h's GraphMemory): made
  // the program's memory at the allocation node's run, given back with the graph.
  CUresult map_graph_memory(uint64_t base, uint64_t bytes);
  void unmap_graph_memory(uint64_t base, uint64_t bytes);
  // A run of accessible cuMemMap'ed memory (vmm.cc; the pages already
  // readable and writable) becomes a device allocation, and stops being one.
  CUresult map_vmm_run(uint64_t base, uint64_t bytes);
  void unmap_vmm_run(uint64_t base);
  // A cuMemAddressReserve range, for messages about addresses in it.
  void reserve_vmm_range(uint64_t base, uint64_t bytes);
  void free_vmm_range(uint64_t base);
  const Allocation* find(uint64_t addr) const;
  // Resolve [addr, addr+bytes) for a copy; a device range must lie in one
  // live allocation (else an API error is reported and *p stays null).
  // Host ranges (not ours) pass through.
  bool resolve(const char* api, const char* role, uint64_t addr, uint64_t bytes,
               bool must_be_device, uint8_t** p);
  // A blocking copy: waits for the device first.
  CUresult copy(const char* api, uint64_t dst, uint64_t src, uint64_t bytes, int dst_dev,
                int src_dev);
  // cudaMemcpyAsync: checked now, copied in stream `s`'s order; a copy from
  // or to pageable host memory is a blocking one, as the GPU's.
  CUresult copy_async(const char* api, CUstream s, uint64_t dst, uint64_t src, uint64_t bytes,
                      int dst_dev, int src_dev);
  // Runs `op` on the device worker in submission order, as an operation of
  // stream `s` (device_queue.h); what it throws becomes the context's
  // sticky error with a line naming `what`. Returns its sequence number.
  uint64_t enqueue(CUstream s, std::function<void()> op, const char* what);
  // Host work in stream order: cuLaunchHostFunc, cuStreamAddCallback, and
  // the library shims' calls (cuBLAS, cuFFT, cuRAND) enqueue through it.
  uint64_t enqueue_host(CUstream s, std::function<void()> fn);
  // Waits (without holding the lock) until operation `seq` has run, prints
  // the kernels' output up to it (where the GPU flushes its printf buffer),
  // and returns the sticky error.
  CUresult synchronize(uint64_t seq);
  CUresult synchronize_all() { return synchronize(queue.submitted()); }
  // Text for `fd` (1: the program's stdout) written by an operation: under
  // asynchronous launches kept until the host synchronizes past it, so that
  // outputs do not depend on how far the device got.
  void device_output(int fd, std::string text);
  // Launch (cuLaunchKernel and friends), in stream `stream`'s order. Cooperative: all blocks
  // resident at once, with a grid-sync workspace (the caller checked co-residency). `cluster`:
  // cudaLaunchAttributeClusterDimension (0,0,0: none given).
  CUresult launch(Function* f, emu::Dim3 grid, emu::Dim3 block, uint32_t shared, void** params,
                  void** extra, bool cooperative = false, emu::Dim3 cluster = {0, 0, 0},
                  CUstream stream = nullptr);
  // The cluster shape of a launch of `f` (`attr`: the launch's cluster
  // dimension, 0,0,0 when none), into cfg's cluster fields; a shape the
  // driver refuses is CUDA_ERROR_INVALID_CLUSTER_SIZE with a line saying why.
  CUresult cluster_shape(Function* f, emu::Dim3 attr, emu::LaunchConfig& cfg,
                         const std::string& what);

  // The decoded kernel of `f`, or null when the emulator cannot run it: its
  // module has no PTX (*error = CUDA_ERROR_NO_BINARY_FOR_GPU; the line says
  // which nvcc flag adds it) or its PTX does not decode
  // (*error = CUDA_ERROR_NOT_SUPPORTED; the line gives the PTX position).
  // Said once per kernel and entry point `api` (the one that needed it; ""
  // for a launch).
  const emu::Program* program(Function* f, const char* api, CUresult* error);

  // The SASS level of `f`'s analyzed launches (docs/sass.md), once per kernel.
  const sass::KernelLevel& level_of(Function* f);

  // ==smemlab== lines (stderr or --output), session/program_protocol.h.
  void note(const std::string& line);
  // A note of the driver's own error: `==smemlab== ERROR: LINE`.
  void error_line(const std::string& line);
  // Appends `line` (a JSON line of the protocol) to the file at `path`.
  void append_record(const std::string& path, const std::string& line);
  // A program's misuse of the API (a leak, a bad copy or free): its line, and
  // in check mode its record (check --json, --sarif).
  void api_error(check::FindingKind kind, const std::string& message);
  void api_error_record(const check::Finding& f);
  // True the first time `key` is asked: for lines said once.
  bool once(const std::string& key) { return reported_.insert(key).second; }
  // Once per entry point: it is not implemented and returned `code`.
  void not_supported(const char* entry, const char* code = "CUDA_ERROR_NOT_SUPPORTED");
  void write_summary(bool finished);
  // At exit: leaks (check mode) and the final summary.
  void finish();
  // The analyzed launch's report, as `analyze`/`check` print it for one kernel.
  void report_launch(uint64_t index, const session::LaunchAnalysis& a);
  // Its section of the `--html` page (options.html).
  void html_section(uint64_t index, const session::LaunchAnalysis& a);
  uint64_t excess = 0;  // excess wavefronts over all analyzed launches (first model)

 private:
  Driver();
  void watch_exit();
  // The linked PTX of the -rdc image `image` is nvlink's output of (null:
  // not one, or a unit has no PTX: m->rdc_missing says which).
  std::unique_ptr<emu::Module> load_rdc_units(const void* image, Module* m, uint32_t sm);
  // The launch's execution, on the device worker (launch() checked it),
  // then the grids it launched from the device, each a launch of its own
  // (device_launches.cc).
  void run_launch(Function* f, uint64_t index, emu::LaunchConfig cfg,
                  std::vector<emu::ArgBytes> args, bool selected);
  // One grid of it; returns its device-side launches (none after a fault).
  std::vector<emu::ChildLaunch> run_grid(Function* f, uint64_t index, emu::LaunchConfig cfg,
                                         const std::vector<emu::ArgBytes>& args, bool selected);
  // The function of a device-side launch of `kernel` in `m`.
  Function* device_function(Module& m, const std::string& kernel);
  // " (child of launch N)" for a launch made by a kernel, else "".
  std::string parent_note(uint64_t index) const;
  std::map<uint64_t, uint64_t> parent_launch_;  // device-side launch -> its parent launch
  uint64_t pending_device_launches_ = 0;        // made and not yet started
  void flush_output(uint64_t upto);
  // Runs `emulate` (a kernel) on the worker without the driver's lock.
  void without_driver_lock(const std::function<void()>& emulate);
  // Takes memory_map_mu on the host (a wait for the device while a kernel runs).
  std::unique_lock<std::recursive_mutex> lock_memory_map();
  std::mutex out_mu_;
  struct Output {
    uint64_t seq;
    int fd;
    std::string text;
  };
  std::vector<Output> pending_out_;
  std::set<std::string> reported_;
  bool finished_ = false, exit_watched_ = false;
  session::ProgramLaunches selection_;  // which launches are analysed, and how
  uint64_t allocations_made_ = 0;
  int out_fd_ = 2;
};

using ptx::demangle;

}  // namespace smemlab::runtime
