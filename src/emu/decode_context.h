// Internal to the decoder: per-kernel state while emitting ops, shared by
// decode.cc (operands, registers, layout) and decode_instr.cc (opcodes).
#pragma once

#include <map>
#include <memory>
#include <set>
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
  uint32_t explicit_cluster_pred = UINT32_MAX;  // %is_explicit_cluster
  uint32_t const_pred[2] = {UINT32_MAX, UINT32_MAX};
  std::vector<std::string> call_stack;
  InstrInfo cur_info;

  // Real calls (decode_call.cc): functions on a cycle of direct calls and
  // functions whose address is taken get a body of their own after the
  // kernel; every call of them, indirect and predicated calls are CALL ops.
  // SMEMLAB_CALLS=real makes every call with a body real (tests compare).
  std::set<const ptx::Function*> recursive, address_taken;
  bool all_real = false, indirect_seen = false;
  int32_t cur_callee = -1;                     // the callee being emitted, -1: the kernel
  std::map<uint32_t, uint32_t> frame_reg_map;  // offset in its record -> register
  std::vector<uint32_t> pending_callees;
  void plan_calls();
  uint32_t callee_index(const ptx::Function& f);
  uint64_t function_address(const ptx::Function& f);
  // The register a frame-relative symbol's address is based on (its
  // callee's record + rel), or constant(0) for any other symbol.
  uint32_t frame_reg(uint32_t rel);
  uint32_t symbol_base(const SymbolInfo& s) {
    return s.frame_relative ? frame_reg(0) : constant(0);
  }
  void emit_real_call(const ptx::Instruction& in, const Op& base, const ptx::Function* callee,
                      const ptx::Operand& target, const ptx::Operand* args,
                      const ptx::Operand* rets);
  void emit_callees();
  void emit_callee(uint32_t ci, const ptx::Function& f);
  void emit_body(const ptx::Function& f);
  uint32_t param_size(const std::string& name) const;

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

// The instruction being decoded, what its modifiers say, and the helpers
// decoders share.
struct Insn {
  Insn(DecodeContext& ctx, const ptx::Instruction& i, const Op& o) : c(ctx), in(i), op(o) {}
  DecodeContext& c;
  const ptx::Instruction& in;
  Op op;               // guard filled in; op.t starts as t
  std::vector<T> tys;  // the type modifiers, in order
  T t = U32;           // the last of them (U32 if none)
  bool ftz = false, sat = false;
  Round rnd = R_NONE;

  const std::string& opcode() const { return in.opcode; }
  const std::vector<ptx::Operand>& operands() const { return in.operands; }
  [[noreturn]] void unsupported() const;
  void need(size_t n) const;  // exactly n operands
  // d = op(a, b, ...) with nsrc sources of the instruction's type.
  void simple(Base b, size_t nsrc);
  // A float op with a rounding mode, .ftz, .sat or a transcendental.
  void fslow(FOp f, size_t nsrc);
  Op& push() { return c.push(op); }
};

// A call of a body-less function: emits its BUILTIN op and returns true
// for vprintf/__assertfail/malloc/free, fails for the device runtime's
// launch API (dynamic parallelism), returns false otherwise. params and
// retvals are the frame offsets of the call's .param slots.
bool decode_builtin(DecodeContext& c, const ptx::Instruction& in, const ptx::Function& callee,
                    const std::vector<uint32_t>& params, const std::vector<uint32_t>& retvals);

// Lets registers whose live ranges never overlap share a slot
// (decode_regalloc.cc); run on the finished program.
void coalesce_registers(Program& p);

// Modifier lookups shared by decoders.
inline bool is_float(T t) { return t == F32 || t == F64 || t == F16 || t == BF16; }
MSpace space_of(const ptx::Instruction& in);  // Generic when no space modifier
// Index in names[0..n) of the first modifier found there, or -1.
int mod_index(const char* const* names, int n, const ptx::Instruction& in);

// Decoders named by the SMEMLAB_PTX rows of instructions.def (each in the
// file of its family; see docs/emulator.md).
#define SMEMLAB_PTX(mnemonic, decoder) void decoder(Insn& d);
#include "emu/instructions.def"
// barrier.cluster.* (decode_cluster.cc), reached through decode_bar.
void decode_cluster_barrier(Insn& d);

}  // namespace smemlab::emu
