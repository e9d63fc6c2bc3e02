// mbarrier state: phases, arrival counts, transaction bytes, tokens.
#include "emu/ops_async.h"

#include <gtest/gtest.h>

namespace smemlab::emu::mbar {
namespace {

TEST(Mbarrier, PhaseCompletesWhenAllArrive) {
  uint64_t b = init(3);
  EXPECT_EQ(pending(b), 3u);
  uint64_t t0 = arrive(b, 1);
  uint64_t t1 = arrive(b, 1);
  EXPECT_FALSE(token_complete(b, t0));
  EXPECT_FALSE(parity_complete(b, 0));
  uint64_t t2 = arrive(b, 1);
  EXPECT_TRUE(token_complete(b, t0));
  EXPECT_TRUE(token_complete(b, t1));
  EXPECT_TRUE(token_complete(b, t2));
  EXPECT_TRUE(parity_complete(b, 0));
  EXPECT_FALSE(parity_complete(b, 1));  // the new phase (parity 1) is running
  EXPECT_EQ(pending(b), 3u);            // reset for the next phase
  uint64_t t3 = arrive(b, 2);
  EXPECT_FALSE(token_complete(b, t3));
  arrive(b, 1);
  EXPECT_TRUE(token_complete(b, t3));
  EXPECT_TRUE(parity_complete(b, 1));
}

TEST(Mbarrier, TransactionBytesHoldThePhase) {
  // arrive.expect_tx by the producer, then the bulk copy's complete_tx.
  uint64_t b = init(1);
  uint64_t t = arrive(b, 1, 256);
  EXPECT_EQ(tx_count(b), 256);
  EXPECT_FALSE(token_complete(b, t));
  complete_tx(b, 128);
  EXPECT_FALSE(token_complete(b, t));
  complete_tx(b, 128);
  EXPECT_TRUE(token_complete(b, t));
  EXPECT_EQ(tx_count(b), 0);
  // Bytes may land before they are expected (tx-count goes negative).
  complete_tx(b, 64);
  EXPECT_EQ(tx_count(b), -64);
  expect_tx(b, 64);
  uint64_t t2 = arrive(b, 1);
  EXPECT_TRUE(token_complete(b, t2));
}

TEST(Mbarrier, BytesBeyondTheAnnouncedOnesHoldNoPhaseBack) {
  // 64 bytes announced, 128 completed: phase 0 completes at the first 64;
  // the excess lands in phase 1, which its arrival still completes (the
  // H200, run 16: tx_carry.cu). The tx-count keeps the excess.
  uint64_t b = init(1);
  arrive(b, 1, 64);
  complete_tx(b, 64);
  EXPECT_EQ(parity(b), 1u);
  complete_tx(b, 64);
  EXPECT_EQ(tx_count(b), -64);
  EXPECT_EQ(parity(b), 1u);  // no arrival yet
  uint64_t t = arrive(b, 1);
  EXPECT_TRUE(token_complete(b, t));
  EXPECT_EQ(tx_count(b), -64);
}

TEST(Mbarrier, ArriveDropLowersLaterPhases) {
  uint64_t b = init(2);
  arrive(b, 1, 0, true);
  EXPECT_EQ(expected(b), 1u);
  uint64_t t = arrive(b, 1);
  EXPECT_TRUE(token_complete(b, t));
  EXPECT_EQ(pending(b), 1u);
}

TEST(Mbarrier, UndefinedUsesAreErrors) {
  EXPECT_THROW(init(0), Error);
  EXPECT_THROW(init(1u << 20), Error);
  uint64_t zero = 0;
  EXPECT_THROW(arrive(zero, 1), Error);
  uint64_t b = init(2);
  EXPECT_THROW(arrive(b, 3), Error);
  EXPECT_THROW(expect_tx(b, 1u << 20), Error);
}

}  // namespace
}  // namespace smemlab::emu::mbar
