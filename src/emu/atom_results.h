// Which `atom` instructions the GPU executes as reductions (issue 28, run
// 16). ptxas turns an atom whose result nothing reads into a RED, and
// Nsight Compute counts REDs under op_red, not op_atom: CUTLASS example 54's
// amax (`atom.global.max.s32`, result unused) is 64 op_red sectors on the
// H100 (run 14). ptxas's rule, from its SASS (nvcc 13.0, sm_90a,
// tests/validation/hopper/public/red_forms.cu, docs/bank-model.md "Atomics
// whose result is unused"): a RED (REDG) when the atom names the .global
// space, is not an exchange (cas, exch), has no acquire semantics (.acquire,
// .acq_rel keep ATOMG), and no instruction reads its destination;
// a generic-space atom stays ATOM and a shared one ATOMS, read or not.
// decode_atom marks the candidates by form (Op::t2 == kAtomUnreadCandidate);
// this pass keeps the mark where the destination register is dead after the
// atom, by liveness over the kernel's control-flow graph. The emulator
// executes a marked atom as any other and reports it as MemOp::Reduction.
#pragma once

#include <cstdint>

#include "emu/program.h"

namespace smemlab::emu {

// Op::t2 of an ATOM op: 0 an atom, 1 a red, kAtomUnreadCandidate an atom of
// a RED's form whose result is not read (after mark_unread_atom_results).
constexpr uint8_t kAtomUnreadCandidate = 2;

// Clears the mark of every candidate whose destination some instruction
// may read after it (conservatively: a register that an op the liveness
// does not describe names counts as read; a program with calls keeps no
// mark).
void mark_unread_atom_results(Program& p);

}  // namespace smemlab::emu
