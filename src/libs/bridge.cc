#include "libs/bridge.h"

#include <dlfcn.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

namespace smemlab::libs {
namespace {

// The driver's entry points, from the libcuda.so.1 the program loaded
// (smemlab's own, first on its library path). Looked up, not linked: the
// libraries must not pull a second copy of the emulator in.
struct Driver {
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*launch_host_func)(CUstream, CUhostFn, void*) = nullptr;
  CUresult (*stream_sync)(CUstream) = nullptr;
  CUresult (*is_capturing)(CUstream, CUstreamCaptureStatus*) = nullptr;
  void (*library_call)(const char*) = nullptr;
  void (*library_missing)(const char*, const char*, const char*) = nullptr;
  int (*library_range)(const char*, const char*, const void*, uint64_t) = nullptr;
};

const Driver& driver() {
  static const Driver d = [] {
    Driver r;
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
      std::fprintf(stderr, "smemlab libraries: cannot load libcuda.so.1: %s\n", dlerror());
      return r;
    }
    r.init = reinterpret_cast<decltype(r.init)>(dlsym(h, "cuInit"));
    r.launch_host_func =
        reinterpret_cast<decltype(r.launch_host_func)>(dlsym(h, "cuLaunchHostFunc"));
    r.stream_sync = reinterpret_cast<decltype(r.stream_sync)>(dlsym(h, "cuStreamSynchronize"));
    r.is_capturing = reinterpret_cast<decltype(r.is_capturing)>(dlsym(h, "cuStreamIsCapturing"));
    r.library_call = reinterpret_cast<decltype(r.library_call)>(dlsym(h, "smemlab_library_call"));
    r.library_missing =
        reinterpret_cast<decltype(r.library_missing)>(dlsym(h, "smemlab_library_missing"));
    r.library_range =
        reinterpret_cast<decltype(r.library_range)>(dlsym(h, "smemlab_library_range"));
    return r;
  }();
  return d;
}

// A host function's argument: the work, kept for every replay when the stream
// is being captured (a graph's host node may run many times), else freed
// after its one run.
struct Work {
  std::function<void()> fn;
  bool once;
};

void run_work(void* p) {
  auto* w = static_cast<Work*>(p);
  w->fn();
  if (w->once) delete w;
}

// The works of captured host nodes live as long as the program (a graph may
// be replayed until exit and its host nodes have no destroy hook); kept here
// so they stay reachable, never destroyed (exit handlers may still replay).
void keep_captured(Work* w) {
  static std::mutex mu;
  static auto* kept = new std::vector<Work*>;
  std::lock_guard<std::mutex> lock(mu);
  kept->push_back(w);
}

}  // namespace

void ensure_driver() {
  static std::once_flag flag;
  std::call_once(flag, [] {
    if (driver().init) driver().init(0);
  });
}

void enqueue(CUstream stream, std::function<void()> work) {
  const Driver& d = driver();
  if (!d.launch_host_func) {
    work();  // no driver to order against: nothing else runs either
    return;
  }
  CUstreamCaptureStatus cap = CU_STREAM_CAPTURE_STATUS_NONE;
  if (d.is_capturing) d.is_capturing(stream, &cap);
  auto* w = new Work{std::move(work), cap == CU_STREAM_CAPTURE_STATUS_NONE};
  if (!w->once) keep_captured(w);
  if (d.launch_host_func(stream, run_work, w) != CUDA_SUCCESS) {
    // The driver refused (a bad stream): the call still takes effect rather
    // than vanishing silently, as a synchronous library call would.
    w->once = true;
    run_work(w);
  }
}

void synchronize(CUstream stream) {
  if (driver().stream_sync) driver().stream_sync(stream);
}

void record_call(const char* entry) {
  if (driver().library_call) driver().library_call(entry);
}

bool device_range(const char* entry, const char* role, const void* p, uint64_t bytes) {
  if (bytes == 0 || !driver().library_range) return true;
  return driver().library_range(entry, role, p, bytes) != 0;
}

void report_missing(const char* library, const char* entry, const char* code) {
  if (driver().library_missing)
    driver().library_missing(library, entry, code);
  else
    std::fprintf(stderr,
                 "==smemlab== ERROR: %s entry point %s is not implemented; it returned %s\n",
                 library, entry, code);
}

}  // namespace smemlab::libs
