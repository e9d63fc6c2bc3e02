// Internal to the interpreter: a block's warps, barriers and memory while it
// runs, and the per-family op implementations the warp loop dispatches to.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "emu/fault_kinds.h"
#include "emu/mbar_watch.h"
#include "emu/memory.h"
#include "emu/native_abi.h"
#include "emu/observer.h"
#include "emu/program.h"
#include "emu/schedule.h"

namespace smemlab::emu {

// Thrown inside a block when the kernel does something fatal; the block
// runner adds block/thread/line and turns it into a LaunchError.
struct Fault {
  FaultKind kind = FaultKind::Internal;
  std::string message;  // without position
  uint32_t warp = 0;
  int lane = -1;  // -1: whole block (deadlock)
  uint32_t pc = 0;
};

struct Warp {
  uint64_t* R = nullptr;     // num_regs x 32 lanes
  uint32_t* P = nullptr;     // num_preds lane masks
  uint8_t* local = nullptr;  // 32 frames of frame_bytes
  uint32_t pc[32] = {};
  uint32_t exists = 0;     // lanes that are threads of the block
  uint32_t live = 0;       // not exited
  uint32_t runnable = 0;   // live and not waiting
  uint32_t coll_wait = 0;  // waiting at a warp collective (their pc[] is that op)
  uint32_t bar_wait = 0;   // waiting at a barrier (their pc[] is the op after it)
  uint8_t bar_of[32] = {};
  uint32_t bar_lanes[16] = {};  // per barrier id: lanes waiting at it (bar_of, as masks)
  // barrier.cluster: lanes that arrived in the cluster barrier's current
  // phase, lanes whose arrival's phase completed but that have not waited
  // yet, and lanes blocked in barrier.cluster.wait (their pc[] is the op
  // after it).
  uint32_t cl_arrived = 0, cl_done = 0, cl_wait = 0;
  uint32_t carry = 0;  // CC.CF per lane (add.cc, addc, mad.lo.cc, ...)
  // Lanes inside a real call (BlockCtx::calls non-empty): the warp loop then
  // orders lanes by their call chains (pick_call_group).
  uint32_t in_call = 0;
  uint32_t cpc = 0;  // when uniform: the pc of all runnable lanes
  bool uniform = true;
  uint32_t index = 0;
};

// A thread's real calls (CALL/RET, ops_call.cc): one record per active
// call, its saved registers and predicates, and the top of its stack in the
// thread's local frame.
struct ThreadCalls {
  struct Record {
    uint32_t ret_pc = 0;  // the op after the CALL
    uint32_t callee = 0;
    uint32_t sp = 0;    // the activation record's local address
    uint32_t used = 0;  // ThreadCalls::used before the call
    uint32_t saved_at = 0;
  };
  std::vector<Record> records;
  std::vector<uint64_t> saved;
  uint32_t sp = 0;    // the next record's local address
  uint32_t used = 0;  // stack bytes used, as the GPU counts them (Program::stack_limit)
};

struct Barrier {
  uint32_t arrived = 0;  // threads
  uint32_t count = 0;    // explicit thread count (0 = all live threads)
  uint32_t popc = 0;
  bool all = true, any = false;
  uint64_t epoch = 0;
  uint32_t last_pc = 0;
};

// cp.async copies issued by one warp and not yet complete. A copy is
// checked (bounds, alignment) at issue and performed at its completion
// point: the cp.async.wait_group/wait_all that covers its group, a
// cp.async.mbarrier.arrive, or the thread's exit. So observers see the
// shared write where the PTX memory model first guarantees it.
struct AsyncCopy {
  uint32_t pc = 0;     // the cp.async op
  uint32_t lanes = 0;  // lanes whose copy is still pending
  uint8_t bytes = 0;   // cp-size: 4, 8 or 16
  uint32_t group[32];  // per lane: the cp.async-group (lane's commit count at issue)
  uint32_t src_size[32];
  uint64_t dst[32], src[32];  // shared offset and global address, as observers see them
  uint8_t* dst_host[32];
  const uint8_t* src_host[32];
};
// A TMA store or reduction whose effect is performed but whose completion
// observers have not been told yet (only with an observer attached): it
// completes at the cp.async.bulk.wait_group{.read} covering its group.
struct PendingBulk {
  BulkCopy event;  // its Issue event (spans unset)
  std::vector<uint32_t> chunks;
  std::vector<ByteRange> global;
  std::vector<GlobalChunk> global_chunks;
};
struct AsyncState {
  std::vector<AsyncCopy> copies;  // issue order
  uint32_t committed[32] = {};    // per lane: cp.async.commit_group count
  // Observers only: per lane, cp.async.bulk.commit_group count; the
  // warp's wgmma.commit_group count; bulk stores not yet completed.
  uint32_t bulk_committed[32] = {};
  uint32_t wgmma_committed = 0;
  std::vector<PendingBulk> bulk;
};

class Device;
class DeviceRuntime;
struct BlockCtx;
struct Warp;

// What one round of a block's warp turns found (run_round).
struct RoundResult {
  bool alive = false;           // some warp has live lanes
  bool progress = false;        // some warp executed an instruction
  Warp* over_budget = nullptr;  // the warp whose turn took the block past its budget
  uint64_t steps = 0;           // warp-instructions executed
};
// One warp's turn in a quiet epoch (quiet_epochs.h): up to `turns` of its
// turns under the `gpu` schedule, taken at once. Old turns end where the
// schedule's would (a shared/global access, `slice` steps).
struct QuietTurn {
  uint32_t turns = 0;                  // in
  uint32_t taken = 0;                  // out: the old turns it ran in
  uint32_t fault_turn = 0;             // when it faulted: the old turn it faulted in
  uint32_t arrival_turn = UINT32_MAX;  // its last barrier arrival or exit: the turn it was in
  uint64_t arrival_steps = 0;          // and that turn's steps up to and including it
  bool released = false;               // a barrier released there (the turn stopped)
  // Per old turn t <= `turns`: the turn's steps and lanes before it began
  // (a fault's counts are the old turns'; null: not kept).
  uint64_t* steps_at = nullptr;
  uint64_t* lanes_at = nullptr;
  uint64_t steps = 0, lanes = 0;  // out (unless it faulted): all of them
};

// One copy of the interpreter loop (warp_loop.h): portable or AVX2. A round
// runs every warp's turn in the schedule's order from one call, so the
// fine-grained `gpu` schedule pays no call through a pointer per turn.
struct IsaLoop {
  uint64_t (*run_warp)(BlockCtx& b, Warp& w, uint64_t slice, uint32_t quota);
  RoundResult (*run_round)(BlockCtx& b, WarpTurns& turns, uint64_t slice);
  // The rest of a round from turn `first`, whose warp has taken `first_steps`
  // of its turn already.
  RoundResult (*run_round_from)(BlockCtx& b, WarpTurns& turns, uint64_t slice, uint32_t first,
                                uint64_t first_steps);
  uint64_t (*run_quiet_turn)(BlockCtx& b, Warp& w, uint64_t slice, QuietTurn& q);
};
using RunWarpFn = const IsaLoop*;
// Whether the `gpu` schedule's rounds take their own loop (gpu_round.h):
// yes unless SMEMLAB_GPU_ROUND=0 (read once; the general loop then runs
// them, to compare the two).
bool gpu_round_enabled();
// The copy for this launch: AVX2 where the CPU has it, unless the
// environment's SMEMLAB_EMU_ISA says `portable` (tests run both); null with
// *error set when SMEMLAB_EMU_ISA names something else or an unusable copy.
RunWarpFn select_run_warp(std::string* error);

struct LaunchEnv {
  const Program* prog = nullptr;
  const Device* device = nullptr;  // texture objects
  const GlobalMemory* global = nullptr;
  const uint8_t* params = nullptr;
  const uint8_t* const_bank = nullptr;
  uint32_t const_bytes = 0;
  Dim3 grid, block;
  uint32_t dynamic_shared = 0;
  uint64_t budget = 0;                      // warp-instructions per block
  DeviceHeap* heap = nullptr;               // malloc/free in kernels
  DeviceRuntime* device_runtime = nullptr;  // device-side launches (emu/device_runtime.h)
  const std::atomic<bool>* stop = nullptr;  // set: end the block ("interrupted")
  // LaunchConfig::host_waiting: while it reads 0 the budget is extended.
  const std::atomic<int>* host_waiting = nullptr;
  // Cooperative launches: the grid-sync workspace (%envreg1:%envreg2), and
  // the launch-wide count of stores and atomics blocks add to (progress).
  uint64_t grid_workspace = 0;
  std::atomic<uint64_t>* cooperative = nullptr;
  RunWarpFn run_warp = nullptr;  // null: the process-wide choice
  Schedule schedule;             // how a block's warps take turns
  // Thread-block clusters: the launch's cluster shape (1x1x1 for a plain
  // launch) and whether it was an explicit cluster launch
  // (%is_explicit_cluster).
  Dim3 cluster{1, 1, 1};
  bool explicit_cluster = false;
  // The jit tier's runs (Program::fused), null under SMEMLAB_TIER=interp.
  const uint8_t* fused = nullptr;
  // Their native code (native_tier.h), per pc; null, or null entries, until
  // loaded (each turn reads it, so blocks switch once it is).
  const std::atomic<const NativeEntry*>* native = nullptr;
  // Program::quiet under the jit tier with the `gpu` schedule, else null
  // (quiet_epochs.h).
  const uint8_t* quiet = nullptr;
};

// Shared::cluster addresses (mapa, ld/st/atom.shared::cluster): the block
// of rank r's shared byte at offset o is ((r + 1) << kClusterRankShift) | o;
// addresses below 1 << kClusterRankShift are the executing block's own
// (the shared::cta window inside the shared::cluster window). Generic
// addresses add kSharedWindow as for shared::cta ones.
constexpr uint32_t kClusterRankShift = 24;

struct BlockCtx;
// The blocks of one cluster, run together by one host thread (ClusterRunner,
// block.cc), and the cluster barrier (barrier.cluster.arrive/wait).
struct ClusterCtx {
  std::vector<BlockCtx*> blocks;  // by rank
  std::vector<uint8_t> exited;    // by rank: every thread of the block exited
  uint32_t live_threads = 0;      // non-exited threads of all blocks
  uint32_t arrived = 0;           // threads arrived in the current phase
  uint64_t phase = 0;             // completed phases
  uint32_t last_pc = 0;           // the last barrier.cluster op (for messages)
  uint64_t copies = 0;            // bulk copies issued (BulkCopy::id, observers only)
};

struct BlockCtx {
  const LaunchEnv* env = nullptr;
  const Program* prog = nullptr;
  Dim3 id;
  ClusterCtx* cluster = nullptr;  // a plain launch's block: a cluster of its own
  uint32_t rank = 0;              // %cluster_ctarank
  // Lanes of the op being executed whose shared::cluster address is in a
  // peer block (mem_translate sets them; observers see only the block's own
  // shared memory, so the events leave them out).
  uint32_t remote = 0;
  uint8_t remote_rank[32];  // per lane in `remote`: the peer's rank
  std::vector<Warp> warps;
  std::vector<ThreadCalls> calls;  // per thread (warp * 32 + lane), programs with callees
  std::vector<uint64_t> regs;
  std::vector<uint32_t> preds;
  std::vector<uint8_t> local;
  std::vector<uint8_t> shared;
  uint32_t shared_bytes = 0;
  std::vector<AsyncState> async;  // per warp
  Barrier bars[16];
  uint32_t live_threads = 0;
  BlockObserver* obs = nullptr;
  uint64_t steps = 0;
  uint64_t budget = 0;  // steps it may reach: env->budget, extended while the host runs
  uint64_t lane_steps = 0;
  uint64_t clock_base = 0;
  uint64_t writes = 0;  // stores and atomics executed (any space)
  // Barrier arrivals and exits, and barrier releases, so far: a quiet turn
  // (quiet_epochs.h) sees its own and stops at a release.
  uint64_t arrivals = 0, releases = 0;
  MbarWatch mbar;  // the block's mbarriers beyond their words (mbar_watch.h)
  // The allocation of the last fast global access (none on the device heap):
  // consecutive accesses mostly hit the same buffer. Reset per block.
  const GlobalMemory::Allocation* global_hint = nullptr;
  // Per-pc counts, only when the observer asks (else empty: no cost but a
  // test per warp-instruction).
  std::vector<InstrCount> counts;
  std::string printf_out;  // this block's printf output, in execution order
  // The memory event being built when every lane of an access resolved to
  // one space (see stage_access); `block` is set once per block. Its
  // addresses outside `mask` are always zero: only stage_access writes
  // them, and it relies on that.
  MemAccess event{};
};

[[noreturn]] void fault(const Warp& w, uint32_t pc, int lane, FaultKind kind, std::string msg);

// Host pointer for `size` bytes at generic address `addr` as lane `lane`
// reads them (faults like a load); for built-in functions' strings and buffers.
uint8_t* read_generic(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t lane, uint64_t addr,
                      uint32_t size);

// One turn of warp `w` (with b.env->run_warp): until it blocks, exits,
// `slice` warp-instructions pass or it has executed `quota` memory-ordering
// ops. Returns the number of warp-instructions executed (b.steps counts
// them too). A cluster's turns go warp by warp across its blocks.
uint64_t run_warp(BlockCtx& b, Warp& w, uint64_t slice, uint32_t quota = UINT32_MAX);
// One round: each warp in `turns`' order that can run takes its turn (up to
// `slice` warp-instructions or turns.quota() memory-ordering ops); b.steps
// counts them. Stops early at the warp that takes b.steps past the budget.
RoundResult run_round(BlockCtx& b, WarpTurns& turns, uint64_t slice);
// IsaLoop::run_round_from and run_quiet_turn of the launch's copy.
RoundResult run_round_from(BlockCtx& b, WarpTurns& turns, uint64_t slice, uint32_t first,
                           uint64_t first_steps);
uint64_t run_quiet_turn(BlockCtx& b, Warp& w, uint64_t slice, QuietTurn& q);

// What a Flow executor sees of one warp-instruction (see instructions.def).
struct Step {
  BlockCtx& b;
  Warp& w;
  const Op& op;
  uint32_t pc;     // the op's index
  uint32_t group;  // lanes at pc
  uint32_t exec;   // lanes that execute it: group and the guard predicate
  uint64_t n;      // warp-instructions of this run_warp call so far, this one included
};

// A warp with lanes inside real calls: the lanes to execute next, those
// whose (call chain, pc) is least (ops_call.cc). A lane deeper in a call
// made at the same site runs first, so lanes reconverge after the call
// returns as they do after a branch.
void pick_call_group(const BlockCtx& b, const Warp& w, uint32_t* pc, uint32_t* group);

// Out-of-line executors (Call, CallAlu and CallFlow rows of instructions.def).
#define SMEMLAB_DECLARE_Call(executor) \
  void executor(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec);
#define SMEMLAB_DECLARE_CallAlu(executor) SMEMLAB_DECLARE_Call(executor)
#define SMEMLAB_DECLARE_CallFlow(executor) bool executor(Step& s);
#define SMEMLAB_DECLARE_Inline(executor)
#define SMEMLAB_DECLARE_InlineFlow(executor)
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) SMEMLAB_DECLARE_##kind(executor)
#include "emu/instructions.def"
#undef SMEMLAB_DECLARE_Call
#undef SMEMLAB_DECLARE_CallAlu
#undef SMEMLAB_DECLARE_CallFlow
#undef SMEMLAB_DECLARE_Inline
#undef SMEMLAB_DECLARE_InlineFlow
// Completes every pending cp.async of `lanes` (their exit, an mbarrier arrive).
void cpasync_complete_all(BlockCtx& b, Warp& w, uint32_t lanes);
// The checked address translation and the observer events of ops_memory.cc,
// for the other memory families: host pointer for `size` bytes at `addr` in
// space `s` (a fault names the lane and instruction otherwise).
uint8_t* mem_translate(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t lane, MSpace s,
                       uint64_t addr, uint32_t size, Space* space, uint64_t* shown);
void mem_emit(BlockCtx& b, Warp& w, const Op& op, MemOp mop, uint32_t width, uint32_t exec,
              const Space* spaces, const uint64_t* addrs, uint8_t matrices = 0,
              bool mbarrier = false);
// Per 4-lane group of an exec mask (its 4 bits as the index): all-ones for
// the lanes in it, zero for the others; stage_access masks with these.
struct NibbleMasks {
  uint64_t m[16][4];
};
constexpr NibbleMasks make_nibble_masks() {
  NibbleMasks t{};
  for (uint32_t n = 0; n < 16; ++n)
    for (uint32_t j = 0; j < 4; ++j) t.m[n][j] = (n >> j) & 1 ? ~0ull : 0;
  return t;
}
inline constexpr NibbleMasks kNibbleMasks = make_nibble_masks();

// The event of an access by `exec` lanes that all resolved to space `sp`,
// lane l at A[l] + off (lanes outside `exec` zero), built in b.event. Stage
// it before the data moves (a load may overwrite its own address register)
// and report it after with report_access, so observers see the same as from
// mem_emit, without its per-lane space test and copies.
inline void stage_access(BlockCtx& b, const Warp& w, const Op& op, MemOp mop, uint32_t width,
                         uint32_t exec, Space sp, const uint64_t* A, uint64_t off) {
  MemAccess& a = b.event;
  const uint32_t stale = a.mask & ~exec;  // lanes the last event set and this one does not
  a.space = sp;
  a.op = mop;
  a.width = static_cast<uint8_t>(width);
  a.matrices = 0;
  a.mask = exec;
  // As vectors of 4 lanes: written as a loop over lanes it stayed one lane
  // at a time (the compiler cannot tell the register file from the event).
  typedef uint64_t V4 __attribute__((vector_size(32), aligned(8), may_alias));
  const V4* src = reinterpret_cast<const V4*>(A);
  V4* dst = reinterpret_cast<V4*>(a.addr);
  if (exec == ~0u) {
    for (uint32_t i = 0; i < 8; ++i) dst[i] = src[i] + off;
  } else if ((exec & (exec - 1)) == 0) {
    // One lane (a pointer chase, a single-thread tail): only it is
    // written. Lanes outside an event's mask stay zero in b.event (it
    // starts zeroed and every event keeps it so), so the others need
    // clearing only when the last event had lanes this one lacks.
    if (stale)
      for (uint32_t i = 0; i < 8; ++i) dst[i] = V4{};
    const uint32_t l = static_cast<uint32_t>(__builtin_ctz(exec));
    a.addr[l] = A[l] + off;
  } else {
    // Masked a group of 4 lanes at a time through a table: shifting the
    // mask per lane costs ~300 instructions an event where the compiler
    // has no variable 64-bit shifts (SSE2).
    const V4* masks = reinterpret_cast<const V4*>(kNibbleMasks.m);
    for (uint32_t i = 0; i < 8; ++i) dst[i] = (src[i] + off) & masks[(exec >> (4 * i)) & 15];
  }
  a.instr = &b.prog->info[op.info];
  a.warp = w.index;
  a.stored[0] = nullptr;
}
// The staged event is a plain st of `op` (ld/st only): its lanes' values
// come from the op's data registers (MemAccess::stored).
inline void stage_stored(MemAccess& a, const Warp& w, const Op& op) {
  for (uint32_t i = 0; i < op.vec && i < 4; ++i) a.stored[i] = w.R + size_t{op.r[i]} * 32;
  a.stored_vec = op.vec;
}
inline void report_access(BlockCtx& b) { b.obs->on_memory(b.event); }
// A warp collective; `exec` lanes execute it together. Returns false if it
// must wait for more lanes of its member mask (nothing done then).
bool collective_ready(const Warp& w, const Op* ops, const Op& op, uint32_t group);
// Lanes waiting in coll_wait that execute together with `op` at `pc`.
uint32_t collective_partners(const Warp& w, const Op* ops, const Op& op);
// `group`: the lanes at `op` now; `partners`: lanes waiting at instructions
// that take part with it (see collective_partners).
void exec_collective(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t group,
                     uint32_t partners);
// Barrier arrival of `exec` lanes; returns after marking them waiting.
void barrier_arrive(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec);
void barrier_check(BlockCtx& b);
// barrier.cluster.arrive/wait (block.cc): completes the phase when every
// non-exited thread of the cluster has arrived.
void cluster_barrier_check(BlockCtx& b);
// The block that holds shared::cluster address `addr` and the offset in it,
// or a fault naming the rank and offset (outside the cluster, past the
// block's shared memory, or a block that has exited).
// barrier.cluster.arrive of `exec` lanes; barrier.cluster.wait of `exec`
// lanes, returning those that must wait (marked in cl_wait); the exit of
// `mask` lanes of a block (the cluster's count, its barrier, the block's
// end).
void cluster_arrive(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec);
uint32_t cluster_wait(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec);
void cluster_exit_lanes(BlockCtx& b, Warp& w, uint32_t mask);
BlockCtx& cluster_shared(BlockCtx& b, const Warp& w, uint32_t pc, uint32_t lane, uint64_t* addr,
                         uint32_t size, const char* verb);
void on_exit_lanes(BlockCtx& b, Warp& w, uint32_t pc, uint32_t mask);

inline const uint64_t* reg(const Warp& w, uint32_t r) { return w.R + size_t{r} * 32; }
inline uint64_t* regw(Warp& w, uint32_t r) { return w.R + size_t{r} * 32; }

#define SMEMLAB_FOR_LANES(mask, ...)                           \
  do {                                                         \
    uint32_t m_ = (mask);                                      \
    if (m_ == 0xffffffffu) {                                   \
      for (uint32_t l = 0; l < 32; ++l) {                      \
        __VA_ARGS__;                                           \
      }                                                        \
    } else {                                                   \
      while (m_) {                                             \
        uint32_t l = static_cast<uint32_t>(__builtin_ctz(m_)); \
        m_ &= m_ - 1;                                          \
        __VA_ARGS__;                                           \
      }                                                        \
    }                                                          \
  } while (0)

// The lanes a warp runs next and their pc: every runnable lane of a uniform
// warp, else those at the least pc (pick_call_group's order inside calls).
// A group that holds every runnable lane makes the warp uniform again. The
// general turn loop (warp_loop.h) and the gpu round loop (gpu_round.h) both
// pick this way, so they take the same turns.
[[gnu::always_inline]] inline void pick_group(const BlockCtx& b, Warp& w, uint32_t* pc,
                                              uint32_t* group) {
  if (w.uniform) {
    *pc = w.cpc;
    *group = w.runnable;
    return;
  }
  if (w.in_call) {
    pick_call_group(b, w, pc, group);
  } else {
    uint32_t least = UINT32_MAX, g = 0;
    SMEMLAB_FOR_LANES(w.runnable, least = w.pc[l] < least ? w.pc[l] : least);
    SMEMLAB_FOR_LANES(w.runnable, g |= (w.pc[l] == least ? 1u : 0u) << l);
    *pc = least;
    *group = g;
  }
  if (*group == w.runnable) {
    w.uniform = true;
    w.cpc = *pc;
  }
}

}  // namespace smemlab::emu
