#include "runtime/driver.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "emu/decode.h"
#include "ptx/lexer.h"
#include "ptx/link.h"
#include "ptx/parser.h"
#include "report/progress.h"
#include "runtime/fix_hooks.h"
#include "runtime/guard.h"
#include "runtime/mempool.h"
#include "runtime/rdc.h"
#include "runtime/vmm.h"
#include "sass/tools.h"
#include "session/launch_analysis.h"
#include "session/program_protocol.h"

namespace smemlab::runtime {

Driver& Driver::get() {
  static Driver* d = new Driver();  // never destroyed: atexit handlers still call in
  return *d;
}

Driver::Driver() : options(options_from_env()), selection_(options) {
  spec = device_spec(options.archs.substr(0, options.archs.find(',')));
  if (!options.output.empty()) {
    int fd = ::open(options.output.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) out_fd_ = fd;
  } else {
    // The program may close or redirect its stderr; keep the one we started with.
    int fd = ::fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (fd >= 0) out_fd_ = fd;
  }
  write_summary(false);
}

void Driver::note(const std::string& text) {
  std::string s;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end == text.size() && start == end && start != 0) break;
    s += std::string(session::protocol::kLinePrefix) + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  device_output(out_fd_, std::move(s));
}

// ---- the device queue (device_queue.h) --------------------------------------

namespace {
CUstream stream_key(CUstream s) {
  // The legacy default stream has two names (0 and CU_STREAM_LEGACY).
  return s == CU_STREAM_LEGACY ? nullptr : s;
}

void write_fd(int fd, const std::string& s) {
  if (fd == 1) {  // the program's stdout, through its buffer (as cudart's printf flush)
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
    return;
  }
  for (size_t done = 0; done < s.size();) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}
}  // namespace

uint64_t Driver::enqueue(CUstream s, std::function<void()> op, const char* what) {
  watch_exit();
  return queue.submit(stream_key(s), [this, op = std::move(op), what] {
    try {
      op();
    } catch (...) {
      // The boundary of guard.h, for work that runs after its call returned:
      // the error is the context's, as a kernel fault's.
      CUresult r = escaped_exception(what);
      CUresult none = CUDA_SUCCESS;
      sticky.compare_exchange_strong(none, r);
    }
  });
}

uint64_t Driver::enqueue_host(CUstream s, std::function<void()> fn) {
  return enqueue(s, std::move(fn), "a host function (cuLaunchHostFunc)");
}

CUresult Driver::synchronize(uint64_t seq) {
  queue.wait(seq);
  if (!queue.on_worker()) flush_output(seq);
  return sticky;
}

void Driver::device_output(int fd, std::string text) {
  if (queue.on_worker() && !queue.synchronous()) {
    std::lock_guard<std::mutex> lock(out_mu_);
    pending_out_.push_back({queue.running(), fd, std::move(text)});
    return;
  }
  write_fd(fd, text);
}

void Driver::without_driver_lock(const std::function<void()>& emulate) {
  if (!queue.on_worker()) {  // SMEMLAB_SYNC: the host itself runs it
    emulate();
    return;
  }
  // The host holds `mu` only with memory_map_mu free or its own, so taking
  // the map first and then giving up `mu` cannot deadlock.
  std::unique_lock<std::recursive_mutex> map(memory_map_mu);
  const int held = DriverMutex::depth();
  for (int i = 0; i < held; ++i) mu.unlock();
  struct Relock {
    DriverMutex& mu;
    std::unique_lock<std::recursive_mutex>& map;
    int held;
    ~Relock() {
      map.unlock();
      for (int i = 0; i < held; ++i) mu.lock();
    }
  } relock{mu, map, held};
  emulate();
}

std::unique_lock<std::recursive_mutex> Driver::lock_memory_map() {
  std::unique_lock<std::recursive_mutex> map(memory_map_mu, std::try_to_lock);
  if (map.owns_lock()) return map;
  // A kernel runs: the host waits for it (neither budget nor watchdog spare it now).
  auto& waiting = const_cast<std::atomic<int>&>(queue.host_waiting());
  waiting.fetch_add(1);
  map.lock();
  waiting.fetch_sub(1);
  return map;
}

void Driver::flush_output(uint64_t upto) {
  std::vector<Output> now;
  {
    std::lock_guard<std::mutex> lock(out_mu_);
    auto keep = pending_out_.begin();
    for (auto& o : pending_out_) {
      if (o.seq <= upto)
        now.push_back(std::move(o));
      else
        *keep++ = std::move(o);
    }
    pending_out_.erase(keep, pending_out_.end());
  }
  for (const Output& o : now) write_fd(o.fd, o.text);
}

void Driver::error_line(const std::string& text) {
  note(std::string(session::protocol::kErrorPrefix) + text);
}

void Driver::api_error(check::FindingKind kind, const std::string& message) {
  ++api_errors;
  note(fmt::format("ERROR {}: {}", check::name(kind), message));
  check::Finding f;
  f.kind = kind;
  f.severity = check::Severity::Error;
  f.message = message;
  api_error_record(f);
  if (!finished_) write_summary(false);
}

// Leaks are what the program has not freed when it calls exit (or returns
// from main): checked in an exit handler registered after cudart's, so it
// runs before cudart tears down its own state.
void Driver::watch_exit() {
  if (exit_watched_) return;
  exit_watched_ = true;
  std::atexit([] { Driver::get().finish(); });
}

void Driver::not_supported(const char* entry, const char* code) {
  if (reported_.insert(entry).second)
    note(
        fmt::format("CUDA driver entry point {} is not implemented by smemlab's emulated "
                    "driver; it returned {}",
                    entry, code));
}

void Driver::write_summary(bool finished) {
  if (options.status.empty()) return;
  session::protocol::ProgramStatus st;
  st.finished = finished;
  st.launches = launches;
  st.analyzed = analyzed;
  st.findings = findings;
  st.api_errors = api_errors;
  st.failed_kernels = failed_kernels;
  st.excess_wavefronts = excess;
  st.library_calls = library_calls;
  std::ofstream(options.status, std::ios::trunc)
      << session::protocol::status_json(st).dump() << "\n";
}

void Driver::finish() {
  // What the program launched runs to its end first (its reports and leaks
  // are complete; the kernels' output is printed).
  synchronize_all();
  std::lock_guard<DriverMutex> lock(mu);
  if (finished_) return;
  finished_ = true;
  if (options.mode == Mode::Check) {
    uint64_t n = 0, bytes = 0;
    for (const auto& [base, a] : allocs) {
      if (a.internal || a.kind == MemKind::Registered) continue;
      ++n, bytes += a.size;
      api_error(check::FindingKind::Leak,
                fmt::format(
                    "{} allocation of {} bytes at 0x{:x}{} was not freed before exit",
                    a.kind == MemKind::Host      ? "pinned host"
                    : a.kind == MemKind::Managed ? "managed"
                                                 : "device",
                    a.size, base,
                    a.pool ? fmt::format(" (cudaMallocAsync, from {})", pool_origin(a.pool)) : ""));
    }
    for (const auto& [handle, size] : vmm_unreleased()) {
      ++n, bytes += size;
      api_error(check::FindingKind::Leak,
                fmt::format("physical allocation of {} bytes (cuMemCreate handle 0x{:x}) was not "
                            "released (cuMemRelease) before exit",
                            size, handle));
    }
    if (n) note(fmt::format("LEAK SUMMARY: {} bytes leaked in {} allocations", bytes, n));
  }
  write_summary(true);
}

// ---- the catch boundary (guard.h) -----------------------------------------

namespace {
const char* code_name(CUresult r) {
  switch (r) {
    case CUDA_ERROR_NOT_SUPPORTED:
      return "CUDA_ERROR_NOT_SUPPORTED";
    case CUDA_ERROR_INVALID_IMAGE:
      return "CUDA_ERROR_INVALID_IMAGE";
    case CUDA_ERROR_OUT_OF_MEMORY:
      return "CUDA_ERROR_OUT_OF_MEMORY";
    default:
      return "CUDA_ERROR_UNKNOWN";
  }
}
}  // namespace

CUresult escaped_exception(const char* entry) noexcept {
  CUresult code = CUDA_ERROR_UNKNOWN;
  std::string why;
  try {
    throw;
  } catch (const emu::DecodeError& e) {
    code = CUDA_ERROR_NOT_SUPPORTED;
    why = fmt::format("the emulator cannot decode the kernel's PTX: {}", e.what());
  } catch (const ptx::ParseError& e) {
    code = CUDA_ERROR_INVALID_IMAGE;
    why = fmt::format("the PTX does not parse: {}", e.what());
  } catch (const std::bad_alloc&) {
    code = CUDA_ERROR_OUT_OF_MEMORY;
    why = "out of host memory";
  } catch (const std::exception& e) {
    why = fmt::format("internal error in smemlab (please report it): {}", e.what());
  } catch (...) {
    why = "internal error in smemlab (please report it): an unknown exception";
  }
  try {
    Driver& d = Driver::get();
    std::lock_guard<DriverMutex> lock(d.mu);
    if (d.once(fmt::format("escaped:{}:{}", entry, why)))
      d.error_line(fmt::format("{}: {} (it returned {})", entry, why, code_name(code)));
  } catch (...) {
    // Reporting failed (no memory): the code still reaches the program.
  }
  return code;
}

// ---- modules ---------------------------------------------------------------

namespace {

// The file (executable or shared library) a fatbin is embedded in.
std::string object_of(const void* p) {
  Dl_info info;
  if (dladdr(p, &info) && info.dli_fname && *info.dli_fname) return info.dli_fname;
  return "the program";
}

}  // namespace

std::unique_ptr<emu::Module> Driver::load_rdc_units(const void* image, Module* m, uint32_t sm) {
  RdcUnits rdc = rdc_units(image);
  if (rdc.fatbins.empty()) return nullptr;
  std::vector<ptx::Module> units;
  uint32_t unit_sm = 0;
  for (size_t i = 0; i < rdc.fatbins.size(); ++i) {
    const auto& entries = rdc.fatbins[i];
    std::string text = best_ptx(entries, sm);
    if (text.empty() && is_device_runtime(entries)) continue;
    if (text.empty()) {  // a unit without PTX: the image cannot be emulated
      m->rdc_missing = fmt::format("translation unit {} of the -rdc image has no PTX, only {}", i,
                                   describe(entries));
      m->rdc_flag = ptx_flag_for(entries, sm);
      return nullptr;
    }
    for (const auto& e : entries)
      if (e.kind == FatbinEntry::kPtx && e.sm <= sm) unit_sm = std::max(unit_sm, e.sm);
    units.push_back(ptx::parse(text, fmt::format("{} (unit {})", m->name, i)));
  }
  // nvlink's SASS was built from these units' PTX when they are for this GPU.
  m->ptx_sm = unit_sm;
  m->rdc_units = units.size();
  return emu::Module::load_parsed(device, ptx::link(std::move(units), m->name));
}

CUresult Driver::load_fatbin(const void* image, Module** out) {
  auto map = lock_memory_map();  // its globals are allocated in the emulated memory
  auto m = std::make_unique<Module>();
  m->name = fmt::format("{} (fatbin {})", object_of(image), modules.size());
  try {
    m->entries = parse_fatbin(image);
    uint32_t sm = static_cast<uint32_t>(spec.major * 10 + spec.minor);
    std::string ptx = best_ptx(m->entries, sm);
    // The PTX taken: the highest at or below the device's arch (what the
    // SASS level compares the fatbin's SASS with).
    for (const auto& e : m->entries)
      if (e.kind == FatbinEntry::kPtx && e.sm <= sm) m->ptx_sm = std::max(m->ptx_sm, e.sm);
    if (ptx.empty()) {
      // The emulator runs any PTX version; a newer one than the device's
      // arch only means the program was not built for that arch.
      uint32_t lowest = UINT32_MAX;
      for (const auto& e : m->entries)
        if (e.kind == FatbinEntry::kPtx) lowest = std::min(lowest, e.sm);
      if (lowest != UINT32_MAX) ptx = best_ptx(m->entries, lowest);
      m->ptx_sm = lowest == UINT32_MAX ? 0 : lowest;
    }
    if (ptx.empty()) m->emu = load_rdc_units(image, m.get(), sm);
    if (!ptx.empty() || m->emu) {
      if (!m->emu) m->emu = emu::Module::load_text(device, ptx, m->name);
      m->ptx_text = std::move(ptx);
      for (const auto& g : m->emu->ptx().globals) {
        if (g.space != ptx::StateSpace::Const) continue;
        uint64_t size = static_cast<uint64_t>(std::max<int64_t>(g.size_bytes(), 1));
        uint64_t addr = 0;
        if (allocate(size, MemKind::Device, &addr) != CUDA_SUCCESS) return CUDA_ERROR_OUT_OF_MEMORY;
        allocs[addr].internal = true;
        auto* data = reinterpret_cast<uint8_t*>(addr);
        if (!g.init.empty())  // no initializer: data() may be null
          std::memcpy(data, g.init.data(), std::min<uint64_t>(g.init.size(), size));
        m->consts.push_back({g.name, data, size});
      }
    }
  } catch (const std::exception& e) {
    note(fmt::format("cannot load {}: {}", m->name, e.what()));
    return CUDA_ERROR_INVALID_IMAGE;
  }
  *out = m.get();
  modules.push_back(std::move(m));
  return CUDA_SUCCESS;
}

// ---- memory ----------------------------------------------------------------

CUresult Driver::allocate(uint64_t bytes, MemKind kind, uint64_t* out) {
  watch_exit();
  auto map = lock_memory_map();
  uint64_t len = std::max<uint64_t>((bytes + 4095) & ~uint64_t{4095}, 4096);
  void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t base = reinterpret_cast<uint64_t>(p);
  if (!emu::is_global_address(base) || !emu::is_global_address(base + len - 1) ||
      !device.memory().adopt(p, bytes)) {
    ::munmap(p, len);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  allocs[base] = {base, bytes, kind, true};
  allocs[base].serial = allocations_made_++;
  freed.erase(base);
  *out = base;
  return CUDA_SUCCESS;
}

CUresult Driver::release(uint64_t base, const char* api) {
  synchronize_all();  // cudaFree waits for the device (a no-op on the worker)
  auto map = lock_memory_map();
  auto it = allocs.find(base);
  if (it == allocs.end()) {
    if (freed.count(base))
      api_error(check::FindingKind::DoubleFree,
                fmt::format("{}(0x{:x}): the allocation was already freed", api, base));
    else if (const Allocation* a = find(base))
      api_error(check::FindingKind::InvalidFree,
                fmt::format("{}(0x{:x}): not the start of the {}-byte allocation at 0x{:x}", api,
                            base, a->size, a->base));
    else
      api_error(check::FindingKind::InvalidFree,
                fmt::format("{}(0x{:x}): not an allocation", api, base));
    return CUDA_ERROR_INVALID_VALUE;
  }
  Allocation a = it->second;
  allocs.erase(it);
  if (a.pool) pool_released(a.pool, a.size);
  device.memory().free(base);
  freed[base] = {a.size, a.owned || a.graph};
  // A graph allocation's address stays the graph's (GraphMemory), unusable until its next launch.
  if (a.graph)
    ::mprotect(reinterpret_cast<void*>(base),
               std::max<uint64_t>((a.size + 4095) & ~uint64_t{4095}, 4096), PROT_NONE);
  else if (a.owned)
    quarantine_range(base, a.size);
  return CUDA_SUCCESS;
}

// The freed range of smemlab's own memory stays mapped without access (the
// system cannot give it to the program's malloc), until kQuarantined newer
// ones push it out: then it is unmapped and forgotten, so that a copy from
// host memory the program's malloc put there later is not a use after free.
void Driver::quarantine_range(uint64_t base, uint64_t size) {
  auto len = [](uint64_t bytes) {
    return std::max<uint64_t>((bytes + 4095) & ~uint64_t{4095}, 4096);
  };
  void* p = reinterpret_cast<void*>(base);
  if (::mmap(p, len(size), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1,
             0) == MAP_FAILED) {
    ::munmap(p, len(size));
    freed.erase(base);
    return;
  }
  quarantine.push_back(base);
  if (quarantine.size() <= kQuarantined) return;
  uint64_t old = quarantine.front();
  quarantine.pop_front();
  auto f = freed.find(old);
  if (f == freed.end()) return;
  ::munmap(reinterpret_cast<void*>(old), len(f->second.size));
  freed.erase(f);
}

CUresult Driver::map_graph_memory(uint64_t base, uint64_t bytes) {
  auto map = lock_memory_map();
  void* p = reinterpret_cast<void*>(base);
  if (::mprotect(p, std::max<uint64_t>((bytes + 4095) & ~uint64_t{4095}, 4096),
                 PROT_READ | PROT_WRITE) != 0 ||
      !device.memory().adopt(p, bytes))
    return CUDA_ERROR_OUT_OF_MEMORY;
  Allocation a{base, bytes, MemKind::Device, false};
  a.internal = true;  // the graph's: never a leak
  a.graph = true;
  allocs[base] = a;
  freed.erase(base);
  return CUDA_SUCCESS;
}

void Driver::unmap_graph_memory(uint64_t base, uint64_t bytes) {
  auto map = lock_memory_map();
  if (allocs.erase(base)) device.memory().free(base);
  freed.erase(base);
  ::munmap(reinterpret_cast<void*>(base),
           std::max<uint64_t>((bytes + 4095) & ~uint64_t{4095}, 4096));
}

CUresult Driver::map_vmm_run(uint64_t base, uint64_t bytes) {
  auto map = lock_memory_map();
  if (!device.memory().adopt(reinterpret_cast<void*>(base), bytes)) return CUDA_ERROR_OUT_OF_MEMORY;
  Allocation a{base, bytes, MemKind::Device, false};
  a.internal = true;  // the physical allocation's handle owns it: never a cudaFree leak
  a.serial = allocations_made_++;
  allocs[base] = a;
  freed.erase(base);
  return CUDA_SUCCESS;
}

void Driver::unmap_vmm_run(uint64_t base) {
  auto map = lock_memory_map();
  if (allocs.erase(base)) device.memory().free(base);
}

void Driver::reserve_vmm_range(uint64_t base, uint64_t bytes) {
  auto map = lock_memory_map();
  device.memory().reserve(base, bytes);
}

void Driver::free_vmm_range(uint64_t base) {
  auto map = lock_memory_map();
  device.memory().unreserve(base);
}

const Allocation* Driver::find(uint64_t addr) const {
  auto it = allocs.upper_bound(addr);
  if (it == allocs.begin()) return nullptr;
  --it;
  return addr - it->second.base < std::max<uint64_t>(it->second.size, 1) ? &it->second : nullptr;
}

bool Driver::resolve(const char* api, const char* role, uint64_t addr, uint64_t bytes,
                     bool must_be_device, uint8_t** p) {
  *p = nullptr;
  if (uint8_t* q = device.memory().translate(addr, std::max<uint64_t>(bytes, 1))) {
    *p = q;
    return true;
  }
  const emu::GlobalMemory::Allocation* inside = device.memory().find(addr);
  if (inside) {
    api_error(
        check::FindingKind::MemcpyOutOfBounds,
        fmt::format("{}: {} range [0x{:x}, 0x{:x}) of {} bytes ends {} bytes past the end of "
                    "the {}-byte allocation at 0x{:x}",
                    api, role, addr, addr + bytes, bytes,
                    addr + bytes - (inside->base + inside->size), inside->size, inside->base));
    return false;
  }
  if (const emu::GlobalMemory::Range* r = device.memory().reserved_at(addr)) {
    api_error(check::FindingKind::InvalidDevicePointer,
              fmt::format("{}: {} 0x{:x} is not mapped: in the reserved range [0x{:x}, 0x{:x}) "
                          "of cuMemAddressReserve",
                          api, role, addr, r->base, r->base + r->size));
    return false;
  }
  auto f = freed.upper_bound(addr);
  if (f != freed.begin() && std::prev(f)->second.reserved &&
      addr - std::prev(f)->first < std::max<uint64_t>(std::prev(f)->second.size, 1)) {
    api_error(check::FindingKind::UseAfterFree,
              fmt::format("{}: {} 0x{:x} is in the {}-byte allocation at 0x{:x}, "
                          "which was freed",
                          api, role, addr, std::prev(f)->second.size, std::prev(f)->first));
    return false;
  }
  if (must_be_device) {
    api_error(check::FindingKind::InvalidDevicePointer,
              fmt::format("{}: {} 0x{:x} is not device memory", api, role, addr));
    return false;
  }
  *p = reinterpret_cast<uint8_t*>(addr);  // plain host memory
  return true;
}

CUresult Driver::copy(const char* api, uint64_t dst, uint64_t src, uint64_t bytes, int dst_dev,
                      int src_dev) {
  if (bytes == 0) return CUDA_SUCCESS;
  synchronize_all();  // a blocking copy waits for the device (a no-op on the worker)
  if (sticky != CUDA_SUCCESS) return sticky;
  uint8_t *d, *s;
  if (!resolve(api, "destination", dst, bytes, dst_dev == 1, &d)) return CUDA_ERROR_INVALID_VALUE;
  if (!resolve(api, "source", src, bytes, src_dev == 1, &s)) return CUDA_ERROR_INVALID_VALUE;
  if (d < s + bytes && s < d + bytes && d != s) {
    api_error(check::FindingKind::OverlappingMemcpy,
              fmt::format("{}: source [0x{:x}, +{}) and destination [0x{:x}, +{}) overlap", api,
                          src, bytes, dst, bytes));
    std::memmove(d, s, bytes);
    return CUDA_SUCCESS;
  }
  std::memcpy(d, s, bytes);
  return CUDA_SUCCESS;
}

CUresult Driver::copy_async(const char* api, CUstream s, uint64_t dst, uint64_t src, uint64_t bytes,
                            int dst_dev, int src_dev) {
  if (bytes == 0) return CUDA_SUCCESS;
  if (sticky != CUDA_SUCCESS) return sticky;
  if (!find(dst) || !find(src)) return copy(api, dst, src, bytes, dst_dev, src_dev);
  uint8_t *d, *p;
  if (!resolve(api, "destination", dst, bytes, dst_dev == 1, &d)) return CUDA_ERROR_INVALID_VALUE;
  if (!resolve(api, "source", src, bytes, src_dev == 1, &p)) return CUDA_ERROR_INVALID_VALUE;
  enqueue(
      s, [=, this] { copy(api, dst, src, bytes, dst_dev, src_dev); }, api);
  return CUDA_SUCCESS;
}

CUresult sticky_error() noexcept {
  Driver& d = Driver::get();
  CUresult s = d.sticky;
  // The call returns the fault without synchronizing: the device's work
  // ends (nothing runs after a fault) and what it printed up to the fault
  // (its error line, an assert's) is printed now, as the synchronization
  // that reports the fault would have.
  if (s != CUDA_SUCCESS && !d.queue.on_worker()) {
    try {
      d.synchronize_all();
    } catch (...) {
      // Out of memory while printing: the error code still reaches the program.
    }
  }
  return s;
}

// ---- launches --------------------------------------------------------------

namespace {

std::string dim(emu::Dim3 d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

// What a launch stopped by `e` returns: the cuda_error column of
// emu/fault_kinds.def (as the H100 answers, tests/data/h100_device_assert.txt:
// a failed assert is CUDA_ERROR_ASSERT, a trap an unspecified launch failure).
CUresult error_code(const emu::LaunchError& e) {
  switch (e.kind) {
#define SMEMLAB_FAULT(id, name, cuda_error, exit, finding, description) \
  case emu::FaultKind::id:                                              \
    return cuda_error;
#include "emu/fault_kinds.def"
  }
  return CUDA_ERROR_LAUNCH_FAILED;  // (not reached: the switch covers every row)
}

// The line the GPU's driver writes to the program's stderr for a failed
// assert, from the emulator's message (ops_builtin.cc's "assertion failed:
// `COND` (FILE:LINE, in function 'FN')"):
//   FILE:LINE: FN: block: [1,0,0], thread: [3,0,0] Assertion `COND` failed.
void print_device_assert(const emu::LaunchError& e) {
  static const std::regex kMessage(
      R"(^assertion failed: `(.*)` \((.*):(\d+), in function '(.*)'\)$)");
  std::smatch m;
  if (!std::regex_match(e.message, m, kMessage)) return;
  std::string line =
      fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.\n",
                  m[2].str(), m[3].str(), m[4].str(), e.block.x, e.block.y, e.block.z, e.thread.x,
                  e.thread.y, e.thread.z, m[1].str());
  Driver::get().device_output(2, line);  // with the kernels' printf output
}

}  // namespace

CUresult Driver::cluster_shape(Function* f, emu::Dim3 attr, emu::LaunchConfig& cfg,
                               const std::string& what) {
  const ptx::Function* pf = f->module->emu->ptx().find(f->name);
  if (!pf) return CUDA_ERROR_INVALID_HANDLE;
  const emu::Dim3 set = attr.x ? attr : f->required_cluster;
  if (set.x) {
    cfg.cluster = set;
    cfg.explicit_cluster = true;
  }
  emu::Dim3 shape;
  bool is_explicit = false;
  std::string e = emu::resolve_cluster(*pf, cfg, &shape, &is_explicit);
  if (e.empty() && shape.count() > emu::kMaxPortableClusterBlocks && !f->non_portable_cluster)
    e = fmt::format(
        "a cluster of {} blocks exceeds the portable {}; "
        "cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, "
        "1) allows up to {}",
        shape.count(), emu::kMaxPortableClusterBlocks, emu::kMaxClusterBlocks);
  if (!e.empty()) {
    error_line(fmt::format("{}: {} (CUDA_ERROR_INVALID_CLUSTER_SIZE)", what, e));
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  }
  cfg.cluster = shape;
  cfg.explicit_cluster = is_explicit;
  return CUDA_SUCCESS;
}

CUresult Driver::launch(Function* f, emu::Dim3 grid, emu::Dim3 block, uint32_t shared,
                        void** params, void** extra, bool cooperative, emu::Dim3 cluster,
                        CUstream stream) {
  if (!f) return CUDA_ERROR_INVALID_HANDLE;
  watch_exit();
  if (sticky != CUDA_SUCCESS) return sticky;
  Module& m = *f->module;
  uint64_t index = launches++;
  // Kept current so that a program that crashes later still has its counts.
  struct Summary {
    Driver* d;
    ~Summary() { d->write_summary(false); }
  } summary{this};
  std::string kname = demangle(f->name);
  CUresult refused = CUDA_SUCCESS;
  const emu::Program* prog = program(f, "", &refused);
  if (!prog) {
    ++failed_kernels;
    return refused;
  }
  // Arguments: kernelParams (one pointer per parameter) or an `extra`
  // buffer laid out as the parameters are. Copied now: the program may
  // change them once the launch has returned.
  std::vector<emu::ArgBytes> args(prog->params.size());
  const uint8_t* buffer = nullptr;
  size_t buffer_size = 0;
  for (void** e = extra; e && *e != CU_LAUNCH_PARAM_END; e += 2) {
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = static_cast<const uint8_t*>(e[1]);
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) buffer_size = *static_cast<size_t*>(e[1]);
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& p = prog->params[i];
    const uint8_t* src = params ? static_cast<const uint8_t*>(params[i])
                         : buffer && p.offset + p.size <= buffer_size ? buffer + p.offset
                                                                      : nullptr;
    if (!src) return CUDA_ERROR_INVALID_VALUE;
    args[i].assign(src, src + p.size);
  }
  emu::LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.dynamic_shared = shared;
  // Above the default per-block limit only with the opt-in attribute.
  cfg.shared_limit.optin = static_cast<uint32_t>(spec.shared_per_block_optin);
  cfg.shared_limit.bytes = std::min(
      cfg.shared_limit.optin,
      std::max<uint32_t>(static_cast<uint32_t>(spec.shared_per_block),
                         prog->static_shared + static_cast<uint32_t>(f->max_dynamic_shared)));
  cfg.cooperative = cooperative;
  if (CUresult r = cluster_shape(f, cluster, cfg, fmt::format("launch {} of {}", index, kname));
      r != CUDA_SUCCESS)
    return r;
  // What the GPU refuses at the launch call is returned by it, not later. It is
  // the program's error in an API call (compute-sanitizer's memcheck reports it
  // as one): an API error of kind `launch`, counted in check's summary.
  if (std::string e = emu::launch_refusal(*m.emu, f->name, cfg, args); !e.empty()) {
    ++failed_kernels;
    emu::LaunchError err;
    err.kind = emu::FaultKind::Launch;
    err.message = e;
    api_error(check::FindingKind::Launch, fmt::format("launch {} of {} grid {} block {}: {}", index,
                                                      kname, dim(grid), dim(block), err.what()));
    return error_code(err);
  }
  cfg.stall_seconds = static_cast<double>(options.stall_seconds);
  cfg.schedule = options.schedule;
  cfg.host_waiting = &queue.host_waiting();
  cfg.printf_sink = [this](const std::string& text) { device_output(1, text); };
  // On a terminal only (the program's stderr): launches over a second show it.
  if (!options.quiet)
    cfg.progress = report::terminal_progress(fmt::format("launch {}: {}", index, kname));
  bool selected = selection_.select(f->name);
  enqueue(
      stream,
      [this, f, index, cfg = std::move(cfg), args = std::move(args), selected]() mutable {
        run_launch(f, index, std::move(cfg), std::move(args), selected);
      },
      "a kernel launch");
  return CUDA_SUCCESS;
}

std::vector<emu::ChildLaunch> Driver::run_grid(Function* f, uint64_t index, emu::LaunchConfig cfg,
                                               const std::vector<emu::ArgBytes>& args,
                                               bool selected) {
  // After a fault the context runs nothing more, as the GPU's.
  if (sticky != CUDA_SUCCESS) return {};
  Module& m = *f->module;
  emu::DeviceRuntime device_runtime(m.emu->ptx(), pending_device_launches_);
  device_runtime.set_attributes([this](uint32_t a, int32_t* v) {
    int value = 0;
    if (!device_attribute(spec, static_cast<CUdevice_attribute>(a), &value)) return false;
    *v = value;
    return true;
  });
  cfg.device_runtime = &device_runtime;
  auto children = [&] { return device_runtime.take(device.memory().heap()); };
  struct Summary {
    Driver* d;
    ~Summary() { d->write_summary(false); }
  } summary{this};
  const std::string kname = demangle(f->name);
  // __constant__ values as the stream reached this launch.
  for (const auto& c : m.consts) m.emu->set_symbol(c.symbol, c.data, c.size);
  emu::LaunchStatus st;
  if (!selected) {
    without_driver_lock([&] { st = emu::launch_grid(*m.emu, f->name, cfg, args); });
  } else {
    ++analyzed;
    session::LaunchAnalysis a;
    try {
      session::ProgramLaunch l;
      // `fix -- APP` only (fix_hooks.h): the module to run and an observer.
      l.module = &FixHooks::get().before(*this, m, f->name, cfg, &l.extra);
      l.kernel = f->name;
      l.config = cfg;
      l.args = &args;
      l.level = &level_of(f);
      if (spec.major == 3) {
        // Kepler: the program's bank-size choice picks the bank model.
        CUsharedconfig c = f->bank_config != CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE
                               ? f->bank_config
                               : device_bank_config;
        l.bank_width = c == CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE
                           ? session::BankWidth::EightBytes
                           : session::BankWidth::FourBytes;
      }
      without_driver_lock([&] { selection_.analyze(l, &a); });
      FixHooks::get().after(*this, m, index, f->name, cfg);
    } catch (const std::runtime_error& e) {
      error_line(fmt::format("{}", e.what()));
      return {};
    }
    st = a.status;
    a.info.source = m.name;
    report_launch(index, a);
  }
  if (!st.error) return children();
  ++failed_kernels;
  if (st.error->kind == emu::FaultKind::Assert) print_device_assert(*st.error);
  if (!selected)
    error_line(fmt::format("launch {} of {}{} grid {} block {}: {}", index, kname,
                           parent_note(index), dim(cfg.grid), dim(cfg.block), st.error->what()));
  // A fault while the kernel ran: as on the GPU the launch itself succeeded,
  // and the error is the context's from now on, returned by the next
  // synchronization and every call after it (guard.h). (A launch refused
  // before it ran was refused by launch() already.)
  if (emu::refused_launch(st.error->kind)) return {};
  CUresult none = CUDA_SUCCESS;
  sticky.compare_exchange_strong(none, error_code(*st.error));
  return {};
}

const emu::Program* Driver::program(Function* f, const char* api, CUresult* error) {
  Module& m = *f->module;
  if (!m.emu) {
    *error = CUDA_ERROR_NO_BINARY_FOR_GPU;
    if (!m.rdc_missing.empty() && once("noptx:" + f->name))
      error_line(fmt::format(
          "kernel {} in {} cannot be emulated: {}. The emulator runs PTX; rebuild every "
          "translation unit with PTX embedded beside the SASS: nvcc -rdc=true {}",
          demangle(f->name), m.name, m.rdc_missing, m.rdc_flag));
    if (once("noptx:" + f->name))
      error_line(fmt::format(
          "kernel {} in {} has no PTX, only {}: the emulator runs PTX. Rebuild with PTX "
          "embedded beside the SASS: nvcc {}",
          demangle(f->name), m.name, describe(m.entries),
          ptx_flag_for(m.entries, static_cast<uint32_t>(spec.major * 10 + spec.minor))));
    return nullptr;
  }
  try {
    return &m.emu->kernel(f->name);
  } catch (const emu::DecodeError& e) {
    *error = CUDA_ERROR_NOT_SUPPORTED;
    if (once(fmt::format("decode:{}:{}", api, f->name)))
      error_line(
          fmt::format("{}kernel {} in {} cannot be emulated ({} returned "
                      "CUDA_ERROR_NOT_SUPPORTED): {}",
                      *api ? fmt::format("{}: ", api) : "", demangle(f->name), m.name,
                      *api ? "the call" : "its launch", e.what()));
    return nullptr;
  }
}

const sass::KernelLevel& Driver::level_of(Function* f) {
  if (f->level) return *f->level;
  Module& m = *f->module;
  uint32_t sm = static_cast<uint32_t>(spec.major * 10 + spec.minor);
  // check's findings come from the PTX accesses; only analyze counts SASS requests.
  sass::Level wanted = options.mode == Mode::Analyze ? options.level : sass::Level::Ptx;
  if (!m.sass_prepared && wanted == sass::Level::Sass) {
    m.sass_prepared = true;
    std::string gpu = spec.arch.substr(0, spec.arch.find(':'));
    m.sass.target = gpu;
    // nvcc's cubin for this GPU counts only when it was built from the PTX
    // the emulator runs (-arch=sm_90 puts both compute_90 PTX and sm_90 SASS
    // in); else the driver would JIT the PTX, and ptxas stands in for it.
    std::string cubin;
    try {
      if (m.ptx_sm == sm) cubin = sass_for(m.entries, sm);
    } catch (const FatbinError& e) {
      m.sass.origin = e.what();
    }
    if (cubin.empty()) {
      if (m.sass.origin.empty())
        m.sass.origin =
            m.ptx_sm == sm || sass_for(m.entries, sm).empty()
                ? fmt::format("the fatbin has no {} SASS, only {}", gpu, describe(m.entries))
                : fmt::format(
                      "the fatbin's {} SASS was not built from its "
                      "compute_{} PTX",
                      gpu, m.ptx_sm);
    } else {
      sass::Tools tools = sass::find_tools();
      sass::Disassembled d;
      if (!tools.nvdisasm.empty()) d = sass::disassemble_cubin(tools, cubin);
      if (tools.nvdisasm.empty()) {
        // choose_program_level says that nvdisasm is missing.
      } else if (d.error.empty()) {
        m.fatbin_sass = sass::parse_disassembly(d.text);
        m.sass.fatbin = &*m.fatbin_sass;
        m.fatbin_registers = sass::registers_used(d.text);
        m.sass.fatbin_registers = &m.fatbin_registers;
        m.fatbin_null_hgmmas = sass::null_hgmmas(d.text);
        m.sass.fatbin_null_hgmmas = &m.fatbin_null_hgmmas;
        m.fatbin_ldgsts = sass::ldgsts_instrs(d.text);
        m.sass.fatbin_ldgsts = &m.fatbin_ldgsts;
        m.sass.origin = fmt::format("{} cubin of {}", gpu, m.name);
      } else {
        m.sass.origin = fmt::format("{} cubin of {} not readable: {}", gpu, m.name, d.error);
      }
    }
  }
  f->level = sass::choose_program_level(wanted, m.ptx_text, m.emu->ptx(), f->name,
                                        m.emu->kernel(f->name), m.sass);
  return *f->level;
}

}  // namespace smemlab::runtime
