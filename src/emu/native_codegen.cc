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
#include <string>
#include <vector>

#include "emu/instructions.h"
#include "emu/native_lanes.h"
#include "emu/native_tier.h"
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

// The body of an entry at the chunk's first op that runs all of it, for
// the lanes `group` (Full: all 32): with `lanes`, each stretch of two or
// more ops with lane forms as its lane-outer function (native_lanes.h,
// defined into `funcs` once, for both bodies); each other op as its
// executor's warp-level call.
std::string whole_chunk_body(const Program& p, uint32_t start, uint32_t len, bool full, bool lanes,
                             std::string* funcs) {
  std::string s;
  const char* group = full ? "~0u" : "group";
  for (uint32_t pc = start; pc < start + len;) {
    uint32_t end = pc;
    while (lanes && end < start + len && has_lane_form(p.ops[end])) ++end;
    if (end - pc >= 2) {
      if (full) *funcs += lane_body_function(p, pc, end - pc);
      s += fmt::format("    lanes{}<{}>(w, {});\n", pc, full ? "true" : "false", group);
      pc = end;
    } else {
      s += "    " + op_call(p.ops[pc], pc, group) + "\n";
      ++pc;
    }
  }
  return s + "    return;\n";
}

// `lanes`: the chunk is inside a loop, so its lane-outer bodies (which cost
// compile time: vectorized loops per stretch) run more than once per warp.
// Otherwise, a full warp's straight body of executor calls.
std::string chunk_function(const Program& p, uint32_t start, uint32_t len, bool lanes) {
  std::string funcs;
  const std::string full = whole_chunk_body(p, start, len, true, lanes, &funcs);
  std::string s =
      funcs +
      fmt::format(
          "void run{}(BlockCtx& b, Warp& w, uint32_t group, uint32_t first, uint32_t len) {{\n"
          "  (void)b;\n  if (first == 0 && len == {}) {{\n  if (group == ~0u) {{\n{}  }}\n",
          start, len, full);
  if (lanes) {  // (no per-op entries: NativeEntry::whole)
    s += whole_chunk_body(p, start, len, false, true, nullptr);
    return s + "  }\n  (void)first;\n}\n";
  }
  s += "  }\n  switch (first) {\n";
  for (uint32_t i = 0; i < len; ++i)
    s += fmt::format("    case {}: if (len-- == 0) return; {}\n      [[fallthrough]];\n", i,
                     op_call(p.ops[start + i], start + i, "group"));
  s += "    default: return;\n  }\n}\n";
  return s;
}

}  // namespace

std::string native_source(const Program& p) {
  if (p.fused.size() != p.ops.size()) return "";
  std::string consts, funcs, table;
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
  for (uint32_t pc = 0; pc < p.ops.size(); ++pc)
    run_ops += p.fused[pc] >= 1 && kRowNames[p.ops[pc].code].executor;
  if (run_ops <= kLaneBodiesEverywhere) in_loop.assign(p.ops.size(), true);
  for (uint32_t pc = 0; pc < p.ops.size();) {
    // A run (consecutive ops the plan put in runs) that the loop enters
    // somewhere (fused > 1).
    uint32_t end = pc;
    bool entered = false;
    while (end < p.ops.size() && p.fused[end] >= 1 && kRowNames[p.ops[end].code].executor) {
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
      for (uint32_t i = c; i < c + n; ++i) consts += op_constant(p.ops[i], i);
      funcs += chunk_function(p, c, n, in_loop[c]);
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
  if (!chunks) return "";
  return fmt::format(
      "// Generated by smemlab (src/emu/native_codegen.cc): the jit tier's runs of\n"
      "// {}, {} ops, as native code (docs/emulator.md, \"Issue 30, native runs\").\n"
      "#include \"emu/native_abi.h\"\n#include \"emu/ops_convert_lane.h\"\n"
      "#include \"emu/ops_float_lane.h\"\n#include \"emu/ops_inline.h\"\n\n"
      "namespace smemlab::emu {{\n"
      "// (fast_float's portable FFMA path asks these; false: std::fma, the same\n"
      "// single rounding. Hidden: smemlab's own are not interposed.)\n"
      "bool cpu_has_fma() {{ return false; }}\n"
      "void ffma32_hw(uint64_t*, const uint64_t*, const uint64_t*, const uint64_t*, uint32_t) "
      "{{}}\n"
      "namespace {{\nconst NativeCallAlu* g_calls = nullptr;\nint (*g_type_bytes)(int) = "
      "nullptr;\n}}\n"
      "int type_bytes(T t) {{ return g_type_bytes(static_cast<int>(t)); }}\n"
      "namespace {{\n{}\n{}}}  // namespace\n"
      "}}  // namespace smemlab::emu\n\n"
      "using namespace smemlab::emu;\n"
      "extern \"C\" __attribute__((visibility(\"default\"))) bool smemlab_native_init(\n"
      "    const NativeAbi* abi, const NativeCallAlu* calls, NativeEntry* t, uint32_t num_ops) {{\n"
      "  if (abi->version != kNativeAbiVersion || abi->sizeof_warp != sizeof(Warp) ||\n"
      "      abi->sizeof_op != sizeof(Op) || abi->num_codes != kNumCodes || num_ops != {})\n"
      "    return false;\n"
      "  g_calls = calls;\n  g_type_bytes = abi->type_bytes;\n{}  return true;\n}}\n",
      p.kernel, p.ops.size(), consts, funcs, p.ops.size(), table);
}

}  // namespace smemlab::emu
