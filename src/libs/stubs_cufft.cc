// cuFFT's entry points smemlab does not implement: each names itself (stubs.h).
#include "libs/stubs.h"

#define X(name) SMEMLAB_LIB_STUB("cuFFT", "CUFFT_NOT_SUPPORTED", 16, name)
#include "libs/exports_cufft.inc"
#undef X
