// Thread-block clusters: the blocks of a cluster run together on one host
// thread (ClusterRunner, the scheduling unit), each with its own shared
// memory that its peers reach through shared::cluster addresses (mapa,
// ld/st/atom/red.shared::cluster, mbarriers), and the cluster barrier
// (barrier.cluster.arrive/wait). A plain launch is a grid of 1x1x1
// clusters: BlockRunner gives its block a cluster of its own.
#include <fmt/format.h>

#include <algorithm>

#include "emu/block.h"
#include "emu/exec.h"
#include "emu/mbar_watch.h"

namespace smemlab::emu {

namespace {

std::string block_name(const BlockCtx& b) {
  return fmt::format("rank {} (block ({},{},{}))", b.rank, b.id.x, b.id.y, b.id.z);
}

// Lanes waiting in barrier.cluster.wait whose phase completed go on.
void release_cluster_waiters(ClusterCtx& c) {
  for (BlockCtx* b : c.blocks)
    for (Warp& w : b->warps) {
      uint32_t lanes = w.cl_wait;
      if (!lanes) continue;
      if (w.uniform) {
        SMEMLAB_FOR_LANES(w.runnable, w.pc[l] = w.cpc);
        w.uniform = false;
      }
      w.cl_wait = 0;
      w.cl_done &= ~lanes;
      w.runnable |= lanes;
    }
}

}  // namespace

BlockCtx& cluster_shared(BlockCtx& b, const Warp& w, uint32_t pc, uint32_t lane, uint64_t* addr,
                         uint32_t size, const char* verb) {
  const ClusterCtx& c = *b.cluster;
  const uint64_t a = *addr, rank = (a >> kClusterRankShift) - 1,
                 off = a & ((1u << kClusterRankShift) - 1);
  const size_t n = c.blocks.size();
  if (rank >= n)
    fault(w, pc, static_cast<int>(lane), FaultKind::OutOfBounds,
          fmt::format("shared::cluster {} of {} bytes at 0x{:x} (offset {} of block rank {}) is "
                      "outside the cluster of {} block{}",
                      verb, size, a, off, rank, n, n == 1 ? "" : "s"));
  BlockCtx& peer = *c.blocks[rank];
  if (&peer != &b && c.exited[rank])
    fault(w, pc, static_cast<int>(lane), FaultKind::ClusterExit,
          fmt::format("shared::cluster {} of {} bytes at offset {} of block {}, which has exited: "
                      "a block's shared memory is gone once it exits while a peer may still use "
                      "it (undefined behaviour on the GPU; end with cluster.sync() so no block "
                      "exits before its peers are done)",
                      verb, size, off, block_name(peer)));
  if (off + size > peer.shared_bytes)
    fault(w, pc, static_cast<int>(lane), FaultKind::OutOfBounds,
          fmt::format("shared::cluster {} of {} bytes at offset {} of block {} is outside its {} "
                      "bytes of shared memory",
                      verb, size, off, block_name(peer), peer.shared_bytes));
  *addr = off;
  return peer;
}

void cluster_barrier_check(BlockCtx& b) {
  ClusterCtx& c = *b.cluster;
  if (c.arrived == 0 || c.arrived < c.live_threads) return;
  c.arrived = 0;
  ++c.phase;
  for (BlockCtx* p : c.blocks)
    for (Warp& w : p->warps) {
      w.cl_done |= w.cl_arrived;
      w.cl_arrived = 0;
    }
  release_cluster_waiters(c);
  // Every thread of every block took part: for a block's observer it
  // orders all before it before all after it, as __syncthreads() does.
  for (BlockCtx* p : c.blocks)
    if (p->obs) p->obs->on_barrier_release(BarrierRelease{16, 0});
}

void cluster_exit_lanes(BlockCtx& b, Warp& w, uint32_t mask) {
  ClusterCtx& c = *b.cluster;
  c.live_threads -= static_cast<uint32_t>(__builtin_popcount(mask));
  c.arrived -= static_cast<uint32_t>(__builtin_popcount(w.cl_arrived & mask));
  w.cl_arrived &= ~mask;
  w.cl_done &= ~mask;
  if (b.live_threads == 0) c.exited[b.rank] = 1;
  cluster_barrier_check(b);
}

void cluster_arrive(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  ClusterCtx& c = *b.cluster;
  if ((op.aux2 & 1) && exec != w.live)
    fault(w, pc, static_cast<int>(__builtin_ctz(w.live & ~exec ? w.live & ~exec : exec)),
          FaultKind::Divergent,
          fmt::format("barrier.cluster.arrive.aligned executed by lanes 0x{:08x} of the warp's "
                      "live lanes 0x{:08x}: .aligned needs every thread of the warp",
                      exec, w.live));
  if (uint32_t again = exec & (w.cl_arrived | w.cl_done))
    fault(w, pc, __builtin_ctz(again), FaultKind::Barrier,
          "barrier.cluster.arrive again before barrier.cluster.wait (each thread arrives once "
          "per phase and waits before it arrives again)");
  if (!(op.aux2 & 2)) mbar_release(b, w, exec);  // .release (the default), not .relaxed
  w.cl_arrived |= exec;
  c.arrived += static_cast<uint32_t>(__builtin_popcount(exec));
  c.last_pc = pc;
  cluster_barrier_check(b);
}

uint32_t cluster_wait(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  if ((op.aux2 & 1) && exec != w.live)
    fault(w, pc, static_cast<int>(__builtin_ctz(exec)), FaultKind::Divergent,
          fmt::format("barrier.cluster.wait.aligned executed by lanes 0x{:08x} of the warp's "
                      "live lanes 0x{:08x}: .aligned needs every thread of the warp",
                      exec, w.live));
  if (uint32_t none = exec & ~(w.cl_arrived | w.cl_done))
    fault(w, pc, __builtin_ctz(none), FaultKind::Barrier,
          "barrier.cluster.wait without a barrier.cluster.arrive before it");
  (void)b;
  w.cl_done &= ~exec;  // (those whose phase completed go on)
  uint32_t blocked = exec & w.cl_arrived;
  w.cl_wait |= blocked;
  return blocked;
}

// mapa: the shared::cluster address (generic with aux = 1) of the byte at
// the same offset in the shared memory of block `rank`. Like the GPU's it
// does not check the rank: an access through an address of a rank outside
// the cluster faults (cluster_shared).
void exec_mapa(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  (void)b;
  const bool generic = op.aux == 1;
  constexpr uint64_t kOffset = (1u << kClusterRankShift) - 1;
  constexpr uint64_t kMaxRank = (kWindowSize >> kClusterRankShift) - 2;
  SMEMLAB_FOR_LANES(exec, {
    uint64_t a = reg(w, op.r[1])[l];
    uint64_t rank = std::min<uint64_t>(static_cast<uint32_t>(reg(w, op.r[2])[l]), kMaxRank);
    if (generic) {
      if (a - kSharedWindow >= kWindowSize)
        fault(w, pc, static_cast<int>(l), FaultKind::OutOfBounds,
              fmt::format("mapa of 0x{:x}, which is not a shared-memory address", a));
      a -= kSharedWindow;
    }
    uint64_t d = ((rank + 1) << kClusterRankShift) | (a & kOffset);
    regw(w, op.r[0])[l] = generic ? d + kSharedWindow : canonical(static_cast<T>(op.t), d);
  });
}

// fence.*: an event for observers only.
void exec_fence(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  (void)pc;
  if (exec == 0) return;
  // fence.mbarrier_init, or a memory fence (taken as one of cluster scope):
  // the thread's inits are published by the next cluster barrier.
  const auto kind = static_cast<FenceKind>(op.aux);
  if (kind == FenceKind::MbarrierInit || kind == FenceKind::Memory) mbar_release(b, w, exec);
  if (!b.obs) return;
  b.obs->on_fence(Fence{static_cast<FenceKind>(op.aux), static_cast<FenceSpace>(op.aux2), exec,
                        &b.prog->info[op.info], b.id, w.index});
}

void ClusterRunner::run(const LaunchEnv& env, const std::vector<Dim3>& ids,
                        const std::vector<BlockObserver*>& obs, uint64_t key) {
  const size_t n = ids.size();
  if (runners_.size() < n) runners_.resize(n);
  ctx_.blocks.assign(n, nullptr);
  ctx_.exited.assign(n, 0);
  ctx_.arrived = 0;
  ctx_.phase = 0;
  ctx_.copies = 0;
  ctx_.live_threads = 0;
  failed_rank_ = 0;
  for (uint32_t r = 0; r < n; ++r) {
    runners_[r].begin(env, ids[r], obs[r], &ctx_, r);
    ctx_.blocks[r] = &runners_[r].context_mut();
    ctx_.live_threads += runners_[r].context().live_threads;
  }
  loop(env, key);
  for (uint32_t r = 0; r < n; ++r) runners_[r].end();
}

void ClusterRunner::loop(const LaunchEnv& env, uint64_t key) {
  const uint32_t n = static_cast<uint32_t>(ctx_.blocks.size());
  const uint32_t nwarps = static_cast<uint32_t>(ctx_.blocks[0]->warps.size());
  uint64_t published = 0, idle_rounds = 0;
  WarpTurns turns(env.schedule, nwarps * n, key);
  spin_.reset();
  for (;;) {
    bool progress = false, alive = false;
    for (uint32_t i = 0; i < nwarps * n; ++i) {
      const uint32_t k = turns.warp(i);
      BlockCtx& b = *ctx_.blocks[k / nwarps];
      Warp& w = b.warps[k % nwarps];
      if (w.live) alive = true;
      if (!w.runnable) continue;
      try {
        progress = take_turn(b, w, turns) || progress;
      } catch (const Fault&) {
        failed_rank_ = b.rank;
        throw;
      }
    }
    if (!alive) return;
    if (!progress) deadlock();
    try {
      spin_.after_round(ctx_.blocks);
    } catch (const Fault&) {
      failed_rank_ = spin_.rank();
      throw;
    }
    turns.next_round();
    uint64_t writes = 0;
    for (const BlockCtx* b : ctx_.blocks) writes += b->writes;
    between_rounds(env, writes, published, idle_rounds);
  }
}

void ClusterRunner::deadlock() {
  std::string msg = fmt::format("deadlock: no warp of the cluster of {} blocks can make progress;",
                                ctx_.blocks.size());
  uint32_t first_warp = 0, first_pc = 0;
  bool have_first = false;
  for (const BlockCtx* b : ctx_.blocks) {
    uint32_t fw = 0, fp = 0;
    if (describe_block_waits(*b, "block " + block_name(*b) + " ", msg, &fw, &fp) && !have_first) {
      have_first = true;
      failed_rank_ = b->rank;
      first_warp = fw;
      first_pc = fp;
    }
  }
  for (const BlockCtx* b : ctx_.blocks)
    if (ctx_.exited[b->rank]) msg += fmt::format(" block {} has exited;", block_name(*b));
  msg.pop_back();
  throw Fault{FaultKind::Deadlock, msg, first_warp, -1, first_pc};
}

}  // namespace smemlab::emu
