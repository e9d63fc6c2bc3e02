// Runs one thread block to completion on the calling thread. A BlockRunner
// keeps its buffers between blocks (one runner per worker thread). A
// ClusterRunner runs the blocks of one thread-block cluster together.
#pragma once

#include <vector>

#include "emu/exec.h"
#include "emu/mbar_watch.h"

namespace smemlab::emu {

RegInit make_reg_init(const Program& p);

class BlockRunner {
 public:
  // Throws Fault when the kernel fails in this block.
  void run(const LaunchEnv& env, Dim3 block, BlockObserver* obs);
  const BlockCtx& context() const { return ctx_; }
  BlockCtx& context_mut() { return ctx_; }

  // The parts of run() a ClusterRunner interleaves: set the block up (as
  // rank `rank` of `cluster`, or alone when it is null), and hand its
  // counts and end to the observer once it is done.
  void begin(const LaunchEnv& env, Dim3 block, BlockObserver* obs, ClusterCtx* cluster,
             uint32_t rank);
  void end();

 private:
  [[noreturn]] void deadlock();
  void prepare_template(const Program& p);
  void init_warp(const LaunchEnv& env, Dim3 id, uint32_t wi, uint32_t nwarps, uint32_t nthreads);
  BlockCtx ctx_;
  SpinDetector spin_;
  ClusterCtx solo_;  // the cluster of a block launched alone
  const Program* template_prog_ = nullptr;
  const RegInit* init_ = nullptr;  // the program's, or own_init_
  RegInit own_init_;
  // Warp slots below this one hold this program's registers from an
  // earlier block: they copy only RegInit::warm_runs.
  uint32_t warm_warps_ = 0;
};

// The blocks of one cluster on the calling thread, as the scheduling unit:
// every round gives each warp of every block a turn (the launch's Schedule
// over all the cluster's warps, block by block), so blocks that wait for
// each other (barrier.cluster, a peer's mbarrier, distributed shared
// memory) progress together.
class ClusterRunner {
 public:
  // Runs the cluster whose blocks, by rank, are `ids` (obs[rank] may be
  // null); `key` is the cluster's linear index (seeds a random schedule).
  // Throws Fault when a block fails (failed_rank() says which) or the
  // cluster deadlocks.
  void run(const LaunchEnv& env, const std::vector<Dim3>& ids,
           const std::vector<BlockObserver*>& obs, uint64_t key);
  uint32_t failed_rank() const { return failed_rank_; }
  BlockRunner& block(uint32_t rank) { return runners_[rank]; }

 private:
  void loop(const LaunchEnv& env, uint64_t key);
  [[noreturn]] void deadlock();
  std::vector<BlockRunner> runners_;
  ClusterCtx ctx_;
  SpinDetector spin_;
  uint32_t failed_rank_ = 0;
};

// A warp's longest turn, in warp-instructions.
constexpr uint64_t kSlice = 4096;
// The budget fault of warp `w` (the block ran past LaunchEnv::budget).
[[noreturn]] __attribute__((noinline, cold)) void budget_fault(const BlockCtx& b, const Warp& w);
[[noreturn]] __attribute__((noinline, cold)) void stopped();  // Fault "interrupted"
void cooperative_pause(const LaunchEnv& env, uint64_t writes, uint64_t& published,
                       uint64_t& idle_rounds);

// One turn of runnable warp `w` of a cluster under `turns` (a block alone
// takes its turns a round at a time, run_round): runs it (b.steps counts
// its steps), a fault past the block's budget. Whether it executed
// anything.
// Past its budget while the program's host thread runs (program mode: it
// may still write the memory the block spins on, and the host's progress is
// the kernel's), a block gets another budget; true when it did.
inline bool extend_budget(BlockCtx& b) {
  const std::atomic<int>* waiting = b.env->host_waiting;
  if (!waiting || waiting->load(std::memory_order_relaxed) != 0) return false;
  b.budget = b.steps + b.env->budget;
  return true;
}

inline bool take_turn(BlockCtx& b, Warp& w, WarpTurns& turns) {
  uint64_t n = run_warp(b, w, kSlice, turns.quota());
  if (b.steps > b.budget && !extend_budget(b)) budget_fault(b, w);
  return n > 0;
}

// Between two scheduling rounds: a cooperative launch's back-off and
// progress count (`writes`: the unit's stores and atomics so far), and a
// stop request (Fault "interrupted").
inline void between_rounds(const LaunchEnv& env, uint64_t writes, uint64_t& published,
                           uint64_t& idle_rounds) {
  if (env.cooperative) cooperative_pause(env, writes, published, idle_rounds);
  if (env.stop && env.stop->load(std::memory_order_relaxed)) stopped();
}

// Appends where each waiting group of lanes of block `b` waits to `msg`
// (`prefix` before each "warp", with "k of n threads arrived" for
// barriers); the first group's warp and pc go to *first_warp/*first_pc.
// Whether any lane waits.
bool describe_block_waits(const BlockCtx& b, const std::string& prefix, std::string& msg,
                          uint32_t* first_warp, uint32_t* first_pc);

}  // namespace smemlab::emu
