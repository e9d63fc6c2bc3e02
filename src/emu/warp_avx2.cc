// The interpreter loop (warp_loop.h) compiled for AVX2 + FMA + BMI2
// (x86-64-v3): with 256-bit vectors the per-lane loops over 64-bit register
// slots (shifts by a register, 64-bit multiplies, compares) vectorize, which
// SSE2 cannot do. Only the code after the pragma gets those instructions:
// every header is included first, so no inline function or template of
// another header is emitted here in an AVX2 form that the linker could pick
// for portable callers. warp.cc runs this copy only on a CPU that has them.
#include <fmt/format.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "emu/decode_context.h"
#include "emu/exec.h"
#include "emu/half.h"
#include "emu/instructions.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SMEMLAB_ISA_NS isa_avx2
#define SMEMLAB_ISA_FMA 1
#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2")
#include "emu/warp_loop.h"
#pragma GCC pop_options

namespace smemlab::emu::isa_avx2 {
extern const RunWarpFn run_warp_avx2;
const RunWarpFn run_warp_avx2 = &kIsaLoop;
}  // namespace smemlab::emu::isa_avx2
#else
namespace smemlab::emu::isa_avx2 {
extern const RunWarpFn run_warp_avx2;
const RunWarpFn run_warp_avx2 = nullptr;
}  // namespace smemlab::emu::isa_avx2
#endif
