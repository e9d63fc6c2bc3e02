// Events the emulator reports to analyses (Oclgrind-style plugins). The
// interpreter calls a BlockObserver for everything that happens inside one
// thread block; blocks run in parallel, so a KernelObserver makes one
// BlockObserver per block (on the worker thread that runs it) and receives it
// back, serialized and in increasing block order, when the block is done.
// Observers never see the interpreter itself, only these plain structs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace smemlab::ptx {
class LineTable;
}

namespace smemlab::emu {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
  bool operator==(const Dim3&) const = default;
};

enum class Space : uint8_t { Global, Shared, Local, Const, Param };
// CpAsyncLoad/CpAsyncStore: cp.async (SASS LDGSTS) only, its global read and
// its shared write. BulkLoad/BulkStore/BulkReduce: the async proxy's own
// accesses (TMA cp.async.bulk.tensor, 1-D cp.async.bulk, cp.reduce.async.bulk):
// what it reads, writes, and reduces into global memory; each 16-byte chunk
// of the shared side and each global piece is one single-lane event, and a
// BulkCopy event describes the whole copy.
enum class MemOp : uint8_t {
  Load,
  Store,
  Atomic,
  Reduction,
  CpAsyncLoad,
  CpAsyncStore,
  BulkLoad,
  BulkStore,
  BulkReduce
};

const char* space_name(Space s);
const char* memop_name(MemOp o);

// What every event knows about the instruction that caused it.
// What the analyses ask of an instruction beyond its events. The decoder
// sets it from the decoded op: `text` is for people, never matched.
enum class InstrTrait : uint8_t {
  None,
  CompareAndSwap,   // atom.cas: the compare value is a read of the location
  WarpMemoryOrder,  // bar.warp.sync (__syncwarp): orders memory between its lanes
};

struct InstrInfo {
  uint32_t pc = 0;   // index of the decoded op in the kernel's program
  int ptx_line = 0;  // line in the PTX text
  int ptx_col = 0;
  int loc = -1;      // index into the module's ptx::LineTable (-1: none)
  std::string text;  // "ld.shared.v4.f32"
  InstrTrait trait = InstrTrait::None;
};

// One warp-level memory instruction: up to 32 lanes, each with its address.
// Shared: byte offset within the block's shared window (static + dynamic).
// Global: device address. Local: offset in the thread's frame. Const/Param:
// offset within that bank. A generic access is reported in the space its
// address resolved to (lanes resolving to different spaces: one event each).
struct MemAccess {
  Space space;
  MemOp op;
  uint8_t width;  // bytes per lane (16 for ld.v4.f32)
  // ldmatrix/stmatrix .x1/.x2/.x4: 1, 2 or 4 (each lane reads or writes one
  // 16-byte matrix row, width 16; lanes 8m..8m+7 give matrix m's rows and
  // the bank cost follows bank/ldmatrix.h). 0 for every other instruction.
  uint8_t matrices = 0;
  // An mbarrier operation on its 8-byte object (init: op Store; the others:
  // Atomic, as the checkers order them). The GPU runs these as SYNCS
  // instructions, which Nsight Compute files under op_misc, not under
  // ld/st/atom (docs/bank-model.md, "Hopper"): the counters keep them apart.
  bool mbarrier = false;
  uint32_t mask;  // lanes that access memory
  uint64_t addr[32];
  const InstrInfo* instr;
  Dim3 block;
  uint32_t warp;  // warp index within the block
  // A plain st/st.v (op Store of an ld/st instruction): what each lane
  // stored, element i of `stored_vec` in the low width / stored_vec bytes
  // of stored[i][lane] (the warp's registers: valid during the call only).
  // stored[0] null: not known (every other event). `check` tells a
  // write-write race of equal values from one that changes memory with it.
  const uint64_t* stored[4] = {};
  uint8_t stored_vec = 0;
};

enum class BarrierKind : uint8_t { Sync, Arrive, Red };

struct BarrierArrive {
  BarrierKind kind;
  bool aligned;        // bar.sync/bar.red (aligned) vs barrier.sync
  uint32_t barrier;    // barrier id 0..15
  uint32_t expected;   // threads expected (block's live threads or the count operand)
  uint32_t mask;       // lanes of this warp arriving now
  uint32_t live_mask;  // non-exited lanes of the warp at that moment
  const InstrInfo* instr;
  Dim3 block;
  uint32_t warp;
  bool counted = false;  // `expected` is the instruction's thread count (bar.sync 1, 128)
};

// All waiters of a barrier released: starts a new barrier epoch.
struct BarrierRelease {
  uint32_t barrier;
  uint64_t epoch;  // 1 for the first release in the block, then 2, ...
};

// A warp collective executed (shfl/vote/redux/match/bar.warp.sync/activemask).
struct WarpSync {
  uint32_t member_mask;  // the instruction's membermask operand
  uint32_t mask;         // lanes executing it, also at other instructions of its kind
  const InstrInfo* instr;
  Dim3 block;
  uint32_t warp;
};

struct Branch {
  uint32_t taken;      // lanes that jump
  uint32_t not_taken;  // lanes that fall through
  const InstrInfo* instr;
  Dim3 block;
  uint32_t warp;
};

struct Exit {
  uint32_t mask;
  const InstrInfo* instr;
  Dim3 block;
  uint32_t warp;
};

// ---- Hopper: asynchronous copies, wgmma, mbarriers, fences, clusters ----
// Events about another block's shared memory (a cluster peer's) go to the
// issuing block's observer and, with `incoming` set, to the observer of the
// block whose shared memory it is (blocks of a cluster run on one host
// thread, so both are called from it). `block`/`warp` are always the
// issuer's; `rank`/`target` name the block whose shared memory is meant.
// Spans point into the emulator's storage: valid during the call only.

enum class BulkKind : uint8_t {
  Load,      // global -> shared (cp.async.bulk{.tensor}.shared::cluster.global)
  Store,     // shared -> global
  Reduce,    // shared -> global, reduced into it (cp.reduce.async.bulk.tensor)
  Prefetch,  // global -> L2 (cp.async.bulk.prefetch.tensor): no shared side
};
const char* bulk_kind_name(BulkKind k);
// Issue: the thread executed the copy instruction (the data has not moved
// yet). Complete: where the PTX memory model makes its effect visible (the
// emulator moves the data between the two): for a load, right after its
// shared writes and before the complete_tx on its mbarrier (an Mbarrier
// event of kind CompleteTx follows, per destination block); for a store or
// reduction, at the cp.async.bulk.wait_group{.read} that covers its bulk
// async-group (or the thread's exit); a prefetch completes at issue.
enum class BulkPhase : uint8_t { Issue, Complete };
constexpr uint32_t kNoMbarrier = ~0u;
struct ByteRange {
  uint64_t addr;
  uint32_t bytes;
};
// One 16-byte chunk of a copy's global side: its address as the tensor's
// layout gives it (also for a chunk outside the tensor) and how many of its
// bytes, from its start, are inside the tensor (0: none).
struct GlobalChunk {
  uint64_t addr;
  uint32_t valid;
};
struct BulkCopy {
  BulkPhase phase;
  BulkKind kind;
  bool tensor;         // cp.async.bulk.tensor (a tensor map); false: 1-D cp.async.bulk
  bool im2col;         // tensor: .im2col (else .tile)
  uint8_t dims;        // tensor: .1d .. .5d (1-D bulk: 1)
  uint8_t swizzle;     // the tensor map's CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B
  uint8_t lane;        // the issuing thread's lane in `warp`
  bool read_only;      // Complete of a store/reduction at a wait_group.read: the shared
                       // side may be reused, the global writes need not be visible yet
  bool incoming;       // delivered to a destination block other than the issuer's
  uint16_t multicast;  // .multicast::cluster ctaMask (0: none)
  uint32_t rank;       // cluster rank of the block whose shared memory `chunks` are in
  uint32_t issuer_rank;
  uint64_t id;  // the copy: its Issue and Complete events (and every block's) share it
  // Shared offset, in block `rank`, of the mbarrier a load completes on
  // (kNoMbarrier: stores, reductions, prefetches).
  uint32_t mbarrier;
  // Stores, reductions: the issuing thread's bulk async-group the copy
  // belongs to (its count of cp.async.bulk.commit_group before the copy).
  uint32_t group;
  uint32_t shared_base;  // shared offset of the box (tensor) or region before the swizzle
  // Tensor copies: the box in shared memory before the swizzle, `rows` rows
  // of `row_bytes` bytes, `pitch` bytes apart (the row's bytes, or the
  // swizzle's span when it has one). 1-D copies: one row.
  uint32_t row_bytes, rows, pitch;
  uint64_t bytes;  // bytes moved: what a load signals to its mbarrier (complete_tx)
  // Shared side: the offset of each 16-byte chunk written (load) or read
  // (store, reduction) in block `rank`, after the swizzle, in the order the
  // copy walks the box (row by row). Empty for prefetches.
  std::span<const uint32_t> chunks;
  // Global side: the byte ranges read (load, prefetch) or written (store,
  // reduction) inside the tensor, one per contiguous run of a box row
  // (out-of-bounds elements are neither read nor written).
  std::span<const ByteRange> global;
  // The global side chunk by chunk, in the copy's walk order (the box row
  // by row, 16 bytes at a time; a 1-D copy's bytes in order). Empty for
  // prefetches.
  std::span<const GlobalChunk> global_chunks;
  bool unit_strides;  // tensor: every elementStride of the map is 1
  const InstrInfo* instr;
  Dim3 block;
  uint32_t warp;
  Dim3 target;  // the block `rank` is
};

// One warp's wgmma.mma_async read of a shared-memory operand: the matrix
// descriptor as decoded and the 16-byte chunks it made the warp read.
struct WgmmaOperand {
  uint64_t desc = 0;                     // the 64-bit matrix descriptor
  uint32_t start = 0, lbo = 0, sbo = 0;  // bytes (start: shared offset)
  uint8_t base_offset = 0;
  uint8_t swizzle = 0;       // the descriptor's field: 0 none, 1 128B, 2 64B, 3 32B
  bool mn_major = false;     // imm-trans (MN-major); else K-major
  uint8_t elem_bytes = 0;    // 1, 2 or 4
  uint32_t mn0 = 0, mn = 0;  // rows (A: m) or columns (B: n) read: mn0 .. mn0 + mn - 1
  uint32_t k = 0;
  // Shared offset of each 16-byte chunk read, in the order read: K-major
  // by mn then k, MN-major by k then mn.
  std::span<const uint32_t> chunks;
};
enum class WgmmaKind : uint8_t { Mma, Fence, Commit, Wait };
// wgmma per warp (each warp of the warpgroup executes it): Mma reads B and,
// when A comes from shared memory, the warp's 16 rows of A (warp q of the
// warpgroup: rows 16q..16q+15; B is the same in all four warps' events).
struct Wgmma {
  WgmmaKind kind;
  bool a_shared = false;         // Mma: A from a descriptor (else from registers)
  uint32_t m = 0, n = 0, k = 0;  // Mma: the shape
  WgmmaOperand a, b;             // Mma (a only when a_shared)
  // Mma: the wgmma-group it joins (the warp's commit_group count so far).
  // Commit: the group it closes. Wait: N of wait_group N.
  uint32_t group = 0;
  // Wait: every group below this one is complete (the emulator computes
  // at issue, so wait_group N completes all but the N most recent).
  uint32_t complete_below = 0;
  const InstrInfo* instr = nullptr;
  Dim3 block;
  uint32_t warp = 0;
  // Mma: not a PTX wgmma but the predicated-off HGMMA.64xNx16 with null
  // operands that ptxas adds for the wgmma.commit_group `instr` (the SASS
  // level, sass/regroup.h): it reads nothing (no operands), and Nsight
  // Compute's SASS-patched gmma counters count it.
  bool sass_only = false;
};

// One thread's mbarrier operation, with the barrier's state around it.
enum class MbarrierKind : uint8_t {
  Init,
  Inval,
  Arrive,      // mbarrier.arrive{.expect_tx}{_drop}
  ExpectTx,    // mbarrier.expect_tx
  CompleteTx,  // mbarrier.complete_tx, or a bulk copy's completion (copy != 0)
  TestWait,
  TryWait,
  CpAsyncArrive,  // cp.async.mbarrier.arrive: count 1 with .noinc, else 0 (no net arrival)
};
const char* mbarrier_kind_name(MbarrierKind k);
struct Mbarrier {
  MbarrierKind kind;
  uint8_t lane;              // the thread (for a copy's CompleteTx: the copy's issuer)
  bool incoming;             // delivered to the block holding the mbarrier, not the issuer's
  bool drop = false;         // Arrive: arrive_drop
  bool parity_form = false;  // Test/TryWait: .parity (else a state token)
  bool ready = false;        // Test/TryWait: the phase asked for is complete
  bool completed = false;    // this operation completed the current phase
  uint32_t rank;             // cluster rank of the block holding the mbarrier
  uint32_t issuer_rank;
  uint32_t addr;             // its shared offset in that block
  uint32_t count = 0;        // Init: expected arrivals; Arrive: arrivals
  uint32_t tx = 0;           // ExpectTx, CompleteTx, Arrive.expect_tx: bytes
  uint32_t wait_parity = 0;  // Test/TryWait: the phase parity asked for (token's or operand)
  // The barrier before and after: current phase parity, pending arrivals
  // and tx-count (Init: before is whatever the word held).
  uint32_t parity_before = 0, parity_after = 0;
  uint32_t pending_before = 0, pending_after = 0;
  int32_t tx_before = 0, tx_after = 0;
  uint32_t expected = 0;  // arrivals per phase (after the operation)
  uint64_t copy = 0;      // CompleteTx signalled by a bulk copy: its BulkCopy::id
  const InstrInfo* instr;
  Dim3 block;
  uint32_t warp;
  Dim3 target;  // the block holding the mbarrier
};

enum class FenceKind : uint8_t {
  ProxyAsync,      // fence.proxy.async{.global, .shared::cta, .shared::cluster}
  MbarrierInit,    // fence.mbarrier_init.release.cluster
  ProxyAlias,      // fence.proxy.alias
  ProxyTensormap,  // fence.proxy.tensormap::generic.{release,acquire}
  Memory,          // fence{.sem}.scope
};
const char* fence_kind_name(FenceKind k);
enum class FenceSpace : uint8_t { All, Global, SharedCta, SharedCluster };
struct Fence {
  FenceKind kind;
  FenceSpace space;  // ProxyAsync's state space (All: none given)
  uint32_t mask;     // lanes executing it
  const InstrInfo* instr;
  Dim3 block;
  uint32_t warp;
};

// One cp.async (LDGSTS) warp-instruction's copies completing together, told
// after their CpAsyncLoad and CpAsyncStore accesses: both sides per lane,
// as the LDGSTS rule (bank/hopper.h, async_copy_cost) takes them.
// The SASS form ptxas gave a cp.async with a src-size operand: LDGSTS.ZFILL
// (the size in a register) or LDGSTS whose last operand is a predicate (every
// size provably 0 or the full width). The emulator runs PTX and cannot know
// (Unknown); the SASS level (sass::Regroup) fills it in.
// The SASS form of a cp.async.cg with a src-size operand. The predicated
// LDGSTS costs differently under Nsight Compute when its predicate operand is
// P0 (docs/bank-model.md, ".cg's predicated form", run 10).
enum class LdgstsForm : uint8_t { Unknown, Zfill, Predicated, PredicatedP0 };

struct CpAsyncCopy {
  uint32_t mask;                    // lanes whose copy completed now
  uint32_t no_read;                 // of those, lanes with src-size 0 (they only zero-fill)
  uint8_t width;                    // cp-size: 4, 8 or 16
  bool bypass;                      // .cg (else .ca)
  bool src_size;                    // the instruction has a src-size operand
  LdgstsForm form;                  // src_size's SASS form, where the SASS level knows it
  uint64_t shared[32], global[32];  // per lane in mask: destination offset, source address
  const InstrInfo* instr;
  Dim3 block;
  uint32_t warp;
};

// A warp's access to a cluster peer's shared memory (ld/st/atom/red
// .shared::cluster, a mapa'd generic address, an mbarrier operation or the
// peer side of a multicast copy): `access.addr` are offsets in the shared
// memory of the block of cluster rank `rank`; `access.mask` the lanes that
// reached that block (lanes reaching other peers: one event per peer;
// lanes reaching their own block: an ordinary on_memory event).
struct DsharedAccess {
  MemAccess access;  // space Shared; block/warp: the issuer's
  uint32_t rank;
  uint32_t issuer_rank;
  Dim3 target;
  bool incoming;
};

// How often each instruction ran in one block: warp-instructions and the
// lanes at the instruction's PC summed over them (SIMT efficiency per line).
struct InstrCount {
  uint64_t steps = 0;
  uint64_t lanes = 0;
};

class BlockObserver {
 public:
  virtual ~BlockObserver() = default;
  // Observers that return true get on_instruction_counts at the block's end;
  // the interpreter counts per instruction only for them.
  virtual bool wants_instruction_counts() const { return false; }
  // Indexed by pc (Program::ops); info[pc] is the instruction.
  virtual void on_instruction_counts(const std::vector<InstrCount>& /*by_pc*/,
                                     const std::vector<const InstrInfo*>& /*info*/) {}
  virtual void on_block_begin(Dim3 /*block*/, Dim3 /*block_dim*/, uint32_t /*shared_bytes*/) {}
  virtual void on_memory(const MemAccess&) {}
  virtual void on_barrier(const BarrierArrive&) {}
  virtual void on_barrier_release(const BarrierRelease&) {}
  virtual void on_warp_sync(const WarpSync&) {}
  virtual void on_branch(const Branch&) {}
  virtual void on_exit(const Exit&) {}
  // Hopper's events (above); none of them is sent to an observer of a
  // launch that executes no such instruction.
  virtual void on_bulk_copy(const BulkCopy&) {}
  virtual void on_wgmma(const Wgmma&) {}
  virtual void on_mbarrier(const Mbarrier&) {}
  virtual void on_fence(const Fence&) {}
  virtual void on_dshared(const DsharedAccess&) {}
  virtual void on_cp_async(const CpAsyncCopy&) {}
  virtual void on_block_end(Dim3 /*block*/) {}
};

struct KernelInfo {
  std::string name;  // mangled
  Dim3 grid, block;
  uint32_t static_shared = 0, dynamic_shared = 0;
  const ptx::LineTable* lines = nullptr;
  // The kernel has an mbarrier, bulk or tensor copy, wgmma or fence
  // instruction: the Hopper events may come (analyses that need them can
  // skip their bookkeeping otherwise).
  bool hopper = false;
  Dim3 cluster;  // the launch's cluster shape (1x1x1: blocks alone)
};

class KernelObserver {
 public:
  virtual ~KernelObserver() = default;
  virtual void on_kernel_begin(const KernelInfo&) {}
  // Called on the worker thread that runs `block`; may return nullptr to skip it.
  virtual std::unique_ptr<BlockObserver> make_block_observer(Dim3 block) = 0;
  // Called once per block with the non-null observer made for it,
  // serialized and in increasing linear block order (deterministic merging).
  // Blocks given no observer are not finished, nor, after a fault or a
  // stop, the blocks above the first error (skipped or cut off by a skip).
  virtual void finish_block(Dim3 /*block*/, std::unique_ptr<BlockObserver>) {}
  virtual void on_kernel_end(bool /*ok*/) {}
};

}  // namespace smemlab::emu
