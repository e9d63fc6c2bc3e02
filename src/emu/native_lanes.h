// The native tier's lane-outer bodies (issue 30): for a stretch of a run's
// ops that all have a per-lane form (the `_lane` functions of ops_alu.h and
// ops_inline.h, which the interpreter's executors loop over), one C++
// function whose loop is over the warp's 32 lanes and whose ops are
// per-lane value expressions on locals: each register and predicate the
// stretch touches is read once per lane before its ops and each one it
// writes is stored once after them, so a run of N ops does not pass its
// values through the register file between ops. Used by native_codegen.cc
// for a warp (any lane group) entering a chunk at its first op and running
// all of it; the other entries keep the executors' warp-level calls.
#pragma once

#include <cstdint>
#include <string>

namespace smemlab::emu {

struct Op;
struct Program;

// Whether `o` has a per-lane form: an Inline row's executor's `_lane`
// function, or cvt's and the float slow path's for their common ops
// (ops_convert_lane.h, ops_float_lane.h), with an operand shape
// (instructions.def) that names its operands.
bool has_lane_form(const Op& o);

// The C++ of `template <bool Full> void lanes<start>(Warp& w, uint32_t
// group)` (or `name` where given): ops [start, start + len) of the program, every one with a lane
// form, run for the lanes of `group` (Full: group is all 32 lanes) with the
// constants `o<pc>` the generated source defines. Lanes outside the group
// (and ops whose guard is false in a lane) keep their values: each write is
// a select, so every lane can be computed alike (the lane functions are
// total) and the compiler can run several lanes per vector instruction.
std::string lane_body_function(const Program& p, uint32_t start, uint32_t len,
                               const std::string& name = "");

}  // namespace smemlab::emu
