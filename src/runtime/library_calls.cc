// The functions smemlab's own libraries (src/libs/: libcublas, libcublasLt,
// libcufft, libcurand) call in the driver: one counts a library call for the
// program's summary (library calls are counted, not analyzed), one names an
// entry point those libraries do not implement, through the driver's one
// unsupported-API path, and one checks that a range a call reads or writes
// is device-accessible memory (the copies' memcheck, naming the call). They are found with dlsym,
// so the libraries never link against the emulator.
#include <fmt/format.h>

#include <mutex>

#include "runtime/driver.h"

using smemlab::runtime::Driver;

extern "C" {

__attribute__((visibility("default"))) void smemlab_library_call(const char* entry) {
  Driver& d = Driver::get();
  std::lock_guard<smemlab::runtime::DriverMutex> lock(d.mu);
  uint64_t n = ++d.library_calls[entry ? entry : "?"];
  // The summary survives a crash; rewritten at 1, 2, 4, ... calls of an entry
  // (not on every call of a loop of thousands), and whole at exit.
  if ((n & (n - 1)) == 0) d.write_summary(false);
}

// `library`: e.g. "cuBLAS"; `code`: the status the call returned.
__attribute__((visibility("default"))) void smemlab_library_missing(const char* library,
                                                                    const char* entry,
                                                                    const char* code) {
  Driver& d = Driver::get();
  std::lock_guard<smemlab::runtime::DriverMutex> lock(d.mu);
  if (!d.once(fmt::format("library:{}", entry))) return;
  d.error_line(fmt::format(
      "{} entry point {} is not implemented by smemlab's {} (src/libs/); it returned {}", library,
      entry, library, code));
}

// 1 when [p, p + bytes) lies in one live allocation; else the finding
// (memcpy-out-of-bounds, use-after-free or invalid-device-pointer, as for a
// copy) naming `entry` and `role` (e.g. "matrix C"), and 0.
__attribute__((visibility("default"))) int smemlab_library_range(const char* entry,
                                                                 const char* role, const void* p,
                                                                 uint64_t bytes) {
  Driver& d = Driver::get();
  std::lock_guard<smemlab::runtime::DriverMutex> lock(d.mu);
  uint8_t* q;
  return d.resolve(entry, role, reinterpret_cast<uint64_t>(p), bytes, true, &q) ? 1 : 0;
}

}  // extern "C"
