// The block chain's dependent issue (dependence.cc) on hand-made ops.
#include "timing/dependence.h"

#include <gtest/gtest.h>

namespace smemlab::timing {
namespace {

emu::Op alu(emu::Base b, uint32_t d, uint32_t s1, uint32_t s2, uint32_t info) {
  emu::Op o;
  o.code = static_cast<uint16_t>(b * 16);
  o.t = emu::U32;
  o.r[0] = d;
  o.r[1] = s1;
  o.r[2] = s2;
  o.info = info;
  return o;
}

TEST(Dependence, AluResultsWaitTheirLatency) {
  emu::Program p;
  p.num_regs = 8;
  p.info.resize(3);
  p.info[0].text = "add.s32";
  p.info[1].text = "mul.lo.s32";
  p.info[2].text = "exit";
  emu::Op exit;
  exit.code = static_cast<uint16_t>(emu::EXIT * 16);
  exit.info = 2;
  p.ops = {alu(emu::ADD, 1, 0, 0, 0),     // issues at 0
           alu(emu::ADD, 2, 1, 1, 0),     // waits for r1: 0 + 4
           alu(emu::ADD, 3, 0, 0, 0),     // independent: next clock (5)
           alu(emu::MUL_LO, 4, 2, 3, 1),  // r2 ready at 8, r3 at 9
           exit};
  std::vector<double> c = dependent_issue_cycles(p, 4.0);
  EXPECT_EQ(c, (std::vector<double>{1, 4, 1, 4, 1}));
  // With results ready next clock, every op costs its issue slot.
  EXPECT_EQ(dependent_issue_cycles(p, 1.0), (std::vector<double>(5, 1.0)));
}

emu::Op branch_to(uint32_t target, uint32_t info) {
  emu::Op bra;
  bra.code = static_cast<uint16_t>(emu::BRA * 16);
  bra.imm = target;
  bra.info = info;
  return bra;
}

// A result still in flight when a basic block ends delays the block that
// follows (issue 0, bra 1, r1 ready at 4: the add waits 3 cycles).
TEST(Dependence, ResultsInFlightCrossBranches) {
  emu::Program p;
  p.num_regs = 4;
  p.info.resize(2);
  p.info[0].text = "add.s32";
  p.info[1].text = "bra";
  p.ops = {alu(emu::ADD, 1, 0, 0, 0), branch_to(2, 1), alu(emu::ADD, 2, 1, 1, 0)};
  EXPECT_EQ(dependent_issue_cycles(p, 4.0), (std::vector<double>{1, 1, 3}));
}

// A loop-carried value: r1 = r1 + r0 each iteration, then the back edge.
// The next iteration's add waits for the previous one's result, so an
// iteration costs the ALU latency (3 + 1 = 4 cycles), not its 2 issue slots.
TEST(Dependence, LoopBackEdgeCarriesTheChain) {
  emu::Program p;
  p.num_regs = 4;
  p.info.resize(2);
  p.info[0].text = "add.s32";
  p.info[1].text = "bra";
  p.ops = {alu(emu::ADD, 1, 1, 0, 0), branch_to(0, 1)};
  EXPECT_EQ(dependent_issue_cycles(p, 4.0), (std::vector<double>{3, 1}));
  EXPECT_EQ(dependent_issue_cycles(p, 1.0), (std::vector<double>{1, 1}));
}

}  // namespace
}  // namespace smemlab::timing
