// The cuRAND generator object of smemlab's libcurand (curand.cc: pseudo
// generators; curand_quasi.cc: the Sobol family) and the quasirandom entry
// points' shared implementation.
#pragma once

#include <cuda.h>
#include <curand.h>

#include <cstdint>
#include <memory>

#include "libs/curand_generators.h"
#include "libs/curand_mt19937.h"
#include "libs/curand_mtgp32.h"

// The Sobol variants of curandRngType_t (None: a pseudorandom generator).
enum class Quasi { None, Sobol32, ScrambledSobol32, Sobol64, ScrambledSobol64 };

struct curandGenerator_st {
  smemlab::libs::rng::Kind kind = smemlab::libs::rng::Kind::Xorwow;
  curandRngType_t type = CURAND_RNG_PSEUDO_DEFAULT;
  bool host = false;
  uint64_t seed = 0;
  uint64_t offset = 0;  // pseudo: results consumed so far; quasi: points per dimension
  curandOrdering_t ordering = CURAND_ORDERING_PSEUDO_DEFAULT;
  CUstream stream = nullptr;
  Quasi quasi = Quasi::None;
  unsigned dimensions = 1;
  // MTGP32 (kind unused): its states, made for `seed` at the first generation
  // after a seed change, advanced by the generations in stream order.
  bool mtgp32 = false;
  std::shared_ptr<smemlab::libs::mtgp::Sequence> mtgp;
  // MT19937 (kind unused): its 8192 jumped copies, made for `seed` the same way.
  bool mt19937 = false;
  std::shared_ptr<smemlab::libs::mt19937::Sequence> mt;
};

namespace smemlab::libs::quasi {

// What a quasirandom generation produces from each point.
enum class Out {
  Bits32,
  Bits64,
  Uniform,
  UniformDouble,
  Normal,
  NormalDouble,
  LogNormal,
  LogNormalDouble
};

// The quasi type of `type`, None for the pseudorandom ones.
Quasi quasi_of(curandRngType_t type);

// One generation on a quasirandom generator: `n` results over its
// dimensions, dimension-major (n / dimensions points of dimension 0, then of
// dimension 1, ...) from point `offset` on; mean/sd for the normal outputs.
curandStatus_t generate(curandGenerator_t g, const char* entry, void* out, size_t n, Out kind,
                        double mean = 0, double sd = 1);

}  // namespace smemlab::libs::quasi
