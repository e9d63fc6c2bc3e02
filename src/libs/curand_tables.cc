// The toolkit's Sobol tables (curand_tables_gen.cc writes them at build time,
// SMEMLAB_CURAND_TABLES names the file), embedded in libcurand so that the
// library needs nothing beside itself at run time.
#include <cstddef>
#include <cstdint>

#include "libs/curand_sobol.h"

asm(".section .rodata\n.balign 64\n"
    "smemlab_curand_tables:\n.incbin \"" SMEMLAB_CURAND_TABLES
    "\"\n"
    "smemlab_curand_tables_end:\n.previous\n");
extern "C" const unsigned char smemlab_curand_tables[], smemlab_curand_tables_end[];

namespace smemlab::libs::sobol {
namespace {
constexpr size_t kD = kDimensions;
constexpr size_t kV64 = kD * 64 * 8, kC64 = kD * 8, kV32 = kD * 32 * 4, kC32 = kD * 4;
// The tables are read-only data of the library; cuRAND hands out non-const
// pointers to its own, so these do too (programs must not write them).
unsigned char* base() { return const_cast<unsigned char*>(smemlab_curand_tables); }
}  // namespace

curandDirectionVectors64_t* directions64(bool scrambled) {
  return reinterpret_cast<curandDirectionVectors64_t*>(base() + (scrambled ? kV64 : 0));
}
unsigned long long* scramble64() {
  return reinterpret_cast<unsigned long long*>(base() + 2 * kV64);
}
curandDirectionVectors32_t* directions32(bool scrambled) {
  return reinterpret_cast<curandDirectionVectors32_t*>(base() + 2 * kV64 + kC64 +
                                                       (scrambled ? kV32 : 0));
}
unsigned* scramble32() { return reinterpret_cast<unsigned*>(base() + 2 * kV64 + kC64 + 2 * kV32); }
bool tables_complete() {
  return size_t(smemlab_curand_tables_end - smemlab_curand_tables) ==
         2 * kV64 + kC64 + 2 * kV32 + kC32;
}

}  // namespace smemlab::libs::sobol
