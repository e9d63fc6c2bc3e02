#include "check/defects.h"

#include <gtest/gtest.h>

#include "check/event_builder.h"

namespace smemlab::check {
namespace {

using testing::access;
using testing::instr;
constexpr uint32_t kAll = 0xffffffffu;

// A 64-thread block over a 256-byte shared array `s` at offset 0.
struct Harness {
  DefectCheck check;
  std::unique_ptr<emu::BlockObserver> block;
  explicit Harness(bool fast_paths = true, uint32_t threads = 64)
      : check(MemoryLayout{{{"s", 0, 256}}, 256, 64}, fast_paths) {
    emu::KernelInfo k;
    k.block = {threads, 1, 1};
    k.grid = {2, 1, 1};
    check.on_kernel_begin(k);
    block = check.make_block_observer({0, 0, 0});
    block->on_block_begin({0, 0, 0}, {threads, 1, 1}, 256);
  }
  void store(const emu::InstrInfo& i, uint32_t warp, std::function<uint64_t(unsigned)> f,
             uint32_t m = kAll) {
    block->on_memory(access(emu::Space::Shared, emu::MemOp::Store, 4, &i, warp, f, m));
  }
  // A plain store whose lanes stored value(l) (MemAccess::stored).
  void store_values(const emu::InstrInfo& i, uint32_t warp, std::function<uint64_t(unsigned)> f,
                    std::function<uint64_t(unsigned)> value, uint32_t m = kAll,
                    unsigned width = 4) {
    uint64_t values[32];
    for (unsigned l = 0; l < 32; ++l) values[l] = value(l);
    emu::MemAccess a = access(emu::Space::Shared, emu::MemOp::Store, width, &i, warp, f, m);
    a.stored[0] = values;
    a.stored_vec = 1;
    block->on_memory(a);
  }
  void load(const emu::InstrInfo& i, uint32_t warp, std::function<uint64_t(unsigned)> f,
            uint32_t m = kAll) {
    block->on_memory(access(emu::Space::Shared, emu::MemOp::Load, 4, &i, warp, f, m));
  }
  void barrier(const emu::InstrInfo& i, uint64_t epoch) {
    for (uint32_t w = 0; w < 2; ++w)
      block->on_barrier({emu::BarrierKind::Sync, true, 0, 64, kAll, kAll, &i, {0, 0, 0}, w});
    block->on_barrier_release({0, epoch});
  }
  const std::vector<Finding>& finish() {
    block->on_block_end({0, 0, 0});
    check.finish_block({0, 0, 0}, std::move(block));
    return check.findings();
  }
};

// reverse: s[t] = ...; [barrier]; ... = s[63 - t]
std::vector<Finding> reverse(bool with_barrier) {
  Harness h;
  emu::InstrInfo st = instr(1, 10, "st.shared.u32"), bar = instr(2, 11, "bar.sync 0"),
                 ld = instr(3, 12, "ld.shared.u32");
  for (uint32_t w = 0; w < 2; ++w) h.store(st, w, [&](unsigned l) { return 4 * (32 * w + l); });
  if (with_barrier) h.barrier(bar, 1);
  for (uint32_t w = 0; w < 2; ++w)
    h.load(ld, w, [&](unsigned l) { return 4 * (63 - (32 * w + l)); });
  return h.finish();
}

TEST(Defects, MissingBarrierIsARawRace) {
  auto f = reverse(false);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::Race);
  EXPECT_EQ(f[0].severity, Severity::Error);
  EXPECT_EQ(f[0].count, 64u);
  ASSERT_EQ(f[0].involved.size(), 2u);
  EXPECT_EQ(f[0].involved[0].role, "write");
  EXPECT_EQ(f[0].involved[0].ptx_line, 10);
  EXPECT_EQ(f[0].involved[1].role, "read");
  EXPECT_NE(f[0].message.find("RAW"), std::string::npos);
  EXPECT_TRUE(reverse(true).empty());
}

TEST(Defects, WarAfterTheBarrierEpoch) {
  Harness h;
  emu::InstrInfo st = instr(1, 10, "st.shared.u32"), bar = instr(2, 11, "bar.sync 0"),
                 ld = instr(3, 12, "ld.shared.u32");
  for (uint32_t w = 0; w < 2; ++w) h.store(st, w, [&](unsigned l) { return 4 * (32 * w + l); });
  h.barrier(bar, 1);
  h.load(ld, 0, [&](unsigned l) { return 4 * (63 - l); });   // warp 0 reads warp 1's words
  h.store(st, 1, [&](unsigned l) { return 4 * (32 + l); });  // warp 1 overwrites them: WAR
  auto f = h.finish();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::Race);
  EXPECT_NE(f[0].message.find("WAR"), std::string::npos);
}

TEST(Defects, IntraWarpHazardsNeedSyncwarp) {
  for (bool sync : {false, true}) {
    Harness h;
    emu::InstrInfo st = instr(1, 10, "st.shared.f32"), ld = instr(2, 11, "ld.shared.f32"),
                   sw = instr(3, 12, "bar.warp.sync -1", -1, emu::InstrTrait::WarpMemoryOrder);
    h.store(st, 0, [](unsigned l) { return 4 * l; });
    if (sync) h.block->on_warp_sync({kAll, kAll, &sw, {0, 0, 0}, 0});
    h.load(
        ld, 0, [](unsigned l) { return 4 * ((l + 16) % 32); }, 0xffffu);
    auto f = h.finish();
    if (sync) {
      EXPECT_TRUE(f.empty());
    } else {
      ASSERT_EQ(f.size(), 1u);
      EXPECT_EQ(f[0].kind, FindingKind::WarpRace);
      EXPECT_EQ(f[0].severity, Severity::Warning);
    }
  }
}

// A word's two readers of an epoch: lane 1 of warp 0, then thread 40 of
// warp 1. A __syncwarp() of warp 0 orders the first read before lane 0's
// write, not the second: still a WAR race with thread 40 (missed when only
// the first reader was tested once it was another thread).
TEST(Defects, WriteAfterASyncwarpStillRacesWithTheOtherWarpsReader) {
  for (bool fast : {true, false}) {
    Harness h(fast);
    emu::InstrInfo st = instr(1, 10, "st.shared.u32"), ld = instr(2, 11, "ld.shared.u32"),
                   sw = instr(3, 12, "bar.warp.sync -1", -1, emu::InstrTrait::WarpMemoryOrder);
    h.store(st, 0, [](unsigned l) { return 4 * l; });
    h.barrier(instr(4, 13, "bar.sync 0"), 1);
    h.load(
        ld, 0, [](unsigned) { return 0; }, 1u << 1);
    h.load(
        ld, 1, [](unsigned) { return 0; }, 1u << 8);
    h.block->on_warp_sync({kAll, kAll, &sw, {0, 0, 0}, 0});
    h.store(
        st, 0, [](unsigned) { return 0; }, 1u);
    auto f = h.finish();
    ASSERT_EQ(f.size(), 1u) << "fast " << fast;
    EXPECT_EQ(f[0].kind, FindingKind::Race);
    EXPECT_NE(f[0].message.find("WAR"), std::string::npos);
    EXPECT_NE(f[0].message.find("thread 40 and thread 0"), std::string::npos) << f[0].message;
  }
}

TEST(Defects, SameWordFromOneInstructionIsNotARace) {
  Harness h;
  emu::InstrInfo st = instr(1, 10, "st.shared.u32"), ld = instr(2, 11, "ld.shared.u32");
  h.store(st, 0, [](unsigned) { return 0; });  // all lanes of one store: one instruction
  h.load(
      ld, 0, [](unsigned l) { return 4 * l; }, 1u);  // lane 0 reads it back
  EXPECT_TRUE(h.finish().empty());
}

// Two warps store to one word with no barrier between (WAW): no race
// when every lane stored the same bits (either order leaves them), a race
// when the values differ, also when only one lane of an instruction did,
// or when the emulator does not say what was stored.
TEST(Defects, EqualStoresOfOtherThreadsAreNotARace) {
  for (bool fast : {true, false}) {
    auto run = [&](uint64_t v0, uint64_t v1, bool known = true, int odd_lane = -1) {
      Harness h(fast);
      emu::InstrInfo st = instr(1, 10, "st.shared.u32");
      auto word = [](unsigned) { return uint64_t{8}; };
      h.store_values(st, 0, word, [&](unsigned l) { return int(l) == odd_lane ? v1 : v0; });
      if (known)
        h.store_values(st, 1, word, [&](unsigned) { return v1; });
      else
        h.store(st, 1, word);
      return h.finish();
    };
    EXPECT_TRUE(run(1, 1).empty()) << "fast " << fast;
    auto f = run(0, 1);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, FindingKind::Race);
    EXPECT_NE(f[0].message.find("WAW"), std::string::npos);
    EXPECT_EQ(run(0x80000001u, 0x00000001u).size(), 1u);  // all 32 bits compared
    EXPECT_EQ(run(1, 1, false).size(), 1u);
    // Lane 31 of warp 0 stored 1 (what memory holds after warp 0), the
    // other lanes 0: the word's value is not one value, warp 1's 1 races.
    EXPECT_EQ(run(0, 1, true, 31).size(), 1u);
  }
}

// Bytes: a byte store of another thread's byte value is no race; bytes of
// a word compared one by one once the word is split.
TEST(Defects, EqualByteStoresAreNotARace) {
  Harness h;
  emu::InstrInfo st = instr(1, 10, "st.shared.u8"), st32 = instr(2, 11, "st.shared.u32");
  h.store_values(
      st32, 0, [](unsigned) { return 16; }, [](unsigned) { return 0x11223344u; }, 1u);
  h.store_values(
      st, 1, [](unsigned) { return 17; }, [](unsigned) { return 0x33; }, 1u, 1);
  EXPECT_TRUE(h.finish().empty());
  Harness h2;
  h2.store_values(
      st32, 0, [](unsigned) { return 16; }, [](unsigned) { return 0x11223344u; }, 1u);
  h2.store_values(
      st, 1, [](unsigned) { return 17; }, [](unsigned) { return 0x44; }, 1u, 1);
  EXPECT_EQ(h2.finish().size(), 1u);
}

// A read by a third thread between two equal stores races with both (it
// sees the word before or after the first store): racecheck reports a RAW
// and a WAR there (a hazard is a pair of accesses, at least one a write,
// with no barrier between), and so does check, only the WAW pair of the
// stores is dropped.
TEST(Defects, AReadBetweenEqualStoresStillRaces) {
  for (bool fast : {true, false}) {
    Harness h(fast, 96);
    emu::InstrInfo st = instr(1, 10, "st.shared.u32"), ld = instr(2, 11, "ld.shared.u32");
    auto word = [](unsigned) { return uint64_t{8}; };
    auto one = [](unsigned) { return uint64_t{1}; };
    h.store_values(st, 0, word, one, 1u);
    h.load(ld, 1, word, 1u);
    h.store_values(st, 2, word, one, 1u);
    auto f = h.finish();
    ASSERT_EQ(f.size(), 2u) << "fast " << fast;
    EXPECT_NE(f[0].message.find("RAW"), std::string::npos) << f[0].message;
    EXPECT_NE(f[1].message.find("WAR"), std::string::npos) << f[1].message;
  }
}

TEST(Defects, UninitializedAndOutOfBoundsShared) {
  Harness h;
  emu::InstrInfo st = instr(1, 10, "st.shared.u32"), ld = instr(2, 11, "ld.shared.u32");
  h.store(
      st, 0, [](unsigned l) { return 4 * l; }, 0x7fffffffu);  // lane 31 skips
  h.load(
      ld, 0, [](unsigned l) { return 4 * (31 - l); }, 1u);  // lane 0 reads word 31
  h.load(
      ld, 1, [](unsigned l) { return 4 * (64 + l); }, 1u);  // past the 256-byte array
  auto f = h.finish();
  ASSERT_EQ(f.size(), 2u);
  // Out-of-bounds at once; uninitialized reads when the barrier epoch ends.
  EXPECT_EQ(f[0].kind, FindingKind::OutOfBounds);
  EXPECT_NE(f[0].message.find("'s'"), std::string::npos) << f[0].message;
  EXPECT_EQ(f[1].kind, FindingKind::Uninitialized);
}

TEST(Defects, AReadRunningAheadOfAnotherThreadsWriteIsARaceNotUninitialized) {
  Harness h;
  emu::InstrInfo st = instr(1, 10, "st.shared.u32"), ld = instr(2, 11, "ld.shared.u32");
  h.load(ld, 0, [](unsigned l) { return 4 * (32 + l); });  // warp 0 reads warp 1's slots first
  h.store(st, 1, [](unsigned l) { return 4 * (32 + l); });
  auto f = h.finish();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::Race);
  EXPECT_NE(f[0].message.find("WAR"), std::string::npos);
}

// s[t] = (cp.async) ...; [barrier]; ... = s[63 - t]: the copy's shared side is
// a write, not a read of uninitialized memory, and a later read is ordered by
// the barrier.
TEST(Defects, CpAsyncIntoSharedIsAWrite) {
  Harness h;
  emu::InstrInfo cp = instr(1, 10, "cp.async.ca.shared.global"), bar = instr(2, 11, "bar.sync 0"),
                 ld = instr(3, 12, "ld.shared.u32");
  for (uint32_t w = 0; w < 2; ++w)
    h.block->on_memory(access(
        emu::Space::Shared, emu::MemOp::CpAsyncStore, 4, &cp, w,
        [&](unsigned l) { return 4 * (32 * w + l); }, kAll));
  h.barrier(bar, 1);
  for (uint32_t w = 0; w < 2; ++w)
    h.load(ld, w, [&](unsigned l) { return 4 * (63 - (32 * w + l)); });
  EXPECT_TRUE(h.finish().empty());
}

TEST(Defects, MisalignedAccess) {
  Harness h;
  emu::InstrInfo ld = instr(1, 10, "ld.shared.v2.f32");
  h.block->on_memory(access(
      emu::Space::Shared, emu::MemOp::Load, 8, &ld, 0, [](unsigned l) { return 8 * l + 4; }, 1u));
  auto f = h.finish();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::Misaligned);
}

TEST(Defects, DivergentBarriers) {
  Harness h;
  emu::InstrInfo a = instr(1, 10, "bar.sync 0"), b = instr(2, 12, "bar.sync 0");
  h.block->on_barrier({emu::BarrierKind::Sync, true, 0, 64, 0x5555u, 0xffffu, &a, {0, 0, 0}, 0});
  h.block->on_barrier({emu::BarrierKind::Sync, true, 0, 64, kAll, kAll, &b, {0, 0, 0}, 1});
  auto f = h.finish();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].kind, FindingKind::DivergentBarrier);
  EXPECT_NE(f[0].message.find("not by lanes 1,3,5"), std::string::npos) << f[0].message;
  EXPECT_NE(f[1].message.find("different barrier instructions"), std::string::npos);
}

TEST(Defects, BarrierAfterPartOfTheBlockExited) {
  Harness h;
  emu::InstrInfo ex = instr(1, 9, "ret"), bar = instr(2, 10, "bar.sync 0");
  h.block->on_exit({0xffffff00u, &ex, {0, 0, 0}, 1});
  h.block->on_barrier({emu::BarrierKind::Sync, true, 0, 40, kAll, kAll, &bar, {0, 0, 0}, 0});
  auto f = h.finish();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::DivergentBarrier);
}

TEST(Defects, CollectiveWithMissingMembers) {
  Harness h;
  emu::InstrInfo sh = instr(1, 10, "shfl.sync.down.b32");
  h.block->on_warp_sync({kAll, 0xffffu, &sh, {0, 0, 0}, 0});
  h.block->on_warp_sync({0xffffu, 0xffffu, &sh, {0, 0, 0}, 1});
  auto f = h.finish();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::DivergentBarrier);
}

TEST(Defects, CollectiveNamesTheLanesThatNeverArrive) {
  // A full-mask ballot executed by lanes 0-30 (lane 31 exited): the finding
  // names lane 31.
  Harness h;
  emu::InstrInfo vote = instr(1, 10, "vote.sync.ballot.b32");
  h.block->on_warp_sync({kAll, 0x7fffffffu, &vote, {0, 0, 0}, 0});
  auto f = h.finish();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("lanes 31 exited"), std::string::npos) << f[0].message;
}

TEST(Defects, CollectiveInAPartialWarpNeedsOnlyItsThreads) {
  // A block of 40 threads: warp 1 has lanes 0-7 only, and a full-mask
  // shuffle there is every thread it has (CUDA samples' shfl_scan, 120
  // threads a block); a lane of those 8 missing is still a finding.
  Harness h(true, 40);
  emu::InstrInfo sh = instr(1, 10, "shfl.sync.up.b32");
  h.block->on_warp_sync({kAll, kAll, &sh, {0, 0, 0}, 0});
  h.block->on_warp_sync({kAll, 0xffu, &sh, {0, 0, 0}, 1});
  EXPECT_TRUE(h.finish().empty()) << h.check.findings()[0].message;
  Harness h2(true, 40);
  h2.block->on_warp_sync({kAll, 0x7fu, &sh, {0, 0, 0}, 1});
  auto f = h2.finish();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("lanes 7 exited"), std::string::npos) << f[0].message;
}

TEST(Defects, GlobalRaceBetweenBlocks) {
  DefectCheck check{MemoryLayout{}};
  emu::KernelInfo k;
  k.grid = {3, 1, 1};
  k.block = {32, 1, 1};
  check.on_kernel_begin(k);
  emu::InstrInfo st = instr(1, 10, "st.global.u32"), at = instr(2, 11, "atom.global.add.u32");
  for (uint32_t b = 0; b < 3; ++b) {
    auto o = check.make_block_observer({b, 0, 0});
    o->on_block_begin({b, 0, 0}, {32, 1, 1}, 0);
    o->on_memory(access(
        emu::Space::Global, emu::MemOp::Store, 4, &st, 0, [](unsigned) { return 0x1000; }, 1u));
    o->on_memory(access(
        emu::Space::Global, emu::MemOp::Atomic, 4, &at, 0, [](unsigned) { return 0x2000; }, 1u));
    o->on_memory(access(emu::Space::Global, emu::MemOp::Store, 4, &st, 0,
                        [&](unsigned l) { return 0x3000 + 128 * b + 4 * l; }));
    check.finish_block({b, 0, 0}, std::move(o));
  }
  auto f = check.findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::GlobalRace);
  EXPECT_EQ(f[0].severity, Severity::Warning);
  EXPECT_EQ(f[0].count, 8u);  // 4 bytes x blocks 1 and 2
}

// cp.async fills s (its shared half writes, its global half reads), the
// block waits and synchronizes, every thread reads a neighbour's element:
// no uninitialized read, no race, no global-race from the global reads.
TEST(Defects, CpAsyncFilledSharedIsInitialized) {
  Harness h;
  emu::InstrInfo cp = instr(1, 10, "cp.async.ca.shared.global"), bar = instr(2, 11, "bar.sync 0"),
                 ld = instr(3, 12, "ld.shared.u32");
  for (uint32_t w = 0; w < 2; ++w) {
    h.block->on_memory(access(emu::Space::Global, emu::MemOp::CpAsyncLoad, 4, &cp, w,
                              [&](unsigned l) { return 0x1000 + 4 * (32 * w + l); }));
    h.block->on_memory(access(emu::Space::Shared, emu::MemOp::CpAsyncStore, 4, &cp, w,
                              [&](unsigned l) { return 4 * (32 * w + l); }));
  }
  h.barrier(bar, 1);
  for (uint32_t w = 0; w < 2; ++w)
    h.load(ld, w, [&](unsigned l) { return 4 * (63 - (32 * w + l)); });
  EXPECT_TRUE(h.finish().empty()) << h.check.findings()[0].message;
}

// The same without the barrier: the reads race with the other warp's copies.
TEST(Defects, CpAsyncWithoutBarrierRaces) {
  Harness h;
  emu::InstrInfo cp = instr(1, 10, "cp.async.ca.shared.global"), ld = instr(3, 12, "ld.shared.u32");
  for (uint32_t w = 0; w < 2; ++w)
    h.block->on_memory(access(emu::Space::Shared, emu::MemOp::CpAsyncStore, 4, &cp, w,
                              [&](unsigned l) { return 4 * (32 * w + l); }));
  for (uint32_t w = 0; w < 2; ++w)
    h.load(ld, w, [&](unsigned l) { return 4 * (63 - (32 * w + l)); });
  const auto& f = h.finish();
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].kind, FindingKind::Race);
}

}  // namespace
}  // namespace smemlab::check
