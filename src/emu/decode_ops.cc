// emit_instruction: one PTX instruction -> ops. Field conventions per base op
// are listed in program.h; unknown forms fail here with the PTX position.
#include <fmt/format.h>

#include <cctype>

#include "emu/decode_context.h"
#include "emu/decode_tensor.h"

namespace smemlab::emu {
namespace {

using K = ptx::Operand::Kind;

bool is_float(T t) { return t == F32 || t == F64 || t == F16 || t == BF16; }

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

int index_of(const char* const* names, int n, const ptx::Instruction& in) {
  for (const auto& m : in.mods)
    for (int i = 0; i < n; ++i)
      if (m == names[i]) return i;
  return -1;
}

}  // namespace

void DecodeContext::emit_instruction(const ptx::Instruction& in) {
  const std::string& o = in.opcode;
  const auto& ops = in.operands;
  Op op = make(in);
  if (is_tensor_or_async(in)) return decode_tensor_or_async(*this, in, op);
  std::vector<T> tys = types_of(in);
  T t = tys.empty() ? U32 : tys.back();
  op.t = t;
  auto unsupported = [&]() -> void {
    fail(in.pos, fmt::format("unsupported instruction '{}'", in.text()));
  };
  // Modifiers that change results and are not implemented must not be
  // ignored: packed SIMD types (.s16x2, ...), .relu, .NaN, .xorsign, .satfinite.
  for (const auto& m : in.mods) {
    T dummy;
    bool typeish = m.size() >= 2 && std::string("usbfe").find(m[0]) != std::string::npos &&
                   std::isdigit(static_cast<unsigned char>(m[1]));
    if ((typeish && !parse_type(m, &dummy)) || m == "relu" || m == "NaN" || m == "xorsign" ||
        m == "satfinite" || m == "abs")
      unsupported();
  }
  auto need = [&](size_t n) {
    if (ops.size() != n)
      fail(in.pos, fmt::format("'{}' expects {} operands, found {}", in.text(), n, ops.size()));
  };
  auto simple = [&](Base b, size_t nsrc) {
    need(nsrc + 1);
    op.code = code(b, t);
    op.r[0] = dst(ops[0]);
    for (size_t i = 0; i < nsrc; ++i)
      op.r[i + 1] = src(ops[i + 1], (b == SHL || b == SHR || b == BFE) && i > 0 ? U32 : t);
    push(op);
  };
  bool ftz = in.has_mod("ftz"), sat = in.has_mod("sat");
  Round rnd = round_of(in);
  auto fslow = [&](FOp f, size_t nsrc) {
    need(nsrc + 1);
    op.code = code(FSLOW, t);
    op.aux = f;
    op.aux2 = static_cast<uint8_t>(rnd | (ftz ? kFtz : 0) | (sat ? kSat : 0));
    op.r[0] = dst(ops[0]);
    for (size_t i = 0; i < nsrc; ++i) op.r[i + 1] = src(ops[i + 1], t);
    push(op);
  };
  // Extended-precision integer arithmetic through the carry flag CC.CF:
  // kind 0 add, 1 sub (borrow), 2 mad.lo, 3 mad.hi; aux2 bit 0 = carry in,
  // bit 1 = carry out.
  auto carry_op = [&](int kind, bool cin, bool cout) {
    if (sat || !(t == U32 || t == S32 || t == U64 || t == S64)) unsupported();
    need(kind >= 2 ? 4 : 3);
    op.code = code(CARRY, t == S32 ? U32 : t == S64 ? U64 : t);
    op.aux = static_cast<uint8_t>(kind);
    op.aux2 = static_cast<uint8_t>((cin ? 1 : 0) | (cout ? 2 : 0));
    op.r[0] = dst(ops[0]);
    for (size_t i = 1; i < ops.size(); ++i) op.r[i] = src(ops[i], t);
    push(op);
  };
  // Float arithmetic with a fast path for the common round-to-nearest forms.
  auto farith = [&](Base fast, FOp f, size_t nsrc) {
    if ((t == F32 || t == F64) && !ftz && !sat && (rnd == R_NONE || rnd == R_RN)) {
      simple(fast, nsrc);
    } else if (t == F32 || t == F64 || t == F16 || t == BF16 || t == F16X2 || t == BF16X2) {
      fslow(f, nsrc);
    } else {
      unsupported();
    }
  };

  if (o == "mov") {
    need(2);
    if (is_pred(ops[0])) {
      op.code = code(PLOGIC, PRED);
      op.aux = 4;
      op.r[0] = pred(ops[0]);
      op.r[1] = pred(ops[1]);
      push(op);
    } else if (ops[1].kind == K::Vector) {
      op.code = code(PACK, t);
      op.vec = static_cast<uint8_t>(ops[1].elems.size());
      op.r[0] = dst(ops[0]);
      for (size_t i = 0; i < ops[1].elems.size() && i < 4; ++i)
        op.r[i + 1] = src(ops[1].elems[i], U64);
      push(op);
    } else if (ops[0].kind == K::Vector) {
      op.code = code(UNPACK, t);
      op.vec = static_cast<uint8_t>(ops[0].elems.size());
      for (size_t i = 0; i < ops[0].elems.size() && i < 4; ++i) op.r[i] = dst(ops[0].elems[i]);
      op.r[4] = src(ops[1], t);
      push(op);
    } else if (ops[1].kind == K::Reg && (ops[1].name == "%clock" || ops[1].name == "%clock64" ||
                                         ops[1].name == "%globaltimer")) {
      op.code = code(SPECIAL, t);
      op.aux = ops[1].name == "%clock"     ? SP_CLOCK
               : ops[1].name == "%clock64" ? SP_CLOCK64
                                           : SP_GLOBALTIMER;
      op.r[0] = dst(ops[0]);
      push(op);
    } else {
      simple(MOV, 1);
    }
  } else if (o == "add" || o == "sub" || o == "mul" || o == "mad" || o == "fma" || o == "div") {
    if (is_float(t) || t == F16X2 || t == BF16X2) {
      if (o == "add")
        farith(FADD, F_ADD, 2);
      else if (o == "sub")
        farith(FSUB, F_SUB, 2);
      else if (o == "mul")
        farith(FMUL, F_MUL, 2);
      else if (o == "div")
        fslow(F_DIV, 2);
      else
        farith(FFMA, F_FMA, 3);
      return;
    }
    if (in.has_mod("cc") && (o == "add" || o == "sub" || o == "mad")) {
      carry_op(o == "add" ? 0 : o == "sub" ? 1 : (in.has_mod("hi") ? 3 : 2), false, true);
      return;
    }
    if (sat || o == "fma") unsupported();
    if (o == "add")
      simple(ADD, 2);
    else if (o == "sub")
      simple(SUB, 2);
    else if (o == "div")
      simple(DIV, 2);
    else if (o == "mul")
      simple(in.has_mod("hi") ? MUL_HI : in.has_mod("wide") ? MUL_WIDE : MUL_LO, 2);
    else
      simple(in.has_mod("hi") ? MAD_HI : in.has_mod("wide") ? MAD_WIDE : MAD_LO, 3);
  } else if (o == "addc" || o == "subc" || o == "madc") {
    carry_op(o == "addc"   ? 0
             : o == "subc" ? 1
                           : (in.has_mod("hi") ? 3 : 2),
             true, in.has_mod("cc"));
  } else if (o == "mul24" || o == "mad24" || o == "dp4a" || o == "dp2a") {
    unsupported();
  } else if (o == "rem") {
    simple(REM, 2);
  } else if (o == "abs" || o == "neg") {
    if (is_float(t))
      fslow(o == "abs" ? F_ABS : F_NEG, 1);
    else
      simple(o == "abs" ? ABS : NEG, 1);
  } else if (o == "min" || o == "max") {
    if (is_float(t))
      fslow(o == "min" ? F_MIN : F_MAX, 2);
    else
      simple(o == "min" ? MIN : MAX, 2);
  } else if (o == "and" || o == "or" || o == "xor" || o == "not") {
    if (t == PRED) {
      need(o == "not" ? 2 : 3);
      op.code = code(PLOGIC, PRED);
      op.aux = o == "and" ? 0 : o == "or" ? 1 : o == "xor" ? 2 : 3;
      op.r[0] = pred(ops[0]);
      op.r[1] = pred(ops[1]);
      op.aux2 = ops[1].negate ? 1 : 0;
      if (o != "not") {
        op.r[2] = pred(ops[2]);
        op.aux2 |= ops[2].negate ? 2 : 0;
      }
      push(op);
    } else {
      simple(o == "and" ? AND : o == "or" ? OR : o == "xor" ? XOR : NOT, o == "not" ? 1 : 2);
    }
  } else if (o == "cnot") {
    simple(CNOT, 1);
  } else if (o == "shl" || o == "shr") {
    simple(o == "shl" ? SHL : SHR, 2);
  } else if (o == "popc" || o == "clz" || o == "brev") {
    // Destination is .u32 for popc/clz; the type names the source.
    need(2);
    op.code = code(o == "popc" ? POPC : o == "clz" ? CLZ : BREV, t);
    op.r[0] = dst(ops[0]);
    op.r[1] = src(ops[1], t);
    push(op);
  } else if (o == "bfe") {
    need(4);
    op.code = code(BFE, t);
    op.r[0] = dst(ops[0]);
    op.r[1] = src(ops[1], t);
    op.r[2] = src(ops[2], U32);
    op.r[3] = src(ops[3], U32);
    push(op);
  } else if (o == "bfi") {
    need(5);
    op.code = code(BFI, t);
    op.r[0] = dst(ops[0]);
    op.r[1] = src(ops[1], t);
    op.r[2] = src(ops[2], t);
    op.r[3] = src(ops[3], U32);
    op.r[4] = src(ops[4], U32);
    push(op);
  } else if (o == "prmt") {
    if (in.mods.size() != 1) unsupported();  // only the default (generic) mode
    simple(PRMT, 3);
  } else if (o == "shf") {
    op.aux = in.has_mod("r") ? 1 : 0;
    op.aux2 = in.has_mod("wrap") ? 1 : 0;
    simple(SHF, 3);
  } else if (o == "fma" || o == "rcp" || o == "sqrt" || o == "rsqrt" || o == "ex2" || o == "lg2" ||
             o == "sin" || o == "cos" || o == "tanh" || o == "copysign") {
    FOp f = o == "rcp"     ? F_RCP
            : o == "sqrt"  ? F_SQRT
            : o == "rsqrt" ? F_RSQRT
            : o == "ex2"   ? F_EX2
            : o == "lg2"   ? F_LG2
            : o == "sin"   ? F_SIN
            : o == "cos"   ? F_COS
            : o == "tanh"  ? F_TANH
                           : F_COPYSIGN;
    fslow(f, f == F_COPYSIGN ? 2 : 1);
  } else if (o == "testp") {
    static const char* kinds[] = {"finite",     "infinite", "number",
                                  "notanumber", "normal",   "subnormal"};
    int k = index_of(kinds, 6, in);
    if (k < 0) unsupported();
    need(2);
    op.code = code(FSLOW, t);
    op.aux = F_TESTP;
    op.t2 = static_cast<uint8_t>(k);
    op.r[0] = pred(ops[0]);
    op.r[1] = src(ops[1], t);
    push(op);
  } else if (o == "setp") {
    Cmp c;
    if (in.mods.empty() || !cmp_of(in.mods[0], &c)) unsupported();
    static const char* bools[] = {"and", "or", "xor"};
    int b = index_of(bools, 3, in);
    need(b >= 0 ? 4 : 3);
    op.code = code(SETP, t);
    op.aux = c;
    op.t2 = static_cast<uint8_t>(b + 1);
    op.aux2 = ftz ? kFtz : 0;
    op.r[0] = pred(ops[0]);
    op.r[1] = ops[0].pair.empty() ? UINT32_MAX : pred_name(ops[0].pair, ops[0].pos, K::Reg);
    op.r[2] = src(ops[1], t);
    op.r[3] = src(ops[2], t);
    if (b >= 0) {
      op.r[4] = pred(ops[3]);
      op.aux2 |= ops[3].negate ? 1 : 0;
    }
    push(op);
  } else if (o == "selp") {
    need(4);
    op.code = code(SELP, t);
    op.r[0] = dst(ops[0]);
    op.r[1] = src(ops[1], t);
    op.r[2] = src(ops[2], t);
    op.r[3] = pred(ops[3]);
    push(op);
  } else if (o == "cvt") {
    if (tys.size() != 2) unsupported();
    bool pair = (tys[0] == F16X2 || tys[0] == BF16X2) && tys[1] == F32;
    need(pair ? 3 : 2);
    if (pair) op.r[2] = src(ops[2], F32);  // cvt.rn.f16x2.f32 d, a, b: a -> upper, b -> lower
    op.code = code(CVT, tys[0]);
    op.t = tys[0];
    op.t2 = tys[1];
    op.aux2 = static_cast<uint8_t>(rnd | (ftz ? kFtz : 0) | (sat ? kSat : 0));
    op.r[0] = dst(ops[0]);
    op.r[1] = src(ops[1], tys[1]);
    push(op);
  } else if (o == "cvta" || o == "isspacep") {
    need(2);
    MSpace s = space_of(in);
    if (s == MSpace::Generic) unsupported();
    op.aux = static_cast<uint8_t>(s);
    if (o == "isspacep") {
      op.code = code(ISSPACEP, U64);
      op.r[0] = pred(ops[0]);
    } else {
      op.code = code(CVTA, t);
      op.aux2 = in.has_mod("to") ? 1 : 0;
      op.r[0] = dst(ops[0]);
    }
    op.r[1] = src(ops[1], t);
    push(op);
  } else if (o == "ld" || o == "ldu" || o == "st") {
    need(2);
    bool store = o == "st";
    const ptx::Operand& data = store ? ops[1] : ops[0];
    const ptx::Operand& addr = store ? ops[0] : ops[1];
    if (addr.kind != K::Addr) fail(addr.pos, "expected an address operand [..]");
    if (t == B128 || t == PRED) unsupported();
    op.code = code(store ? ST : LD, t);
    op.aux = static_cast<uint8_t>(space_of(in));
    op.width = static_cast<uint8_t>(type_bytes(t));
    std::vector<const ptx::Operand*> elems;
    if (data.kind == K::Vector) {
      for (const auto& e : data.elems) elems.push_back(&e);
    } else {
      elems.push_back(&data);
    }
    if (elems.size() > 4) unsupported();
    op.vec = static_cast<uint8_t>(elems.size());
    for (size_t i = 0; i < elems.size(); ++i) op.r[i] = store ? src(*elems[i], t) : dst(*elems[i]);
    // Address: a register base, a symbol, or an absolute value.
    uint64_t sym_base = 0;
    bool have_reg = false;
    if (!addr.name.empty()) {
      auto& fr = frames.back();
      auto r = fr.regs.find(addr.name);
      if (r != fr.regs.end()) {
        op.r[4] = r->second;
        have_reg = true;
      } else if (const SymbolInfo* s = symbol(addr.name)) {
        sym_base = s->address;
        MSpace ms = static_cast<MSpace>(op.aux);
        if (s->space == MSpace::Local && ms == MSpace::Param) {
          op.aux = static_cast<uint8_t>(MSpace::Local);
          op.aux2 = 1;  // a call parameter: report it as .param
        } else if (ms == MSpace::Generic) {
          op.aux = static_cast<uint8_t>(s->space);
        } else if (s->space != ms && !(ms == MSpace::Global && s->space == MSpace::Global)) {
          fail(addr.pos,
               fmt::format("symbol '{}' is not in the instruction's state space", addr.name));
        }
      } else {
        fail(addr.pos, fmt::format("undeclared register or symbol '{}'", addr.name));
      }
    }
    if (!have_reg) op.r[4] = constant(0);
    op.imm = static_cast<int64_t>(sym_base) + addr.offset;
    if (static_cast<MSpace>(op.aux) == MSpace::Param && store)
      fail(in.pos, "st.param to a kernel parameter is not supported");
    push(op);
  } else if (o == "atom" || o == "red") {
    static const char* names[] = {"add", "min",  "max", "inc", "dec",
                                  "cas", "exch", "and", "or",  "xor"};
    int a = index_of(names, 10, in);
    if (a < 0 || t == F16 || t == BF16 || t == F16X2 || t == BF16X2 || t == B128) unsupported();
    bool red = o == "red";
    need(red ? 2 : (a == A_CAS ? 4 : 3));
    const ptx::Operand& addr = red ? ops[0] : ops[1];
    if (addr.kind != K::Addr) fail(addr.pos, "expected an address operand [..]");
    op.code = code(ATOM, t);
    op.aux = static_cast<uint8_t>(space_of(in));
    op.aux2 = static_cast<uint8_t>(a);
    op.t2 = red ? 1 : 0;
    op.width = static_cast<uint8_t>(type_bytes(t));
    op.r[0] = red ? scratch() : dst(ops[0]);
    op.r[1] = src(ops[red ? 1 : 2], t);
    if (a == A_CAS) op.r[2] = src(ops[3], t);
    auto& fr = frames.back();
    auto r = fr.regs.find(addr.name);
    if (r != fr.regs.end()) {
      op.r[4] = r->second;
      op.imm = addr.offset;
    } else if (const SymbolInfo* s = symbol(addr.name)) {
      op.r[4] = constant(0);
      op.imm = static_cast<int64_t>(s->address) + addr.offset;
      if (static_cast<MSpace>(op.aux) == MSpace::Generic) op.aux = static_cast<uint8_t>(s->space);
    } else {
      fail(addr.pos, fmt::format("undeclared register or symbol '{}'", addr.name));
    }
    push(op);
  } else if (o == "cp" && !in.mods.empty() && in.mods[0] == "async") {
    if (in.mods.size() >= 2 &&
        (in.mods[1] == "commit_group" || in.mods[1] == "wait_group" || in.mods[1] == "wait_all")) {
      op.code = code(CPASYNC, U8);
      op.aux = in.mods[1] == "commit_group" ? CPA_COMMIT
               : in.mods[1] == "wait_all"   ? CPA_WAIT_ALL
                                            : CPA_WAIT_GROUP;
      if (op.aux == CPA_WAIT_GROUP) {
        need(1);
        if (ops[0].kind != K::Imm) fail(ops[0].pos, "cp.async.wait_group needs an immediate N");
        op.imm = static_cast<int64_t>(ops[0].bits);
      }
      push(op);
      return;
    }
    if (in.has_mod("bulk") || ops.size() < 3 || ops[0].kind != K::Addr || ops[1].kind != K::Addr ||
        ops[2].kind != K::Imm)
      unsupported();
    op.code = code(CPASYNC, U8);
    op.aux = CPA_COPY;
    op.width = static_cast<uint8_t>(ops[2].bits);
    if (op.width != 4 && op.width != 8 && op.width != 16)
      fail(ops[2].pos, "cp.async copies 4, 8 or 16 bytes");
    if (in.has_mod("cg") && op.width != 16) fail(ops[2].pos, "cp.async.cg copies 16 bytes");
    auto base = [&](const ptx::Operand& a, uint64_t* off) -> uint32_t {
      auto& fr = frames.back();
      auto r = fr.regs.find(a.name);
      *off = static_cast<uint64_t>(a.offset);
      if (r != fr.regs.end()) return r->second;
      const SymbolInfo* s = symbol(a.name);
      if (!s) fail(a.pos, fmt::format("undeclared register or symbol '{}'", a.name));
      *off += s->address;
      return constant(0);
    };
    uint64_t doff, soff;
    op.r[4] = base(ops[0], &doff);
    op.imm = static_cast<int64_t>(doff);
    op.r[5] = base(ops[1], &soff);
    op.r[1] = constant(soff);
    op.r[2] = ops.size() > 3 && ops[3].kind != K::Vector ? src(ops[3], U32) : UINT32_MAX;
    push(op);
  } else if (o == "bra" || o == "brx") {
    if (o == "brx" || ops.size() != 1 || ops[0].kind != K::Reg) unsupported();
    op.code = code(BRA, U32);
    Op& b = push(op);
    (void)b;
    frames.back().label_fixups.push_back(
        {static_cast<uint32_t>(prog->ops.size() - 1), ops[0].name});
  } else if (o == "ret" || o == "exit") {
    if (o == "ret" && frames.size() > 1 && call_stack.size() > 1) {
      op.code = code(BRA, U32);
      push(op);
      frames.back().ret_fixups.push_back(static_cast<uint32_t>(prog->ops.size() - 1));
    } else {
      op.code = code(EXIT, U32);
      push(op);
    }
  } else if (o == "trap" || o == "brkpt") {
    op.code = code(TRAP, U32);
    push(op);
  } else if (o == "call") {
    emit_call(in, op);
  } else if ((o == "bar" || o == "barrier") && in.has_mod("warp")) {
    need(1);
    op.code = code(WARPSYNC, U32);
    op.r[0] = src(ops[0], U32);
    push(op);
  } else if (o == "bar" || o == "barrier") {
    bool red = in.has_mod("red"), arrive = in.has_mod("arrive");
    op.code = code(BAR, U32);
    op.aux = red ? 2 : arrive ? 1 : 0;
    op.aux2 = (o == "bar" || in.has_mod("aligned")) ? 1 : 0;
    op.r[1] = UINT32_MAX;
    size_t i = 0;
    if (red) {
      static const char* rops[] = {"popc", "and", "or"};
      int k = index_of(rops, 3, in);
      if (k < 0 || ops.size() < 3) unsupported();
      op.t2 = static_cast<uint8_t>(k);
      op.r[2] = k == 0 ? dst(ops[0]) : pred(ops[0]);
      i = 1;
      op.r[0] = src(ops[i++], U32);
      if (ops.size() == 4) op.r[1] = src(ops[i++], U32);
      op.r[3] = pred(ops[i]);
      op.vec = ops[i].negate ? 1 : 0;
    } else {
      if (ops.empty() || ops.size() > 2) unsupported();
      op.r[0] = src(ops[0], U32);
      if (ops.size() == 2) op.r[1] = src(ops[1], U32);
      if (arrive && ops.size() != 2) fail(in.pos, "bar.arrive needs a thread count");
    }
    push(op);
  } else if (o == "membar" || o == "fence" || o == "prefetch" || o == "prefetchu" ||
             o == "nanosleep" || o == "pmevent" || o == "discard") {
    op.code = code(NOP, U32);
    push(op);
  } else if (o == "shfl") {
    static const char* modes[] = {"up", "down", "bfly", "idx"};
    int m = index_of(modes, 4, in);
    if (m < 0 || !in.has_mod("sync")) unsupported();
    need(5);
    op.code = code(SHFL, U32);
    op.aux = static_cast<uint8_t>(m);
    op.r[0] = dst(ops[0]);
    op.r[1] = ops[0].pair.empty() ? scratch_pred() : pred_name(ops[0].pair, ops[0].pos, K::Reg);
    op.r[2] = src(ops[1], U32);
    op.r[3] = src(ops[2], U32);
    op.r[4] = src(ops[3], U32);
    op.r[5] = src(ops[4], U32);
    push(op);
  } else if (o == "vote") {
    static const char* modes[] = {"all", "any", "uni", "ballot"};
    int m = index_of(modes, 4, in);
    if (m < 0) unsupported();
    bool sync = in.has_mod("sync");
    need(sync ? 3 : 2);
    op.code = code(VOTE, U32);
    op.aux = static_cast<uint8_t>(m);
    op.r[0] = m == 3 ? dst(ops[0]) : pred(ops[0]);
    op.r[1] = pred(ops[1]);
    op.aux2 = ops[1].negate ? 1 : 0;
    op.r[2] = sync ? src(ops[2], U32) : UINT32_MAX;
    push(op);
  } else if (o == "redux") {
    static const char* rops[] = {"add", "min", "max", "and", "or", "xor"};
    int m = index_of(rops, 6, in);
    if (m < 0 || is_float(t)) unsupported();
    need(3);
    op.code = code(REDUX, t);
    op.aux = static_cast<uint8_t>(m);
    op.r[0] = dst(ops[0]);
    op.r[1] = src(ops[1], t);
    op.r[2] = src(ops[2], U32);
    push(op);
  } else if (o == "match") {
    bool all = in.has_mod("all");
    if (!all && !in.has_mod("any")) unsupported();
    need(3);
    op.code = code(MATCH, t);
    op.aux = all ? 1 : 0;
    op.r[0] = dst(ops[0]);
    op.r[1] = ops[0].pair.empty() ? scratch_pred() : pred_name(ops[0].pair, ops[0].pos, K::Reg);
    op.r[2] = src(ops[1], t);
    op.r[3] = src(ops[2], U32);
    push(op);
  } else if (o == "activemask") {
    need(1);
    op.code = code(ACTIVEMASK, U32);
    op.r[0] = dst(ops[0]);
    push(op);
  } else {
    unsupported();
  }
}

}  // namespace smemlab::emu
