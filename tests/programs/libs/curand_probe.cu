// Records what an H100's cuRAND host API returns where smemlab has no rule
// yet (scripts/gpu-libs runs it natively; docs/runtime.md): the first 65536
// 32-bit results of MTGP32 and MT19937 and of every pseudo ordering of
// XORWOW, Philox and MRG32k3a, and Poisson sequences, at seed 1234. The
// dump (common.h's format, tolerance 0) is the data a later implementation
// of those generators and orderings is fitted to and tested against; under
// smemlab the generators it lacks are refused by name.
#include <curand.h>

#include "common.h"

// One record of common.h's dump format (name|u|0, the raw words): a
// measurement, compared by nothing here.
void dump(const char* name, const std::vector<unsigned>& v) {
  std::printf("RECORDED %s (%zu values)\n", name, v.size());
  if (!g_dump) return;
  std::string tag = std::string(name) + "|u|0";
  uint32_t len = uint32_t(tag.size()), bytes = uint32_t(v.size() * 4);
  std::fwrite(&len, 4, 1, g_dump), std::fwrite(tag.data(), 1, len, g_dump);
  std::fwrite(&bytes, 4, 1, g_dump), std::fwrite(v.data(), 1, bytes, g_dump);
}

void record(const char* name, curandRngType_t type, curandOrdering_t order, double lambda) {
  const size_t n = lambda > 0 ? 16384 : 65536;
  curandGenerator_t g;
  if (curandCreateGenerator(&g, type) != CURAND_STATUS_SUCCESS) {
    std::printf("SKIP %s: generator refused\n", name);
    return;
  }
  int s = curandSetPseudoRandomGeneratorSeed(g, 1234);
  if (!s) s = curandSetGeneratorOrdering(g, order);
  unsigned* d;
  CHECK_CUDA(cudaMalloc(&d, n * 4));
  if (!s) s = lambda > 0 ? curandGeneratePoisson(g, d, n, lambda) : curandGenerate(g, d, n);
  std::vector<unsigned> h(n);
  CHECK_CUDA(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
  if (s)
    std::printf("SKIP %s: status %d\n", name, s);
  else
    dump(name, h);
  cudaFree(d);
  curandDestroyGenerator(g);
}

int main(int argc, char** argv) {
  open_dump(argc, argv);
  record("mtgp32_default", CURAND_RNG_PSEUDO_MTGP32, CURAND_ORDERING_PSEUDO_DEFAULT, 0);
  record("mt19937_default", CURAND_RNG_PSEUDO_MT19937, CURAND_ORDERING_PSEUDO_DEFAULT, 0);
  record("mt19937_legacy", CURAND_RNG_PSEUDO_MT19937, CURAND_ORDERING_PSEUDO_LEGACY, 0);
  const struct {
    const char* name;
    curandOrdering_t o;
  } orders[] = {{"best", CURAND_ORDERING_PSEUDO_BEST},
                {"seeded", CURAND_ORDERING_PSEUDO_SEEDED},
                {"legacy", CURAND_ORDERING_PSEUDO_LEGACY},
                {"dynamic", CURAND_ORDERING_PSEUDO_DYNAMIC}};
  const struct {
    const char* name;
    curandRngType_t t;
  } types[] = {{"xorwow", CURAND_RNG_PSEUDO_XORWOW},
               {"philox", CURAND_RNG_PSEUDO_PHILOX4_32_10},
               {"mrg32k3a", CURAND_RNG_PSEUDO_MRG32K3A}};
  for (auto t : types) {
    for (auto o : orders) record((std::string(t.name) + "_" + o.name).c_str(), t.t, o.o, 0);
    record((std::string(t.name) + "_poisson7.5").c_str(), t.t, CURAND_ORDERING_PSEUDO_DEFAULT, 7.5);
    record((std::string(t.name) + "_poisson100").c_str(), t.t, CURAND_ORDERING_PSEUDO_DEFAULT, 100);
  }
  if (g_dump) std::fclose(g_dump);
  std::printf("DONE curand_probe\n");
  return 0;
}
