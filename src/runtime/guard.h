// The catch boundary between the runtime and the program. An exception
// must never unwind out of libcuda.so.1: the program's frames above us
// (cudart's C code, the program's own) cannot catch it, so it ends the
// program with std::terminate (SIGABRT) instead of an error the program can
// see. Every function the driver hands out -- the cuGetProcAddress table,
// the symbols exported by name, cudart's private tables -- is wrapped in
// `Guarded<NAME, F>::call`, which returns F's result, or turns whatever F
// throws into a CUresult and one `==smemlab== ERROR:` line naming the
// entry point and the cause (docs/emulator.md, "Catch boundaries between the
// runtime and the program").
#pragma once

#include <cuda.h>

#include <cstddef>
#include <type_traits>

namespace smemlab::runtime {

// A string literal as a template argument (the entry point's name).
template <size_t N>
struct EntryName {
  constexpr EntryName(const char (&s)[N]) {  // NOLINT: implicit by design
    for (size_t i = 0; i < N; ++i) text[i] = s[i];
  }
  char text[N];
};

// Called inside a catch handler: reports the exception in flight (once per
// entry point and message) and says what the program gets for it:
// CUDA_ERROR_NOT_SUPPORTED for PTX the emulator cannot decode or run,
// CUDA_ERROR_INVALID_IMAGE for PTX it cannot parse, CUDA_ERROR_OUT_OF_MEMORY
// for std::bad_alloc, CUDA_ERROR_UNKNOWN for anything else (a smemlab bug).
CUresult escaped_exception(const char* entry) noexcept;

// The context's sticky error (a kernel fault: CUDA_ERROR_ASSERT,
// CUDA_ERROR_ILLEGAL_ADDRESS, ...), CUDA_SUCCESS while there is none.
CUresult sticky_error() noexcept;

// After a kernel fault the GPU's context is unusable: every call that works
// in it (allocation, copies, memsets, launches, synchronization, queries of
// streams and events) returns the fault's error, as the H100 does
// (tests/data/h100_device_assert.txt); queries of the device, of error
// names and of entry points still answer.
template <size_t N>
constexpr bool context_bound(const EntryName<N>& name) {
  auto starts = [&](const char* p) {
    for (size_t i = 0; p[i]; ++i)
      if (i >= N || name.text[i] != p[i]) return false;
    return true;
  };
  return starts("cuMem") || starts("cuLaunch") || starts("cuGraphLaunch") ||
         starts("cuCtxSynchronize") || starts("cuStreamSynchronize") || starts("cuStreamQuery") ||
         starts("cuEventRecord") || starts("cuEventSynchronize") || starts("cuEventQuery");
}

template <EntryName Name, auto F>
struct Guarded;

template <EntryName Name, typename R, typename... A, R (*F)(A...)>
struct Guarded<Name, F> {
  static R call(A... a) noexcept {
    if constexpr (std::is_same_v<R, CUresult> && context_bound(Name))
      if (CUresult s = sticky_error(); s != CUDA_SUCCESS) return s;
    try {
      return F(a...);
    } catch (...) {
      CUresult r = escaped_exception(Name.text);
      if constexpr (std::is_same_v<R, CUresult>)
        return r;
      else if constexpr (!std::is_void_v<R>)
        return R{};
    }
  }
};

}  // namespace smemlab::runtime

// An entry of a cuGetProcAddress table: `name` at `version` is F, guarded.
#define SMEMLAB_ENTRY(name, version, f)                                                 \
  ::smemlab::runtime::EntryPoint {                                                      \
    name, version, reinterpret_cast<void*>(&::smemlab::runtime::Guarded<name, f>::call) \
  }
