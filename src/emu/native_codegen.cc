// native_source (native_tier.h): the C++ of a program's runs. One function
// per chunk of a run (at most kNativeChunk ops, ending before a branch
// target), each op on a constexpr Op: for any lane group entering at the
// chunk's first op and running all of it, a straight body whose stretches
// of ops with per-lane forms are lane-outer loops (native_lanes.h) and
// whose other ops call their executors; for every other entry (a run cut
// by the turn's slice or a divergent group's bound, or entered inside a
// chunk) an entry per op (a switch falling through), each op a call of
// its instructions.def row's executor under its guard.
#include <fmt/format.h>

#include <array>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "emu/instructions.h"
#include "emu/native_lanes.h"
#include "emu/native_tier.h"
#include "emu/ops_memory_lane.h"
#include "emu/program.h"

namespace smemlab::emu {
namespace {

// The longest chunk: a run of an unrolled loop can be thousands of ops,
// and one function per run would be one huge switch for the compiler.
constexpr uint32_t kNativeChunk = 64;

// The most ops in runs of a kernel whose every chunk gets lane-outer bodies
// (a larger one gets them only inside loops: native_source).
constexpr uint32_t kLaneBodiesEverywhere = 256;

struct RowName {
  const char* executor = nullptr;  // null: not an Inline or CallAlu row
  const char* base = nullptr;
  const char* type = nullptr;
  bool call = false;  // CallAlu: through smemlab's executor
};

constexpr std::array<RowName, kNumCodes> row_names() {
  std::array<RowName, kNumCodes> a{};
#define SMEMLAB_NATIVE_Inline(ty, base, executor) \
  a[code(base, ty)] = {#executor, #base, #ty, false};
#define SMEMLAB_NATIVE_CallAlu(ty, base, executor) \
  a[code(base, ty)] = {#executor, #base, #ty, true};
#define SMEMLAB_NATIVE_Call(ty, base, executor)
#define SMEMLAB_NATIVE_InlineFlow(ty, base, executor)
#define SMEMLAB_NATIVE_CallFlow(ty, base, executor)
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) \
  SMEMLAB_TYPES_##types(SMEMLAB_NATIVE_##kind, base, executor)
#include "emu/instructions.def"
#undef SMEMLAB_NATIVE_Inline
#undef SMEMLAB_NATIVE_CallAlu
#undef SMEMLAB_NATIVE_Call
#undef SMEMLAB_NATIVE_InlineFlow
#undef SMEMLAB_NATIVE_CallFlow
  return a;
}
constexpr std::array<RowName, kNumCodes> kRowNames = row_names();

std::string op_constant(const Op& o, uint32_t pc);

// What the source defines once for all its functions: each op's constant,
// and each lane-outer stretch's function (by first op and length), which
// chunks and segments share.
struct Gen {
  explicit Gen(const Program& p) : p(p), has_const(p.ops.size(), false) {}
  const Program& p;
  std::string consts, funcs;
  std::vector<bool> has_const;
  std::map<std::pair<uint32_t, uint32_t>, std::string> stretches;
  void constant(uint32_t pc) {
    if (!has_const[pc]) consts += op_constant(p.ops[pc], pc);
    has_const[pc] = true;
  }
  // The name of the stretch [pc, pc + len)'s lane-outer function (the
  // first at pc: lanes<pc>), defined into funcs the first time.
  std::string stretch(uint32_t pc, uint32_t len) {
    auto [it, fresh] = stretches.try_emplace({pc, len});
    if (fresh) {
      const bool first_at_pc = named.insert(pc).second;
      it->second = first_at_pc ? fmt::format("lanes{}", pc) : fmt::format("lanes{}_{}", pc, len);
      funcs += lane_body_function(p, pc, len, it->second);
    }
    return it->second;
  }
  std::set<uint32_t> named;
};

std::string op_constant(const Op& o, uint32_t pc) {
  return fmt::format(
      "constexpr Op o{}{{{}, {}, {}, {}, {}, {}, {}, {}, {}u, {{{}u, {}u, {}u, {}u, {}u, {}u}}, "
      "static_cast<int64_t>({}ull), {}u}};\n",
      pc, o.code, o.t, o.t2, o.aux, o.aux2, o.vec, o.width, o.guard, o.guard_neg, o.r[0], o.r[1],
      o.r[2], o.r[3], o.r[4], o.r[5], static_cast<uint64_t>(o.imm), o.info);
}

// One op for the lanes `group` (an expression), as run_fused runs it.
std::string op_call(const Op& o, uint32_t pc, const char* group) {
  const RowName& n = kRowNames[o.code];
  std::string s = fmt::format("{{ uint32_t ex = {};", group);
  if (o.guard >= 0) s += fmt::format(" ex &= w.P[{}] ^ {}u;", o.guard, o.guard_neg);
  if (n.call)
    s += fmt::format(" g_calls[{}](b, w, o{}, {}u, ex); }}", o.code, pc, pc);
  else
    s += fmt::format(" {}<{}, {}>(w, o{}, ex); }}", n.executor, n.base, n.type, pc);
  return s;
}

// A compiled load or store (ops_memory_lane.h) for the lanes `group`.
std::string mem_call(const Op& o, uint32_t pc, const char* group) {
  std::string s = fmt::format("{{ uint32_t ex = {};", group);
  if (o.guard >= 0) s += fmt::format(" ex &= w.P[{}] ^ {}u;", o.guard, o.guard_neg);
  return s + fmt::format(" mem_op_native<{}, {}u, {}u>(b, w, o{}, {}u, ex, g_mem); }}",
                         o.code / 16 == LD ? "LD" : "ST", o.width, o.vec, pc, pc);
}

// The body of an entry at its first op that runs ops [start, start + len)
// whole, for the lanes `group` (Full: all 32): with `lanes`, each stretch
// of two or more ops with lane forms (at most kNativeChunk) as its
// lane-outer function (native_lanes.h, defined once into gen.funcs); each
// load and store as its compiled form; each other op as its executor's
// warp-level call.
std::string whole_body(Gen& gen, uint32_t start, uint32_t len, bool full, bool lanes) {
  std::string s;
  const char* group = full ? "~0u" : "group";
  for (uint32_t pc = start; pc < start + len;) {
    uint32_t end = pc;
    while (lanes && end < start + len && end - pc < kNativeChunk && has_lane_form(gen.p.ops[end]))
      ++end;
    if (end - pc >= 2) {
      s += fmt::format("    {}<{}>(w, {});\n", gen.stretch(pc, end - pc), full ? "true" : "false",
                       group);
      pc = end;
      continue;
    }
    const Op& o = gen.p.ops[pc];
    s += "    " + (mem_op_compiled(o) ? mem_call(o, pc, group) : op_call(o, pc, group)) + "\n";
    ++pc;
  }
  return s + "    return;\n";
}

// `lanes`: the chunk is inside a loop, so its lane-outer bodies (which cost
// compile time: vectorized loops per stretch) run more than once per warp.
// Otherwise, a full warp's straight body of executor calls.
std::string chunk_function(Gen& gen, uint32_t start, uint32_t len, bool lanes) {
  const std::string full = whole_body(gen, start, len, true, lanes);
  std::string s = fmt::format(
      "void run{}(BlockCtx& b, Warp& w, uint32_t group, uint32_t first, uint32_t len) {{\n"
      "  (void)b;\n  if (first == 0 && len == {}) {{\n  if (group == ~0u) {{\n{}  }}\n",
      start, len, full);
  if (lanes) {  // (no per-op entries: NativeEntry::whole)
    s += whole_body(gen, start, len, false, true);
    return s + "  }\n  (void)first;\n}\n";
  }
  s += "  }\n  switch (first) {\n";
  for (uint32_t i = 0; i < len; ++i)
    s += fmt::format("    case {}: if (len-- == 0) return; {}\n      [[fallthrough]];\n", i,
                     op_call(gen.p.ops[start + i], start + i, "group"));
  s += "    default: return;\n  }\n}\n";
  return s;
}

// Whether op pc is in a run (an Inline or CallAlu row the plan put in one).
bool in_run(const Program& p, uint32_t pc) {
  return p.fused[pc] >= 1 && kRowNames[p.ops[pc].code].executor;
}

// The segments (native_abi.h) of ops where `lanes` (in_loop) holds: from
// each place a warp can start a turn's straight code there (the first op,
// a branch target, the op after one the segment cannot hold, the op after
// a load or store other warps see) over the runs' ops and compiled loads
// and stores, to the first branch target, op it cannot hold, or load or
// store other warps see (included: the turn ends after it). Only those
// with two ops or more and a load or store (the rest are runs). Returns
// the table's lines.
std::string segments(Gen& gen, const std::vector<bool>& target, const std::vector<bool>& lanes) {
  const Program& p = gen.p;
  const uint32_t n = static_cast<uint32_t>(p.ops.size());
  auto holds = [&](uint32_t pc) { return in_run(p, pc) || mem_op_compiled(p.ops[pc]); };
  std::vector<bool> start(n + 1, false);
  start[0] = true;
  for (uint32_t pc = 0; pc < n; ++pc) {
    start[pc] = start[pc] || target[pc];
    if (!holds(pc) || (mem_op_compiled(p.ops[pc]) && mem_op_ends_turn(p.ops[pc])))
      start[pc + 1] = true;
  }
  std::string table;
  for (uint32_t s = 0; s < n; ++s) {
    if (!start[s] || !lanes[s]) continue;
    uint32_t e = s;
    bool mem = false, ends = false;
    while (e < n && holds(e) && (e == s || !start[e])) {
      const bool m = mem_op_compiled(p.ops[e]);
      mem |= m;
      ++e;
      if (m && mem_op_ends_turn(p.ops[e - 1])) {
        ends = true;
        break;
      }
    }
    if (e - s < 2 || !mem) continue;
    for (uint32_t i = s; i < e; ++i) gen.constant(i);
    const std::string full = whole_body(gen, s, e - s, true, true);
    const std::string part = whole_body(gen, s, e - s, false, true);
    gen.funcs += fmt::format(
        "void seg{}(BlockCtx& b, Warp& w, uint32_t group, uint32_t, uint32_t) {{\n"
        "  if (group == ~0u) {{\n{}  }}\n{}}}\n",
        s, full, part);
    table += fmt::format("  t[{}u + {}] = {{seg{}, 0, {}, true, {}}};\n", n, s, s, e - s,
                         ends ? "true" : "false");
  }
  return table;
}

}  // namespace

std::string native_source(const Program& p) {
  if (p.fused.size() != p.ops.size()) return "";
  Gen gen(p);
  std::string table;
  uint32_t chunks = 0;
  // Branch targets, and the ops inside loops (from a backward branch's
  // target to the branch).
  std::vector<bool> target(p.ops.size() + 1, false), in_loop(p.ops.size(), false);
  for (uint32_t pc = 0; pc < p.ops.size(); ++pc) {
    const Op& o = p.ops[pc];
    if (o.code / 16 != BRA || o.imm < 0 || static_cast<uint64_t>(o.imm) >= p.ops.size()) continue;
    target[static_cast<size_t>(o.imm)] = true;
    for (uint32_t i = static_cast<uint32_t>(o.imm); i < pc; ++i) in_loop[i] = true;
  }
  // A small kernel gets lane-outer bodies everywhere: its straight code runs
  // once per warp, but warps are many (BlackScholes: no loop, 31,250 warps
  // a launch), and its compile stays short.
  uint32_t run_ops = 0;
  for (uint32_t pc = 0; pc < p.ops.size(); ++pc) run_ops += in_run(p, pc);
  if (run_ops <= kLaneBodiesEverywhere) in_loop.assign(p.ops.size(), true);
  for (uint32_t pc = 0; pc < p.ops.size();) {
    // A run (consecutive ops the plan put in runs) that the loop enters
    // somewhere (fused > 1).
    uint32_t end = pc;
    bool entered = false;
    while (end < p.ops.size() && in_run(p, end)) {
      entered |= p.fused[end] > 1;
      ++end;
    }
    if (end == pc) {
      ++pc;
      continue;
    }
    for (uint32_t c = pc, n = 0; entered && c < end; c += n) {
      // (A chunk ends before a branch target inside the run: a loop's body
      // that starts there is entered at its chunk's first op each
      // iteration, the lane-outer body's entry.)
      n = 1;
      while (n < kNativeChunk && c + n < end && !target[c + n]) ++n;
      for (uint32_t i = c; i < c + n; ++i) gen.constant(i);
      gen.funcs += chunk_function(gen, c, n, in_loop[c]);
      if (in_loop[c])
        table += fmt::format("  t[{}] = {{run{}, 0, {}, true}};\n", c, c, n);
      else
        table += fmt::format(
            "  for (uint32_t i = 0; i < {}; ++i) t[{} + i] = {{run{}, i, {} - i, false}};\n", n, c,
            c, n);
      ++chunks;
    }
    pc = end;
  }
  const std::string seg_table = segments(gen, target, in_loop);
  if (!chunks && seg_table.empty()) return "";
  table += seg_table;
  return fmt::format(
      "// Generated by smemlab (src/emu/native_codegen.cc): the jit tier's runs of\n"
      "// {}, {} ops, as native code (docs/emulator.md, \"Issue 30, native runs\").\n"
      "#include \"emu/native_abi.h\"\n#include \"emu/ops_convert_lane.h\"\n"
      "#include \"emu/ops_float_lane.h\"\n#include \"emu/ops_inline.h\"\n"
      "#include \"emu/ops_memory_lane.h\"\n\n"
      "namespace smemlab::emu {{\n"
      "// (fast_float's portable FFMA path asks these; false: std::fma, the same\n"
      "// single rounding. Hidden: smemlab's own are not interposed.)\n"
      "bool cpu_has_fma() {{ return false; }}\n"
      "void ffma32_hw(uint64_t*, const uint64_t*, const uint64_t*, const uint64_t*, uint32_t) "
      "{{}}\n"
      "namespace {{\nconst NativeCallAlu* g_calls = nullptr;\nint (*g_type_bytes)(int) = "
      "nullptr;\nNativeMemCalls g_mem;\n}}\n"
      "int type_bytes(T t) {{ return g_type_bytes(static_cast<int>(t)); }}\n"
      "namespace {{\n{}\n{}}}  // namespace\n"
      "}}  // namespace smemlab::emu\n\n"
      "using namespace smemlab::emu;\n"
      "extern \"C\" __attribute__((visibility(\"default\"))) bool smemlab_native_init(\n"
      "    const NativeAbi* abi, const NativeCallAlu* calls, NativeEntry* t, uint32_t num_ops) {{\n"
      "  if (abi->version != kNativeAbiVersion || abi->sizeof_warp != sizeof(Warp) ||\n"
      "      abi->sizeof_op != sizeof(Op) || abi->num_codes != kNumCodes || num_ops != {})\n"
      "    return false;\n"
      "  g_calls = calls;\n  g_type_bytes = abi->type_bytes;\n"
      "  g_mem = {{abi->exec_memory, abi->global_window}};\n{}  return true;\n}}\n",
      p.kernel, p.ops.size(), gen.consts, gen.funcs, p.ops.size(), table);
}

}  // namespace smemlab::emu
