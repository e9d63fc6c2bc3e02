// Every driver function the CUDA toolkit's libcuda.so exports by name is
// exported by name here too, so that a program linked with -lcuda (calling
// cuMemAlloc_v2, cuMemsetD32Async, cuTensorMapEncodeTiled ... directly)
// loads and runs, whatever smemlab implements. The list (named_exports.inc)
// comes from the toolkit's link stub (scripts/gen-named-exports).
//
// Each symbol is a two-instruction trampoline that jumps through a slot, so
// one definition serves every signature: the caller's arguments reach the
// implementation untouched. At load the slots are filled with the entry
// points cuGetProcAddress hands out for that name and version (guarded:
// guard.h). A symbol whose slot stays empty is not implemented: it names
// itself once on stderr and returns CUDA_ERROR_NOT_SUPPORTED, as the
// stubs cuGetProcAddress hands out do (never a missing symbol at load time).
#include <cuda.h>
#include <fmt/format.h>

#include <mutex>

#include "runtime/api.h"
#include "runtime/driver.h"

#if !defined(__x86_64__)
#error "named_exports.cc: the trampolines are written for x86-64"
#endif

namespace {

struct NamedExport {
  const char* symbol;
  const char* entry;  // the cuGetProcAddress name
  int version;        // of the symbol's signature
};

constexpr NamedExport kNamed[] = {
#define X(index, symbol, entry, version) {#symbol, entry, version},
#include "runtime/named_exports.inc"
#undef X
};
constexpr size_t kCount = sizeof kNamed / sizeof kNamed[0];

}  // namespace

extern "C" {

// The slots the trampolines jump through: null until resolved or when not
// implemented.
__attribute__((visibility("hidden"))) void* smemlab_named_slots[kCount];

// Where a trampoline with an empty slot goes, with its index in %edi.
__attribute__((visibility("hidden"))) CUresult smemlab_named_missing(int index) {
  using namespace smemlab::runtime;
  Driver& d = Driver::get();
  std::lock_guard<DriverMutex> lock(d.mu);
  const NamedExport& e = kNamed[index];
  d.not_supported(fmt::format("{} (version {}, called by name)", e.symbol, e.version).c_str());
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // extern "C"

// cuFoo: jump to the slot's function, or to smemlab_named_missing(index).
// %r11 is a scratch register no argument lives in.
// clang-format off
#define X(index, symbol, entry, version)                       \
  asm(".text\n"                                               \
      ".globl " #symbol "\n"                                  \
      ".type " #symbol ", @function\n"                        \
      ".p2align 4\n"                                          \
      #symbol ":\n"                                           \
      "  movq smemlab_named_slots+8*" #index "(%rip), %r11\n" \
      "  testq %r11, %r11\n"                                  \
      "  jz 1f\n"                                             \
      "  jmp *%r11\n"                                         \
      "1:\n"                                                  \
      "  movl $" #index ", %edi\n"                            \
      "  jmp smemlab_named_missing\n"                         \
      ".size " #symbol ", .-" #symbol "\n");
// clang-format on
#include "runtime/named_exports.inc"
#undef X

namespace smemlab::runtime {

void resolve_named_exports() {
  for (size_t i = 0; i < kCount; ++i)
    if (const EntryPoint* e = find_entry(kNamed[i].entry, kNamed[i].version))
      smemlab_named_slots[i] = e->fn;
}

}  // namespace smemlab::runtime
