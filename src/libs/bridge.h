// libs/: smemlab's own cuBLAS, cuBLASLt, cuFFT and cuRAND (host API) for
// program mode. Their SASS-only kernels cannot run in the emulator, so these
// libraries (same sonames as the toolkit's, in build/runtime/ beside
// libcuda.so.1, first on the program's library path) compute on the CPU:
// device pointers are host addresses here. This header is what they share:
// stream order and the two calls into smemlab's driver (the library-call
// count of the program's summary and the unsupported-entry-point line).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>

namespace smemlab::libs {

// Runs `work` in stream order on `stream`: enqueued like the program's own
// host functions (cuLaunchHostFunc), so it runs after the stream's earlier
// kernels and copies and before its later ones, and is recorded as a host
// node when the stream is being captured into a graph.
void enqueue(CUstream stream, std::function<void()> work);
// Waits for everything enqueued on `stream` (host-pointer results).
void synchronize(CUstream stream);
// Counts a call of `entry` in the program's summary.
void record_call(const char* entry);
// Says once that `entry` of `library` is not implemented; `code` is the
// status the stub returns.
void report_missing(const char* library, const char* entry, const char* code);
// Makes sure the driver is initialized (a library call may come first).
void ensure_driver();
// Whether `bytes` bytes at `p`, which `entry` reads or writes as `role`
// ("matrix A", "vector x"...), lie in one live device-accessible allocation;
// if not, the driver reports the memcheck finding naming the call and the
// library returns its execution-failure status instead of touching the
// memory (on the GPU the kernel would fault). Empty ranges pass.
bool device_range(const char* entry, const char* role, const void* p, uint64_t bytes);
// The bytes of a column-major matrix of `rows` x `cols` elements of
// `elem` bytes with leading dimension `ld` (0 if either is 0), and of a
// strided vector of n elements.
inline uint64_t matrix_bytes(int64_t rows, int64_t cols, int64_t ld, uint64_t elem) {
  return rows <= 0 || cols <= 0 ? 0 : uint64_t((cols - 1) * ld + rows) * elem;
}
inline uint64_t vector_bytes(int64_t n, int64_t inc, uint64_t elem) {
  return n <= 0 ? 0 : uint64_t(1 + (n - 1) * (inc < 0 ? -inc : inc)) * elem;
}

}  // namespace smemlab::libs
