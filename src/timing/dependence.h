// A warp's own dependent path through a kernel's straight-line code (the
// block chain's issue part, issue 31): per decoded op, the cycles from the
// previous op's issue to its own when each ALU result (fp32, int, fp64,
// sfu pipes) is ready only alu_latency cycles after its issue, the
// dependent-issue latency h100.def measures. Memory results count as
// ready next clock here: their waits are the chain's own terms (model.cc).
#pragma once

#include <vector>

#include "emu/program.h"

namespace smemlab::timing {

// By pc: at least 1 (the op's own issue slot). A basic block starts with
// the ALU results its predecessors left in flight (the most any of them
// left), so a loop's back edge carries its dependent chain into the next
// iteration; ops whose register operands reg_operands does not know wait
// for nothing.
std::vector<double> dependent_issue_cycles(const emu::Program& p, double alu_latency);

}  // namespace smemlab::timing
