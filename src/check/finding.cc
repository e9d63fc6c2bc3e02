#include "check/finding.h"

namespace smemlab::check {

Involved involved(const std::string& role, const emu::KernelInfo& kernel,
                  const emu::InstrInfo* instr, emu::Dim3 block, uint32_t thread) {
  Involved v;
  v.role = role;
  v.block = block;
  v.thread = thread;
  if (instr) {
    auto lines = lines_of(kernel.lines, instr->loc);
    if (!lines.empty()) v.where = lines.front();
    v.ptx_line = instr->ptx_line;
    v.instr = instr->text;
  }
  return v;
}

}  // namespace smemlab::check
