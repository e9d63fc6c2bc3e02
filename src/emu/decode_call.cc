// Real calls at decode time: which functions get a body of their own (on a
// cycle of direct calls, or with their address taken), the CALL ops, the
// callees' bodies after the kernel and their frame-relative variables.
// Direct calls of the other functions stay inlined (decode_instr.cc).
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <functional>

#include "emu/decode_context.h"
#include "ptx/demangle.h"

namespace smemlab::emu {
namespace {

using K = ptx::Operand::Kind;

uint32_t align16(uint32_t v) { return (v + 15u) / 16u * 16u; }

// The functions each function calls directly, by name.
std::map<const ptx::Function*, std::vector<const ptx::Function*>> direct_calls(
    const ptx::Module& m) {
  std::map<const ptx::Function*, std::vector<const ptx::Function*>> g;
  for (const auto& f : m.functions) {
    auto& out = g[&f];
    for (const auto& in : f.body) {
      if (in.opcode != "call") continue;
      for (const auto& o : in.operands)
        if (o.kind == K::Reg)
          if (const ptx::Function* c = m.find(o.name); c && c->has_body) out.push_back(c);
    }
  }
  return g;
}

}  // namespace

void DecodeContext::plan_calls() {
  const char* env = std::getenv("SMEMLAB_CALLS");
  all_real = env && std::strcmp(env, "real") == 0;
  auto graph = direct_calls(module);
  // On a cycle: reachable from itself.
  for (const auto& f : module.functions) {
    if (!f.has_body || f.is_entry) continue;
    std::set<const ptx::Function*> seen;
    std::vector<const ptx::Function*> todo(graph[&f].begin(), graph[&f].end());
    while (!todo.empty()) {
      const ptx::Function* g = todo.back();
      todo.pop_back();
      if (g == &f) {
        recursive.insert(&f);
        break;
      }
      if (!seen.insert(g).second) continue;
      for (const ptx::Function* h : graph[g]) todo.push_back(h);
    }
  }
  // Address taken: named as a value (mov, st, an initializer), not as the
  // target of a call. A kernel's address is for launching it (dynamic
  // parallelism, device_runtime.h), never a call target.
  for (const auto& g : module.globals)
    for (const auto& [off, name] : g.init_symbols)
      if (const ptx::Function* f = module.find(name); f && f->has_body && !f->is_entry)
        address_taken.insert(f);
  for (const auto& fn : module.functions)
    for (const auto& in : fn.body) {
      if (in.opcode == "call") continue;
      for (const auto& o : in.operands)
        if (o.kind == K::Reg)
          if (const ptx::Function* f = module.find(o.name); f && f->has_body && !f->is_entry)
            address_taken.insert(f);
    }
}

uint64_t DecodeContext::function_address(const ptx::Function& f) {
  return kFunctionWindow + 16 * static_cast<uint64_t>(&f - module.functions.data());
}

uint32_t DecodeContext::callee_index(const ptx::Function& f) {
  const size_t i = static_cast<size_t>(&f - module.functions.data());
  if (prog->callee_of_function.empty())
    prog->callee_of_function.assign(module.functions.size(), -1);
  if (prog->callee_of_function[i] >= 0) return static_cast<uint32_t>(prog->callee_of_function[i]);
  const uint32_t ci = static_cast<uint32_t>(prog->callees.size());
  prog->callees.emplace_back();
  prog->callees.back().name = ptx::demangle(f.name);
  prog->callee_of_function[i] = static_cast<int32_t>(ci);
  pending_callees.push_back(ci);
  return ci;
}

uint32_t DecodeContext::frame_reg(uint32_t rel) {
  if (cur_callee < 0) return constant(0);
  auto it = frame_reg_map.find(rel);
  if (it != frame_reg_map.end()) return it->second;
  const uint32_t r = prog->num_regs++;
  prog->callees[static_cast<size_t>(cur_callee)].frame_regs.push_back({r, rel});
  frame_reg_map[rel] = r;
  return r;
}

// The declared size of a call-sequence .param of the function being emitted.
uint32_t DecodeContext::param_size(const std::string& name) const {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if (!it->fn) continue;
    for (const auto& v : it->fn->locals)
      if (v.name == name) return static_cast<uint32_t>(std::max<int64_t>(v.size_bytes(), 1));
  }
  return 8;
}

void DecodeContext::emit_real_call(const ptx::Instruction& in, const Op& base,
                                   const ptx::Function* callee, const ptx::Operand& target,
                                   const ptx::Operand* args, const ptx::Operand* rets) {
  Program::CallSite cs;
  if (callee) {
    cs.callee = static_cast<int32_t>(callee_index(*callee));
  } else {
    cs.target = src(target, U64);
    if (!indirect_seen) {
      // Any function whose address the program can hold may be called.
      indirect_seen = true;
      for (const ptx::Function* f : address_taken) callee_index(*f);
    }
  }
  auto slots = [&](const ptx::Operand* list, std::vector<Program::CallSite::Slot>& out) {
    if (!list) return;
    for (const auto& e : list->elems) {
      const SymbolInfo* s = symbol(e.name);
      if (!s || s->space != MSpace::Local)
        fail(e.pos, fmt::format("call argument '{}' is not a .param variable", e.name));
      out.push_back({symbol_base(*s), static_cast<uint32_t>(s->address), param_size(e.name)});
    }
  };
  slots(args, cs.args);
  slots(rets, cs.rets);
  if (callee &&
      (cs.args.size() != callee->params.size() || cs.rets.size() != callee->retvals.size()))
    fail(in.pos, fmt::format("call of '{}' passes {} arguments and {} return values but it takes "
                             "{} and {}",
                             callee->name, cs.args.size(), cs.rets.size(), callee->params.size(),
                             callee->retvals.size()));
  Op op = base;
  op.code = code(CALL, U64);
  op.imm = static_cast<int64_t>(prog->call_sites.size());
  prog->call_sites.push_back(std::move(cs));
  push(op);
}

void DecodeContext::emit_callee(uint32_t ci, const ptx::Function& f) {
  const int32_t outer = cur_callee;
  std::map<uint32_t, uint32_t> outer_regs;
  outer_regs.swap(frame_reg_map);
  cur_callee = static_cast<int32_t>(ci);
  call_stack.push_back(f.name);
  frames.emplace_back();
  Frame& fr = frames.back();
  fr.fn = &f;
  prog->callees[ci].entry = static_cast<uint32_t>(prog->ops.size());
  prog->callees[ci].reg_begin = prog->num_regs;
  prog->callees[ci].pred_begin = prog->num_preds;
  declare_registers(f, fr);
  auto place = [&](const std::vector<ptx::VarDecl>& decls,
                   std::vector<Program::Callee::Slot>& out) {
    for (ptx::VarDecl v : decls) {
      v.space = ptx::StateSpace::Param;
      place_local(v, fr);
      out.push_back({static_cast<uint32_t>(fr.syms[v.name].address),
                     static_cast<uint32_t>(std::max<int64_t>(v.size_bytes(), 1))});
    }
  };
  place(f.params, prog->callees[ci].params);
  place(f.retvals, prog->callees[ci].retvals);
  for (const auto& v : f.locals) place_local(v, fr);
  emit_body(f);
  // Falling off the end of a function returns.
  Op r;
  r.code = code(RET, U32);
  cur_info.text = "ret";
  push(r);
  prog->callees[ci].reg_end = prog->num_regs;
  prog->callees[ci].pred_end = prog->num_preds;
  frames.pop_back();
  call_stack.pop_back();
  frame_reg_map.swap(outer_regs);
  cur_callee = outer;
}

void DecodeContext::emit_callees() {
  while (!pending_callees.empty()) {
    const uint32_t ci = pending_callees.front();
    pending_callees.erase(pending_callees.begin());
    const auto it = std::find(prog->callee_of_function.begin(), prog->callee_of_function.end(),
                              static_cast<int32_t>(ci));
    emit_callee(ci, module.functions[static_cast<size_t>(it - prog->callee_of_function.begin())]);
  }
  if (prog->callees.empty()) return;
  prog->stack_base = align16(prog->frame_bytes);
  size_stack(*prog, kDefaultStackBytes);
}

void size_stack(Program& p, uint32_t stack_bytes) {
  if (p.callees.empty()) return;
  // The stack: room for the deepest chain cudaLimitStackSize allows (each
  // call costs at least 16 bytes of it) of the largest record.
  uint32_t largest = 16;
  for (const auto& c : p.callees) largest = std::max(largest, align16(c.frame_bytes));
  p.stack_limit = stack_bytes;
  const uint64_t room = uint64_t{stack_bytes / 16} * largest;
  p.frame_bytes = p.stack_base + static_cast<uint32_t>(std::min<uint64_t>(room, 256 * 1024));
}

}  // namespace smemlab::emu
