#include "emu/tier.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>

#include "emu/instructions.h"

namespace smemlab::emu {
namespace {

// Rows of kind Inline (per-lane arithmetic of (Warp&, const Op&, exec)) and
// CallAlu (the same, out of line): they can neither emit an event, fault,
// nor change a PC.
constexpr std::array<bool, kNumCodes> fusable_codes() {
  std::array<bool, kNumCodes> a{};
#define SMEMLAB_FUSABLE_Inline(ty, base) a[code(base, ty)] = true;
#define SMEMLAB_FUSABLE_Call(ty, base)
#define SMEMLAB_FUSABLE_CallAlu(ty, base) a[code(base, ty)] = true;
#define SMEMLAB_FUSABLE_InlineFlow(ty, base)
#define SMEMLAB_FUSABLE_CallFlow(ty, base)
#define SMEMLAB_OP(base, types, executor, kind, cls, shape) \
  SMEMLAB_TYPES_##types(SMEMLAB_FUSABLE_##kind, base)
#include "emu/instructions.def"
#undef SMEMLAB_FUSABLE_Inline
#undef SMEMLAB_FUSABLE_Call
#undef SMEMLAB_FUSABLE_CallAlu
#undef SMEMLAB_FUSABLE_InlineFlow
#undef SMEMLAB_FUSABLE_CallFlow
  return a;
}
constexpr std::array<bool, kNumCodes> kFusable = fusable_codes();

}  // namespace

std::string tier_from_env(Tier* tier) {
  const char* v = std::getenv("SMEMLAB_TIER");
  if (!v || std::strcmp(v, "jit") == 0) {
    *tier = Tier::Jit;
  } else if (std::strcmp(v, "interp") == 0) {
    *tier = Tier::Interp;
  } else if (std::strcmp(v, "native") == 0) {
    *tier = Tier::Native;
  } else {
    return fmt::format("SMEMLAB_TIER='{}' is no execution tier (interp, jit or native)", v);
  }
  return "";
}

namespace {

// Per op, the length of the run of ops `in_run` accepts from it (capped).
template <typename In>
std::vector<uint8_t> plan_runs(const Program& p, In in_run) {
  std::vector<uint8_t> len(p.ops.size(), 0);
  for (size_t i = p.ops.size(); i-- > 0;) {
    const uint32_t c = p.ops[i].code;
    if (c >= kNumCodes || !in_run(c)) continue;
    const uint32_t next = i + 1 < len.size() ? len[i + 1] : 0;
    len[i] = static_cast<uint8_t>(next < 255 ? next + 1 : 255);
  }
  return len;
}

}  // namespace

std::vector<uint8_t> plan_fused_runs(const Program& p) {
  std::vector<uint8_t> len = plan_runs(p, [](uint32_t c) { return kFusable[c]; });
  // A run of two costs more than two turns of the loop (a call, and a
  // second dispatch per op, for one set of bookkeeping saved: callgrind,
  // docs/emulator.md "sixth step"): such ops are left to the loop.
  for (uint8_t& l : len)
    if (l > 1 && l < kMinFusedRun) l = 1;
  return len;
}

std::vector<uint8_t> plan_quiet_runs(const Program& p, std::vector<uint8_t> quiet) {
  // (A code's base is code / 16, as exec_memory reads it.)
  const std::vector<uint8_t> len =
      plan_runs(p, [](uint32_t c) { return kFusable[c] || c / 16 == LD; });
  for (size_t i = 0; i < quiet.size() && i < len.size(); ++i)
    if (quiet[i]) quiet[i] = static_cast<uint8_t>(1 + std::min<uint32_t>(len[i], 254));
  return quiet;
}

}  // namespace smemlab::emu
