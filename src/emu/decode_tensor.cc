// Decoding of the tensor-core and asynchronous-copy instructions: ldmatrix,
// stmatrix, movmatrix, mma.sync, wmma.*, mbarrier.*, cp.async.mbarrier.arrive
// and cp.async.bulk. Forms not listed in docs/emulator.md fail here with the
// PTX position.
#include "emu/decode_tensor.h"

#include <fmt/format.h>

#include <cctype>
#include <initializer_list>
#include <string>

#include "emu/decode.h"
#include "emu/ops_bulk_store.h"
#include "emu/ops_wgmma.h"

namespace smemlab::emu {

[[noreturn]] void unsupported_form(DecodeContext& c, const ptx::Instruction& in,
                                   const std::string& why) {
  c.fail(in.pos, fmt::format("unsupported instruction '{}'{}", in.text(),
                             why.empty() ? "" : " (" + why + ")"));
}

// [reg + off], [symbol + off] or [off]: base register (a constant for a
// symbol) and the byte offset; a symbol also fixes a generic space.
void address_operand(DecodeContext& c, const ptx::Operand& a, uint32_t* reg, int64_t* imm,
                     MSpace* space) {
  if (a.kind != ptx::Operand::Kind::Addr) c.fail(a.pos, "expected an address operand [..]");
  *imm = a.offset;
  if (a.name.empty()) {
    *reg = c.constant(0);
    return;
  }
  auto& fr = c.frames.back();
  if (auto r = fr.regs.find(a.name); r != fr.regs.end()) {
    *reg = r->second;
    return;
  }
  const SymbolInfo* s = c.symbol(a.name);
  if (!s) c.fail(a.pos, fmt::format("undeclared register or symbol '{}'", a.name));
  *reg = c.symbol_base(*s);
  *imm += static_cast<int64_t>(s->address);
  if (*space == MSpace::Generic) *space = s->space;
}

namespace {

using K = ptx::Operand::Kind;
using tensor::Elem;

void need(DecodeContext& c, const ptx::Instruction& in, size_t n) {
  if (in.operands.size() != n)
    c.fail(in.pos,
           fmt::format("'{}' expects {} operands, found {}", in.text(), n, in.operands.size()));
}

MSpace space_mod(const ptx::Instruction& in) {
  for (const auto& m : in.mods) {
    if (m.rfind("shared", 0) == 0) return MSpace::Shared;
    if (m.rfind("global", 0) == 0) return MSpace::Global;
  }
  return MSpace::Generic;
}

std::vector<const ptx::Operand*> regs_of(const ptx::Operand& o) {
  std::vector<const ptx::Operand*> v;
  if (o.kind == K::Vector)
    for (const auto& e : o.elems) v.push_back(&e);
  else
    v.push_back(&o);
  return v;
}

bool elem_of(const std::string& m, Elem* e) {
  static const std::pair<const char*, Elem> names[] = {
      {"f16", Elem::F16},   {"bf16", Elem::BF16}, {"tf32", Elem::TF32}, {"f32", Elem::F32},
      {"f64", Elem::F64},   {"s8", Elem::S8},     {"u8", Elem::U8},     {"s32", Elem::S32},
      {"e4m3", Elem::E4M3}, {"e5m2", Elem::E5M2}};
  for (const auto& [n, v] : names)
    if (m == n) {
      *e = v;
      return true;
    }
  return false;
}

bool shape_of(const std::string& m, tensor::Shape* s) {
  unsigned a, b, k;
  if (std::sscanf(m.c_str(), "m%un%uk%u", &a, &b, &k) != 3) return false;
  *s = {a, b, k};
  return true;
}

// A fragment operand: exactly `count` registers.
std::vector<uint32_t> fragment(DecodeContext& c, const ptx::Instruction& in, const ptx::Operand& o,
                               unsigned count, bool dest, T t) {
  auto v = regs_of(o);
  if (v.size() != count)
    c.fail(o.pos, fmt::format("'{}' expects {} registers in this fragment, found {}", in.text(),
                              count, v.size()));
  std::vector<uint32_t> r;
  for (const auto* e : v) r.push_back(dest ? c.dst(*e) : c.src(*e, t));
  return r;
}

unsigned regs_for(unsigned elements, Elem e) {
  return (elements + tensor::per_register(e) - 1) / tensor::per_register(e);
}

void decode_ldmatrix(DecodeContext& c, const ptx::Instruction& in, Op op) {
  bool store = in.opcode == "stmatrix";
  unsigned x = in.has_mod("x1") ? 1 : in.has_mod("x2") ? 2 : in.has_mod("x4") ? 4 : 0;
  if (!in.has_mod("sync") || !in.has_mod("aligned") || !in.has_mod("m8n8") || !in.has_mod("b16") ||
      x == 0)
    unsupported_form(
        c, in,
        in.has_mod("m16n16") || in.has_mod("m8n16") || in.has_mod("m16n8") || in.has_mod("b8")
            ? "the .m16n16/.m8n16/.m16n8 .b8 forms need sm_100a or later; sm_90 has "
              ".m8n8 .x1/.x2/.x4 .b16 only"
            : "only .m8n8 .x1/.x2/.x4 .b16 forms");
  need(c, in, 2);
  const auto& data = in.operands[store ? 1 : 0];
  MSpace space = space_mod(in);
  int64_t imm;
  address_operand(c, in.operands[store ? 0 : 1], &op.r[4], &imm, &space);
  auto regs = fragment(c, in, data, x, !store, U32);
  op.code = code(LDMATRIX, U32);
  op.vec = static_cast<uint8_t>(x);
  op.width = 16;
  op.aux = static_cast<uint8_t>(space);
  op.aux2 = in.has_mod("trans") ? 1 : 0;
  op.t2 = store ? 1 : 0;
  op.imm = imm;
  for (unsigned i = 0; i < x; ++i) op.r[i] = regs[i];
  c.push(op);
}

void decode_movmatrix(DecodeContext& c, const ptx::Instruction& in, Op op) {
  if (!in.has_mod("trans") || !in.has_mod("m8n8") || !in.has_mod("b16")) unsupported_form(c, in);
  need(c, in, 2);
  op.code = code(MOVMATRIX, U32);
  op.r[0] = c.dst(in.operands[0]);
  op.r[1] = c.src(in.operands[1], U32);
  c.push(op);
}

// The element types (in modifier order) and the shape of an mma, wmma or
// wgmma; false unless it is .sync.aligned and names a shape.
bool matrix_mods(const ptx::Instruction& in, tensor::Shape* shape, std::vector<Elem>* types) {
  bool have_shape = false;
  for (const auto& m : in.mods) {
    Elem e;
    if (elem_of(m, &e)) types->push_back(e);
    have_shape = have_shape || shape_of(m, shape);
  }
  return have_shape && in.has_mod("sync") && in.has_mod("aligned");
}

void decode_mma(DecodeContext& c, const ptx::Instruction& in, Op op) {
  TensorOp t;
  t.kind = TensorOp::Mma;
  std::vector<Elem> types;
  if (!matrix_mods(in, &t.spec.shape, &types) || types.size() != 4 || !in.has_mod("row") ||
      !in.has_mod("col"))
    unsupported_form(c, in, "mma.sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c>");
  t.spec.d = types[0], t.spec.a = types[1], t.spec.b = types[2], t.spec.c = types[3];
  t.spec.satfinite = in.has_mod("satfinite");
  for (const auto& m : in.mods)
    if (m == "relu" || m == "sp" || m.rfind("kind", 0) == 0 || m == "block_scale")
      unsupported_form(c, in);
  need(c, in, 4);
  using tensor::Operand;
  try {
    // Probe the layout so that an unsupported shape/type fails at decode.
    tensor::mma_position(t.spec.shape, t.spec.a, Operand::A, 0, 0);
    tensor::mma_position(t.spec.shape, t.spec.b, Operand::B, 0, 0);
    tensor::mma_position(t.spec.shape, t.spec.c, Operand::C, 0, 0);
    std::vector<uint64_t> probe_a(t.spec.shape.m * t.spec.shape.k),
        probe_b(t.spec.shape.k * t.spec.shape.n), probe_c(t.spec.shape.m * t.spec.shape.n),
        probe_d(probe_c.size());
    tensor::mma(t.spec, probe_a.data(), probe_b.data(), probe_c.data(), probe_d.data());
  } catch (const tensor::Unsupported& e) {
    unsupported_form(c, in, e.what());
  }
  auto count = [&](Operand o, Elem e) {
    return regs_for(tensor::mma_elements(t.spec.shape, e, o), e);
  };
  T rt = t.spec.a == Elem::F64 ? U64 : U32;
  t.d = fragment(c, in, in.operands[0], count(Operand::C, t.spec.d), true, rt);
  t.a = fragment(c, in, in.operands[1], count(Operand::A, t.spec.a), false, rt);
  t.b = fragment(c, in, in.operands[2], count(Operand::B, t.spec.b), false, rt);
  t.c = fragment(c, in, in.operands[3], count(Operand::C, t.spec.c), false, rt);
  op.code = code(MMA, U32);
  op.imm = static_cast<int64_t>(c.prog->tensor_ops.size());
  c.prog->tensor_ops.push_back(std::move(t));
  c.push(op);
}

void decode_wmma(DecodeContext& c, const ptx::Instruction& in, Op op) {
  using tensor::Operand;
  TensorOp t;
  std::vector<Elem> types;
  if (!matrix_mods(in, &t.spec.shape, &types) || types.empty()) unsupported_form(c, in);
  auto is16 = [](Elem e) { return e == Elem::F16 || e == Elem::BF16; };
  bool load = in.has_mod("load"), store = in.has_mod("store");
  if (load || store) {
    t.kind = load ? TensorOp::WmmaLoad : TensorOp::WmmaStore;
    t.which = in.has_mod("a") ? Operand::A : in.has_mod("b") ? Operand::B : Operand::C;
    if (store && !in.has_mod("d")) unsupported_form(c, in);
    if (load && t.which == Operand::C && !in.has_mod("c")) unsupported_form(c, in);
    t.row_major = in.has_mod("row");
    if (!t.row_major && !in.has_mod("col")) unsupported_form(c, in, "needs .row or .col");
    t.elem = types.back();
    t.space = space_mod(in);
    if (in.operands.size() != 2 && in.operands.size() != 3)
      c.fail(in.pos, fmt::format("'{}' expects 2 or 3 operands", in.text()));
    address_operand(c, in.operands[load ? 1 : 0], &t.addr, &t.offset, &t.space);
    if (in.operands.size() == 3) t.stride = c.src(in.operands[2], U32);
    // The fragment's element type for the layout (C of s8 shapes is s32...).
    Elem le = t.which == Operand::C ? t.elem : t.elem;
    unsigned n;
    try {
      n = tensor::wmma_elements(t.spec.shape, le, t.which);
      tensor::wmma_position(t.spec.shape, le, t.which, 0, 0);
    } catch (const tensor::Unsupported& e) {
      unsupported_form(c, in, e.what());
    }
    T rt = t.elem == Elem::F64 ? U64 : U32;
    auto regs = fragment(c, in, in.operands[load ? 0 : 1], regs_for(n, le), load, rt);
    (load ? t.d : t.c) = std::move(regs);
  } else if (in.has_mod("mma")) {
    t.kind = TensorOp::WmmaMma;
    // .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype.
    if (types.size() == 2) {
      t.spec.d = types[0], t.spec.c = types[1], t.spec.a = t.spec.b = Elem::F16;
    } else if (types.size() == 4) {
      t.spec.d = types[0], t.spec.a = types[1], t.spec.b = types[2], t.spec.c = types[3];
    } else {
      unsupported_form(c, in);
    }
    t.spec.satfinite = in.has_mod("satfinite");
    need(c, in, 4);
    unsigned na, nb, nc, nd;
    try {
      na = tensor::wmma_elements(t.spec.shape, t.spec.a, Operand::A);
      nb = tensor::wmma_elements(t.spec.shape, t.spec.b, Operand::B);
      nc = tensor::wmma_elements(t.spec.shape, t.spec.c, Operand::C);
      nd = tensor::wmma_elements(t.spec.shape, t.spec.d, Operand::C);
      std::vector<uint64_t> pa(t.spec.shape.m * t.spec.shape.k),
          pb(t.spec.shape.k * t.spec.shape.n), pc(t.spec.shape.m * t.spec.shape.n), pd(pc.size());
      tensor::mma(t.spec, pa.data(), pb.data(), pc.data(), pd.data());
    } catch (const tensor::Unsupported& e) {
      unsupported_form(c, in, e.what());
    }
    (void)is16;
    T rt = t.spec.a == Elem::F64 ? U64 : U32;
    t.d = fragment(c, in, in.operands[0], regs_for(nd, t.spec.d), true, rt);
    t.a = fragment(c, in, in.operands[1], regs_for(na, t.spec.a), false, rt);
    t.b = fragment(c, in, in.operands[2], regs_for(nb, t.spec.b), false, rt);
    t.c = fragment(c, in, in.operands[3], regs_for(nc, t.spec.c), false, rt);
  } else {
    unsupported_form(c, in);
  }
  op.code = code(MMA, U32);
  op.imm = static_cast<int64_t>(c.prog->tensor_ops.size());
  c.prog->tensor_ops.push_back(std::move(t));
  c.push(op);
}

// An immediate operand of wgmma that must be one of `allowed`.
int64_t wgmma_imm(DecodeContext& c, const ptx::Instruction& in, const ptx::Operand& o,
                  std::initializer_list<int64_t> allowed, const char* what) {
  const int64_t v = static_cast<int64_t>(o.bits);
  bool ok = o.kind == K::Imm;
  if (ok) {
    ok = false;
    for (int64_t a : allowed) ok = ok || v == a;
  }
  if (!ok)
    c.fail(o.pos,
           fmt::format("'{}': {} must be an immediate ({})", in.text(), what,
                       allowed.size() == 2 && *allowed.begin() == -1 ? "1 or -1" : "0 or 1"));
  return v;
}

// wgmma.mma_async.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype
//   d, a-desc | {a}, b-desc, scale-d {, imm-scale-a, imm-scale-b {, imm-trans-a}, imm-trans-b};
void decode_wgmma_mma(DecodeContext& c, const ptx::Instruction& in, Op op) {
  TensorOp t;
  t.kind = TensorOp::Wgmma;
  std::vector<Elem> types;
  if (in.has_mod("sp")) unsupported_form(c, in, "sparse wgmma.mma_async.sp is not supported");
  if (in.has_mod("b1"))
    unsupported_form(c, in, "single-bit wgmma (.b1 .and.popc) is not supported");
  const bool well_formed = matrix_mods(in, &t.spec.shape, &types);
  const tensor::Shape s = t.spec.shape;
  if (!well_formed || types.size() != 3)
    unsupported_form(c, in, "wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype");
  t.spec.d = t.spec.c = types[0], t.spec.a = types[1], t.spec.b = types[2];
  const Elem ab = t.spec.a;
  const bool ints = ab == Elem::S8 || ab == Elem::U8;
  const bool fp8 = tensor::is_fp8(ab);
  const bool same = fp8    ? tensor::is_fp8(t.spec.b)
                    : ints ? (t.spec.b == Elem::S8 || t.spec.b == Elem::U8)
                           : t.spec.b == ab;
  if (!same || s.m != 64 || s.k != tensor::wgmma_k(ab) ||
      !tensor::wgmma_shape_ok(ab, t.spec.d, s.n))
    unsupported_form(c, in, "no such wgmma shape and types on sm_90a");
  t.spec.satfinite = in.has_mod("satfinite");
  if (t.spec.satfinite && !ints) unsupported_form(c, in, ".satfinite is for integer wgmma");
  const bool is16 = ab == Elem::F16 || ab == Elem::BF16;
  const auto& ops = in.operands;
  if (ops.size() < 4) c.fail(in.pos, fmt::format("'{}' expects at least 4 operands", in.text()));
  const bool a_regs = ops[1].kind == K::Vector;
  const size_t want = ints ? 4 : !is16 ? 6 : a_regs ? 7 : 8;
  need(c, in, want);
  const unsigned d_elems = s.n / 2, d_per = t.spec.d == Elem::F16 ? 2 : 1;
  t.d = fragment(c, in, ops[0], d_elems / d_per, true, U32);
  t.c = t.d;
  if (a_regs)
    t.a = fragment(c, in, ops[1], 4, false, U32);
  else
    t.desc_a = c.src(ops[1], U64);
  t.desc_b = c.src(ops[2], U64);
  t.scale_d = c.pred(ops[3]);
  t.scale_d_neg = ops[3].negate;
  if (!ints) {
    t.neg_a = wgmma_imm(c, in, ops[4], {-1, 1}, "imm-scale-a") == -1;
    t.neg_b = wgmma_imm(c, in, ops[5], {-1, 1}, "imm-scale-b") == -1;
  }
  if (is16) {
    if (!a_regs) t.trans_a = wgmma_imm(c, in, ops[6], {0, 1}, "imm-trans-a") == 1;
    t.trans_b = wgmma_imm(c, in, ops[want - 1], {0, 1}, "imm-trans-b") == 1;
  }
  op.code = code(WGMMA, U32);
  op.imm = static_cast<int64_t>(c.prog->tensor_ops.size());
  c.prog->tensor_ops.push_back(std::move(t));
  c.push(op);
}

// wgmma.fence / commit_group / wait_group N (.sync.aligned), and mma_async.
void decode_wgmma(DecodeContext& c, const ptx::Instruction& in, Op op) {
  const std::string kind = in.mods.empty() ? "" : in.mods[0];
  if (kind == "mma_async") return decode_wgmma_mma(c, in, op);
  if (!in.has_mod("sync") || !in.has_mod("aligned") || in.mods.size() != 3)
    unsupported_form(c, in, "wgmma.{fence,commit_group,wait_group}.sync.aligned");
  op.code = code(WGMMA_SYNC, U32);
  if (kind == "fence" || kind == "commit_group") {
    need(c, in, 0);
    op.aux = kind == "fence" ? 0 : 1;
  } else if (kind == "wait_group") {
    need(c, in, 1);
    if (in.operands[0].kind != K::Imm)
      c.fail(in.operands[0].pos, fmt::format("'{}': N must be an immediate", in.text()));
    op.aux = 2;
    op.imm = static_cast<int64_t>(in.operands[0].bits);
  } else {
    unsupported_form(c, in);
  }
  c.push(op);
}

// An optional source operand: a register, or ~0 when absent.
uint32_t opt_src(DecodeContext& c, const ptx::Instruction& in, size_t i, T t) {
  return i < in.operands.size() ? c.src(in.operands[i], t) : UINT32_MAX;
}

void decode_mbarrier(DecodeContext& c, const ptx::Instruction& in, Op op) {
  const auto& ops = in.operands;
  const std::string kind = in.mods.empty() ? "" : in.mods[0];
  MSpace space = space_mod(in);
  op.code = code(MBAR, U64);
  op.r[0] = op.r[1] = op.r[2] = UINT32_MAX;
  auto addr_at = [&](size_t i) {
    if (i >= ops.size()) c.fail(in.pos, fmt::format("'{}' needs an address", in.text()));
    address_operand(c, ops[i], &op.r[4], &op.imm, &space);
  };
  if (kind == "init") {
    need(c, in, 2);
    op.t2 = MB_INIT;
    addr_at(0);
    op.r[1] = c.src(ops[1], U32);
  } else if (kind == "inval") {
    need(c, in, 1);
    op.t2 = MB_INVAL;
    addr_at(0);
  } else if (kind == "arrive" || kind == "arrive_drop") {
    // [state,] [addr] {, count | , txCount} ; state may be the sink '_'
    op.t2 = MB_ARRIVE;
    op.aux2 = kind == "arrive_drop" ? 1 : 0;
    if (in.has_mod("noComplete")) unsupported_form(c, in);
    size_t a = ops.empty() || ops[0].kind == K::Addr ? 0 : 1;
    if (a == 1 && ops[0].kind != K::Sink) op.r[0] = c.dst(ops[0]);
    addr_at(a);
    if (in.has_mod("expect_tx")) {
      if (ops.size() != a + 2) c.fail(in.pos, "mbarrier.arrive.expect_tx needs a tx count");
      op.r[2] = c.src(ops[a + 1], U32);
    } else {
      op.r[1] = opt_src(c, in, a + 1, U32);
      if (ops.size() > a + 2) c.fail(in.pos, fmt::format("too many operands for '{}'", in.text()));
    }
  } else if (kind == "expect_tx" || kind == "complete_tx") {
    need(c, in, 2);
    op.t2 = kind == "expect_tx" ? MB_EXPECT_TX : MB_COMPLETE_TX;
    addr_at(0);
    op.r[1] = c.src(ops[1], U32);
  } else if (kind == "test_wait" || kind == "try_wait") {
    // try_wait may take a suspend-time hint as a fourth operand (ignored:
    // the emulator returns at once, and the caller's loop retries).
    if (ops.size() != 3 && !(kind == "try_wait" && ops.size() == 4))
      c.fail(in.pos, fmt::format("'{}' expects 3 operands", in.text()));
    op.t2 = MB_TEST_WAIT;
    op.aux2 = static_cast<uint8_t>((in.has_mod("parity") ? 2 : 0) | (kind == "try_wait" ? 8 : 0));
    op.r[0] = c.pred(ops[0]);
    addr_at(1);
    op.r[1] = c.src(ops[2], in.has_mod("parity") ? U32 : U64);
  } else if (kind == "pending_count") {
    need(c, in, 2);
    op.t2 = MB_PENDING;
    op.r[0] = c.dst(ops[0]);
    op.r[1] = c.src(ops[1], U64);
    op.r[4] = c.constant(0);
  } else {
    unsupported_form(c, in);
  }
  if (space == MSpace::Global) c.fail(in.pos, "an mbarrier lives in shared memory");
  op.aux = static_cast<uint8_t>(space);
  c.push(op);
}

void decode_cvt_tf32(DecodeContext& c, const ptx::Instruction& in, Op op) {
  need(c, in, 2);
  if (!in.has_mod("f32")) unsupported_form(c, in);
  op.code = code(CVT_TF32, U32);
  op.aux = in.has_mod("rna")  ? static_cast<uint8_t>(tensor::Tf32Round::Rna)
           : in.has_mod("rn") ? static_cast<uint8_t>(tensor::Tf32Round::Rn)
           : in.has_mod("rz") ? static_cast<uint8_t>(tensor::Tf32Round::Rz)
                              : 0xff;
  if (op.aux == 0xff) unsupported_form(c, in, "needs .rna, .rn or .rz");
  op.aux2 = in.has_mod("satfinite") ? 1 : 0;
  if (in.has_mod("relu")) unsupported_form(c, in);
  op.r[0] = c.dst(in.operands[0]);
  op.r[1] = c.src(in.operands[1], F32);
  c.push(op);
}

// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b;
// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a;  cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a
void decode_cvt_fp8(DecodeContext& c, const ptx::Instruction& in, Op op) {
  // The forms the two checks below name.
  static constexpr const char* kFp8Forms =
      "fp8 conversions: cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2}, "
      "cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}";
  std::vector<std::string> tys;
  for (const auto& m : in.mods)
    if (m == "e4m3x2" || m == "e5m2x2" || m == "f32" || m == "f16x2" || m == "f16" ||
        m == "bf16x2" || m == "bf16" || m.rfind("e2", 0) == 0 || m.rfind("e3", 0) == 0 ||
        m.rfind("ue8", 0) == 0 || m == "e4m3x4" || m == "e5m2x4")
      tys.push_back(m);
  if (tys.size() != 2 || !in.has_mod("rn")) unsupported_form(c, in, kFp8Forms);
  auto fp8 = [](const std::string& t) { return t == "e4m3x2" || t == "e5m2x2"; };
  const bool to8 = fp8(tys[0]);
  const std::string& f8 = to8 ? tys[0] : tys[1];
  const std::string& other = to8 ? tys[1] : tys[0];
  if (!fp8(f8) || (other != "f32" && other != "f16x2") || (!to8 && other != "f16x2"))
    unsupported_form(c, in, kFp8Forms);
  if (to8 && !in.has_mod("satfinite")) unsupported_form(c, in, "needs .satfinite");
  if (!to8 && in.has_mod("satfinite")) unsupported_form(c, in);
  const bool pair = to8 && other == "f32";
  need(c, in, pair ? 3 : 2);
  op.code = code(CVT_FP8, U32);
  op.aux = pair ? 0 : to8 ? 1 : 2;
  op.aux2 = in.has_mod("relu") ? 1 : 0;
  op.t2 = static_cast<uint8_t>(f8 == "e4m3x2" ? Elem::E4M3 : Elem::E5M2);
  op.r[0] = c.dst(in.operands[0]);
  op.r[1] = c.src(in.operands[1], pair ? F32 : to8 ? U32 : U16);
  op.r[2] = pair ? c.src(in.operands[2], F32) : UINT32_MAX;
  c.push(op);
}

// tex.{1d,2d,3d,a1d,a2d}.v4.{f32,s32,u32}.{f32,s32} d, [handle, {coords}]
void decode_tex(DecodeContext& c, const ptx::Instruction& in, Op op) {
  TexOp t;
  static const struct {
    const char* name;
    uint8_t dims;
    bool layered;
    uint8_t ncoord;
    bool cube;
  } geoms[] = {{"1d", 1, false, 1, false}, {"2d", 2, false, 2, false}, {"3d", 3, false, 4, false},
               {"a1d", 1, true, 2, false}, {"a2d", 2, true, 4, false}, {"cube", 3, false, 4, true},
               {"acube", 3, true, 4, true}};
  bool found = false;
  for (const auto& g : geoms)
    if (in.has_mod(g.name)) {
      t.dims = g.dims, t.layered = g.layered, t.ncoord = g.ncoord, t.cube = g.cube;
      found = true;
    }
  for (const auto& m : in.mods)
    if (m == "level" || m == "grad" || m == "2dms" || m == "a2dms" || m == "base")
      unsupported_form(c, in, "mipmaps and multisample textures are not supported");
  std::vector<T> tys;
  for (const auto& m : in.mods) {
    T ty;
    if (parse_type(m, &ty)) tys.push_back(ty);
  }
  if (!found || !in.has_mod("v4") || tys.size() != 2) unsupported_form(c, in);
  t.dtype = tys[0];
  if (t.dtype != F32 && t.dtype != S32 && t.dtype != U32)
    unsupported_form(c, in, "results .f32, .s32 or .u32");
  if (tys[1] != F32 && tys[1] != S32) unsupported_form(c, in, "coordinates .f32 or .s32");
  t.int_coords = tys[1] == S32;
  if (t.cube && t.int_coords) unsupported_form(c, in, "cube maps read with .f32 coordinates");
  need(c, in, 2);
  const auto& d = in.operands[0];
  const auto& a = in.operands[1];
  if (!d.pair.empty()) unsupported_form(c, in, "the residency predicate");
  if (a.kind != K::Addr || a.elems.size() != 1 || a.elems[0].kind != K::Vector)
    c.fail(a.pos, "expected [texture, {coordinates}] (separate samplers are not supported)");
  const auto& coords = a.elems[0].elems;
  if (coords.size() != t.ncoord)
    c.fail(a.pos, fmt::format("'{}' expects {} coordinates, found {}", in.text(), t.ncoord,
                              coords.size()));
  for (size_t i = 0; i < coords.size(); ++i)
    t.coord[i] = c.src(coords[i], t.layered && i == 0 ? S32 : (t.int_coords ? S32 : F32));
  auto regs = fragment(c, in, d, 4, true, U32);
  auto& fr = c.frames.back();
  auto r = fr.regs.find(a.name);
  if (r == fr.regs.end())
    c.fail(a.pos,
           "a texture object handle register is needed (texture references are not "
           "supported)");
  op.code = code(TEX, U32);
  for (int i = 0; i < 4; ++i) op.r[i] = regs[static_cast<size_t>(i)];
  op.r[4] = r->second;
  op.imm = static_cast<int64_t>(c.prog->tex_ops.size());
  c.prog->tex_ops.push_back(t);
  c.push(op);
}

}  // namespace

bool is_tensor_or_async(const ptx::Instruction& in) {
  const std::string& o = in.opcode;
  if (o == "tex") return true;
  if (o == "cvt" && in.has_mod("tf32")) return true;
  if (o == "cvt")
    for (const auto& m : in.mods)
      if (m.size() >= 4 && m[0] == 'e' && std::isdigit(static_cast<unsigned char>(m[1])) &&
          m[2] == 'm')
        return true;  // fp8 (and the sm_100 fp4/fp6 forms, refused by name)
  if (o == "ldmatrix" || o == "stmatrix" || o == "movmatrix" || o == "mma" || o == "wmma" ||
      o == "wgmma" || o == "mbarrier")
    return true;
  if (is_bulk_store(in)) return true;
  return o == "cp" && in.mods.size() >= 2 && in.mods[0] == "async" &&
         (in.mods[1] == "mbarrier" || in.mods[1] == "bulk");
}

void decode_tensor(Insn& d) { decode_tensor_or_async(d.c, d.in, d.op); }

void decode_tensor_or_async(DecodeContext& c, const ptx::Instruction& in, const Op& op) {
  const std::string& o = in.opcode;
  if (o == "cvt")
    return in.has_mod("tf32") ? decode_cvt_tf32(c, in, op) : decode_cvt_fp8(c, in, op);
  if (o == "tex") return decode_tex(c, in, op);
  if (o == "ldmatrix" || o == "stmatrix") return decode_ldmatrix(c, in, op);
  if (o == "movmatrix") return decode_movmatrix(c, in, op);
  if (o == "mma") return decode_mma(c, in, op);
  if (o == "wmma") return decode_wmma(c, in, op);
  if (o == "wgmma") return decode_wgmma(c, in, op);
  if (o == "mbarrier") return decode_mbarrier(c, in, op);
  if (is_bulk_store(in)) return decode_bulk_store(c, in, op);
  if (in.mods[1] == "mbarrier") {
    // cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]
    if (in.mods.size() < 3 || in.mods[2] != "arrive") unsupported_form(c, in);
    need(c, in, 1);
    Op m = op;
    MSpace space = space_mod(in);
    m.code = code(MBAR, U64);
    m.t2 = MB_CPASYNC_ARRIVE;
    m.aux2 = in.has_mod("noinc") ? 4 : 0;
    m.r[0] = m.r[1] = m.r[2] = UINT32_MAX;
    address_operand(c, in.operands[0], &m.r[4], &m.imm, &space);
    m.aux = static_cast<uint8_t>(space);
    c.push(m);
    return;
  }
  // cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
  bool to_shared = in.mods.size() > 2 && in.mods[2].rfind("shared", 0) == 0;
  bool from_global = in.mods.size() > 3 && in.mods[3] == "global";
  if (!to_shared || !from_global || !in.has_mod("mbarrier::complete_tx::bytes") ||
      in.has_mod("multicast::cluster"))
    unsupported_form(c, in, "only the 1-D global -> shared copy with mbarrier completion");
  if (in.operands.size() != 4)
    c.fail(in.pos,
           fmt::format("'{}' expects 4 operands (cache hints are not supported)", in.text()));
  Op b = op;
  b.code = code(BULK, U32);
  MSpace sd = MSpace::Shared, ss = MSpace::Global, sm = MSpace::Shared;
  address_operand(c, in.operands[0], &b.r[4], &b.imm, &sd);
  int64_t src_off, bar_off;
  address_operand(c, in.operands[1], &b.r[5], &src_off, &ss);
  b.r[0] = c.constant(static_cast<uint64_t>(src_off));
  b.r[1] = c.src(in.operands[2], U32);
  address_operand(c, in.operands[3], &b.r[2], &bar_off, &sm);
  b.r[3] = c.constant(static_cast<uint64_t>(bar_off));
  c.push(b);
}

}  // namespace smemlab::emu
