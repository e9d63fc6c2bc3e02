// Internal to the decoder: per-kernel state while emitting ops, shared by
// decode.cc (operands, registers, layout) and decode_instr.cc (opcodes).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "emu/decode.h"

namespace smemlab::emu {

struct DecodeContext {
  DecodeContext(const ptx::Module& m, std::unique_ptr<Program> p,
                const std::map<std::string, SymbolInfo>& syms)
      : module(m), prog(std::move(p)), module_syms(syms) {}
  const ptx::Module& module;
  std::unique_ptr<Program> prog;
  const std::map<std::string, SymbolInfo>& module_syms;

  // One frame per function instance being emitted (the kernel, then inlined calls).
  struct Frame {
    std::map<std::string, uint32_t> regs, preds;
    std::map<std::string, SymbolInfo> syms;
    const ptx::Function* fn = nullptr;
    std::vector<std::pair<uint32_t, std::string>> label_fixups;  // op index -> label
    std::vector<uint32_t> ret_fixups;                            // BRA ops of `ret`
  };
  std::vector<Frame> frames;
  std::map<uint64_t, uint32_t> const_map;
  std::vector<bool> const_mask;
  std::map<Program::SpecialKind, uint32_t> special_map;
  std::vector<SymbolInfo*> extern_shared;
  uint32_t scratch_reg = UINT32_MAX, scratch_p = UINT32_MAX;
  uint32_t const_pred[2] = {UINT32_MAX, UINT32_MAX};
  std::vector<std::string> call_stack;
  InstrInfo cur_info;

  [[noreturn]] void fail(const ptx::TextPos& p, const std::string& msg) const;
  uint32_t constant(uint64_t v);
  uint32_t scratch();
  uint32_t scratch_pred();
  const SymbolInfo* symbol(const std::string& name) const;
  uint32_t src(const ptx::Operand& o, T t);
  uint32_t dst(const ptx::Operand& o);
  uint32_t pred(const ptx::Operand& o);
  uint32_t pred_name(const std::string& name, const ptx::TextPos& pos, ptx::Operand::Kind kind);
  bool is_pred(const ptx::Operand& o) const;
  void declare_registers(const ptx::Function& f, Frame& fr);
  void place_local(const ptx::VarDecl& v, Frame& fr);

  // Emits `f`'s body. For an inlined call, `args` maps the callee's param and
  // retval names to the caller's frame slots and `ret_to` is unused (ret
  // becomes a branch to the end of the inlined body); for the kernel, ret = exit.
  void emit_function(const ptx::Function& f, const std::map<std::string, SymbolInfo>* args,
                     uint32_t ret_to);
  void emit_instruction(const ptx::Instruction& in);
  void emit_call(const ptx::Instruction& in, const Op& base);
  Op& push(const Op& op);
  Op make(const ptx::Instruction& in);
};

}  // namespace smemlab::emu
