// Program mode: `smemlab run|analyze|check [options] -- APP [ARGS...]` runs
// an unmodified CUDA program with smemlab's libcuda.so.1 (src/runtime) first
// on its library path, so that every kernel it launches runs in the emulator
// (and, for analyze/check, is analyzed). The program's stdout/stderr pass
// through; smemlab's lines go to stderr (or --output) prefixed `==smemlab==`.
#pragma once

#include <string>

namespace smemlab::cli {

// argv[dashdash] is "--"; argv[1] is the subcommand. Returns the exit code.
int program_main(int argc, char** argv, int dashdash);

// The directory of the emulated libcuda.so.1 (build/runtime beside the
// smemlab binary, or SMEMLAB_RUNTIME_DIR); also used by `fix -- APP`.
std::string runtime_dir();
// APP as execvp would find it; "" with *why set if it cannot be run.
std::string find_program(const std::string& app, std::string* why);

// In the child about to exec the program: a smemlab built with AddressSanitizer
// puts its own ASan runtime first in LD_PRELOAD, since the program (not
// instrumented) can load the instrumented libcuda.so.1 only so. It goes to
// the program alone, never to nvcc or whoever started smemlab. Otherwise a no-op.
void preload_own_sanitizer();

}  // namespace smemlab::cli
