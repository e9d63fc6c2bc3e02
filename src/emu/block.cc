// A thread block: warps take turns as the launch's Schedule says (each runs
// until it blocks, its turn's memory ops are done or a time slice ends),
// barriers counted in threads, deadlock detection, and the per-block
// instruction budget.
#include "emu/block.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>

#include "emu/hopper_events.h"
#include "emu/liveness.h"
#include "emu/quiet_epochs.h"
#include "emu/reg_operands.h"

namespace smemlab::emu {
namespace {

// The value of a cluster special register in block `id` (a plain launch
// is a grid of 1x1x1 clusters).
uint64_t cluster_special(Program::SpecialKind kind, const LaunchEnv& env, Dim3 id) {
  const Dim3 c = env.cluster;
  switch (kind) {
    case Program::CLUSTER_CTARANK:
      return id.x % c.x + c.x * (id.y % c.y + c.y * (id.z % c.z));
    case Program::CLUSTER_NCTARANK:
      return uint64_t{c.x} * c.y * c.z;
    case Program::CLUSTERID_X:
      return id.x / c.x;
    case Program::CLUSTERID_Y:
      return id.y / c.y;
    case Program::CLUSTERID_Z:
      return id.z / c.z;
    case Program::NCLUSTERID_X:
      return env.grid.x / c.x;
    case Program::NCLUSTERID_Y:
      return env.grid.y / c.y;
    case Program::NCLUSTERID_Z:
      return env.grid.z / c.z;
    case Program::CLUSTER_CTAID_X:
      return id.x % c.x;
    case Program::CLUSTER_CTAID_Y:
      return id.y % c.y;
    case Program::CLUSTER_CTAID_Z:
      return id.z % c.z;
    case Program::CLUSTER_NCTAID_X:
      return c.x;
    case Program::CLUSTER_NCTAID_Y:
      return c.y;
    default:  // CLUSTER_NCTAID_Z
      return c.z;
  }
}

// Values of a special register for the 32 lanes of warp `wi`.
void fill_special(uint64_t* R, Program::SpecialKind kind, const LaunchEnv& env, Dim3 id,
                  uint32_t wi, uint32_t nwarps) {
  uint64_t uniform;
  if (kind >= Program::CLUSTER_CTARANK) {
    uniform = cluster_special(kind, env, id);
    for (uint32_t l = 0; l < 32; ++l) R[l] = uniform;
    return;
  }
  switch (kind) {
    case Program::TID_X:
    case Program::TID_Y:
    case Program::TID_Z: {
      // Counted up from lane 0 (two divisions per warp, not per lane: this
      // runs for every warp of every block).
      uint32_t t = wi * 32, bx = env.block.x, by = env.block.y;
      uint32_t x = t % bx, y = (t / bx) % by, z = t / (bx * by);
      if (x + 32 <= bx) {
        // The warp inside one row (blockDim.x a multiple of 32, the common
        // case): no lane wraps, so a loop without the carries, which
        // vectorizes (the loop below gives the same values).
        if (kind == Program::TID_X) {
          for (uint32_t l = 0; l < 32; ++l) R[l] = x + l;
        } else {
          const uint64_t v = kind == Program::TID_Y ? y : z;
          for (uint32_t l = 0; l < 32; ++l) R[l] = v;
        }
        return;
      }
      for (uint32_t l = 0; l < 32; ++l) {
        R[l] = kind == Program::TID_X ? x : kind == Program::TID_Y ? y : z;
        if (++x == bx) {
          x = 0;
          if (++y == by) {
            y = 0;
            ++z;
          }
        }
      }
      return;
    }
    case Program::LANEID:
      for (uint32_t l = 0; l < 32; ++l) R[l] = l;
      return;
    case Program::LANEMASK_EQ:
      for (uint32_t l = 0; l < 32; ++l) R[l] = 1u << l;
      return;
    case Program::LANEMASK_LT:
      for (uint32_t l = 0; l < 32; ++l) R[l] = (1u << l) - 1;
      return;
    case Program::LANEMASK_LE:
      for (uint32_t l = 0; l < 32; ++l) R[l] = l == 31 ? ~0u : (2u << l) - 1;
      return;
    case Program::LANEMASK_GT:
      for (uint32_t l = 0; l < 32; ++l) R[l] = l == 31 ? 0u : ~((2u << l) - 1);
      return;
    case Program::LANEMASK_GE:
      for (uint32_t l = 0; l < 32; ++l) R[l] = ~((1u << l) - 1);
      return;
    case Program::NTID_X:
      uniform = env.block.x;
      break;
    case Program::NTID_Y:
      uniform = env.block.y;
      break;
    case Program::NTID_Z:
      uniform = env.block.z;
      break;
    case Program::CTAID_X:
      uniform = id.x;
      break;
    case Program::CTAID_Y:
      uniform = id.y;
      break;
    case Program::CTAID_Z:
      uniform = id.z;
      break;
    case Program::NCTAID_X:
      uniform = env.grid.x;
      break;
    case Program::NCTAID_Y:
      uniform = env.grid.y;
      break;
    case Program::NCTAID_Z:
      uniform = env.grid.z;
      break;
    case Program::WARPID:
      uniform = wi;
      break;
    case Program::NWARPID:
      uniform = nwarps;
      break;
    case Program::NSMID:
      uniform = 1;
      break;
    case Program::DYN_SMEM:
      uniform = env.dynamic_shared;
      break;
    case Program::TOTAL_SMEM:
      uniform = env.prog->static_shared + env.dynamic_shared;
      break;
    case Program::ENVREG1:
      uniform = env.grid_workspace >> 32;
      break;
    case Program::ENVREG2:
      uniform = env.grid_workspace & 0xffffffffu;
      break;
    default:
      uniform = 0;
  }
  for (uint32_t l = 0; l < 32; ++l) R[l] = uniform;
}

// Registers every thread writes before it can read them: an unguarded
// definition in the kernel's entry sequence (the ops before the first branch
// or other op reg_operands does not know, which every lane of a full warp
// executes in order) with no earlier read. A block need not clear them,
// which for short kernels was a third of the run time (a 64-bit x 32-lane
// slot per register per warp).
std::vector<bool> written_first(const Program& p) {
  std::vector<bool> read(p.num_regs, false), defined(p.num_regs, false);
  for (const Op& op : p.ops) {
    RegOperands o = reg_operands(op);
    Base b = static_cast<Base>(op.code / 16);
    if (!o.known || b == BRA || b == EXIT) break;
    for (uint8_t i = 0; i < o.nuse; ++i) {
      uint32_t r = op.r[o.use[i]];
      if (r < p.num_regs && !defined[r]) read[r] = true;
    }
    for (uint8_t i = 0; i < o.ndef; ++i) {
      uint32_t r = op.r[o.def[i]];
      if (op.guard < 0 && r < p.num_regs && !read[r]) defined[r] = true;
    }
  }
  return defined;
}

// Registers some thread may read before it writes them, by per-thread
// liveness at the entry of the kernel's control-flow graph (the CFG of
// decode_regalloc.cc: blocks end at branches, exits and traps; a branch
// also falls through). Each lane reads only its own lane of a register
// except through ops reg_operands does not know (shuffles, votes, tensor and
// texture ops), so every register those name counts as read first, as do
// constants. Only these need their template value at the start of a block
// (short blocks spent a fifth of their time copying the rest). Everything,
// if the CFG is not one this understands.
std::vector<bool> read_first(const Program& p) {
  const uint32_t n = p.num_regs;
  const size_t nops = p.ops.size();
  std::vector<bool> all(n, true);
  // (Real calls: the callees' bodies are reached only through CALL.)
  if (n == 0 || nops == 0 || n > 4096 || !p.callees.empty()) return all;
  std::vector<bool> first(n, false);
  auto mark = [&](uint32_t r) {
    if (r < n) first[r] = true;
  };
  for (uint32_t r = 0; r < n && r < p.const_regs.size(); ++r)
    if (p.const_regs[r]) first[r] = true;
  for (const TensorOp& t : p.tensor_ops) t.for_each_register(mark);
  for (const TexOp& t : p.tex_ops)
    for (uint32_t r : t.coord) mark(r);
  for (const TmaOp& t : p.tma_ops)
    for (uint32_t r : t.regs) mark(r);
  std::vector<RegOperands> opnd(nops);
  for (size_t pc = 0; pc < nops; ++pc) {
    opnd[pc] = reg_operands(p.ops[pc]);
    if (!opnd[pc].known)
      for (uint32_t r : p.ops[pc].r) mark(r);
  }
  std::optional<BasicBlocks> g = basic_blocks(p.ops);
  if (!g) return all;
  Liveness L = liveness(p, *g, opnd, [n](uint32_t r) { return r < n; });
  for (uint32_t r = 0; r < n; ++r)
    if (test_bit(L.live_in[0], r)) first[r] = true;
  return first;
}

void release_lanes(Warp& w, uint32_t lanes) {
  if (w.uniform) {
    SMEMLAB_FOR_LANES(w.runnable, w.pc[l] = w.cpc);
    w.uniform = false;
  }
  w.bar_wait &= ~lanes;
  w.runnable |= lanes;
  // A warp whose live lanes now all run at one pc, outside calls, is uniform
  // again (as the warp loop's next step would find it, without its search
  // for the lowest pc): the usual end of a __syncthreads().
  if (w.runnable == w.live && !w.in_call) {
    const uint32_t pc = w.pc[__builtin_ctz(lanes)];
    uint32_t off = 0;
    SMEMLAB_FOR_LANES(w.runnable, off |= w.pc[l] ^ pc);
    if (off == 0) {
      w.uniform = true;
      w.cpc = pc;
    }
  }
}

std::string where(const BlockCtx& b, uint32_t pc) {
  const InstrInfo& i = b.prog->info[b.prog->ops[pc].info];
  std::string s = fmt::format("{} (PTX line {}", i.text, i.ptx_line);
  if (i.loc >= 0 && b.prog->lines) s += ", " + b.prog->lines->describe(i.loc);
  return s + ")";
}

// Releases barrier `id` when its arrivals are complete. After every
// barrier_check no barrier is left complete, and only an arrival at a
// barrier or an exit (fewer threads to wait for) can complete one: so an
// arrival needs to check its own barrier only, an exit all of them.
void release_if_complete(BlockCtx& b, uint32_t id) {
  Barrier& bar = b.bars[id];
  if (bar.arrived == 0) return;
  uint32_t expected = bar.count ? bar.count : b.live_threads;
  if (bar.arrived < expected) return;
  const Op& op = b.prog->ops[bar.last_pc];
  for (Warp& w : b.warps) {
    uint32_t lanes = w.bar_lanes[id] & w.bar_wait;
    if (!lanes) continue;
    w.bar_lanes[id] = 0;
    if (op.code == code(BAR, U32) && op.aux == 2) {
      if (op.t2 == 0) {
        SMEMLAB_FOR_LANES(lanes, regw(w, op.r[2])[l] = bar.popc);
      } else {
        bool r = op.t2 == 1 ? bar.all : bar.any;
        w.P[op.r[2]] = (w.P[op.r[2]] & ~lanes) | (r ? lanes : 0u);
      }
    }
    release_lanes(w, lanes);
  }
  bar.arrived = 0;
  bar.count = 0;
  bar.popc = 0;
  bar.all = true;
  bar.any = false;
  ++bar.epoch;
  ++b.releases;
  if (b.obs) b.obs->on_barrier_release(BarrierRelease{id, bar.epoch});
}

}  // namespace

void barrier_arrive(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  uint32_t lane = static_cast<uint32_t>(__builtin_ctz(exec));
  uint64_t id = reg(w, op.r[0])[lane];
  if (id >= 16)
    fault(w, pc, static_cast<int>(lane), FaultKind::Barrier,
          fmt::format("barrier id {} out of range 0..15", id));
  uint32_t count = op.r[1] == UINT32_MAX ? 0u : static_cast<uint32_t>(reg(w, op.r[1])[lane]);
  Barrier& bar = b.bars[id];
  if (count) bar.count = count;
  // (A whole warp without a call: this file is built without popcnt.)
  bar.arrived += exec == ~0u ? 32u : static_cast<uint32_t>(__builtin_popcount(exec));
  ++b.arrivals;
  bar.last_pc = pc;
  BarrierKind kind = op.aux == 0   ? BarrierKind::Sync
                     : op.aux == 1 ? BarrierKind::Arrive
                                   : BarrierKind::Red;
  if (kind == BarrierKind::Red) {
    uint32_t p = (w.P[op.r[3]] ^ (op.vec ? ~0u : 0u)) & exec;
    bar.popc += static_cast<uint32_t>(__builtin_popcount(p));
    bar.all = bar.all && p == exec;
    bar.any = bar.any || p != 0;
  }
  if (b.obs)
    b.obs->on_barrier(BarrierArrive{kind, op.aux2 == 1, static_cast<uint32_t>(id),
                                    bar.count ? bar.count : b.live_threads, exec, w.live,
                                    &b.prog->info[op.info], b.id, w.index, bar.count != 0});
  if (kind != BarrierKind::Arrive) {
    w.bar_wait |= exec;
    w.runnable &= ~exec;
    SMEMLAB_FOR_LANES(exec, w.bar_of[l] = static_cast<uint8_t>(id));
    w.bar_lanes[id] |= exec;
  }
  release_if_complete(b, static_cast<uint32_t>(id));
}

void barrier_check(BlockCtx& b) {
  // (The barriers with arrivals first, without branches: at an exit there
  // are few or none.)
  uint32_t waiting = 0;
  for (uint32_t id = 0; id < 16; ++id) waiting |= (b.bars[id].arrived != 0 ? 1u : 0u) << id;
  for (; waiting; waiting &= waiting - 1)
    release_if_complete(b, static_cast<uint32_t>(__builtin_ctz(waiting)));
}

void on_exit_lanes(BlockCtx& b, Warp& w, uint32_t pc, uint32_t mask) {
  // Copies a thread never waited for still complete (the latest point).
  if (!b.async[w.index].copies.empty()) cpasync_complete_all(b, w, mask);
  if (!b.async[w.index].bulk.empty()) bulk_complete_all(b, w, mask);  // (observers only)
  b.live_threads -= static_cast<uint32_t>(__builtin_popcount(mask));
  ++b.arrivals;
  if (b.obs) b.obs->on_exit(Exit{mask, &b.prog->info[b.prog->ops[pc].info], b.id, w.index});
  barrier_check(b);
  cluster_exit_lanes(b, w, mask);
}

void BlockRunner::run(const LaunchEnv& env, Dim3 id, BlockObserver* obs) {
  begin(env, id, obs, nullptr, 0);
  BlockCtx& b = ctx_;
  const uint32_t nwarps = static_cast<uint32_t>(b.warps.size());
  uint64_t published = 0, idle_rounds = 0;
  WarpTurns turns(env.schedule, nwarps, (uint64_t{id.z} * env.grid.y + id.y) * env.grid.x + id.x);
  spin_.reset();
  // Quiet epochs (quiet_epochs.h): judged at the block's start and after
  // each barrier release (between them a quiet block stays quiet), and
  // while not quiet after each arrival (the one that leaves a warp alone).
  const uint8_t* quiet =
      nwarps > 1 && !obs && b.counts.empty() && !env.cooperative ? env.quiet : nullptr;
  uint64_t judged = UINT64_MAX, judged_arrivals = UINT64_MAX;
  bool in_quiet = false, lone = false, lone_pays = true;
  uint64_t lone_misses = 0;  // arrivals judged in vain
  for (;;) {
    if (quiet &&
        (judged != b.releases || (!in_quiet && lone_pays && judged_arrivals != b.arrivals))) {
      const bool at_arrival = judged == b.releases;
      judged = b.releases;
      judged_arrivals = b.arrivals;
      in_quiet = block_is_quiet(b, quiet, lone_pays, &lone);
      if (at_arrival && !in_quiet && ++lone_misses > kLoneJudgements) lone_pays = false;
    }
    // A round of turns in one interpreter call (a call per turn cost a
    // fifth of a shared-tile kernel's time under the gpu schedule).
    RoundResult round;
    if (in_quiet && quiet_budget_ok(b, kSlice)) {
      uint64_t rounds = 1;
      round = run_quiet_round(b, turns, kSlice, &rounds);
      // (The old rounds it stood for, as the mbarrier watch counts them.)
      if (rounds > 1) b.mbar.round += rounds - 1;
      if (lone && rounds < kLoneRoundsThatPay) lone_pays = false;
    } else {
      round = run_round(b, turns, kSlice);
    }
    if (round.over_budget) {
      if (!extend_budget(b)) budget_fault(b, *round.over_budget);
    } else {
      if (!round.alive) break;
      if (!round.progress) deadlock();
    }
    BlockCtx* self = &b;
    spin_.after_round(std::span<BlockCtx* const>(&self, 1));
    turns.next_round();
    between_rounds(env, b.writes, published, idle_rounds);
  }
  end();
}

void budget_fault(const BlockCtx& b, const Warp& w) {
  uint32_t lane = w.runnable ? static_cast<uint32_t>(__builtin_ctz(w.runnable)) : 0;
  uint32_t pc = w.uniform ? w.cpc : w.pc[lane];
  fault(
      w, pc, static_cast<int>(lane), FaultKind::Budget,
      fmt::format("instruction budget of {} warp-instructions per block exhausted (endless loop?)",
                  b.env->budget));
}

// A cooperative launch's blocks share the cores: one spinning at a grid
// barrier lets the others run. `writes` (the unit's stores and atomics so
// far) tell the launch's watchdog that the grid still progresses; a unit
// storing nothing round after round is most likely spinning: it backs off,
// up to 1 ms a round.
void cooperative_pause(const LaunchEnv& env, uint64_t writes, uint64_t& published,
                       uint64_t& idle_rounds) {
  if (writes != published) {
    env.cooperative->fetch_add(writes - published, std::memory_order_relaxed);
    published = writes;
    idle_rounds = 0;
  } else {
    ++idle_rounds;
  }
  if (idle_rounds > 4)
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::min<uint64_t>(1000, 50 * (idle_rounds - 4))));
  else
    std::this_thread::yield();
}

void stopped() { throw Fault{FaultKind::Interrupted, "stopped by a signal", 0, -1, 0}; }

namespace {
// As a fresh AsyncState. (Its fields, all checked here: a field added to
// AsyncState changes its size and stops the build until it is checked too.)
static_assert(sizeof(AsyncState) == 2 * sizeof(std::vector<int>) + 65 * sizeof(uint32_t) + 4);
bool async_clear(const AsyncState& a) {
  uint32_t any = a.wgmma_committed;
  for (uint32_t l = 0; l < 32; ++l) any |= a.committed[l] | a.bulk_committed[l];
  return any == 0 && a.copies.empty() && a.bulk.empty();
}
}  // namespace

void BlockRunner::begin(const LaunchEnv& env, Dim3 id, BlockObserver* obs, ClusterCtx* cluster,
                        uint32_t rank) {
  const Program& p = *env.prog;
  BlockCtx& b = ctx_;
  b.env = &env;
  b.prog = &p;
  b.id = id;
  b.cluster = cluster ? cluster : &solo_;
  b.rank = rank;
  b.remote = 0;
  b.obs = obs;
  b.event.block = id;
  b.steps = 0;
  b.budget = env.budget;
  b.lane_steps = 0;
  b.global_hint = nullptr;
  b.printf_out.clear();
  for (auto& bar : b.bars) bar = Barrier{};
  uint32_t nthreads = static_cast<uint32_t>(env.block.count());
  uint32_t nwarps = (nthreads + 31) / 32;
  b.live_threads = nthreads;
  size_t per_warp = size_t{p.num_regs} * 32;
  if (template_prog_ != &p) prepare_template(p);
  b.regs.resize(per_warp * nwarps);
  b.preds.assign(size_t{p.num_preds} * nwarps + 1, 0);
  b.local.assign(size_t{p.frame_bytes} * 32 * nwarps + 1, 0);
  b.shared_bytes = p.static_shared + env.dynamic_shared;
  b.shared.assign(b.shared_bytes + 1, 0);
  // Reset in place (assign copied a Warp{} temporary into every slot, a
  // 304-byte `rep movs` per warp of every block).
  b.warps.resize(nwarps);
  for (Warp& w : b.warps) w = Warp{};
  if (!p.callees.empty()) {
    b.calls.assign(size_t{nwarps} * 32, ThreadCalls{});
    for (auto& t : b.calls) t.sp = p.stack_base;
  } else {
    b.calls.clear();
  }
  // Reset by moves (assign copy-assigned a fresh AsyncState, two vectors
  // and its 260 bytes of counters, into every warp's slot of every block),
  // and only the slots an earlier block left something in: most programs
  // issue no async copy, and a reset is a 312-byte `rep stos` per warp.
  b.async.resize(nwarps);
  for (AsyncState& a : b.async)
    if (!async_clear(a)) a = AsyncState{};
  for (uint32_t wi = 0; wi < nwarps; ++wi) init_warp(env, id, wi, nwarps, nthreads);
  warm_warps_ = std::max(warm_warps_, nwarps);
  if (obs && obs->wants_instruction_counts())
    b.counts.assign(p.ops.size(), InstrCount{});
  else
    b.counts.clear();
  if (obs) obs->on_block_begin(id, env.block, b.shared_bytes);
  b.writes = 0;
  b.mbar.reset(nwarps);
  if (!cluster) {
    solo_.blocks.assign(1, &b);
    solo_.exited.assign(1, 0);
    solo_.live_threads = nthreads;
    solo_.arrived = 0;
    solo_.phase = 0;
    solo_.copies = 0;
  }
}

void BlockRunner::init_warp(const LaunchEnv& env, Dim3 id, uint32_t wi, uint32_t nwarps,
                            uint32_t nthreads) {
  const Program& p = *env.prog;
  BlockCtx& b = ctx_;
  size_t per_warp = size_t{p.num_regs} * 32;
  Warp& w = b.warps[wi];
  w.index = wi;
  w.R = b.regs.data() + per_warp * wi;
  w.P = b.preds.data() + size_t{p.num_preds} * wi;
  w.local = b.local.data() + size_t{p.frame_bytes} * 32 * wi;
  uint32_t lanes = std::min(32u, nthreads - wi * 32);
  // A partial warp starts from the whole template: a shuffle may read a
  // lane that is no thread, and that must read zero as before.
  if (lanes < 32) {
    if (per_warp) std::memcpy(w.R, init_->reg_template.data(), per_warp * sizeof(uint64_t));
  } else {
    // A warp slot of an earlier block of this program still holds the
    // registers no op writes (constants, never-written zeros).
    for (const auto& [first, count] : wi < warm_warps_ ? init_->warm_runs : init_->init_runs)
      std::memcpy(w.R + size_t{first} * 32, init_->reg_template.data() + size_t{first} * 32,
                  size_t{count} * 32 * sizeof(uint64_t));
  }
  w.exists = lanes == 32 ? ~0u : ((1u << lanes) - 1);
  w.live = w.runnable = w.exists;
  for (uint32_t pi : p.true_preds) w.P[pi] = ~0u;
  for (uint32_t pi : p.explicit_cluster_preds) w.P[pi] = env.explicit_cluster ? ~0u : 0u;
  for (const auto& [r, kind] : p.specials)
    fill_special(w.R + size_t{r} * 32, kind, env, id, wi, nwarps);
}

void BlockRunner::end() {
  BlockCtx& b = ctx_;
  const Program& p = *b.prog;
  if (!b.counts.empty()) {
    std::vector<const InstrInfo*> info(p.ops.size());
    for (size_t pc = 0; pc < p.ops.size(); ++pc) info[pc] = &p.info[p.ops[pc].info];
    b.obs->on_instruction_counts(b.counts, info);
  }
  if (b.obs) b.obs->on_block_end(b.id);
}

// The program's RegInit (made by Module::kernel), or one of our own.
void BlockRunner::prepare_template(const Program& p) {
  if (p.reg_init) {
    init_ = p.reg_init.get();
  } else {
    own_init_ = make_reg_init(p);
    init_ = &own_init_;
  }
  warm_warps_ = 0;
  template_prog_ = &p;
}

// Registers start as a copy of one warp's template: zeros, with the
// constant registers (immediates, symbol addresses) filled in; those written
// before any read and the special registers (filled per warp) are left out.
RegInit make_reg_init(const Program& p) {
  RegInit init;
  init.reg_template.assign(size_t{p.num_regs} * 32, 0);
  for (size_t r = 0; r < p.const_regs.size(); ++r)
    if (p.const_regs[r])
      for (size_t l = 0; l < 32; ++l) init.reg_template[r * 32 + l] = p.const_regs[r];
  std::vector<bool> skip = written_first(p), first = read_first(p);
  for (uint32_t r = 0; r < p.num_regs; ++r)
    if (!first[r]) skip[r] = true;
  for (const auto& [r, kind] : p.specials) skip[r] = true;
  // Slots no op names (left over by register coalescing) are never touched.
  std::vector<bool> named(p.num_regs, false);
  auto name = [&](uint32_t r) {
    if (r < p.num_regs) named[r] = true;
  };
  for (const Op& op : p.ops)
    for (uint32_t r : op.r) name(r);
  for (const TensorOp& t : p.tensor_ops) t.for_each_register(name);
  for (const TexOp& t : p.tex_ops)
    for (uint32_t r : t.coord) name(r);
  for (const TmaOp& t : p.tma_ops)
    for (uint32_t r : t.regs) name(r);
  for (uint32_t r = 0; r < p.num_regs; ++r)
    if (!named[r]) skip[r] = true;
  // Registers some op may write (every register an op of unknown operands,
  // a tensor or a texture op names counts as written).
  std::vector<bool> written(p.num_regs, false);
  auto write = [&](uint32_t r) {
    if (r < p.num_regs) written[r] = true;
  };
  for (const Op& op : p.ops) {
    RegOperands o = reg_operands(op);
    if (!o.known) {
      for (uint32_t r : op.r) write(r);
      continue;
    }
    for (uint8_t i = 0; i < o.ndef; ++i) write(op.r[o.def[i]]);
  }
  for (const TensorOp& t : p.tensor_ops) t.for_each_register(write);
  for (const TexOp& t : p.tex_ops)
    for (uint32_t r : t.coord) write(r);
  for (const TmaOp& t : p.tma_ops)
    for (uint32_t r : t.regs) write(r);
  auto add = [](std::vector<std::pair<uint32_t, uint32_t>>& runs, uint32_t r) {
    if (!runs.empty() && runs.back().first + runs.back().second == r)
      ++runs.back().second;
    else
      runs.push_back({r, 1});
  };
  for (uint32_t r = 0; r < p.num_regs; ++r) {
    if (skip[r]) continue;
    add(init.init_runs, r);
    if (written[r]) add(init.warm_runs, r);
  }
  return init;
}

// Appends where each waiting group of lanes of block `b` waits to `msg`
// (`prefix` before each "warp"); the first group's warp and pc go to
// *first_warp/*first_pc. Whether there was any.
bool describe_block_waits(const BlockCtx& b, const std::string& prefix, std::string& msg,
                          uint32_t* first_warp, uint32_t* first_pc) {
  bool have_first = false;
  for (const Warp& w : b.warps) {
    if (!w.live) continue;
    std::map<uint32_t, uint32_t> at;  // pc -> lanes
    SMEMLAB_FOR_LANES(w.bar_wait | w.cl_wait, at[w.pc[l] - 1] |= 1u << l);
    SMEMLAB_FOR_LANES(w.coll_wait, at[w.pc[l]] |= 1u << l);
    for (const auto& [pc, lanes] : at) {
      if (!have_first) {
        have_first = true;
        *first_warp = w.index;
        *first_pc = pc;
      }
      msg +=
          fmt::format(" {}warp {} lanes 0x{:08x} wait at {}", prefix, w.index, lanes, where(b, pc));
      if (w.bar_wait & lanes) {
        const Barrier& br = b.bars[w.bar_of[__builtin_ctz(lanes)]];
        msg += fmt::format(" [{} of {} threads arrived]", br.arrived,
                           br.count ? br.count : b.live_threads);
      } else if ((w.cl_wait & lanes) && b.cluster) {
        msg += fmt::format(" [{} of {} threads of the cluster arrived]", b.cluster->arrived,
                           b.cluster->live_threads);
      }
      msg += ";";
    }
  }
  return have_first;
}

void BlockRunner::deadlock() {
  std::string msg = "deadlock: no warp can make progress;";
  // The fault points at the first waiting instruction so that it has a line.
  uint32_t first_warp = 0, first_pc = 0;
  describe_block_waits(ctx_, "", msg, &first_warp, &first_pc);
  msg.pop_back();
  throw Fault{FaultKind::Deadlock, msg, first_warp, -1, first_pc};
}

}  // namespace smemlab::emu
