#include "timing/phases.h"

#include "timing/classify.h"
#include "timing/short_circuit.h"

namespace smemlab::timing {

std::vector<uint32_t> barrier_phases(const emu::Program& p) {
  if (kShortCircuit) return {};  // the cost harness (short_circuit.h)
  std::vector<uint32_t> phase(p.ops.size(), 0);
  uint32_t passed = 0;
  for (size_t pc = 0; pc < p.ops.size(); ++pc) {
    // The barrier itself ends its phase: its wait belongs to the code
    // before it.
    phase[pc] = passed;
    const uint32_t info = p.ops[pc].info;
    if (info < p.info.size() && block_barrier(p.info[info].text)) ++passed;
  }
  return phase;
}

}  // namespace smemlab::timing
