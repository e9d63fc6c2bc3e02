// Execution tiers (issue 30). `interp`: the interpreter alone, one
// dispatch and one set of bookkeeping per warp-instruction (the reference).
// `jit` (the default): the decoded program is planned once into straight
// runs of per-lane arithmetic (instructions.def rows of kind Inline or
// CallAlu: no memory, control flow, events or faults), and the lanes at a
// warp's lowest PC (all of them when it is uniform) run a whole run per
// dispatch of the loop, up to where other lanes wait, their counters and
// PCs updated once per run; in a quiet turn the runs take loads too.
// Everything else is the interpreter's, so
// both tiers give the same results and the same events in the same order.
// The runs' native code: native_tier.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace smemlab::emu {

struct Program;

// Native: jit with the runs' native code compiled at the first launch
// (native_tier.h; jit compiles it in the background once it pays).
enum class Tier : uint8_t { Interp, Jit, Native };

// SMEMLAB_TIER from the environment (unset: jit; interp, jit or native). "" when valid, else the
// error naming the value.
std::string tier_from_env(Tier* tier);

// The length of the run of fusable ops that starts at each pc (0 for an op
// that is not fusable; capped at 255; 1 where it is shorter than
// kMinFusedRun: the loop runs those ops one by one), for Program::fused.
inline constexpr uint32_t kMinFusedRun = 3;
std::vector<uint8_t> plan_fused_runs(const Program& p);

// Program::quiet with the runs of a uniform warp's quiet turn
// (quiet_epochs.h) in it: `quiet` (plan_quiet_epochs: 0 or 1 per pc) with
// each quiet pc's 1 raised to 1 + the length of the run from it (capped at
// 254), where runs also take loads (`ld`/`ldu` of any space, type and
// width): in a quiet turn no other warp writes what they read, and each
// shared or global load ends one of the turn's old turns inside the run,
// as it would outside one (warp_loop.h, run_quiet_fused).
std::vector<uint8_t> plan_quiet_runs(const Program& p, std::vector<uint8_t> quiet);

}  // namespace smemlab::emu
