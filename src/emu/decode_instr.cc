// Function bodies, inlined calls and the op buffer of the decoder.
#include <fmt/format.h>

#include <algorithm>

#include "emu/decode_context.h"
#include "emu/instructions.h"

namespace smemlab::emu {
namespace {

using K = ptx::Operand::Kind;

}  // namespace

Op DecodeContext::make(const ptx::Instruction& in) {
  Op op;
  if (!in.guard.empty()) {
    op.guard = static_cast<int32_t>(pred_name(in.guard, in.pos, K::Reg));
    op.guard_neg = in.guard_negate ? 0xffffffffu : 0u;
  }
  cur_info = InstrInfo{};
  cur_info.ptx_line = in.pos.line;
  cur_info.ptx_col = in.pos.col;
  cur_info.loc = in.loc;
  cur_info.text = in.text();
  return op;
}

namespace {

// InstrInfo::trait of a decoded op (what the checkers ask, not its text).
InstrTrait decoded_trait(const Op& op) {
  const Base base = static_cast<Base>(op.code / 16);
  if (base == ATOM && op.aux2 == A_CAS) return InstrTrait::CompareAndSwap;
  if (base == WARPSYNC) return InstrTrait::WarpMemoryOrder;
  return InstrTrait::None;
}

}  // namespace

// Every op gets its own InstrInfo so that InstrInfo::pc is exact.
Op& DecodeContext::push(const Op& op) {
  if (!implemented(op.code))
    fail({cur_info.ptx_line, cur_info.ptx_col},
         fmt::format("unsupported instruction '{}' (this type is not implemented)", cur_info.text));
  prog->ops.push_back(op);
  Op& o = prog->ops.back();
  o.info = static_cast<uint32_t>(prog->info.size());
  cur_info.pc = static_cast<uint32_t>(prog->ops.size() - 1);
  cur_info.trait = decoded_trait(o);
  prog->info.push_back(cur_info);
  return o;
}

void DecodeContext::emit_function(const ptx::Function& f,
                                  const std::map<std::string, SymbolInfo>* args, uint32_t) {
  if (!f.has_body)
    fail(f.pos,
         fmt::format("function '{}' has no body (external functions are not supported)", f.name));
  if (std::find(call_stack.begin(), call_stack.end(), f.name) != call_stack.end())
    fail(f.pos, fmt::format("recursive call of '{}' is not supported", f.name));
  call_stack.push_back(f.name);
  if (args) frames.emplace_back();
  Frame& fr = frames.back();
  fr.fn = &f;
  declare_registers(f, fr);
  if (args)
    for (const auto& [n, s] : *args) fr.syms[n] = s;
  for (const auto& v : f.locals)
    if (!(v.space == ptx::StateSpace::Shared && !args)) place_local(v, fr);
  emit_body(f);
  if (!args) {
    // Falling off the end of the kernel exits.
    Op e;
    e.code = code(EXIT, U32);
    cur_info.text = "exit";
    push(e);
  }
  if (args) frames.pop_back();
  call_stack.pop_back();
}

// The body's ops, its labels resolved and (inlined) its rets branching to
// the op after it.
void DecodeContext::emit_body(const ptx::Function& f) {
  std::vector<uint32_t> pcs(f.body.size() + 1);
  for (size_t i = 0; i < f.body.size(); ++i) {
    pcs[i] = static_cast<uint32_t>(prog->ops.size());
    emit_instruction(f.body[i]);
  }
  pcs[f.body.size()] = static_cast<uint32_t>(prog->ops.size());
  Frame& done = frames.back();
  for (const auto& [idx, label] : done.label_fixups) {
    auto it = f.labels.find(label);
    if (it == f.labels.end()) {
      const auto& info = prog->info[prog->ops[idx].info];
      fail({info.ptx_line, info.ptx_col}, fmt::format("unknown label '{}'", label));
    }
    prog->ops[idx].imm = pcs[static_cast<size_t>(it->second)];
  }
  for (uint32_t idx : done.ret_fixups) prog->ops[idx].imm = pcs[f.body.size()];
}

void DecodeContext::emit_call(const ptx::Instruction& in, const Op& base) {
  // call{.uni} [(ret),] func [, (args)] [, proto];
  const auto& ops = in.operands;
  size_t i = 0;
  const ptx::Operand* rets = nullptr;
  if (i < ops.size() && ops[i].kind == K::List) rets = &ops[i++];
  if (i >= ops.size() || ops[i].kind != K::Reg) fail(in.pos, "call without a function name");
  const ptx::Operand& target = ops[i++];
  const ptx::Operand* args = (i < ops.size() && ops[i].kind == K::List) ? &ops[i] : nullptr;
  const ptx::Function* callee = module.find(target.name);
  if (!callee || (callee->has_body && (base.guard >= 0 || all_real || recursive.count(callee) ||
                                       address_taken.count(callee)))) {
    emit_real_call(in, base, callee, target, args, rets);
    return;
  }
  if (base.guard >= 0) fail(in.pos, "predicated call of an external function is not supported");
  std::map<std::string, SymbolInfo> map;
  auto bind = [&](const std::vector<ptx::VarDecl>& decls, const ptx::Operand* list,
                  const char* what) {
    size_t n = list ? list->elems.size() : 0;
    if (n != decls.size())
      fail(in.pos, fmt::format("call of '{}' passes {} {} but it takes {}", callee->name, n, what,
                               decls.size()));
    for (size_t k = 0; k < n; ++k) {
      const SymbolInfo* s = symbol(list->elems[k].name);
      if (!s || s->space != MSpace::Local)
        fail(list->elems[k].pos,
             fmt::format("call argument '{}' is not a .param variable", list->elems[k].name));
      map[decls[k].name] = *s;
    }
  };
  bind(callee->params, args, "arguments");
  bind(callee->retvals, rets, "return values");
  if (!callee->has_body) {
    auto offsets = [&](const std::vector<ptx::VarDecl>& decls) {
      std::vector<uint32_t> v;
      for (const auto& d : decls) v.push_back(static_cast<uint32_t>(map.at(d.name).address));
      return v;
    };
    if (decode_builtin(*this, in, *callee, offsets(callee->params), offsets(callee->retvals)))
      return;
    fail(in.pos, fmt::format("call of external function '{}' (only vprintf, __assertfail, malloc, "
                             "free and cudaGraphSetConditional are built in; other functions need "
                             "a body in the PTX)",
                             callee->name));
  }
  emit_function(*callee, &map, 0);
}

}  // namespace smemlab::emu
