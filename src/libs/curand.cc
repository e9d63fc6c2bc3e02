// smemlab's libcurand.so.10, the host API: pseudorandom generators XORWOW
// (the default), Philox4_32_10 and MRG32k3a (curand_generators.h), seeds,
// offsets and orderings; 32-bit, uniform, normal, log-normal and Poisson
// results, in stream order. Uniform results use curand_uniform.h's
// conversions exactly, Poisson cuRAND's square histogram
// (curand_poisson.h); normal ones Box-Muller in the CPU's libm
// (docs/runtime.md: how they differ from the GPU's). The Sobol generators'
// generations are curand_quasi.cc's; MTGP32's 32-bit and uniform results
// are curand_mtgp32.h's, MT19937's results curand_mt19937.h's (uniforms as
// its host generator converts them, normals the inverse normal CDF of each
// result's uniform, Poisson one result each).
#include <curand.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "libs/bridge.h"
#include "libs/curand_generator.h"
#include "libs/curand_generators.h"
#include "libs/curand_poisson.h"
#include "libs/curand_sobol.h"

using namespace smemlab::libs;

namespace {

constexpr float kInv32 = 2.3283064e-10f;           // CURAND_2POW32_INV
constexpr double kInv53 = 1.1102230246251565e-16;  // CURAND_2POW53_INV_DOUBLE
constexpr double kMrgNorm = 2.3283065498378288e-10;

float uniform_of(uint32_t x) { return float(x) * kInv32 + kInv32 / 2.0f; }
double uniform_double_of(uint32_t x, uint32_t y) {
  uint64_t z = uint64_t(x) ^ (uint64_t(y) << 21);
  return double(z) * kInv53 + kInv53 / 2.0;
}

// The uniform draws of a result: MRG32k3a scales its raw output, the others
// convert 32-bit outputs.
float draw_float(rng::Kind k, rng::Stream& s) {
  return k == rng::Kind::Mrg32k3a ? float(s.next_mrg_raw() * kMrgNorm) : uniform_of(s.next());
}
double draw_double(rng::Kind k, rng::Stream& s) {
  if (k == rng::Kind::Mrg32k3a) return s.next_mrg_raw() * kMrgNorm;
  uint32_t x = s.next();
  return uniform_double_of(x, s.next());
}

// The bytes of one result of a generate() entry point: doubles for
// curandGenerateUniformDouble, 32-bit words for the others.
size_t result_bytes(const char* entry) {
  return std::string(entry) == "curandGenerateUniformDouble" ? 8 : 4;
}

// The layout of a pseudo generator's results under its ordering.
rng::Ordering layout_of(curandGenerator_t g) {
  switch (g->ordering) {
    case CURAND_ORDERING_PSEUDO_LEGACY:
      return rng::ordering_of(g->kind, rng::Layout::Legacy);
    case CURAND_ORDERING_PSEUDO_DYNAMIC:
      return rng::ordering_of(g->kind, rng::Layout::Dynamic);
    case CURAND_ORDERING_PSEUDO_SEEDED:
      return rng::ordering_of(g->kind, rng::Layout::Seeded);
    default:
      return rng::ordering_of(g->kind, rng::Layout::Default);
  }
}

// Runs `fill(first_index, stream)` over `count` results (each `draws` 32-bit
// draws), in stream order, then advances the generator's offset.
template <class Fill>
curandStatus_t generate(curandGenerator_t g, const char* entry, void* out, size_t count,
                        unsigned draws, Fill fill) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  if (!out) return CURAND_STATUS_OUT_OF_RANGE;
  if (!g->host && !device_range(entry, "output", out, count * result_bytes(entry)))
    return CURAND_STATUS_LAUNCH_FAILURE;
  record_call(entry);
  const rng::Kind kind = g->kind;
  const rng::Ordering order = layout_of(g);
  const uint64_t seed = g->seed, first = g->offset;
  g->offset += count;
  enqueue(g->stream, [=] {
    rng::for_each_result(kind, order, seed, first, count, draws,
                         [&](uint64_t i, rng::Stream& s) { fill(i, s); });
  });
  if (g->host) synchronize(g->stream);  // a host generator's results are there at return
  return CURAND_STATUS_SUCCESS;
}

// MTGP32's 32-bit results and uniforms (curand_uniform.h's conversion of
// each result); its other distributions are refused by name.
template <class T, class Conv>
curandStatus_t generate_mtgp32(curandGenerator_t g, const char* entry, T* out, size_t count,
                               Conv conv) {
  if (!out) return CURAND_STATUS_OUT_OF_RANGE;
  if (!g->host && !device_range(entry, "output", out, count * sizeof(T)))
    return CURAND_STATUS_LAUNCH_FAILURE;
  record_call(entry);
  if (!g->mtgp || g->mtgp->seed() != g->seed) g->mtgp = std::make_shared<mtgp::Sequence>(g->seed);
  const uint64_t first = g->offset;
  g->offset += count;
  auto seq = g->mtgp;
  enqueue(g->stream, [=] {
    for (size_t i = 0; i < count; ++i) out[i] = conv(seq->at(first + i));
  });
  if (g->host) synchronize(g->stream);
  return CURAND_STATUS_SUCCESS;
}
// MT19937's results through `conv` (one result per output), as the toolkit's
// host generator converts them; its other distributions are refused by name.
template <class T, class Conv>
curandStatus_t generate_mt19937(curandGenerator_t g, const char* entry, T* out, size_t count,
                                Conv conv) {
  if (!out) return CURAND_STATUS_OUT_OF_RANGE;
  if (!g->host && !device_range(entry, "output", out, count * sizeof(T)))
    return CURAND_STATUS_LAUNCH_FAILURE;
  record_call(entry);
  if (!g->mt || g->mt->seed() != g->seed) g->mt = std::make_shared<mt19937::Sequence>(g->seed);
  const uint64_t first = g->offset;
  g->offset += count;
  auto seq = g->mt;
  enqueue(g->stream, [=] {
    constexpr size_t kChunk = 1 << 16;
    std::vector<uint32_t> bits(std::min(count, kChunk));
    for (size_t done = 0; done < count; done += kChunk) {
      const size_t n = std::min(kChunk, count - done);
      seq->fill(first + done, n, bits.data());
      for (size_t i = 0; i < n; ++i) out[done + i] = conv(bits[i]);
    }
  });
  if (g->host) synchronize(g->stream);
  return CURAND_STATUS_SUCCESS;
}

// The generators with one sequence of 32-bit results and no distributions
// but their uniforms here.
bool sequence_only(curandGenerator_t g) { return g && (g->mtgp32 || g->mt19937); }
curandStatus_t refuse_on_sequence(curandGenerator_t g, const char* entry) {
  report_missing("cuRAND",
                 (std::string(entry) + (g->mt19937 ? " on MT19937" : " on MTGP32")).c_str(),
                 "CURAND_STATUS_TYPE_ERROR");
  return CURAND_STATUS_TYPE_ERROR;
}

const char* type_name(curandRngType_t t) {
  switch (t) {
    case CURAND_RNG_PSEUDO_MTGP32:
      return "CURAND_RNG_PSEUDO_MTGP32";
    case CURAND_RNG_PSEUDO_MT19937:
      return "CURAND_RNG_PSEUDO_MT19937";
    case CURAND_RNG_QUASI_SOBOL32:
      return "CURAND_RNG_QUASI_SOBOL32";
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32:
      return "CURAND_RNG_QUASI_SCRAMBLED_SOBOL32";
    case CURAND_RNG_QUASI_SOBOL64:
      return "CURAND_RNG_QUASI_SOBOL64";
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64:
      return "CURAND_RNG_QUASI_SCRAMBLED_SOBOL64";
    default:
      return "an unknown curandRngType_t";
  }
}

const char* ordering_name(curandOrdering_t o) {
  switch (o) {
    case CURAND_ORDERING_PSEUDO_SEEDED:
      return "CURAND_ORDERING_PSEUDO_SEEDED";
    case CURAND_ORDERING_PSEUDO_LEGACY:
      return "CURAND_ORDERING_PSEUDO_LEGACY";
    case CURAND_ORDERING_PSEUDO_DYNAMIC:
      return "CURAND_ORDERING_PSEUDO_DYNAMIC";
    default:
      return "an ordering";
  }
}

curandStatus_t create(curandGenerator_t* g, curandRngType_t type, bool host, const char* entry) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  ensure_driver();
  record_call(entry);
  rng::Kind kind;
  switch (type) {
    case CURAND_RNG_PSEUDO_DEFAULT:
    case CURAND_RNG_PSEUDO_XORWOW:
      kind = rng::Kind::Xorwow;
      break;
    case CURAND_RNG_PSEUDO_PHILOX4_32_10:
      kind = rng::Kind::Philox;
      break;
    case CURAND_RNG_PSEUDO_MRG32K3A:
      kind = rng::Kind::Mrg32k3a;
      break;
    case CURAND_RNG_PSEUDO_MTGP32:
      *g = new curandGenerator_st{};
      (*g)->type = type, (*g)->host = host, (*g)->mtgp32 = true;
      return CURAND_STATUS_SUCCESS;
    case CURAND_RNG_PSEUDO_MT19937:
      *g = new curandGenerator_st{};
      (*g)->type = type, (*g)->host = host, (*g)->mt19937 = true;
      return CURAND_STATUS_SUCCESS;
    case CURAND_RNG_QUASI_DEFAULT:
    case CURAND_RNG_QUASI_SOBOL32:
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32:
    case CURAND_RNG_QUASI_SOBOL64:
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64:
      *g = new curandGenerator_st{};
      (*g)->type = type, (*g)->host = host, (*g)->quasi = quasi::quasi_of(type);
      (*g)->ordering = CURAND_ORDERING_QUASI_DEFAULT;
      return CURAND_STATUS_SUCCESS;
    default:
      report_missing("cuRAND", (std::string(entry) + " of " + type_name(type)).c_str(),
                     "CURAND_STATUS_TYPE_ERROR");
      return CURAND_STATUS_TYPE_ERROR;
  }
  // cuRAND's default seed.
  *g = new curandGenerator_st{};
  (*g)->kind = kind, (*g)->type = type, (*g)->host = host;
  return CURAND_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

curandStatus_t curandCreateGenerator(curandGenerator_t* g, curandRngType_t type) {
  return create(g, type, false, "curandCreateGenerator");
}
curandStatus_t curandCreateGeneratorHost(curandGenerator_t* g, curandRngType_t type) {
  return create(g, type, true, "curandCreateGeneratorHost");
}
curandStatus_t curandDestroyGenerator(curandGenerator_t g) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  record_call("curandDestroyGenerator");
  synchronize(g->stream);  // queued work reads only copies, but order its end
  delete g;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGetVersion(int* version) {
  if (!version) return CURAND_STATUS_OUT_OF_RANGE;
  *version = CURAND_VERSION;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CURAND_STATUS_OUT_OF_RANGE;
  switch (type) {
    case MAJOR_VERSION:
      *value = CURAND_VER_MAJOR;
      break;
    case MINOR_VERSION:
      *value = CURAND_VER_MINOR;
      break;
    case PATCH_LEVEL:
      *value = CURAND_VER_PATCH;
      break;
    default:
      return CURAND_STATUS_OUT_OF_RANGE;
  }
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetStream(curandGenerator_t g, cudaStream_t stream) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  g->stream = reinterpret_cast<CUstream>(stream);
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t g, unsigned long long seed) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  if (g->quasi != Quasi::None) return CURAND_STATUS_TYPE_ERROR;  // quasirandom: no seed
  g->seed = seed;
  g->offset = 0;  // cuRAND restarts the sequence at a new seed
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandSetGeneratorOffset(curandGenerator_t g, unsigned long long offset) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  if (g->mt19937) return CURAND_STATUS_TYPE_ERROR;  // as the toolkit's: MT19937 has no offset
  g->offset = offset;
  return CURAND_STATUS_SUCCESS;
}
// Each pseudo ordering lays results out as the GPU does (curand_generators.h);
// a quasirandom generator takes only CURAND_ORDERING_QUASI_DEFAULT.
curandStatus_t curandSetGeneratorOrdering(curandGenerator_t g, curandOrdering_t order) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  if (g->quasi != Quasi::None) {
    if (order != CURAND_ORDERING_QUASI_DEFAULT) return CURAND_STATUS_OUT_OF_RANGE;
    return CURAND_STATUS_SUCCESS;
  }
  if (order != CURAND_ORDERING_PSEUDO_DEFAULT && order != CURAND_ORDERING_PSEUDO_BEST &&
      order != CURAND_ORDERING_PSEUDO_SEEDED && order != CURAND_ORDERING_PSEUDO_LEGACY &&
      order != CURAND_ORDERING_PSEUDO_DYNAMIC)
    return CURAND_STATUS_OUT_OF_RANGE;
  // Measured on an H200 (tests/data/h100_libs/curand_probe.bin): Philox and
  // MRG32k3a refuse SEEDED.
  // MT19937: DEFAULT and LEGACY (the same results), the others refused, as
  // the toolkit's host generator answers.
  if (g->mt19937) {
    if (order != CURAND_ORDERING_PSEUDO_DEFAULT && order != CURAND_ORDERING_PSEUDO_LEGACY)
      return CURAND_STATUS_OUT_OF_RANGE;
    g->ordering = order;
    return CURAND_STATUS_SUCCESS;
  }
  if (g->mtgp32) {  // one layout measured (the default's)
    if (order != CURAND_ORDERING_PSEUDO_DEFAULT)
      report_missing(
          "cuRAND",
          (std::string("curandSetGeneratorOrdering ") + ordering_name(order) + " of MTGP32")
              .c_str(),
          "CURAND_STATUS_SUCCESS (results in the default ordering's layout)");
    g->ordering = order;
    return CURAND_STATUS_SUCCESS;
  }
  if (order == CURAND_ORDERING_PSEUDO_SEEDED && g->kind != rng::Kind::Xorwow)
    return CURAND_STATUS_OUT_OF_RANGE;
  g->ordering = order;
  return CURAND_STATUS_SUCCESS;
}
curandStatus_t curandGenerateSeeds(curandGenerator_t g) {
  return g ? CURAND_STATUS_SUCCESS : CURAND_STATUS_NOT_INITIALIZED;
}

curandStatus_t curandGenerate(curandGenerator_t g, unsigned int* out, size_t n) {
  if (g && g->mtgp32)
    return generate_mtgp32(g, "curandGenerate", out, n, [](uint32_t x) { return x; });
  if (g && g->mt19937)
    return generate_mt19937(g, "curandGenerate", out, n, [](uint32_t x) { return x; });
  if (g && g->quasi != Quasi::None)
    return quasi::generate(g, "curandGenerate", out, n, quasi::Out::Bits32);
  return generate(g, "curandGenerate", out, n, 1,
                  [=](uint64_t i, rng::Stream& s) { out[i] = s.next(); });
}
curandStatus_t curandGenerateUniform(curandGenerator_t g, float* out, size_t n) {
  if (g && g->mtgp32) return generate_mtgp32(g, "curandGenerateUniform", out, n, uniform_of);
  if (g && g->mt19937)
    return generate_mt19937(g, "curandGenerateUniform", out, n, mt19937::uniform);
  if (g && g->quasi != Quasi::None)
    return quasi::generate(g, "curandGenerateUniform", out, n, quasi::Out::Uniform);
  const rng::Kind k = g ? g->kind : rng::Kind::Xorwow;
  return generate(g, "curandGenerateUniform", out, n, 1,
                  [=](uint64_t i, rng::Stream& s) { out[i] = draw_float(k, s); });
}
curandStatus_t curandGenerateUniformDouble(curandGenerator_t g, double* out, size_t n) {
  if (g && g->mt19937)
    return generate_mt19937(g, "curandGenerateUniformDouble", out, n, mt19937::uniform_double);
  if (g && g->mtgp32) return refuse_on_sequence(g, "curandGenerateUniformDouble");
  if (g && g->quasi != Quasi::None)
    return quasi::generate(g, "curandGenerateUniformDouble", out, n, quasi::Out::UniformDouble);
  const rng::Kind k = g ? g->kind : rng::Kind::Xorwow;
  return generate(g, "curandGenerateUniformDouble", out, n, k == rng::Kind::Mrg32k3a ? 1 : 2,
                  [=](uint64_t i, rng::Stream& s) { out[i] = draw_double(k, s); });
}

}  // extern "C"

namespace {

constexpr float kInv2pi32 = 1.4629181e-09f;  // CURAND_2POW32_INV_2PI
constexpr float k2pi = 6.2831855f;           // CURAND_2PI

// Box-Muller pairs as curand_normal.h forms them on the GPU (sin, cos of
// one angle): _curand_box_muller on two 32-bit draws, curand_box_muller_mrg
// on two MRG32k3a uniforms, and the double forms on two 53-bit uniforms.
// The GPU takes __sincosf/sincospi and its own logf: the CPU's libm rounds
// differently in the last bits (docs/runtime.md).
std::pair<float, float> pair_float(rng::Kind k, rng::Stream& s) {
  float u, v;
  if (k == rng::Kind::Mrg32k3a) {
    u = float(s.next_mrg_raw() * kMrgNorm);
    v = float(s.next_mrg_raw() * kMrgNorm) * k2pi;
  } else {
    uint32_t x = s.next(), y = s.next();
    u = float(x) * kInv32 + kInv32 / 2;
    v = float(y) * kInv2pi32 + kInv2pi32 / 2;
  }
  float r = std::sqrt(-2.0f * std::log(u));
  return {std::sin(v) * r, std::cos(v) * r};
}
std::pair<double, double> pair_double(rng::Kind k, rng::Stream& s) {
  double u, v;
  if (k == rng::Kind::Mrg32k3a) {
    u = s.next_mrg_raw() * kMrgNorm;
    v = s.next_mrg_raw() * kMrgNorm * 2.0;
  } else {
    uint32_t x0 = s.next(), x1 = s.next(), y0 = s.next(), y1 = s.next();
    u = double(uint64_t(x0) ^ (uint64_t(x1) << 21)) * kInv53 + kInv53 / 2;
    v = double(uint64_t(y0) ^ (uint64_t(y1) << 21)) * (kInv53 * 2) + kInv53;
  }
  double r = std::sqrt(-2.0 * std::log(u));
  return {std::sin(v * std::numbers::pi) * r, std::cos(v * std::numbers::pi) * r};
}

// Normal results come in Box-Muller pairs (sin, then cos); the pairs are
// laid out over the subsequences as the generator's results are (Philox:
// two pairs per counter), as an H100's normals showed.
template <class T, class Pair, class Map>
curandStatus_t generate_pairs(curandGenerator_t g, const char* entry, T* out, size_t count,
                              Pair pair, Map map) {
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  if (!out) return CURAND_STATUS_OUT_OF_RANGE;
  // cuRAND refuses odd counts, except Philox's (an H200 returned success for
  // 7 Philox normals): its pairs are laid out by counter, so a call may end
  // or start inside one.
  if (count % 2 && g->kind != rng::Kind::Philox) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  if (!g->host && !device_range(entry, "output", out, count * sizeof(T)))
    return CURAND_STATUS_LAUNCH_FAILURE;
  record_call(entry);
  const rng::Kind kind = g->kind;
  const uint64_t seed = g->seed, first = g->offset, end = first + count;
  g->offset += count;
  const rng::Ordering o = layout_of(g);
  const rng::Ordering po{o.threads, std::max<uint64_t>(o.chunk, 2) / 2};
  const unsigned draws = (std::is_same_v<T, double> && kind != rng::Kind::Mrg32k3a) ? 4 : 2;
  enqueue(g->stream, [=] {
    if (o.chunk == 1) {
      // XORWOW, MRG32k3a: pair k of this call is unit first + k of the
      // layout (an H100's normals at an odd offset showed it).
      rng::for_each_result(kind, o, seed, first, count / 2, draws, [&](uint64_t k, rng::Stream& s) {
        auto [a, b] = pair(kind, s);
        out[2 * k] = map(a), out[2 * k + 1] = map(b);
      });
      return;
    }
    // Philox: pairs at even results of the sequence, two per counter.
    const uint64_t p0 = first / 2, pairs = (end + 1) / 2 - p0;
    rng::for_each_result(kind, po, seed, p0, pairs, draws, [&](uint64_t i, rng::Stream& s) {
      auto [a, b] = pair(kind, s);
      const uint64_t r = 2 * (p0 + i);
      if (r >= first && r < end) out[r - first] = map(a);
      if (r + 1 >= first && r + 1 < end) out[r + 1 - first] = map(b);
    });
  });
  if (g->host) synchronize(g->stream);
  return CURAND_STATUS_SUCCESS;
}

// MT19937's Poisson results as the toolkit's host generator computes them
// (measured: docs/runtime.md): below lambda 2000 the square histogram of
// each result, from 2000 to 400000 the nearest integer to the float normal
// N(lambda, sqrt(lambda)) of each result, above 400000 refused.
curandStatus_t poisson_mt19937(curandGenerator_t g, unsigned* out, size_t n, double lambda) {
  if (!(lambda > 0) || lambda > 400000) return CURAND_STATUS_OUT_OF_RANGE;
  if (lambda < 2000) {
    auto table = std::make_shared<const poisson::SquareHistogram>(lambda);
    return generate_mt19937(g, "curandGeneratePoisson", out, n,
                            [=](uint32_t x) { return table->sample(x); });
  }
  const float mean = float(lambda), sd = std::sqrt(mean);
  return generate_mt19937(g, "curandGeneratePoisson", out, n, [=](uint32_t x) {
    return unsigned(std::floor(mean + sd * sobol::normal_icdf(x) + 0.5f));
  });
}

}  // namespace

extern "C" {

curandStatus_t curandGenerateNormal(curandGenerator_t g, float* out, size_t n, float mean,
                                    float sd) {
  if (g && g->mt19937)  // the inverse normal CDF of each result's uniform, as the toolkit's
    return generate_mt19937(g, "curandGenerateNormal", out, n,
                            [=](uint32_t x) { return mean + sd * sobol::normal_icdf(x); });
  if (sequence_only(g)) return refuse_on_sequence(g, "curandGenerateNormal");
  if (g && g->quasi != Quasi::None)
    return quasi::generate(g, "curandGenerateNormal", out, n, quasi::Out::Normal, mean, sd);
  return generate_pairs(g, "curandGenerateNormal", out, n, pair_float,
                        [=](float z) { return mean + sd * z; });
}
curandStatus_t curandGenerateNormalDouble(curandGenerator_t g, double* out, size_t n, double mean,
                                          double sd) {
  if (g && g->mt19937)
    return generate_mt19937(g, "curandGenerateNormalDouble", out, n,
                            [=](uint32_t x) { return mean + sd * sobol::normal_icdf_double(x); });
  if (sequence_only(g)) return refuse_on_sequence(g, "curandGenerateNormalDouble");
  if (g && g->quasi != Quasi::None)
    return quasi::generate(g, "curandGenerateNormalDouble", out, n, quasi::Out::NormalDouble, mean,
                           sd);
  return generate_pairs(g, "curandGenerateNormalDouble", out, n, pair_double,
                        [=](double z) { return mean + sd * z; });
}
curandStatus_t curandGenerateLogNormal(curandGenerator_t g, float* out, size_t n, float mean,
                                       float sd) {
  if (g && g->mt19937)
    return generate_mt19937(g, "curandGenerateLogNormal", out, n, [=](uint32_t x) {
      return std::exp(mean + sd * sobol::normal_icdf(x));
    });
  if (sequence_only(g)) return refuse_on_sequence(g, "curandGenerateLogNormal");
  if (g && g->quasi != Quasi::None)
    return quasi::generate(g, "curandGenerateLogNormal", out, n, quasi::Out::LogNormal, mean, sd);
  return generate_pairs(g, "curandGenerateLogNormal", out, n, pair_float,
                        [=](float z) { return std::exp(mean + sd * z); });
}
curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t g, double* out, size_t n,
                                             double mean, double sd) {
  if (g && g->mt19937)
    return generate_mt19937(g, "curandGenerateLogNormalDouble", out, n, [=](uint32_t x) {
      return std::exp(mean + sd * sobol::normal_icdf_double(x));
    });
  if (sequence_only(g)) return refuse_on_sequence(g, "curandGenerateLogNormalDouble");
  if (g && g->quasi != Quasi::None)
    return quasi::generate(g, "curandGenerateLogNormalDouble", out, n, quasi::Out::LogNormalDouble,
                           mean, sd);
  return generate_pairs(g, "curandGenerateLogNormalDouble", out, n, pair_double,
                        [=](double z) { return std::exp(mean + sd * z); });
}
// Poisson from one 32-bit draw per result through cuRAND's square histogram
// (curand_poisson.h), laid out as the generator's 32-bit results are.
curandStatus_t curandGeneratePoisson(curandGenerator_t g, unsigned int* out, size_t n,
                                     double lambda) {
  if (g && g->mt19937) return poisson_mt19937(g, out, n, lambda);
  if (sequence_only(g)) return refuse_on_sequence(g, "curandGeneratePoisson");
  if (g && !(lambda > 0)) return CURAND_STATUS_OUT_OF_RANGE;
  if (g && g->quasi != Quasi::None) {
    report_missing("cuRAND", "curandGeneratePoisson on a quasirandom generator",
                   "CURAND_STATUS_TYPE_ERROR");
    return CURAND_STATUS_TYPE_ERROR;
  }
  if (!g) return CURAND_STATUS_NOT_INITIALIZED;
  auto table = std::make_shared<const poisson::SquareHistogram>(lambda);
  return generate(g, "curandGeneratePoisson", out, n, 1,
                  [=](uint64_t i, rng::Stream& s) { out[i] = table->sample(s.next()); });
}

}  // extern "C"
