#include "emu/decode.h"

#include <fmt/format.h>

#include <cstring>
#include <set>

#include "emu/atom_results.h"
#include "emu/decode_context.h"
#include "emu/launch.h"
#include "emu/quiet_epochs.h"
#include "emu/tier.h"

namespace smemlab::emu {

bool parse_type(const std::string& s, T* out) {
  static const std::pair<const char*, T> table[] = {
      {"b8", U8},   {"u8", U8},     {"s8", S8},       {"b16", U16},       {"u16", U16},
      {"s16", S16}, {"f16", F16},   {"bf16", BF16},   {"b32", U32},       {"u32", U32},
      {"s32", S32}, {"f32", F32},   {"b64", U64},     {"u64", U64},       {"s64", S64},
      {"f64", F64}, {"pred", PRED}, {"f16x2", F16X2}, {"bf16x2", BF16X2}, {"b128", B128}};
  for (const auto& [n, t] : table) {
    if (s == n) {
      *out = t;
      return true;
    }
  }
  return false;
}

int type_bytes(T t) {
  switch (t) {
    case U8:
    case S8:
      return 1;
    case U16:
    case S16:
    case F16:
    case BF16:
      return 2;
    case U32:
    case S32:
    case F32:
    case F16X2:
    case BF16X2:
      return 4;
    case U64:
    case S64:
    case F64:
      return 8;
    case B128:
      return 16;
    case PRED:
      return 0;
  }
  return 0;
}

// An error in the current instruction names the user's source line (its
// .loc) first and the PTX position second; the PTX may be a temporary file.
[[noreturn]] void DecodeContext::fail(const ptx::TextPos& p, const std::string& msg) const {
  std::string src = cur_info.loc >= 0 && p.line == cur_info.ptx_line
                        ? module.lines.describe(cur_info.loc)
                        : std::string();
  if (!src.empty())
    throw DecodeError(fmt::format("{}: {} (PTX {}:{}:{})", src, msg, module.path, p.line, p.col));
  throw DecodeError(fmt::format("{}:{}:{}: {}", module.path, p.line, p.col, msg));
}

uint32_t DecodeContext::constant(uint64_t v) {
  auto it = const_map.find(v);
  if (it != const_map.end()) return it->second;
  uint32_t r = prog->num_regs++;
  prog->const_regs.resize(prog->num_regs, 0);
  const_mask.resize(prog->num_regs, false);
  prog->const_regs[r] = v;
  const_mask[r] = true;
  const_map[v] = r;
  return r;
}

uint32_t DecodeContext::scratch() {
  if (scratch_reg == UINT32_MAX) scratch_reg = prog->num_regs++;
  return scratch_reg;
}
uint32_t DecodeContext::scratch_pred() {
  if (scratch_p == UINT32_MAX) scratch_p = prog->num_preds++;
  return scratch_p;
}

static bool special_kind(const std::string& n, Program::SpecialKind* k) {
  static const std::pair<const char*, Program::SpecialKind> table[] = {
      {"%tid.x", Program::TID_X},
      {"%tid.y", Program::TID_Y},
      {"%tid.z", Program::TID_Z},
      {"%ntid.x", Program::NTID_X},
      {"%ntid.y", Program::NTID_Y},
      {"%ntid.z", Program::NTID_Z},
      {"%ctaid.x", Program::CTAID_X},
      {"%ctaid.y", Program::CTAID_Y},
      {"%ctaid.z", Program::CTAID_Z},
      {"%nctaid.x", Program::NCTAID_X},
      {"%nctaid.y", Program::NCTAID_Y},
      {"%nctaid.z", Program::NCTAID_Z},
      {"%laneid", Program::LANEID},
      {"%warpid", Program::WARPID},
      {"%nwarpid", Program::NWARPID},
      {"%smid", Program::SMID},
      {"%nsmid", Program::NSMID},
      {"%gridid", Program::GRIDID},
      {"%envreg1", Program::ENVREG1},
      {"%envreg2", Program::ENVREG2},
      {"%lanemask_eq", Program::LANEMASK_EQ},
      {"%lanemask_lt", Program::LANEMASK_LT},
      {"%lanemask_le", Program::LANEMASK_LE},
      {"%lanemask_gt", Program::LANEMASK_GT},
      {"%lanemask_ge", Program::LANEMASK_GE},
      {"%dynamic_smem_size", Program::DYN_SMEM},
      {"%total_smem_size", Program::TOTAL_SMEM},
      {"%cluster_ctarank", Program::CLUSTER_CTARANK},
      {"%cluster_nctarank", Program::CLUSTER_NCTARANK},
      {"%clusterid.x", Program::CLUSTERID_X},
      {"%clusterid.y", Program::CLUSTERID_Y},
      {"%clusterid.z", Program::CLUSTERID_Z},
      {"%nclusterid.x", Program::NCLUSTERID_X},
      {"%nclusterid.y", Program::NCLUSTERID_Y},
      {"%nclusterid.z", Program::NCLUSTERID_Z},
      {"%cluster_ctaid.x", Program::CLUSTER_CTAID_X},
      {"%cluster_ctaid.y", Program::CLUSTER_CTAID_Y},
      {"%cluster_ctaid.z", Program::CLUSTER_CTAID_Z},
      {"%cluster_nctaid.x", Program::CLUSTER_NCTAID_X},
      {"%cluster_nctaid.y", Program::CLUSTER_NCTAID_Y},
      {"%cluster_nctaid.z", Program::CLUSTER_NCTAID_Z}};
  for (const auto& [name, kind] : table) {
    if (n == name) {
      *k = kind;
      return true;
    }
  }
  return false;
}

// %envreg0..%envreg31: read-only registers the driver may set per launch;
// zero, except %envreg1/%envreg2 (special registers: a cooperative launch's
// grid-sync workspace).
static bool envreg(const std::string& n) {
  if (n.rfind("%envreg", 0) != 0 || n.size() < 8 || n.size() > 9) return false;
  for (size_t i = 7; i < n.size(); ++i)
    if (n[i] < '0' || n[i] > '9') return false;
  if (n.size() == 9 && n[7] == '0') return false;
  return std::stoi(n.substr(7)) < 32;
}

const SymbolInfo* DecodeContext::symbol(const std::string& name) const {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    auto s = it->syms.find(name);
    if (s != it->syms.end()) return &s->second;
  }
  auto g = module_syms.find(name);
  return g == module_syms.end() ? nullptr : &g->second;
}

uint32_t DecodeContext::src(const ptx::Operand& o, T t) {
  using K = ptx::Operand::Kind;
  switch (o.kind) {
    case K::Imm:
      return constant(canonical(t, o.bits));
    case K::FImm: {
      uint64_t bits = o.bits;
      if (t == F64 && !o.is_f64) {
        float f;
        uint32_t b = static_cast<uint32_t>(bits);
        std::memcpy(&f, &b, 4);
        double d = f;
        std::memcpy(&bits, &d, 8);
      } else if (t != F64 && o.is_f64) {
        double d;
        std::memcpy(&d, &bits, 8);
        float f = static_cast<float>(d);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        bits = b;
      }
      return constant(bits);
    }
    case K::Reg: {
      auto& fr = frames.back();
      auto r = fr.regs.find(o.name);
      if (r != fr.regs.end()) return r->second;
      Program::SpecialKind k;
      if (special_kind(o.name, &k)) {
        auto s = special_map.find(k);
        if (s != special_map.end()) return s->second;
        uint32_t idx = prog->num_regs++;
        prog->specials.push_back({idx, k});
        special_map[k] = idx;
        return idx;
      }
      if (const SymbolInfo* s = symbol(o.name)) {
        if (s->frame_relative)
          return frame_reg(static_cast<uint32_t>(s->address + static_cast<uint64_t>(o.offset)));
        return constant(s->address + static_cast<uint64_t>(o.offset));
      }
      if (const ptx::Function* f = module.find(o.name)) {
        // A function's address (function pointers, virtual tables); a
        // kernel's is for launching it (device_runtime.h), never called.
        if (f->has_body && !f->is_entry) callee_index(*f);
        return constant(function_address(*f) + static_cast<uint64_t>(o.offset));
      }
      if (o.name == "WARP_SZ") return constant(32);  // warpSize
      if (envreg(o.name)) return constant(0);
      if (fr.preds.count(o.name))
        fail(o.pos, fmt::format("predicate '{}' used as a value", o.name));
      fail(o.pos, fmt::format("undeclared register or symbol '{}'", o.name));
    }
    default:
      fail(o.pos, "expected a register or immediate operand");
  }
}

uint32_t DecodeContext::dst(const ptx::Operand& o) {
  if (o.kind == ptx::Operand::Kind::Sink) return scratch();
  if (o.kind != ptx::Operand::Kind::Reg) fail(o.pos, "expected a destination register");
  auto& fr = frames.back();
  auto r = fr.regs.find(o.name);
  if (r == fr.regs.end()) fail(o.pos, fmt::format("undeclared destination register '{}'", o.name));
  return r->second;
}

uint32_t DecodeContext::pred(const ptx::Operand& o) {
  if (o.kind == ptx::Operand::Kind::Imm) {
    // `mov.pred %p, 0`: a predicate constant, set for all lanes at warp start.
    uint32_t& slot = const_pred[o.bits ? 1 : 0];
    if (slot == UINT32_MAX) {
      slot = prog->num_preds++;
      if (o.bits) prog->true_preds.push_back(slot);
    }
    return slot;
  }
  return pred_name(o.name, o.pos, o.kind);
}

uint32_t DecodeContext::pred_name(const std::string& name, const ptx::TextPos& pos,
                                  ptx::Operand::Kind kind) {
  if (kind == ptx::Operand::Kind::Sink) return scratch_pred();
  if (name == "%is_explicit_cluster") {
    // A special predicate register, filled at warp start.
    if (explicit_cluster_pred == UINT32_MAX) {
      explicit_cluster_pred = prog->num_preds++;
      prog->explicit_cluster_preds.push_back(explicit_cluster_pred);
    }
    return explicit_cluster_pred;
  }
  auto& fr = frames.back();
  auto r = fr.preds.find(name);
  if (r == fr.preds.end()) fail(pos, fmt::format("undeclared predicate '{}'", name));
  return r->second;
}

bool DecodeContext::is_pred(const ptx::Operand& o) const {
  return o.kind == ptx::Operand::Kind::Reg && frames.back().preds.count(o.name);
}

void DecodeContext::declare_registers(const ptx::Function& f, Frame& fr) {
  for (const auto& r : f.regs) {
    bool is_p = r.type == "pred";
    auto alloc = [&](const std::string& n) {
      if (is_p) {
        fr.preds[n] = prog->num_preds++;
      } else {
        fr.regs[n] = prog->num_regs++;
      }
    };
    if (r.count < 0) {
      alloc(r.name);
    } else {
      for (int i = 0; i < r.count; ++i) alloc(r.name + std::to_string(i));
    }
  }
}

static uint32_t align_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

void DecodeContext::place_local(const ptx::VarDecl& v, Frame& fr) {
  uint32_t align = v.align ? static_cast<uint32_t>(v.align)
                           : static_cast<uint32_t>(std::max(1, ptx::type_size(v.type)));
  uint32_t size = static_cast<uint32_t>(v.size_bytes());
  switch (v.space) {
    case ptx::StateSpace::Shared:
      if (frames.size() > 1 && !v.is_extern)
        fail(v.pos, ".shared variable declared inside a .func is not supported");
      if (v.is_extern) {
        prog->dynamic_align = std::max(prog->dynamic_align, align);
        extern_shared.push_back(&fr.syms[v.name]);
        fr.syms[v.name] = {MSpace::Shared, 0};  // set once the static size is known
      } else {
        prog->static_shared = align_up(prog->static_shared, align);
        // CUDA's 227 KiB per block; also keeps the uint32 sum from wrapping.
        if (uint64_t{prog->static_shared} + size > kMaxSharedPerBlock)
          fail(v.pos, fmt::format("static shared memory exceeds CUDA's limit of {} bytes with '{}'",
                                  kMaxSharedPerBlock, v.name));
        fr.syms[v.name] = {MSpace::Shared, prog->static_shared};
        prog->shared_vars.push_back({v.name, prog->static_shared, size});
        prog->static_shared += size;
      }
      break;
    case ptx::StateSpace::Local:
    case ptx::StateSpace::Param:
      if (cur_callee >= 0) {
        // In the activation record of a function called for real.
        auto& c = prog->callees[static_cast<size_t>(cur_callee)];
        c.frame_bytes = align_up(c.frame_bytes, std::max<uint32_t>(align, 1));
        if (uint64_t{c.frame_bytes} + size > 64 * 1024)
          fail(v.pos, fmt::format("the frame of '{}' exceeds {} bytes with '{}'", c.name, 64 * 1024,
                                  v.name));
        fr.syms[v.name] = {MSpace::Local, c.frame_bytes, true};
        c.frame_bytes += std::max<uint32_t>(size, 1);
        if (v.space == ptx::StateSpace::Local) c.local_bytes += std::max<uint32_t>(size, 1);
        break;
      }
      prog->frame_bytes = align_up(prog->frame_bytes, std::max<uint32_t>(align, 1));
      // CUDA's 512 KiB of local memory per thread; the emulator allocates
      // the frame for every thread of a block.
      if (uint64_t{prog->frame_bytes} + size > 512 * 1024)
        fail(v.pos,
             fmt::format("local memory per thread exceeds CUDA's limit of {} bytes with '{}'",
                         512 * 1024, v.name));
      fr.syms[v.name] = {MSpace::Local, prog->frame_bytes};
      prog->frame_bytes += std::max<uint32_t>(size, 1);
      break;
    default:
      fail(v.pos,
           fmt::format("{} variable inside a function is not supported", ptx::space_name(v.space)));
  }
}

std::unique_ptr<Program> decode_kernel(const ptx::Module& m, const ptx::Function& kernel,
                                       const ModuleLayout& layout) {
  DecodeContext cx(m, std::make_unique<Program>(), layout.symbols);
  Program& p = *cx.prog;
  p.kernel = kernel.name;
  p.lines = &m.lines;
  // Module-scope .shared variables are part of every kernel's window.
  DecodeContext::Frame top;
  for (const auto& g : m.globals)
    if (g.space == ptx::StateSpace::Shared) cx.place_local(g, top);
  // Kernel parameters.
  for (const auto& prm : kernel.params) {
    uint32_t sz = static_cast<uint32_t>(std::max<int64_t>(prm.size_bytes(), 1));
    uint32_t al = prm.align ? static_cast<uint32_t>(prm.align) : std::min<uint32_t>(sz, 8);
    p.param_bytes = align_up(p.param_bytes, al);
    p.params.push_back({prm.name, prm.type, p.param_bytes, sz});
    top.syms[prm.name] = {MSpace::Param, p.param_bytes};
    p.param_bytes += sz;
  }
  // The kernel's own .shared/.local declarations come first so the dynamic
  // (extern) window's base is known before any code refers to it.
  for (const auto& v : kernel.locals)
    if (v.space == ptx::StateSpace::Shared) cx.place_local(v, top);
  uint32_t dyn = align_up(p.static_shared, p.dynamic_align);
  for (SymbolInfo* s : cx.extern_shared) s->address = dyn;
  p.static_shared = dyn;
  cx.frames.push_back(std::move(top));
  cx.plan_calls();
  cx.emit_function(kernel, nullptr, UINT32_MAX);
  cx.emit_callees();
  mark_unread_atom_results(p);
  coalesce_registers(p);
  p.fused = plan_fused_runs(p);
  p.quiet = plan_quiet_runs(p, plan_quiet_epochs(p));
  p.lone_quiet = lone_warp_may_keep_turns(p);
  return std::move(cx.prog);
}

}  // namespace smemlab::emu
