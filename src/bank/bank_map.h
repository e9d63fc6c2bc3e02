// Text rendering of one warp request's bank map (for `smemlab bank` and the
// worst request of `smemlab analyze`): banks across, wavefronts down, the
// lane each bank serves in the cells, like the figures of the CUDA
// programming guide.
#pragma once

#include <cstdint>
#include <string>

#include "bank/bank.h"

namespace smemlab::bank {

// "0-3,8,10-11" for the set bits of `lanes`.
std::string lane_list(uint32_t lanes);

// The grid for `result` (a Model's answer for one request), one line per
// wavefront, ending with a newline. Cells show the lowest lane a bank
// serves in that wavefront; '*' marks a cell serving several lanes (a
// broadcast, or several words of one bank), listed in a legend below.
std::string render_bank_map(const bank::Result& result, unsigned banks);

}  // namespace smemlab::bank
