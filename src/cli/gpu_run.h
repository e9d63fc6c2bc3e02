// `smemlab run --gpu` and `--compare`: the launch prepared for the emulator,
// run on the real GPU instead (same PTX, same argument bytes), so outputs,
// Nsight Compute counters and compute-sanitizer reports refer to the very
// launch the emulator analyzes.
#pragma once

#include <cstdint>
#include <vector>

#include "cli/launch_options.h"

namespace smemlab::cli {

// Final bytes of every argument (empty for scalars), read back from the GPU.
// Must be called before the emulated launch changes the buffers. Throws
// gpu::NoDevice (exit 3) or gpu::Error.
std::vector<std::vector<uint8_t>> run_on_gpu(const Prepared& p);

}  // namespace smemlab::cli
