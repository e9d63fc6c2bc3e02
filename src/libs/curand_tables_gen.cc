// Build step of smemlab's libcurand: writes the Sobol direction vectors and
// scramble constants (20,000 dimensions each) that ship with the CUDA
// toolkit's libcurand, read through its host getters (which need no GPU),
// into one file that curand_tables.cc embeds. They are the toolkit's tables
// (Joe and Kuo's direction numbers, NVIDIA's scrambled set and constants),
// not results of any generator run.
//
// Layout (curand_sobol.h reads it): v64, scrambled v64 [20000][64] u64;
// c64 [20000] u64; v32, scrambled v32 [20000][32] u32; c32 [20000] u32.
#include <curand.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: curand_tables_gen OUT\n");
    return 2;
  }
  curandDirectionVectors64_t *v64, *sv64;
  curandDirectionVectors32_t *v32, *sv32;
  unsigned long long* c64;
  unsigned* c32;
  if (curandGetDirectionVectors64(&v64, CURAND_DIRECTION_VECTORS_64_JOEKUO6) ||
      curandGetDirectionVectors64(&sv64, CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6) ||
      curandGetScrambleConstants64(&c64) ||
      curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6) ||
      curandGetDirectionVectors32(&sv32, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6) ||
      curandGetScrambleConstants32(&c32)) {
    std::fprintf(stderr, "curand_tables_gen: the toolkit's libcurand refused a table getter\n");
    return 1;
  }
  constexpr size_t kDims = 20000;
  FILE* f = std::fopen(argv[1], "wb");
  if (!f) {
    std::perror(argv[1]);
    return 1;
  }
  bool ok = std::fwrite(v64, sizeof(*v64), kDims, f) == kDims &&
            std::fwrite(sv64, sizeof(*sv64), kDims, f) == kDims &&
            std::fwrite(c64, sizeof(*c64), kDims, f) == kDims &&
            std::fwrite(v32, sizeof(*v32), kDims, f) == kDims &&
            std::fwrite(sv32, sizeof(*sv32), kDims, f) == kDims &&
            std::fwrite(c32, sizeof(*c32), kDims, f) == kDims;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) std::fprintf(stderr, "curand_tables_gen: cannot write %s\n", argv[1]);
  return ok ? 0 : 1;
}
