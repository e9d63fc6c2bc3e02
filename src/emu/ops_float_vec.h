// The float slow path's f32 round-to-nearest ops eight lanes at a time
// (AVX2 + FMA), for exec_fslow (ops_float.cc): the same bits as its per-lane
// loop, which stays the reference. A lane is decided by the vectors only
// where their result is provably that loop's; every other lane (a NaN in or
// out, ex2's results near a float rounding boundary or outside [2^-125,
// 2^127)) is handed back to the loop. BlackScholes' div/rsqrt/ex2/abs.
#pragma once

#include <cstdint>

namespace smemlab::emu {

// Computes FOp `f` with `ftz` (inputs and result flushed, as the loop does)
// for the lanes of `exec` of one warp's registers (f32 in the low half of
// each 64-bit slot, the high half written 0), writes D for the lanes it
// decides and returns the lanes it left: all of `exec` for an op it does not
// vectorize (min/max, copysign, lg2, sin/cos/tanh, testp).
using F32VectorFn = uint32_t (*)(uint8_t f, bool ftz, uint64_t* D, const uint64_t* A,
                                 const uint64_t* B, const uint64_t* C, uint32_t exec);

// The AVX2 + FMA copy where the CPU has both, else null (the loop does all).
F32VectorFn f32_vector();

// The per-lane loop itself (the reference the vectors must match; tests
// compare the two): f32, round to nearest, `flags` its kFtz and kSat. False
// for an op it does not run (testp, which writes a predicate).
bool f32_nearest_lanes(uint8_t f, uint8_t flags, uint64_t* D, const uint64_t* A, const uint64_t* B,
                       const uint64_t* C, uint32_t exec);

}  // namespace smemlab::emu
