// emit_instruction: looks the PTX mnemonic up in instructions.def and runs
// its decoder. Here: the helpers decoders share and the decoders of the
// integer, bit, predicate and control-flow families. Field conventions per
// base op are listed in program.h; unknown forms fail with the PTX position.
#include <fmt/format.h>

#include <cctype>
#include <set>
#include <string_view>
#include <unordered_map>

#include "emu/decode_context.h"
#include "emu/decode_tensor.h"
#include "emu/decode_tma.h"

namespace smemlab::emu {
namespace {

using K = ptx::Operand::Kind;

std::vector<T> types_of(const ptx::Instruction& in) {
  std::vector<T> out;
  for (const auto& m : in.mods) {
    T t;
    if (parse_type(m, &t)) out.push_back(t);
  }
  return out;
}

Round round_of(const ptx::Instruction& in) {
  static const std::pair<const char*, Round> table[] = {
      {"rn", R_RN},   {"rz", R_RZ},   {"rm", R_RM},   {"rp", R_RP},  {"rni", R_RNI},
      {"rzi", R_RZI}, {"rmi", R_RMI}, {"rpi", R_RPI}, {"rna", R_RNA}};
  for (const auto& m : in.mods)
    for (const auto& [n, r] : table)
      if (m == n) return r;
  return R_NONE;
}

bool cmp_of(const std::string& s, Cmp* c) {
  static const char* names[] = {"eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                                "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  for (int i = 0; i < 18; ++i) {
    if (s == names[i]) {
      *c = static_cast<Cmp>(i);
      return true;
    }
  }
  return false;
}

// Registers that count time: Special, or -1.
int clock_kind(const std::string& n) {
  static const std::pair<const char*, Special> table[] = {{"%clock", SP_CLOCK},
                                                          {"%clock64", SP_CLOCK64},
                                                          {"%globaltimer", SP_GLOBALTIMER},
                                                          {"%globaltimer_lo", SP_GLOBALTIMER_LO},
                                                          {"%globaltimer_hi", SP_GLOBALTIMER_HI}};
  for (const auto& [name, k] : table)
    if (n == name) return k;
  return -1;
}

using Decoder = void (*)(Insn&);
const std::unordered_map<std::string_view, Decoder>& decoders() {
  static const std::unordered_map<std::string_view, Decoder> table = {
#define SMEMLAB_PTX(mnemonic, decoder) {#mnemonic, &decoder},
#include "emu/instructions.def"
  };
  return table;
}

// Extended-precision integer arithmetic through the carry flag CC.CF:
// kind 0 add, 1 sub (borrow), 2 mad.lo, 3 mad.hi; aux2 bit 0 = carry in,
// bit 1 = carry out.
void carry_op(Insn& d, int kind, bool cin, bool cout) {
  T t = d.t;
  if (d.sat || !(t == U32 || t == S32 || t == U64 || t == S64)) d.unsupported();
  d.need(kind >= 2 ? 4 : 3);
  const auto& ops = d.operands();
  d.op.code = code(CARRY, t == S32 ? U32 : t == S64 ? U64 : t);
  d.op.aux = static_cast<uint8_t>(kind);
  d.op.aux2 = static_cast<uint8_t>((cin ? 1 : 0) | (cout ? 2 : 0));
  d.op.r[0] = d.c.dst(ops[0]);
  for (size_t i = 1; i < ops.size(); ++i) d.op.r[i] = d.c.src(ops[i], t);
  d.push();
}

// Float arithmetic with a fast path for the common round-to-nearest forms.
void farith(Insn& d, Base fast, FOp f, size_t nsrc) {
  T t = d.t;
  if ((t == F32 || t == F64) && !d.ftz && !d.sat && (d.rnd == R_NONE || d.rnd == R_RN)) {
    d.simple(fast, nsrc);
  } else if (t == F32 || t == F64 || t == F16 || t == BF16 || t == F16X2 || t == BF16X2) {
    d.fslow(f, nsrc);
  } else {
    d.unsupported();
  }
}

}  // namespace

MSpace space_of(const ptx::Instruction& in) {
  for (const auto& m : in.mods) {
    if (m.rfind("global", 0) == 0) return MSpace::Global;
    if (m.rfind("shared", 0) == 0) return MSpace::Shared;
    if (m == "local") return MSpace::Local;
    if (m == "const") return MSpace::Const;
    if (m == "param") return MSpace::Param;
  }
  return MSpace::Generic;
}

int mod_index(const char* const* names, int n, const ptx::Instruction& in) {
  for (const auto& m : in.mods)
    for (int i = 0; i < n; ++i)
      if (m == names[i]) return i;
  return -1;
}

void Insn::unsupported() const {
  c.fail(in.pos, fmt::format("unsupported instruction '{}'", in.text()));
}

void Insn::need(size_t n) const {
  if (in.operands.size() != n)
    c.fail(in.pos,
           fmt::format("'{}' expects {} operands, found {}", in.text(), n, in.operands.size()));
}

void Insn::simple(Base b, size_t nsrc) {
  need(nsrc + 1);
  const auto& ops = in.operands;
  op.code = code(b, t);
  op.r[0] = c.dst(ops[0]);
  for (size_t i = 0; i < nsrc; ++i)
    op.r[i + 1] = c.src(ops[i + 1], (b == SHL || b == SHR || b == BFE) && i > 0 ? U32 : t);
  push();
}

void Insn::fslow(FOp f, size_t nsrc) {
  need(nsrc + 1);
  const auto& ops = in.operands;
  op.code = code(FSLOW, t);
  op.aux = f;
  op.aux2 = static_cast<uint8_t>(rnd | (ftz ? kFtz : 0) | (sat ? kSat : 0));
  op.r[0] = c.dst(ops[0]);
  for (size_t i = 0; i < nsrc; ++i) op.r[i + 1] = c.src(ops[i + 1], t);
  push();
}

void DecodeContext::emit_instruction(const ptx::Instruction& in) {
  Insn d(*this, in, make(in));
  d.tys = types_of(in);
  d.t = d.tys.empty() ? U32 : d.tys.back();
  d.op.t = d.t;
  d.ftz = in.has_mod("ftz");
  d.sat = in.has_mod("sat");
  d.rnd = round_of(in);
  // Modifiers that change results and are not implemented must not be
  // ignored: packed SIMD types (.s16x2, ...), .relu, .NaN, .xorsign, .satfinite.
  for (const auto& m : in.mods) {
    T dummy;
    bool typeish = m.size() >= 2 && std::string("usbfe").find(m[0]) != std::string::npos &&
                   std::isdigit(static_cast<unsigned char>(m[1]));
    const bool min_max_nan = m == "NaN" && (in.opcode == "min" || in.opcode == "max");
    if (((typeish && !parse_type(m, &dummy)) || m == "relu" || (m == "NaN" && !min_max_nan) ||
         m == "xorsign" || m == "satfinite" || m == "abs") &&
        !is_tensor_or_async(in))
      d.unsupported();
  }
  auto it = decoders().find(in.opcode);
  if (it == decoders().end()) d.unsupported();
  // [a, b, {c}] addresses belong to textures and surfaces (their decoders
  // read the extra parts); anywhere else they would be silently cut to [a].
  static const std::set<std::string, std::less<>> texture_ops = {"tex",  "tld4",  "txq", "suld",
                                                                 "sust", "sured", "suq"};
  if (!texture_ops.count(in.opcode) && !is_tma(in))  // [tensorMap, {coords}]
    for (const auto& o : in.operands)
      if (o.kind == K::Addr && !o.elems.empty())
        fail(o.pos, fmt::format("'{}' takes no '[a, b]' address", in.text()));
  it->second(d);
}

// ---- Integer, bit and predicate ops ----------------------------------------

void decode_mov(Insn& d) {
  const auto& ops = d.operands();
  DecodeContext& c = d.c;
  Op& op = d.op;
  d.need(2);
  if (c.is_pred(ops[0])) {
    op.code = code(PLOGIC, PRED);
    op.aux = 4;
    op.r[0] = c.pred(ops[0]);
    op.r[1] = c.pred(ops[1]);
    d.push();
  } else if (ops[1].kind == K::Vector) {
    op.code = code(PACK, d.t);
    op.vec = static_cast<uint8_t>(ops[1].elems.size());
    op.r[0] = c.dst(ops[0]);
    for (size_t i = 0; i < ops[1].elems.size() && i < 4; ++i)
      op.r[i + 1] = c.src(ops[1].elems[i], U64);
    d.push();
  } else if (ops[0].kind == K::Vector) {
    op.code = code(UNPACK, d.t);
    op.vec = static_cast<uint8_t>(ops[0].elems.size());
    for (size_t i = 0; i < ops[0].elems.size() && i < 4; ++i) op.r[i] = c.dst(ops[0].elems[i]);
    op.r[4] = c.src(ops[1], d.t);
    d.push();
  } else if (ops[1].kind == K::Reg && clock_kind(ops[1].name) >= 0) {
    op.code = code(SPECIAL, d.t);
    op.aux = static_cast<uint8_t>(clock_kind(ops[1].name));
    op.r[0] = c.dst(ops[0]);
    d.push();
  } else {
    d.simple(MOV, 1);
  }
}

void decode_arith(Insn& d) {
  const std::string& o = d.opcode();
  const ptx::Instruction& in = d.in;
  if (is_float(d.t) || d.t == F16X2 || d.t == BF16X2) {
    if (o == "add")
      farith(d, FADD, F_ADD, 2);
    else if (o == "sub")
      farith(d, FSUB, F_SUB, 2);
    else if (o == "mul")
      farith(d, FMUL, F_MUL, 2);
    else if (o == "div")
      d.fslow(F_DIV, 2);
    else
      farith(d, FFMA, F_FMA, 3);
    return;
  }
  if (in.has_mod("cc") && (o == "add" || o == "sub" || o == "mad")) {
    carry_op(d, o == "add" ? 0 : o == "sub" ? 1 : (in.has_mod("hi") ? 3 : 2), false, true);
    return;
  }
  if (d.sat || o == "fma") d.unsupported();
  if (o == "add")
    d.simple(ADD, 2);
  else if (o == "sub")
    d.simple(SUB, 2);
  else if (o == "div")
    d.simple(DIV, 2);
  else if (o == "mul")
    d.simple(in.has_mod("hi") ? MUL_HI : in.has_mod("wide") ? MUL_WIDE : MUL_LO, 2);
  else
    d.simple(in.has_mod("hi") ? MAD_HI : in.has_mod("wide") ? MAD_WIDE : MAD_LO, 3);
}

void decode_carry(Insn& d) {
  const std::string& o = d.opcode();
  carry_op(d,
           o == "addc"   ? 0
           : o == "subc" ? 1
                         : (d.in.has_mod("hi") ? 3 : 2),
           true, d.in.has_mod("cc"));
}

void decode_int_simple(Insn& d) {
  const std::string& o = d.opcode();
  if (o == "cnot")
    d.simple(CNOT, 1);
  else
    d.simple(o == "rem" ? REM : o == "shl" ? SHL : SHR, 2);
}

void decode_abs_neg(Insn& d) {
  bool abs = d.opcode() == "abs";
  if (d.t == F16X2 || d.t == BF16X2) {
    // Packed halves (__habs2, __hneg2): abs clears, neg flips both sign bits.
    d.need(2);
    d.op.code = code(abs ? AND : XOR, U32);
    d.op.t = U32;
    d.op.r[0] = d.c.dst(d.operands()[0]);
    d.op.r[1] = d.c.src(d.operands()[1], U32);
    d.op.r[2] = d.c.constant(abs ? 0x7fff7fffu : 0x80008000u);
    d.push();
    return;
  }
  if (is_float(d.t))
    d.fslow(abs ? F_ABS : F_NEG, 1);
  else
    d.simple(abs ? ABS : NEG, 1);
}

void decode_min_max(Insn& d) {
  bool min = d.opcode() == "min";
  if (d.in.has_mod("NaN")) {
    // PTX: .NaN exists for f32, f16, bf16 and their x2 forms (not f64).
    if (d.t != F32 && d.t != F16 && d.t != BF16 && d.t != F16X2 && d.t != BF16X2) d.unsupported();
    d.fslow(min ? F_MIN_NAN : F_MAX_NAN, 2);
  } else if (is_float(d.t) || d.t == F16X2 || d.t == BF16X2) {
    d.fslow(min ? F_MIN : F_MAX, 2);
  } else {
    d.simple(min ? MIN : MAX, 2);
  }
}

void decode_logic(Insn& d) {
  const std::string& o = d.opcode();
  const auto& ops = d.operands();
  if (d.t != PRED) {
    d.simple(o == "and" ? AND : o == "or" ? OR : o == "xor" ? XOR : NOT, o == "not" ? 1 : 2);
    return;
  }
  Op& op = d.op;
  d.need(o == "not" ? 2 : 3);
  op.code = code(PLOGIC, PRED);
  op.aux = o == "and" ? 0 : o == "or" ? 1 : o == "xor" ? 2 : 3;
  op.r[0] = d.c.pred(ops[0]);
  op.r[1] = d.c.pred(ops[1]);
  op.aux2 = ops[1].negate ? 1 : 0;
  if (o != "not") {
    op.r[2] = d.c.pred(ops[2]);
    op.aux2 |= ops[2].negate ? 2 : 0;
  }
  d.push();
}

void decode_bitcount(Insn& d) {
  // Destination is .u32 for popc/clz; the type names the source.
  const std::string& o = d.opcode();
  d.need(2);
  d.op.code = code(o == "popc" ? POPC : o == "clz" ? CLZ : BREV, d.t);
  d.op.r[0] = d.c.dst(d.operands()[0]);
  d.op.r[1] = d.c.src(d.operands()[1], d.t);
  d.push();
}

void decode_bfe(Insn& d) {
  const auto& ops = d.operands();
  d.need(4);
  d.op.code = code(BFE, d.t);
  d.op.r[0] = d.c.dst(ops[0]);
  d.op.r[1] = d.c.src(ops[1], d.t);
  d.op.r[2] = d.c.src(ops[2], U32);
  d.op.r[3] = d.c.src(ops[3], U32);
  d.push();
}

void decode_bfi(Insn& d) {
  const auto& ops = d.operands();
  d.need(5);
  d.op.code = code(BFI, d.t);
  d.op.r[0] = d.c.dst(ops[0]);
  d.op.r[1] = d.c.src(ops[1], d.t);
  d.op.r[2] = d.c.src(ops[2], d.t);
  d.op.r[3] = d.c.src(ops[3], U32);
  d.op.r[4] = d.c.src(ops[4], U32);
  d.push();
}

void decode_prmt(Insn& d) {
  if (d.in.mods.size() != 1) d.unsupported();  // only the default (generic) mode
  d.simple(PRMT, 3);
}

void decode_shf(Insn& d) {
  d.op.aux = d.in.has_mod("r") ? 1 : 0;
  d.op.aux2 = d.in.has_mod("wrap") ? 1 : 0;
  d.simple(SHF, 3);
}

void decode_setp(Insn& d) {
  const ptx::Instruction& in = d.in;
  const auto& ops = d.operands();
  DecodeContext& c = d.c;
  Op& op = d.op;
  Cmp cmp;
  if (in.mods.empty() || !cmp_of(in.mods[0], &cmp)) d.unsupported();
  static const char* bools[] = {"and", "or", "xor"};
  int b = mod_index(bools, 3, in);
  d.need(b >= 0 ? 4 : 3);
  op.code = code(SETP, d.t);
  op.aux = cmp;
  op.t2 = static_cast<uint8_t>(b + 1);
  op.aux2 = d.ftz ? kFtz : 0;
  op.r[0] = c.pred(ops[0]);
  op.r[1] = ops[0].pair.empty() ? UINT32_MAX : c.pred_name(ops[0].pair, ops[0].pos, K::Reg);
  op.r[2] = c.src(ops[1], d.t);
  op.r[3] = c.src(ops[2], d.t);
  if (b >= 0) {
    op.r[4] = c.pred(ops[3]);
    op.aux2 |= ops[3].negate ? 1 : 0;
  }
  d.push();
}

// set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c}: d = 1.0 (float
// dtype) or all ones (integer dtype) where the comparison holds, else 0.
// Runs as the setp it is (into the scratch predicate) and a selp.
void decode_set(Insn& d) {
  const ptx::Instruction& in = d.in;
  const auto& ops = d.operands();
  DecodeContext& c = d.c;
  Cmp cmp;
  if (in.mods.empty() || !cmp_of(in.mods[0], &cmp) || d.tys.size() != 2) d.unsupported();
  T dt = d.tys[0], st = d.tys[1];
  if (dt == F16X2 || dt == BF16X2 || st == F16X2 || st == BF16X2 || dt == F64 || type_bytes(dt) < 2)
    d.unsupported();
  static const char* bools[] = {"and", "or", "xor"};
  int b = mod_index(bools, 3, in);
  d.need(b >= 0 ? 4 : 3);
  uint32_t p = c.scratch_pred();
  Op cmp_op = d.op;
  cmp_op.code = code(SETP, st);
  cmp_op.t = st;
  cmp_op.aux = cmp;
  cmp_op.t2 = static_cast<uint8_t>(b + 1);
  cmp_op.aux2 = d.ftz ? kFtz : 0;
  cmp_op.r[0] = p;
  cmp_op.r[1] = UINT32_MAX;
  cmp_op.r[2] = c.src(ops[1], st);
  cmp_op.r[3] = c.src(ops[2], st);
  if (b >= 0) {
    cmp_op.r[4] = c.pred(ops[3]);
    cmp_op.aux2 |= ops[3].negate ? 1 : 0;
  }
  c.push(cmp_op);
  uint64_t one = dt == F32    ? 0x3f800000u
                 : dt == F16  ? 0x3c00u
                 : dt == BF16 ? 0x3f80u
                              : canonical(dt, ~0ull);
  Op sel = d.op;
  sel.code = code(SELP, dt);
  sel.t = dt;
  sel.r[0] = c.dst(ops[0]);
  sel.r[1] = c.constant(one);
  sel.r[2] = c.constant(0);
  sel.r[3] = p;
  c.push(sel);
}

void decode_selp(Insn& d) {
  const auto& ops = d.operands();
  d.need(4);
  d.op.code = code(SELP, d.t);
  d.op.r[0] = d.c.dst(ops[0]);
  d.op.r[1] = d.c.src(ops[1], d.t);
  d.op.r[2] = d.c.src(ops[2], d.t);
  d.op.r[3] = d.c.pred(ops[3]);
  d.push();
}

// ---- Control flow, barriers, no-ops -----------------------------------------

void decode_bra(Insn& d) {
  const auto& ops = d.operands();
  if (ops.size() != 1 || ops[0].kind != K::Reg) d.unsupported();
  d.op.code = code(BRA, U32);
  d.push();
  d.c.frames.back().label_fixups.push_back(
      {static_cast<uint32_t>(d.c.prog->ops.size() - 1), ops[0].name});
}

void decode_ret(Insn& d) {
  DecodeContext& c = d.c;
  if (d.opcode() == "ret" && c.frames.size() > 1 && c.call_stack.size() > 1) {
    d.op.code = code(BRA, U32);
    d.push();
    c.frames.back().ret_fixups.push_back(static_cast<uint32_t>(c.prog->ops.size() - 1));
  } else if (d.opcode() == "ret" && c.cur_callee >= 0) {
    d.op.code = code(RET, U32);  // a function called for real
    d.push();
  } else {
    d.op.code = code(EXIT, U32);
    d.push();
  }
}

void decode_trap(Insn& d) {
  d.op.code = code(TRAP, U32);
  d.push();
}

void decode_call(Insn& d) { d.c.emit_call(d.in, d.op); }

void decode_bar(Insn& d) {
  const ptx::Instruction& in = d.in;
  const auto& ops = d.operands();
  DecodeContext& c = d.c;
  Op& op = d.op;
  if (in.has_mod("cluster")) {  // barrier.cluster.arrive/wait (decode_cluster.cc)
    decode_cluster_barrier(d);
    return;
  }
  if (in.has_mod("warp")) {  // bar.warp.sync = __syncwarp
    d.need(1);
    op.code = code(WARPSYNC, U32);
    op.r[0] = c.src(ops[0], U32);
    d.push();
    return;
  }
  bool red = in.has_mod("red"), arrive = in.has_mod("arrive");
  op.code = code(BAR, U32);
  op.aux = red ? 2 : arrive ? 1 : 0;
  op.aux2 = (d.opcode() == "bar" || in.has_mod("aligned")) ? 1 : 0;
  op.r[1] = UINT32_MAX;
  size_t i = 0;
  if (red) {
    static const char* rops[] = {"popc", "and", "or"};
    int k = mod_index(rops, 3, in);
    if (k < 0 || ops.size() < 3) d.unsupported();
    op.t2 = static_cast<uint8_t>(k);
    op.r[2] = k == 0 ? c.dst(ops[0]) : c.pred(ops[0]);
    i = 1;
    op.r[0] = c.src(ops[i++], U32);
    if (ops.size() == 4) op.r[1] = c.src(ops[i++], U32);
    op.r[3] = c.pred(ops[i]);
    op.vec = ops[i].negate ? 1 : 0;
  } else {
    if (ops.empty() || ops.size() > 2) d.unsupported();
    op.r[0] = c.src(ops[0], U32);
    if (ops.size() == 2) op.r[1] = c.src(ops[1], U32);
    if (arrive && ops.size() != 2) c.fail(in.pos, "bar.arrive needs a thread count");
  }
  d.push();
}

// membar/fence (memory is sequentially consistent within a block),
// prefetch, nanosleep, pmevent, discard.
void decode_nop(Insn& d) {
  d.op.code = code(NOP, U32);
  d.push();
}

}  // namespace smemlab::emu
