// The time model's cost harness (issue 31: "prediction costs nothing
// measurable beyond analyze itself"; scripts/timing-cost-callgrind, docs/
// timing.md "Cost"). A build configured with the CMake option
// SMEMLAB_TIMING_SHORT_CIRCUIT=ON (a measurement build, never a user option)
// compiles every entry point of the model to return at once: the footprint
// observer makes no block observers, the per-op walks (dependent issue,
// barrier phases, folded constant loads) and launch_work return empty
// results and predict() an invalid prediction. `analyze` then does all its
// other work, so the harness's callgrind instruction counts of the normal
// and the short-circuited binary differ by what the model costs.
#pragma once

namespace smemlab::timing {

#ifdef SMEMLAB_TIMING_SHORT_CIRCUIT
inline constexpr bool kShortCircuit = true;
#else
inline constexpr bool kShortCircuit = false;
#endif

}  // namespace smemlab::timing
