// What the driver-API test programs (-lcuda: contexts.cu, vmm.cu,
// driver_by_name.cu) share beside conform_checks.h: a failed CUresult call
// prints "FAIL line N: CALL: NAME" and ends the program; CU_CODE expects a
// given error code (the API's refusal of a bad argument).
#pragma once

#include <cuda.h>

#include "conform_checks.h"

#define CU(x)                                                             \
  do {                                                                    \
    CUresult r_ = (x);                                                    \
    if (r_ != CUDA_SUCCESS) {                                             \
      const char* n_ = nullptr;                                           \
      cuGetErrorName(r_, &n_);                                            \
      std::printf("FAIL line %d: %s: %s\n", __LINE__, #x, n_ ? n_ : "?"); \
      std::exit(1);                                                       \
    }                                                                     \
  } while (0)
#define CU_CODE(x, code)                                                                  \
  do {                                                                                    \
    CUresult r_ = (x);                                                                    \
    if (r_ != (code)) {                                                                   \
      const char* n_ = nullptr;                                                           \
      cuGetErrorName(r_, &n_);                                                            \
      std::printf("FAIL line %d: %s: %s, want %s\n", __LINE__, #x, n_ ? n_ : "?", #code); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)
