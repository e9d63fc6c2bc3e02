// cuBLASLt's entry points smemlab does not implement: each names itself (stubs.h).
#include "libs/stubs.h"

#define X(name) SMEMLAB_LIB_STUB("cuBLASLt", "CUBLAS_STATUS_NOT_SUPPORTED", 15, name)
#include "libs/exports_cublasLt.inc"
#undef X
