// How many global loads a warp keeps in flight (the latency term's MLP,
// issue 31): a warp issues in order and stalls at the first instruction
// that reads a load's result, so the loads it issues before such a use
// travel together, one round trip for the round. A loop whose every load is
// followed by its use before the next load (load; st.shared; branch) keeps
// one in flight, however many load instructions it has.
#pragma once

#include <cstdint>
#include <vector>

#include "emu/program.h"

namespace smemlab::timing {

// By pc: 1 for a load from global, local or generic memory that issues
// with no other such load of the warp outstanding (it starts a round), 0
// for loads that join the round in flight and for every other op. A use of
// an outstanding load's result, or a write of its register, waits for it
// and for the loads issued before it (their data return in order). A basic
// block starts with the loads its predecessors left outstanding, so a
// loop's loads used only in the next iteration overlap it. Ops whose
// registers reg_operands does not know wait for nothing, as in
// dependence.h. Empty: the control flow is not understood (the caller
// keeps its own estimate).
std::vector<uint8_t> load_round_starts(const emu::Program& p);

}  // namespace smemlab::timing
