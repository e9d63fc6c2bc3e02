// Events the emulator reports to analyses (Oclgrind-style plugins). The
// interpreter calls a BlockObserver for everything that happens inside one
// thread block; blocks run in parallel, so a KernelObserver makes one
// BlockObserver per block (on the worker thread that runs it) and receives it
// back, serialized and in increasing block order, when the block is done.
// Observers never see the interpreter itself, only these plain structs.
#pragma once

#include <cstdint>
#include <memory>
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
enum class MemOp : uint8_t { Load, Store, Atomic, Reduction, CpAsyncLoad, CpAsyncStore };

const char* space_name(Space s);
const char* memop_name(MemOp o);

// What every event knows about the instruction that caused it.
struct InstrInfo {
  uint32_t pc = 0;   // index of the decoded op in the kernel's program
  int ptx_line = 0;  // line in the PTX text
  int ptx_col = 0;
  int loc = -1;      // index into the module's ptx::LineTable (-1: none)
  std::string text;  // "ld.shared.v4.f32"
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
  uint32_t mask;  // lanes that access memory
  uint64_t addr[32];
  const InstrInfo* instr;
  Dim3 block;
  uint32_t warp;  // warp index within the block
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
  virtual void on_block_end(Dim3 /*block*/) {}
};

struct KernelInfo {
  std::string name;  // mangled
  Dim3 grid, block;
  uint32_t static_shared = 0, dynamic_shared = 0;
  const ptx::LineTable* lines = nullptr;
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
