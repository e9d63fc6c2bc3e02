// What the conformance programs (array_flags.cu, graph_features.cu: each
// part checks its results on the host and says "ok PART", compared with the
// H100's own output in tests/data/h100_*.txt) share: a failed CUDA call or
// expectation prints "FAIL line N: ..." and ends the program.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                 \
  do {                                                                           \
    cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                     \
      std::printf("FAIL line %d: %s: %s\n", __LINE__, #x, cudaGetErrorName(e_)); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)
#define EXPECT(c)                                      \
  do {                                                 \
    if (!(c)) {                                        \
      std::printf("FAIL line %d: %s\n", __LINE__, #c); \
      std::exit(1);                                    \
    }                                                  \
  } while (0)
