// cuRAND's entry points smemlab does not implement: each names itself (stubs.h).
#include "libs/stubs.h"

#define X(name) SMEMLAB_LIB_STUB("cuRAND", "CURAND_STATUS_INTERNAL_ERROR", 999, name)
#include "libs/exports_curand.inc"
#undef X
