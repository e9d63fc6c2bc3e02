// The instruction table's promise: every (op, type) the decoder accepts has
// an executor in the interpreter's switch, and no other code runs.
#include "emu/instructions.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "emu/exec.h"
#include "emu/snippet_test_util.h"

namespace smemlab::emu {
namespace {

// Dispatches one op with code `c` under a false guard (so executors touch no
// lane) and returns the fault kind, or nothing if it ran.
std::optional<FaultKind> dispatch(uint16_t c) {
  Program prog;
  Op op;
  op.code = c;
  op.t = static_cast<uint8_t>(c % 16);
  op.guard = 0;  // predicate 0 is false in every lane
  op.imm = 0;    // a branch goes to itself
  prog.ops.push_back(op);
  prog.info.push_back(InstrInfo{});
  prog.num_regs = 8;
  prog.num_preds = 1;
  BlockCtx b;
  b.prog = &prog;
  std::vector<uint64_t> regs(8 * 32, 0);
  uint32_t preds[1] = {0};
  Warp w;
  w.R = regs.data();
  w.P = preds;
  w.exists = w.live = w.runnable = ~0u;
  try {
    run_warp(b, w, 1);
  } catch (const Fault& f) {
    return f.kind;
  }
  return std::nullopt;
}

TEST(InstructionTable, EveryAcceptedOpTypeHasAnExecutor) {
  int accepted = 0;
  for (uint32_t c = 0; c < kNumCodes; ++c) {
    std::optional<FaultKind> kind = dispatch(static_cast<uint16_t>(c));
    if (implemented(c)) {
      ++accepted;
      EXPECT_EQ(kind, std::nullopt)
          << "base " << c / 16 << " type " << c % 16 << " is accepted but "
          << "has no executor";
    } else {
      EXPECT_EQ(kind, FaultKind::Unsupported)
          << "base " << c / 16 << " type " << c % 16 << " runs but the decoder would reject it";
    }
  }
  EXPECT_GT(accepted, 200);  // the table is not empty by accident
}

TEST(InstructionTable, ImplementedFollowsTheTypeSets) {
  EXPECT_TRUE(implemented(code(ADD, S32)));
  EXPECT_FALSE(implemented(code(ADD, U8)));  // no 8-bit arithmetic in PTX
  EXPECT_TRUE(implemented(code(FSLOW, BF16X2)));
  EXPECT_FALSE(implemented(code(FADD, F16)));  // half precision goes through FSLOW
  EXPECT_TRUE(implemented(code(PLOGIC, PRED)));
  EXPECT_FALSE(implemented(code(LD, B128)));
  EXPECT_FALSE(implemented(kNumCodes));
}

TEST(InstructionTable, MnemonicWithoutRowIsUnsupported) {
  auto r = test::run_snippet("  fns.b32 %r1, %r2, %r3, %r0;");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unsupported instruction 'fns.b32'"), std::string::npos) << r.error;
}

TEST(InstructionTable, TypeOutsideTheRowIsRejectedAtDecode) {
  auto r = test::run_snippet("  bfi.s32 %r1, %r2, %r3, 0, 8;");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unsupported instruction 'bfi.s32"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("this type is not implemented"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace smemlab::emu
