#include "emu/quiet_epochs.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <vector>

#include "emu/instructions.h"
#include "emu/program.h"

namespace smemlab::emu {
namespace {

// What one op is to a quiet epoch, derived once from instructions.def's
// class column: Alu, Tensor (register fragments), Collective (within the
// warp) and Fence (an event for observers only) change nothing another warp
// can see; of the Memory class only reads, and stores to the thread's own
// local frame. Control flow and full-block barriers are judged per op
// (quiet_effect).
enum class QuietEffect : uint8_t { Quiet, Noisy, Branch, Exit, Barrier };

constexpr std::array<QuietEffect, kNumCodes> quiet_effects() {
  std::array<QuietEffect, kNumCodes> a{};
  for (auto& e : a) e = QuietEffect::Noisy;
#define SMEMLAB_QUIET_MARK(ty, base) a[code(base, ty)] = quiet_class(base);
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) SMEMLAB_TYPES_##types(SMEMLAB_QUIET_MARK, base)
  auto quiet_class = [](Base b) {
    switch (b) {
      case BRA:
        return QuietEffect::Branch;
      case EXIT:
        return QuietEffect::Exit;
      case BAR:
        return QuietEffect::Barrier;
      case LD:        // (ST: local stores only, per op)
      case LDMATRIX:  // (not stmatrix: per op)
      case TEX:
      case SULD:
        return QuietEffect::Quiet;
      case WGMMA_SYNC:  // (completes wgmma, itself noisy: kept noisy too)
        return QuietEffect::Noisy;
      default:
        break;
    }
    const OpClass c = op_class(b);
    return c == OpClass::Alu || c == OpClass::Tensor || c == OpClass::Collective ||
                   c == OpClass::Fence
               ? QuietEffect::Quiet
               : QuietEffect::Noisy;
  };
#include "emu/instructions.def"
#undef SMEMLAB_QUIET_MARK
  return a;
}
constexpr std::array<QuietEffect, kNumCodes> kQuietEffect = quiet_effects();

QuietEffect quiet_effect(const Program& p, const Op& op) {
  const uint32_t base = op.code / 16;
  if (base == ST && static_cast<MSpace>(op.aux) == MSpace::Local) return QuietEffect::Quiet;
  // stmatrix is an LDMATRIX row (t2 = 1), wmma.store an MMA one: writes.
  if (base == LDMATRIX && op.t2 != 0) return QuietEffect::Noisy;
  if (base == MMA && (static_cast<size_t>(op.imm) >= p.tensor_ops.size() ||
                      p.tensor_ops[static_cast<size_t>(op.imm)].kind == TensorOp::WmmaStore))
    return QuietEffect::Noisy;
  QuietEffect e = op.code < kNumCodes ? kQuietEffect[op.code] : QuietEffect::Noisy;
  // bar.sync and bar.red of the whole block end an epoch; bar.arrive and
  // counted barriers release part of it in arrival order: noisy.
  if (e == QuietEffect::Barrier && (op.aux == 1 || op.r[1] != UINT32_MAX)) e = QuietEffect::Noisy;
  return e;
}

}  // namespace

std::vector<uint8_t> plan_quiet_epochs(const Program& p) {
  const size_t n = p.ops.size();
  std::vector<QuietEffect> eff(n);
  for (size_t i = 0; i < n; ++i) eff[i] = quiet_effect(p, p.ops[i]);
  // The greatest fixed point of quiet(i) = op i not noisy and every
  // successor quiet (an epoch's end has none): "no path reaches a noisy
  // op". Start from all quiet and lower until nothing changes; backward
  // passes settle straight code in one pass, each loop in one more.
  std::vector<uint8_t> q(n, 1);
  auto at = [&](uint64_t i) { return i < n ? q[i] : uint8_t{1}; };  // past the end: no path
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = n; i-- > 0;) {
      if (!q[i]) continue;
      const Op& op = p.ops[i];
      const bool guarded = op.guard >= 0;
      bool ok = true;
      switch (eff[i]) {
        case QuietEffect::Noisy:
          ok = false;
          break;
        case QuietEffect::Quiet:
          ok = at(i + 1);
          break;
        case QuietEffect::Branch:  // (both ways: the executor splits the lanes)
          ok = at(static_cast<uint64_t>(op.imm)) && at(i + 1);
          break;
        case QuietEffect::Exit:
        case QuietEffect::Barrier:  // lanes it skips (guard) go on in this epoch
          ok = !guarded || at(i + 1);
          break;
      }
      if (!ok) {
        q[i] = 0;
        changed = true;
      }
    }
  }
  return q;
}

bool lone_warp_may_keep_turns(const Program& p) {
  for (const Op& op : p.ops)
    if (op.code / 16 == MBAR) return false;
  return true;
}

namespace {

// Whether the warp's `lanes` (live, not waiting at a barrier) are all at
// quiet pcs.
bool lanes_at_quiet_pcs(const Warp& w, uint32_t lanes, const uint8_t* quiet) {
  // (Only the runnable lanes are at cpc; lanes waiting at a collective keep
  // their own pc[]: judged conservatively.)
  if (w.uniform) return lanes == w.runnable && quiet[w.cpc];
  for (uint32_t m = lanes; m; m &= m - 1)
    if (!quiet[w.pc[__builtin_ctz(m)]]) return false;
  return true;
}

}  // namespace

bool block_is_quiet(const BlockCtx& b, const uint8_t* quiet, bool lone_ok, bool* lone) {
  *lone = false;
  for (const Barrier& bar : b.bars)
    if (bar.arrived && bar.count) return false;
  // A lone warp (every other warp's lanes wait at a barrier or have
  // exited): until the next release no other warp runs, so no other warp
  // can see where its turns end, whatever it stores (docs/emulator.md,
  // "sixth step").
  lone_ok = lone_ok && b.prog->lone_quiet;
  uint32_t active = 0;  // warps with lanes not waiting at a barrier
  bool all_quiet = true;
  for (size_t wi = 0; wi < b.warps.size(); ++wi) {
    const Warp& w = b.warps[wi];
    const AsyncState& a = b.async[wi];
    if (!a.copies.empty() || !a.bulk.empty() || w.in_call) return false;
    const uint32_t lanes = w.live & ~w.bar_wait;
    if (!lanes) continue;
    ++active;
    if (all_quiet) all_quiet = lanes_at_quiet_pcs(w, lanes, quiet);
    // (Judged after each arrival while not quiet: most blocks answer at
    // their second warp.)
    if (!all_quiet && (active > 1 || !lone_ok)) return false;
  }
  *lone = !all_quiet;
  return true;
}

namespace {

// Each warp's quiet turn of the round, with its old turns' counts.
struct QuietRound {
  std::vector<QuietTurn> turns;
  std::vector<uint64_t> history;
  void reset(size_t warps) {
    turns.assign(warps, QuietTurn{});
    history.resize(warps * 2 * (kQuietRounds + 1));
    for (size_t i = 0; i < warps; ++i) {
      turns[i].steps_at = &history[i * 2 * (kQuietRounds + 1)];
      turns[i].lanes_at = turns[i].steps_at + kQuietRounds + 1;
    }
  }
};

// Warp `q`'s steps (lanes) in its old turns before turn `t` (fault_turn:
// the turns it began after the first, whose counts steps_at keeps).
uint64_t steps_before(const QuietTurn& q, uint32_t t) {
  return t <= q.fault_turn ? q.steps_at[t] : q.steps;
}
uint64_t lanes_before(const QuietTurn& q, uint32_t t) {
  return t <= q.fault_turn ? q.lanes_at[t] : q.lanes;
}

// A fault met in warp `x`'s quiet turn, in its old turn `t`: the old turns
// would have met first a fault of a later warp in an earlier turn (a warp
// before x in the round took all its turns without one). Each later warp
// runs its turns before the earliest so far; the earliest is thrown, with
// the block's counts where the old turns had them: every turn before it in
// (turn, warp) order counted, the lanes only of the rounds before (a round
// adds them at its end).
[[noreturn]] void quiet_fault(BlockCtx& b, uint64_t slice, QuietRound& qr, size_t x, Fault f,
                              uint64_t steps0, uint64_t lanes0) {
  const size_t warps = b.warps.size();
  uint32_t t = qr.turns[x].fault_turn;
  for (size_t y = x + 1; y < warps && t > 0; ++y) {
    Warp& w = b.warps[y];
    if (!w.runnable) continue;
    QuietTurn& q = qr.turns[y];
    q.turns = t;
    try {
      run_quiet_turn(b, w, slice, q);
    } catch (const Fault& g) {
      f = g;
      x = y;
      t = q.fault_turn;
    }
  }
  uint64_t steps = steps0, lanes = lanes0;
  for (size_t i = 0; i < warps; ++i) {
    const QuietTurn& q = qr.turns[i];
    if (q.turns == 0) continue;  // (blocked: took no turn)
    steps += steps_before(q, i < x ? t + 1 : t);
    lanes += lanes_before(q, t);
  }
  b.steps = steps;
  b.lane_steps = lanes;
  throw f;
}

}  // namespace

static std::atomic<uint64_t> g_quiet_rounds{0};  // (quiet_rounds_run)

uint64_t quiet_rounds_run() { return g_quiet_rounds.load(std::memory_order_relaxed); }

RoundResult run_quiet_round(BlockCtx& b, WarpTurns& turns, uint64_t slice, uint64_t* rounds) {
  g_quiet_rounds.fetch_add(1, std::memory_order_relaxed);
  static thread_local QuietRound qr;
  qr.reset(b.warps.size());
  RoundResult r;
  const uint64_t before = b.steps, lanes0 = b.lane_steps;
  bool live = false;
  size_t last = SIZE_MAX;  // the warp whose arrival the old turns released the barrier at
  uint32_t last_turn = 0, used = 0;
  uint64_t last_steps = 0;
  bool released = false;
  for (size_t i = 0; i < b.warps.size() && !released; ++i) {
    Warp& w = b.warps[i];
    live |= w.live != 0;
    if (!w.runnable) continue;
    QuietTurn& q = qr.turns[i];
    q.turns = kQuietRounds;
    try {
      run_quiet_turn(b, w, slice, q);
    } catch (const Fault& f) {
      quiet_fault(b, slice, qr, i, f, before, lanes0);
    }
    used = std::max(used, q.taken);
    released = q.released;
    // The old turns' order is (turn, warp): the latest arrival is the one
    // the barrier released at, whichever warp arrived last here.
    if (q.arrival_turn != UINT32_MAX && (last == SIZE_MAX || q.arrival_turn >= last_turn)) {
      last = i;
      last_turn = q.arrival_turn;
      last_steps = q.arrival_steps;
    }
  }
  *rounds = used;
  if (released) {
    // Every warp now waits at the barrier as under the old turns at the
    // release; there warp `last` went on with its turn, then the warps
    // after it took theirs: the rest of that old round.
    b.steps -= last_steps;
    RoundResult tail;
    try {
      tail = run_round_from(b, turns, slice, static_cast<uint32_t>(last), last_steps);
    } catch (const Fault&) {
      // The old loop adds a round's lanes at its end, so a fault in the
      // rest of the releasing round keeps only the lanes of the rounds
      // before it: every warp's old turns before `last_turn`.
      uint64_t lanes = lanes0;
      for (const QuietTurn& q : qr.turns)
        if (q.turns) lanes += lanes_before(q, last_turn);
      b.lane_steps = lanes;
      throw;
    }
    *rounds = uint64_t{last_turn} + 1;
    r.over_budget = tail.over_budget;
    live = live || tail.alive;
  }
  r.steps = b.steps - before;
  r.progress = r.steps > 0;
  r.alive = live;
  return r;
}

}  // namespace smemlab::emu
