#include "timing/constant_loads.h"

#include "emu/reg_operands.h"
#include "timing/short_circuit.h"

namespace smemlab::timing {

std::vector<uint8_t> folded_constant_loads(const emu::Program& p) {
  if (kShortCircuit) return {};  // the cost harness (short_circuit.h)
  std::vector<uint8_t> folded(p.ops.size(), 0);
  // Registers some op writes: a load based on one of them reads an address
  // computed at run time (ptxas keeps an LDC for it).
  std::vector<bool> written(p.num_regs, false);
  auto write = [&](uint32_t r) {
    if (r < written.size()) written[r] = true;
  };
  for (const emu::Op& op : p.ops) {
    const emu::RegOperands o = emu::reg_operands(op);
    if (o.known) {
      for (uint8_t d = 0; d < o.ndef; ++d) write(op.r[o.def[d]]);
      continue;
    }
    // The other ops' destinations (program.h's operand fields): a
    // predicate op or setp writes predicates only, a barrier bar.red's r2;
    // memory, asynchronous, tensor and runtime ops and calls up to four
    // data registers r0..r3; every other op its r0. (A barrier's r0 is its
    // id, read: often the very constant register of a symbol at 0.)
    const auto base = static_cast<emu::Base>(op.code / 16);
    const emu::OpClass cls = emu::op_class(base);
    if (op.t == emu::PRED || base == emu::SETP) continue;
    if (cls == emu::OpClass::Barrier) {
      write(op.r[2]);
    } else if (cls == emu::OpClass::Memory || cls == emu::OpClass::Async ||
               cls == emu::OpClass::Tensor || cls == emu::OpClass::Builtin || base == emu::CALL) {
      for (int i = 0; i < 4; ++i) write(op.r[i]);
    } else {
      write(op.r[0]);
    }
  }
  for (const emu::TensorOp& t : p.tensor_ops) t.for_each_register(write);
  for (size_t pc = 0; pc < p.ops.size(); ++pc) {
    const emu::Op& op = p.ops[pc];
    if (op.code / 16 != emu::LD) continue;
    const auto space = static_cast<emu::MSpace>(op.aux);
    if (space != emu::MSpace::Const && space != emu::MSpace::Param) continue;
    const uint32_t base = op.r[4];
    folded[pc] = base < written.size() && !written[base];
  }
  return folded;
}

}  // namespace smemlab::timing
