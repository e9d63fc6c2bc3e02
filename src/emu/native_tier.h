// The native tier (issue 30, deliverable 1's first step): the jit tier's
// straight runs (tier.h, Program::fused: Inline and CallAlu rows) as
// native code generated per kernel. Each run becomes C++ functions whose
// ops call the same definitions the interpreter's loop calls: the per-lane
// `_lane` functions of ops_alu.h and ops_inline.h in lane-outer loops (each
// lane's values in locals across a stretch of ops: native_lanes.h), the
// executor templates elsewhere, CallAlu rows through smemlab's own
// executors; every Op is a compile-time constant, so register offsets,
// types and modifiers fold away and the lane loops vectorize. The
// host C++ compiler (SMEMLAB_CXX, else c++) builds it into a shared object
// in a background thread, cached on disk
// ($XDG_CACHE_HOME/smemlab/native or ~/.cache/smemlab/native) by a hash of
// the source and this build; once loaded, turns that start after that run
// it. SMEMLAB_TIER=native compiles at the first launch, before it runs;
// SMEMLAB_NATIVE=1 under jit compiles in the background once a kernel has
// cost more than its compile (launch.cc: off otherwise). A compile runs in
// a directory of its own, so one stopped at exit leaves nothing in the
// cache.
// Without a compiler, or when a compile fails: the interpreter's runs,
// with one note on stderr. docs/emulator.md, "Issue 30, native runs".
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "emu/native_abi.h"

namespace smemlab::emu {

struct Program;

// The C++ source of the program's runs; "" when it has none worth it.
std::string native_source(const Program& p);

// The state of a program's native code, shared by every program with the
// same ops and plan (a copy, the same kernel decoded again).
struct NativeState;
std::shared_ptr<NativeState> native_state(const Program& p);

// For a launch: the table its blocks read (per pc, the native code of the
// run starting there; null, or null entries, while not loaded). At the
// first launch it looks for the code in the cache (and loads it from
// there). `sync`: compile now if it is not there; else the compile starts
// in the background, at a lower priority, at a launch of a kernel whose
// launches so far have cost more CPU time than its compile is expected to
// (native_compile_estimate): a kernel launched once never pays for a
// compile, and one that does pays at most what it had already cost.
const std::atomic<const NativeEntry*>* native_runs(const std::shared_ptr<NativeState>& st,
                                                   const Program& p, bool sync);
// After a launch (the CPU time since native_runs counts toward the rule;
// the other arguments are not used).
void native_work_done(const std::shared_ptr<NativeState>& st, const Program& p,
                      uint64_t warp_instructions);

// The CPU seconds a compile of `source` is expected to take: about a second
// of headers and 30 KB of source per second after them (c++ -O3 here), or
// SMEMLAB_NATIVE_COST's seconds where set (tests; 0: tier up at a
// kernel's second launch).
double native_compile_estimate(const std::string& source);

// Whether the program's native code is loaded (tests), and why not.
bool native_loaded(const Program& p, std::string* why = nullptr);

}  // namespace smemlab::emu
