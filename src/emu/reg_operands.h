// The register operands of the common ops: which fields of Op::r an op
// reads and which it writes (program.h documents the fields). Shared by the
// decode-time register coalescing and the block set-up that skips clearing
// registers written before they are read.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "emu/program.h"

namespace smemlab::emu {

// Which r[] fields of an op are registers it reads and writes. `known` is
// false for every op not listed here (their fields may be predicates, frame
// offsets, or registers beside others in Program::tensor_ops): analyses of
// registers must treat such an op as touching anything it names.
struct RegOperands {
  bool known = false;
  uint8_t ndef = 0, nuse = 0;
  uint8_t def[4] = {}, use[5] = {};  // indices into Op::r
};

// From the op's shape (instructions.def's SHAPE column, OpShape). Only the
// shapes below are described to the register analyses: the others (Ctl3,
// Bfi, Carry, PredOfReg, PredLogic, Convert, FloatFn, Other) stay unknown,
// as those ops were before the column existed; describing them would change
// decode-time coalescing, block set-up and the timing model's dependences,
// a change of its own.
inline RegOperands reg_operands(const Op& op) {
  RegOperands o;
  auto defs = [&](std::initializer_list<uint8_t> d) {
    for (uint8_t i : d) o.def[o.ndef++] = i;
  };
  auto uses = [&](std::initializer_list<uint8_t> u) {
    for (uint8_t i : u) o.use[o.nuse++] = i;
  };
  if (op.t == PRED || op.code / 16 >= kNumBase) return o;
  switch (op_shape(static_cast<Base>(op.code / 16))) {
    case OpShape::Un:
      defs({0});
      uses({1});
      break;
    case OpShape::Bin:
      defs({0});
      uses({1, 2});
      break;
    case OpShape::Tern:
      defs({0});
      uses({1, 2, 3});
      break;
    case OpShape::Select:  // r3 is a predicate
      defs({0});
      uses({1, 2});
      break;
    case OpShape::Compare:  // r0, r1, r4 are predicates
      uses({2, 3});
      break;
    case OpShape::Load:
      if (op.vec < 1 || op.vec > 4) return o;
      for (uint8_t i = 0; i < op.vec; ++i) o.def[o.ndef++] = i;
      uses({4});
      break;
    case OpShape::Store:
      if (op.vec < 1 || op.vec > 4) return o;
      for (uint8_t i = 0; i < op.vec; ++i) o.use[o.nuse++] = i;
      uses({4});
      break;
    case OpShape::NoRegs:
      break;
    default:
      return o;
  }
  o.known = true;
  return o;
}

}  // namespace smemlab::emu
