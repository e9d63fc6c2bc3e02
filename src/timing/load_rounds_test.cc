// The loads a warp keeps in flight (load_rounds.cc) on hand-made ops.
#include "timing/load_rounds.h"

#include <gtest/gtest.h>

namespace smemlab::timing {
namespace {

emu::Op load(emu::MSpace space, uint32_t d, uint32_t addr) {
  emu::Op o;
  o.code = static_cast<uint16_t>(emu::LD * 16);
  o.t = emu::U32;
  o.aux = static_cast<uint8_t>(space);
  o.vec = 1;
  o.r[0] = d;
  o.r[4] = addr;
  return o;
}

emu::Op store(emu::MSpace space, uint32_t value, uint32_t addr) {
  emu::Op o = load(space, value, addr);
  o.code = static_cast<uint16_t>(emu::ST * 16);
  return o;
}

emu::Op add(uint32_t d, uint32_t a, uint32_t b) {
  emu::Op o;
  o.code = static_cast<uint16_t>(emu::ADD * 16);
  o.t = emu::U32;
  o.r[0] = d;
  o.r[1] = a;
  o.r[2] = b;
  return o;
}

emu::Op branch_to(uint32_t target) {
  emu::Op o;
  o.code = static_cast<uint16_t>(emu::BRA * 16);
  o.imm = target;
  return o;
}

emu::Program program(std::vector<emu::Op> ops) {
  emu::Program p;
  p.num_regs = 16;
  p.ops = std::move(ops);
  return p;
}

// Four independent loads, then their uses: one round of four.
TEST(LoadRounds, IndependentLoadsTravelTogether) {
  auto p = program({load(emu::MSpace::Global, 1, 0), load(emu::MSpace::Global, 2, 0),
                    load(emu::MSpace::Generic, 3, 0), load(emu::MSpace::Global, 4, 0), add(5, 1, 2),
                    add(6, 3, 4)});
  EXPECT_EQ(load_round_starts(p), (std::vector<uint8_t>{1, 0, 0, 0, 0, 0}));
}

// config.cu's unrolled copy: each load's value is stored to shared memory
// before the next load issues, so each load is a round of its own.
TEST(LoadRounds, UseBeforeTheNextLoadSerializes) {
  auto p = program({load(emu::MSpace::Global, 1, 0), store(emu::MSpace::Shared, 1, 8),
                    load(emu::MSpace::Global, 2, 0), store(emu::MSpace::Shared, 2, 8),
                    load(emu::MSpace::Global, 3, 0), store(emu::MSpace::Shared, 3, 8)});
  EXPECT_EQ(load_round_starts(p), (std::vector<uint8_t>{1, 0, 1, 0, 1, 0}));
}

// Waiting for the second load waits for the first too (data return in
// order); overwriting an outstanding load's register waits for it; shared
// and constant loads do not count.
TEST(LoadRounds, WaitsCoverEarlierLoadsAndOverwrites) {
  auto p = program({load(emu::MSpace::Global, 1, 0), load(emu::MSpace::Global, 2, 0), add(5, 2, 2),
                    load(emu::MSpace::Global, 3, 0), add(3, 0, 0), load(emu::MSpace::Shared, 4, 0),
                    load(emu::MSpace::Const, 6, 0), load(emu::MSpace::Local, 7, 0)});
  EXPECT_EQ(load_round_starts(p), (std::vector<uint8_t>{1, 0, 0, 1, 0, 0, 0, 1}));
}

// A loop that reads, at its top, the value the previous iteration loaded:
// the back edge carries the outstanding loads into the next iteration,
// whose first use waits for all of them; the loop's two loads then travel
// together, a round per iteration.
TEST(LoadRounds, BackEdgeCarriesOutstandingLoads) {
  // 0: load r1 (prologue); loop 1: add r5 = r1 + r5; 2: load r2;
  // 3: load r1 (for the next iteration); 4: bra 1.
  auto p = program({load(emu::MSpace::Global, 1, 0), add(5, 1, 5), load(emu::MSpace::Global, 2, 0),
                    load(emu::MSpace::Global, 1, 0), branch_to(1)});
  EXPECT_EQ(load_round_starts(p), (std::vector<uint8_t>{1, 0, 1, 0, 0}));
}

// A branch out of the program: no walk.
TEST(LoadRounds, UnknownControlFlowGivesNothing) {
  auto p = program({branch_to(7)});
  EXPECT_TRUE(load_round_starts(p).empty());
}

}  // namespace
}  // namespace smemlab::timing
