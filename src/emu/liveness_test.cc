// The register passes' CFG and liveness (liveness.cc), on hand-made ops.
#include "emu/liveness.h"

#include <gtest/gtest.h>

namespace smemlab::emu {
namespace {

Op op(Base b, std::initializer_list<uint32_t> regs, int64_t imm = 0, int32_t guard = -1) {
  Op o;
  o.code = static_cast<uint16_t>(b * 16);
  o.t = U32;
  uint32_t i = 0;
  for (uint32_t r : regs) o.r[i++] = r;
  o.imm = imm;
  o.guard = guard;
  return o;
}

Liveness of(const Program& p, const BasicBlocks& g) {
  std::vector<RegOperands> opnd;
  for (const Op& o : p.ops) opnd.push_back(reg_operands(o));
  return liveness(p, g, opnd, [&](uint32_t r) { return r < p.num_regs; });
}

// A loop (0-2) and an exit: blocks start at the entry and after the branch;
// the loop's block is its own successor.
TEST(Liveness, BlocksEndAtBranchesAndBranchTargetsStartThem) {
  Program p;
  p.num_regs = 4;
  p.ops = {op(MOV, {1, 0}), op(ADD, {2, 1, 3}), op(BRA, {}, 0, 0), op(EXIT, {})};
  auto g = basic_blocks(p.ops);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->start, (std::vector<uint32_t>{0, 3, 4}));
  EXPECT_EQ(g->block_of, (std::vector<uint32_t>{0, 0, 0, 1}));
  EXPECT_EQ(g->succ[0], (std::vector<uint32_t>{1, 0}));
  EXPECT_TRUE(g->succ[1].empty());
  // r0 and r3 are read before any write; r1 is written first; r2 only written.
  Liveness L = of(p, *g);
  EXPECT_TRUE(test_bit(L.live_in[0], 0));
  EXPECT_FALSE(test_bit(L.live_in[0], 1));
  EXPECT_FALSE(test_bit(L.live_in[0], 2));
  EXPECT_TRUE(test_bit(L.live_in[0], 3));
}

// A guarded write leaves some lanes' old value: the register stays live
// before it. A value read in a later block is live out of the earlier one.
TEST(Liveness, GuardedWritesKillNothing) {
  Program p;
  p.num_regs = 3;
  p.ops = {op(MOV, {1, 0}, 0, 0), op(BRA, {}, 2), op(ADD, {2, 1, 1}), op(EXIT, {})};
  auto g = basic_blocks(p.ops);
  ASSERT_TRUE(g);
  Liveness L = of(p, *g);
  EXPECT_TRUE(test_bit(L.live_in[0], 1));
  EXPECT_TRUE(test_bit(L.live_out[0], 1));
  EXPECT_FALSE(test_bit(L.live_in[g->block_of[2]], 2));
}

TEST(Liveness, ABranchOutsideTheProgramIsNotUnderstood) {
  std::vector<Op> ops = {op(BRA, {}, 5), op(EXIT, {})};
  EXPECT_FALSE(basic_blocks(ops));
}

}  // namespace
}  // namespace smemlab::emu
