// Quiet epochs (issue 30): stretches of a block between two barriers in
// which no warp writes memory another warp could read, nor does anything
// else another warp could tell the order of. There the `gpu` schedule's
// turn at every shared or global load is kept while no warp can tell: each
// warp runs many of its old turns at once (its registers stay in L1), and
// the block's results, faults, budget faults and barrier releases are
// exactly those of the old turns. docs/emulator.md, "Quiet epochs", gives
// the argument; plan_quiet_epochs is the static half, run_quiet_round the
// dynamic one.
#pragma once

#include <cstdint>
#include <vector>

#include "emu/exec.h"

namespace smemlab::emu {

struct Program;

// Per pc, 1 (nonzero) when no path from it reaches, before a full-block barrier
// (bar.sync / bar.red without a thread count) or exit, an op that writes
// shared, global or surface memory (stmatrix and wmma.store included), an atomic, an async copy or
// mbarrier op, a call, printf or another built-in, a %clock read, a trap, a cluster or counted
// barrier (Program::quiet, after tier.h's plan_quiet_runs has put its quiet turns' run lengths in
// the nonzero entries).
std::vector<uint8_t> plan_quiet_epochs(const Program& p);

// Whether a warp that is alone in its block (every other warp's lanes wait
// at a barrier or have exited) may take its turns at once, whatever it
// stores: when no op of the program is an mbarrier op (their spin detector
// counts the schedule's rounds, which a quiet round merges).
bool lone_warp_may_keep_turns(const Program& p);

// Whether block `b` (no observer, the `gpu` schedule) is at the start of a
// quiet epoch: every live lane not waiting at a barrier is at a quiet pc,
// or only one warp has such lanes (when `lone_ok` and Program::lone_quiet;
// `*lone`: quiet for that reason alone); and nothing issued earlier can
// still land in memory (no pending async copies, no barrier with a thread
// count half arrived).
bool block_is_quiet(const BlockCtx& b, const uint8_t* quiet, bool lone_ok, bool* lone);

// A lone warp's quiet round that stood for fewer old rounds than this cost
// more than it saved (a warp one turn behind the others at every barrier:
// a shared stencil's sweep); the block then takes no more of them.
inline constexpr uint64_t kLoneRoundsThatPay = 16;
// Nor after this many arrivals that left no warp alone (a block whose
// warps arrive together at every barrier: judging each arrival costs).
inline constexpr uint64_t kLoneJudgements = 256;

// Old-schedule rounds one quiet round covers at most: bounds how long a
// warp keeps its turn (a stop request is seen between rounds).
inline constexpr uint32_t kQuietRounds = 256;

// Whether a quiet round starting now cannot cross the block's budget: the
// old turns check it after every turn, so it may be crossed only in them.
inline bool quiet_budget_ok(const BlockCtx& b, uint64_t slice) {
  const uint64_t most = uint64_t{kQuietRounds} * slice * b.warps.size();
  return b.steps <= b.budget && b.budget - b.steps >= most;
}

// kQuietRounds rounds of the `gpu` schedule from a round boundary in a
// quiet epoch, warp by warp (each up to kQuietRounds of its old turns),
// then, when a barrier released, the rest of the old round in which it
// released under the old turns. Throws the fault the old turns would have
// met first. `rounds`: the old rounds it covered.
RoundResult run_quiet_round(BlockCtx& b, WarpTurns& turns, uint64_t slice, uint64_t* rounds);

// Quiet rounds run in this process so far (tests: that a kernel took them).
uint64_t quiet_rounds_run();

}  // namespace smemlab::emu
