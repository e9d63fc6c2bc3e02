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

}  // namespace smemlab::cli
