// A block's barrier-separated phases (the time model's phase term, issue
// 31): per decoded op, how many block barriers (bar.sync, barrier.sync,
// bar.red) come before it in program order. The resident blocks of an SM,
// started together, pass their barriers in step (docs/timing.md, "Phases
// in step"), so the model sums each phase's slowest resource instead of
// taking one maximum over the whole block.
#pragma once

#include <cstdint>
#include <vector>

#include "emu/program.h"

namespace smemlab::timing {

// By pc. A loop whose body holds barriers keeps the phases its body's
// barriers separate: the code after the loop's last barrier (its tail and
// the back edge) is a phase of its own, the code before the first one
// another.
std::vector<uint32_t> barrier_phases(const emu::Program& p);

}  // namespace smemlab::timing
