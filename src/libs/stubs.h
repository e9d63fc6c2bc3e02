// The stubs of a library's entry points (exports_<lib>.inc): weak, so an
// implemented function of the same name overrides its stub at link time.
// A stub says once that its entry point is not implemented (the driver's
// unsupported-API line) and returns the library's "not supported" status.
// Declared without their signatures: this file includes no library header.
#pragma once

#include "libs/bridge.h"

#define SMEMLAB_LIB_STUB(library, code_name, code, name)      \
  extern "C" __attribute__((weak)) int name() {               \
    smemlab::libs::report_missing(library, #name, code_name); \
    return code;                                              \
  }
