// The host API over the Sobol generators (curand_sobol.h): curandGenerate*
// on SOBOL32, SCRAMBLED_SOBOL32, SOBOL64 and SCRAMBLED_SOBOL64 (QUASI_DEFAULT
// is SOBOL32), and the table getters curandGetDirectionVectors32/64 and
// curandGetScrambleConstants32/64. Conversions are curand_uniform.h's and
// curand_normal_static.h's for the Sobol states.
#include <cmath>

#include "libs/bridge.h"
#include "libs/curand_generator.h"
#include "libs/curand_sobol.h"

namespace smemlab::libs::quasi {
namespace {

constexpr float kInv32f = 2.3283064e-10f;
constexpr double kInv32 = 2.3283064365386963e-10, kInv53 = 1.1102230246251565e-16;

// curand_uniform.h's _curand_uniform / _curand_uniform_double for the
// state's result type.
float uniform(uint32_t x) { return float(x) * kInv32f + kInv32f / 2.0f; }
float uniform(uint64_t x) { return uniform(uint32_t(x >> 32)); }
double uniform_double(uint32_t x) { return x * kInv32 + kInv32; }
double uniform_double(uint64_t x) { return double(x >> 11) * kInv53 + kInv53 / 2.0; }

template <class T>
void convert(T x, Out kind, void* out, size_t i, double mean, double sd) {
  switch (kind) {
    case Out::Bits32:
      static_cast<uint32_t*>(out)[i] = uint32_t(x);
      break;
    case Out::Bits64:
      static_cast<unsigned long long*>(out)[i] = x;
      break;
    case Out::Uniform:
      static_cast<float*>(out)[i] = uniform(x);
      break;
    case Out::UniformDouble:
      static_cast<double*>(out)[i] = uniform_double(x);
      break;
    case Out::Normal:  // curand_normal.h: mean + stddev * icdf, in float
      static_cast<float*>(out)[i] = float(mean) + float(sd) * sobol::normal_icdf(x);
      break;
    case Out::NormalDouble:
      static_cast<double*>(out)[i] = mean + sd * sobol::normal_icdf_double(x);
      break;
    case Out::LogNormal:  // curand_lognormal.h: expf(mean + stddev * icdf)
      static_cast<float*>(out)[i] = std::exp(float(mean) + float(sd) * sobol::normal_icdf(x));
      break;
    case Out::LogNormalDouble:
      static_cast<double*>(out)[i] = std::exp(mean + sd * sobol::normal_icdf_double(x));
      break;
  }
}

bool is64(Quasi q) { return q == Quasi::Sobol64 || q == Quasi::ScrambledSobol64; }

}  // namespace

Quasi quasi_of(curandRngType_t type) {
  switch (type) {
    case CURAND_RNG_QUASI_DEFAULT:
    case CURAND_RNG_QUASI_SOBOL32:
      return Quasi::Sobol32;
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32:
      return Quasi::ScrambledSobol32;
    case CURAND_RNG_QUASI_SOBOL64:
      return Quasi::Sobol64;
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64:
      return Quasi::ScrambledSobol64;
    default:
      return Quasi::None;
  }
}

curandStatus_t generate(curandGenerator_t g, const char* entry, void* out, size_t n, Out kind,
                        double mean, double sd) {
  const Quasi q = g->quasi;
  // 32-bit results only from the 32-bit generators, 64-bit from the 64-bit ones (curand.h).
  if ((kind == Out::Bits32 && is64(q)) || (kind == Out::Bits64 && !is64(q)))
    return CURAND_STATUS_TYPE_ERROR;
  if (!out) return CURAND_STATUS_OUT_OF_RANGE;
  if (n % g->dimensions) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  const bool eight = kind == Out::Bits64 || kind == Out::UniformDouble ||
                     kind == Out::NormalDouble || kind == Out::LogNormalDouble;
  if (!g->host && !device_range(entry, "output", out, n * (eight ? 8 : 4)))
    return CURAND_STATUS_LAUNCH_FAILURE;
  record_call(entry);
  const size_t per = n / g->dimensions;
  const unsigned dims = g->dimensions;
  const uint64_t first = g->offset;
  g->offset += per;
  const bool scrambled = q == Quasi::ScrambledSobol32 || q == Quasi::ScrambledSobol64;
  const bool wide = is64(q);
  enqueue(g->stream, [=] {
    for (unsigned d = 0; d < dims; ++d)
      for (size_t j = 0; j < per; ++j) {
        const size_t i = size_t(d) * per + j;
        if (wide)
          convert(sobol::point64(d, scrambled, first + j), kind, out, i, mean, sd);
        else
          convert(sobol::point32(d, scrambled, first + j), kind, out, i, mean, sd);
      }
  });
  if (g->host) synchronize(g->stream);
  return CURAND_STATUS_SUCCESS;
}

}  // namespace smemlab::libs::quasi

extern "C" {

curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t** vectors,
                                           curandDirectionVectorSet_t set) {
  if (!vectors) return CURAND_STATUS_OUT_OF_RANGE;
  if (set != CURAND_DIRECTION_VECTORS_32_JOEKUO6 &&
      set != CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6)
    return CURAND_STATUS_OUT_OF_RANGE;
  *vectors =
      smemlab::libs::sobol::directions32(set == CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6);
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t** vectors,
                                           curandDirectionVectorSet_t set) {
  if (!vectors) return CURAND_STATUS_OUT_OF_RANGE;
  if (set != CURAND_DIRECTION_VECTORS_64_JOEKUO6 &&
      set != CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6)
    return CURAND_STATUS_OUT_OF_RANGE;
  *vectors =
      smemlab::libs::sobol::directions64(set == CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6);
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGetScrambleConstants32(unsigned int** constants) {
  if (!constants) return CURAND_STATUS_OUT_OF_RANGE;
  *constants = smemlab::libs::sobol::scramble32();
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGetScrambleConstants64(unsigned long long** constants) {
  if (!constants) return CURAND_STATUS_OUT_OF_RANGE;
  *constants = smemlab::libs::sobol::scramble64();
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGenerateLongLong(curandGenerator_t g, unsigned long long* out, size_t n) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  if (g->quasi == Quasi::None) return CURAND_STATUS_TYPE_ERROR;  // 64-bit quasi generators only
  return smemlab::libs::quasi::generate(g, "curandGenerateLongLong", out, n,
                                        smemlab::libs::quasi::Out::Bits64);
}
curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t g, unsigned int dims) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  if (g->quasi == Quasi::None) return CURAND_STATUS_TYPE_ERROR;
  if (dims < 1 || dims > smemlab::libs::sobol::kDimensions) return CURAND_STATUS_OUT_OF_RANGE;
  g->dimensions = dims;
  return CURAND_STATUS_SUCCESS;
}

}  // extern "C"
