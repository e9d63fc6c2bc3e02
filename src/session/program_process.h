// Starting a program on the emulated driver (program mode): where
// smemlab's libcuda.so.1 is, the program as execvp would find it, and the
// sanitizer runtime an ASan build of smemlab must preload into it. Used by
// `smemlab run|analyze|check -- APP` and `fix ... -- APP`.
#pragma once

#include <string>

namespace smemlab::session {

// The directory of the emulated libcuda.so.1 (build/runtime beside the
// smemlab binary, or SMEMLAB_RUNTIME_DIR).
std::string runtime_dir();
// APP as execvp would find it; "" with *why set if it cannot be run.
std::string find_program(const std::string& app, std::string* why);
// In the child about to exec the program: a smemlab built with AddressSanitizer
// puts its own ASan runtime first in LD_PRELOAD, since the program (not
// instrumented) can load the instrumented libcuda.so.1 only so. It goes to
// the program alone, never to nvcc or whoever started smemlab. Otherwise a no-op.
void preload_own_sanitizer();

}  // namespace smemlab::session
