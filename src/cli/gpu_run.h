// `smemlab run --gpu` and `--compare`: the launch prepared for the emulator,
// run on the real GPU instead (same PTX, same argument bytes), so outputs,
// Nsight Compute counters and compute-sanitizer reports refer to the very
// launch the emulator analyzes.
#pragma once

#include <cstdint>
#include <vector>

#include "cli/launch_options.h"
#include "gpu/device_launch.h"

namespace smemlab::cli {

// The launch on the GPU: final bytes of every argument (empty for scalars)
// and, with timed_launches > 0, that many further launches timed. Must be
// called before the emulated launch changes the buffers. Throws
// gpu::NoDevice (exit 3) or gpu::Error.
gpu::Outcome run_on_gpu(const Prepared& p, int timed_launches = 0);

}  // namespace smemlab::cli
