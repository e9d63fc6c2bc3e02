// What the native tier's generated code (native_tier.h) and smemlab agree
// on: the entry of one run's native code and the one symbol each generated
// shared object exports. Included by both sides; kept free of anything
// else so the generated code needs only the executors' headers.
#pragma once

#include <cstdint>

namespace smemlab::emu {

struct BlockCtx;
struct Warp;
struct Op;
struct MemWindow;

// A CallAlu row's executor (exec.h), passed in: the generated object
// calls smemlab's own definition, not a copy.
using NativeCallAlu = void (*)(BlockCtx&, Warp&, const Op&, uint32_t pc, uint32_t exec);

// Native code of one chunk of a run: `len` ops from its op `first`, for the
// `group` lanes (as run_fused, warp_loop.h).
using NativeRunFn = void (*)(BlockCtx&, Warp&, uint32_t group, uint32_t first, uint32_t len);

// Per pc of a run: its chunk's code, the pc's place in the chunk, and how
// many of the chunk's ops start at it (a longer run goes on in the next
// chunk, whose entry is at pc + left). `whole`: the code runs only the
// whole chunk from its first op (a chunk with lane-outer bodies has no
// per-op entries; the loop runs anything else interpreted).
//
// The table has two halves of one entry per pc each. The first: the runs
// (above). The second, at num_ops + pc: the segment starting at pc, for the
// `gpu` schedule's round (gpu_round.h): `left` ops from pc, the runs' ops
// and the loads and stores between them (ops_memory_lane.h), entered only
// at pc and run whole; `ends_turn`: its last op is a load or store other
// warps see, after which the round ends the warp's turn.
struct NativeEntry {
  NativeRunFn fn = nullptr;
  uint32_t first = 0, left = 0;
  bool whole = false;
  bool ends_turn = false;
};

// Checked by the generated object's init against what it was compiled
// with: a stale object (another build's layouts) refuses to load.
// It also passes the out-of-line helpers the generated code calls, so it
// defines nothing of smemlab's itself: program.h's type_bytes (by its
// type's number); for loads and stores, the interpreter's executor
// (exec_memory: every case the compiled form does not take, faults
// included) and the global allocation holding an address (its window).
struct NativeAbi {
  uint32_t version, sizeof_warp, sizeof_op, num_codes;
  int (*type_bytes)(int t);
  NativeCallAlu exec_memory;
  bool (*global_window)(BlockCtx& b, uint64_t addr, MemWindow* m);
};
inline constexpr uint32_t kNativeAbiVersion = 4;

// extern "C" bool smemlab_native_init(const NativeAbi*, const NativeCallAlu*
// calls (per code), NativeEntry* table (2 * num_ops: runs, then segments),
// uint32_t num_ops).
using NativeInitFn = bool (*)(const NativeAbi*, const NativeCallAlu*, NativeEntry*, uint32_t);
inline constexpr const char* kNativeInitSymbol = "smemlab_native_init";

}  // namespace smemlab::emu
