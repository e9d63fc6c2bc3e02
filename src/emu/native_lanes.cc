// lane_body_function (native_lanes.h): the lane-outer bodies of the native
// tier. Each op's operands (which Op::r fields are registers, predicates,
// the carry flag) come from its shape in instructions.def; its semantics
// are its executor's `_lane` function (ops_alu.h, ops_inline.h), called by
// name.
#include "emu/native_lanes.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "emu/instructions.h"
#include "emu/ops_convert_lane.h"
#include "emu/ops_float_lane.h"
#include "emu/program.h"

namespace smemlab::emu {
namespace {

// The per-lane function of each row that has one (null for the others:
// `fn` + "_lane") and its template arguments: every Inline row's executor
// (for all its ops), and for two CallAlu rows, cvt and the float slow
// path, the lane forms of their common ops (ops_convert_lane.h,
// ops_float_lane.h), which `covers` names; their other ops stay the
// executors' warp-level calls.
struct LaneRow {
  const char *fn = nullptr, *base = nullptr, *type = nullptr;
  bool (*covers)(const Op&) = nullptr;
};
constexpr LaneRow call_alu_lane(Base b, const char* base, const char* type) {
  switch (b) {
    case CVT:
      return {"cvt", base, type, cvt_lane_covers};
    case FSLOW:
      return {"fslow", base, type, fslow_lane_covers};
    default:
      return {};
  }
}
constexpr std::array<LaneRow, kNumCodes> lane_rows() {
  std::array<LaneRow, kNumCodes> a{};
#define SMEMLAB_LANES_Inline(ty, base, executor) a[code(base, ty)] = {#executor, #base, #ty};
#define SMEMLAB_LANES_CallAlu(ty, base, executor) \
  a[code(base, ty)] = call_alu_lane(base, #base, #ty);
#define SMEMLAB_LANES_Call(ty, base, executor)
#define SMEMLAB_LANES_InlineFlow(ty, base, executor)
#define SMEMLAB_LANES_CallFlow(ty, base, executor)
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) \
  SMEMLAB_TYPES_##types(SMEMLAB_LANES_##kind, base, executor)
#include "emu/instructions.def"
#undef SMEMLAB_LANES_Inline
#undef SMEMLAB_LANES_CallAlu
#undef SMEMLAB_LANES_Call
#undef SMEMLAB_LANES_InlineFlow
#undef SMEMLAB_LANES_CallFlow
  return a;
}
constexpr std::array<LaneRow, kNumCodes> kLaneRows = lane_rows();

// One argument of a lane function: a register's value, a predicate's or
// the carry flag's bit, or 0 (an operand the op does not read).
enum class Src : uint8_t { Reg, Pred, Carry, Zero };
struct Arg {
  Src kind;
  uint32_t index = 0;
};
// What a lane function returns: a register's value (r0), a predicate bit
// (r0), setp's SetpPQ (p: r0, q: r1 when named), carry's CarryOut (d: r0,
// c: the carry flag when the op writes it), or nothing (nop).
enum class Out : uint8_t { Reg, Pred, SetpPQ, Carry, None };
struct Shape {
  std::vector<Arg> args;
  Out out = Out::Reg;
};

Arg reg(const Op& o, int i) { return {Src::Reg, o.r[i]}; }
Arg pred(const Op& o, int i) { return {Src::Pred, o.r[i]}; }
constexpr Arg kZero{Src::Zero, 0};

// The operands of an op with a lane form, from its shape (instructions.def's
// SHAPE column, OpShape in program.h); false for the others. (Bin ops of
// 3-operand lane functions, mul.wide and the fast float ops, get their
// third argument's default, 0.)
bool lane_shape(const Op& o, Shape* s) {
  if (o.code >= kNumCodes) return false;
  const LaneRow& row = kLaneRows[o.code];
  if (!row.fn || (row.covers && !row.covers(o))) return false;
  switch (op_shape(static_cast<Base>(o.code / 16))) {
    case OpShape::Un:
      *s = {{reg(o, 1)}, Out::Reg};
      return true;
    case OpShape::Bin:
      *s = {{reg(o, 1), reg(o, 2)}, Out::Reg};
      return true;
    case OpShape::Tern:
    case OpShape::Ctl3:
      *s = {{reg(o, 1), reg(o, 2), reg(o, 3)}, Out::Reg};
      return true;
    case OpShape::Bfi:
      *s = {{reg(o, 1), reg(o, 2), reg(o, 3), reg(o, 4)}, Out::Reg};
      return true;
    case OpShape::Select:
      *s = {{reg(o, 1), reg(o, 2), pred(o, 3)}, Out::Reg};
      return true;
    case OpShape::Compare:
      *s = {{reg(o, 2), reg(o, 3), o.t2 ? pred(o, 4) : kZero}, Out::SetpPQ};
      return true;
    case OpShape::PredLogic:
      *s = {{pred(o, 1), o.aux < 3 ? pred(o, 2) : kZero}, Out::Pred};
      return true;
    case OpShape::PredOfReg:
      *s = {{reg(o, 1)}, Out::Pred};
      return true;
    case OpShape::Carry:
      *s = {{reg(o, 1), reg(o, 2), o.aux >= 2 ? reg(o, 3) : reg(o, 1),
             (o.aux2 & 1) ? Arg{Src::Carry, 0} : kZero},
            Out::Carry};
      return true;
    case OpShape::Convert:
      *s = {{reg(o, 1)}, Out::Reg};
      return true;
    case OpShape::FloatFn: {  // (exec_fslow passes r1 for operands the op lacks)
      const int n = fslow_sources(o.aux);
      *s = {{reg(o, 1), reg(o, n >= 2 ? 2 : 1), reg(o, n >= 3 ? 3 : 1)}, Out::Reg};
      return true;
    }
    case OpShape::NoRegs:
      *s = {{}, Out::None};
      return true;
    case OpShape::Load:
    case OpShape::Store:
    case OpShape::Other:
      return false;
  }
  return false;
}

std::string local(Src k, uint32_t i) {
  return k == Src::Reg ? fmt::format("r{}", i) : k == Src::Pred ? fmt::format("p{}", i) : "cc";
}

// The registers and predicates a stretch touches, each with whether an op
// writes it (a local per lane: loaded before the ops, stored after them
// when written).
struct Touched {
  std::map<uint32_t, bool> regs, preds;
  bool carry = false, carry_written = false;
};

void touch(Touched& t, const Arg& a, bool write) {
  if (a.kind == Src::Reg) t.regs[a.index] |= write;
  if (a.kind == Src::Pred) t.preds[a.index] |= write;
  if (a.kind == Src::Carry) {
    t.carry = true;
    t.carry_written |= write;
  }
}

// The writes of one op's result `v` to its locals, under the lane's
// condition `c` (a select, or a plain assignment when `c` is empty).
std::string assign(const Op& o, Out out, const std::string& c) {
  auto set = [&](const std::string& dst, const std::string& val) {
    return c.empty() ? fmt::format(" {} = {};", dst, val)
                     : fmt::format(" {} = {} ? {} : {};", dst, c, val, dst);
  };
  switch (out) {
    case Out::Reg:
      return set(local(Src::Reg, o.r[0]), "v");
    case Out::Pred:
      return set(local(Src::Pred, o.r[0]), "v");
    case Out::SetpPQ:
      return set(local(Src::Pred, o.r[0]), "v.p") +
             (o.r[1] != UINT32_MAX ? set(local(Src::Pred, o.r[1]), "v.q") : "");
    case Out::Carry:
      return set(local(Src::Reg, o.r[0]), "v.d") + ((o.aux2 & 2) ? set("cc", "v.c") : "");
    case Out::None:
      return "";
  }
  return "";
}

// One op as a statement of the lane loop.
std::string lane_op(const Op& o, uint32_t pc, const Shape& s) {
  if (s.out == Out::None) return fmt::format("    // {}: nop\n", pc);
  std::string args;
  for (const Arg& a : s.args)
    args += ", " + (a.kind == Src::Zero ? std::string("0") : local(a.kind, a.index));
  const LaneRow& n = kLaneRows[o.code];
  std::string cond;
  if (o.guard >= 0) cond = fmt::format("((p{} ^ {}u) & 1u)", o.guard, o.guard_neg & 1u);
  return fmt::format("    {{ const auto v = {}_lane<{}, {}>(o{}{});{} }}\n", n.fn, n.base, n.type,
                     pc, args, assign(o, s.out, cond));
}

}  // namespace

bool has_lane_form(const Op& o) {
  Shape s;
  return lane_shape(o, &s);
}

std::string lane_body_function(const Program& p, uint32_t start, uint32_t len,
                               const std::string& name) {
  Touched t;
  std::string ops;
  for (uint32_t pc = start; pc < start + len; ++pc) {
    const Op& o = p.ops[pc];
    Shape s;
    if (!lane_shape(o, &s)) return "";  // (the caller asks has_lane_form first)
    for (const Arg& a : s.args) touch(t, a, false);
    if (o.guard >= 0) touch(t, {Src::Pred, static_cast<uint32_t>(o.guard)}, false);
    switch (s.out) {
      case Out::Reg:
        touch(t, reg(o, 0), true);
        break;
      case Out::Pred:
        touch(t, pred(o, 0), true);
        break;
      case Out::SetpPQ:
        touch(t, pred(o, 0), true);
        if (o.r[1] != UINT32_MAX) touch(t, pred(o, 1), true);
        break;
      case Out::Carry:
        touch(t, reg(o, 0), true);
        if (o.aux2 & 2) touch(t, {Src::Carry, 0}, true);
        break;
      case Out::None:
        break;
    }
    ops += lane_op(o, pc, s);
  }
  // Before the loop: the masks of the predicates and carry (read once);
  // per lane: every touched value into a local; after the ops: the written
  // ones back (registers per lane, masks after the loop). Every lane runs
  // the ops (they are total); a lane outside the group stores its old
  // values back (one select per written value at the end, not per op: the
  // compiler keeps the loop branch-free and vectorizes it). A register only
  // written still loads its old value for a false guard (for a full warp's
  // unguarded write the compiler drops the load).
  std::string pre, load, store, post;
  for (auto [i, written] : t.preds) {
    pre += fmt::format("  const uint32_t P{} = P[{}];\n", i, i);
    load += fmt::format("    uint32_t p{} = (P{} >> l) & 1u;\n", i, i);
    if (written) {
      pre += fmt::format("  uint32_t n{} = 0;\n", i);
      store += fmt::format("    n{} |= (p{} & 1u) << l;\n", i, i);
      post += fmt::format("  P[{}] = (P{} & ~group) | (n{} & group);\n", i, i, i);
    }
  }
  if (t.carry) {
    pre += "  const uint32_t CC = w.carry;\n";
    load += "    uint32_t cc = (CC >> l) & 1u;\n";
    if (t.carry_written) {
      pre += "  uint32_t ncc = 0;\n";
      store += "    ncc |= (cc & 1u) << l;\n";
      post += "  w.carry = (CC & ~group) | (ncc & group);\n";
    }
  }
  // (The group's select as a mask, not `act ? r : old`: GCC makes that a
  // conditional store, and a loop with one does not vectorize.)
  for (auto [i, written] : t.regs) {
    if (!written) {
      load += fmt::format("    const uint64_t r{} = R[{}u + l];\n", i, uint64_t{i} * 32);
      continue;
    }
    load += fmt::format("    const uint64_t r{0}_in = R[{1}u + l];\n    uint64_t r{0} = r{0}_in;\n",
                        i, uint64_t{i} * 32);
    store += fmt::format("    R[{}u + l] = Full ? r{} : (r{} & keep) | (r{}_in & ~keep);\n",
                         uint64_t{i} * 32, i, i, i);
  }
  return fmt::format(
      "template <bool Full>\n"
      "inline void {}(Warp& w, uint32_t group) {{\n"
      "  uint64_t* const R = w.R;\n  uint32_t* const P = w.P;\n  (void)P;\n{}"
      "  for (uint32_t l = 0; l < 32; ++l) {{\n"
      "    const uint64_t keep = Full ? ~0ull : 0ull - ((group >> l) & 1u);\n{}{}{}  }}\n{}}}\n",
      name.empty() ? fmt::format("lanes{}", start) : name, pre, load, ops, store, post);
}

}  // namespace smemlab::emu
