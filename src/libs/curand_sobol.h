// cuRAND's quasirandom generators (SOBOL32, SCRAMBLED_SOBOL32, SOBOL64,
// SCRAMBLED_SOBOL64) as curand_kernel.h defines them: point i of a
// dimension is the scramble constant (0 unscrambled) XOR the dimension's
// direction vectors selected by the Gray code of i. The tables are the
// toolkit's (curand_tables_gen.cc), embedded in libcurand; the host API's
// layout over dimensions is curand.cc's. Also the inverse normal CDF that
// curand_normal_static.h uses for quasirandom normals.
#pragma once

#include <curand.h>

#include <cstdint>

namespace smemlab::libs::sobol {

constexpr unsigned kDimensions = 20000;

// The embedded tables, as curandGetDirectionVectors32/64 and
// curandGetScrambleConstants32/64 return them.
curandDirectionVectors32_t* directions32(bool scrambled);
curandDirectionVectors64_t* directions64(bool scrambled);
unsigned* scramble32();
unsigned long long* scramble64();
// Whether the embedded file has the size of the layout above.
bool tables_complete();

// Point `index` of dimension `dim` (< kDimensions).
uint32_t point32(unsigned dim, bool scrambled, uint64_t index);
uint64_t point64(unsigned dim, bool scrambled, uint64_t index);

// curand_normal_static.h's _curand_normal_icdf(_double): sqrt(2) *
// erfcinv(2p) of the point's uniform p, mirrored at one half; computed in
// double here (the GPU's erfcinvf/erfcinv are within a few ulp of it).
float normal_icdf(uint32_t x);
float normal_icdf(uint64_t x);
double normal_icdf_double(uint32_t x);
double normal_icdf_double(uint64_t x);

}  // namespace smemlab::libs::sobol
