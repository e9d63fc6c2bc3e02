// The padding what-if: the row pitch read off the access pattern, the
// padded offsets, and the smallest padding that removes a tile's conflicts
// (worked out by hand from the 32-bank rule: word w sits in bank w % 32).
#include "check/padding_whatif.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "check/event_builder.h"

namespace smemlab::check {
namespace {

TEST(PaddingWhatIf, PaddedOffsetsAndRowPitch) {
  EXPECT_EQ(PaddingWhatIf::padded(3 * 128 + 8, 128, 4), 3u * 132 + 8);
  EXPECT_EQ(PaddingWhatIf::padded(100, 128, 4), 100u);  // row 0 stays
  uint32_t column[32], rect[32];
  for (unsigned l = 0; l < 32; ++l) {
    column[l] = 128 * l;
    rect[l] = 128 * (l % 16) + 4 * (l / 16);  // lane 16 starts the next column
  }
  EXPECT_EQ(PaddingWhatIf::row_pitch({{~0u, column, 1}}), 128u);
  EXPECT_EQ(PaddingWhatIf::row_pitch({{~0u, rect, 1}}), 128u);
  // The step between consecutive active lanes: every other lane -> 256.
  EXPECT_EQ(PaddingWhatIf::row_pitch({{0x55555555u, column, 1}}), 256u);
  EXPECT_EQ(PaddingWhatIf::row_pitch({}), 0u);
}

// A 32x32 float tile at `base`, written by rows and read by columns
// (`rect`: a 16x32 tile read as lane l -> row l % 16, column l / 16), in
// two warps; a second, untouched buffer after it.
std::vector<PaddingBuffer> run_tile(bool rect, uint32_t base = 256) {
  auto model = bank::make_model("sm_90");
  PaddingWhatIf w(model.get(),
                  {padding_span("tile", base, 4096), padding_span("other", base + 4096, 64)});
  w.on_kernel_begin({});
  emu::InstrInfo st = testing::instr(1, 10, "st.shared.u32");
  emu::InstrInfo ld = testing::instr(2, 11, "ld.shared.u32");
  auto obs = w.make_block_observer({0, 0, 0});
  for (unsigned warp = 0; warp < 2; ++warp) {
    obs->on_memory(
        testing::access(emu::Space::Shared, emu::MemOp::Store, 4, &st, warp,
                        [&](unsigned l) { return uint64_t{base + warp * 128 + 4 * l}; }));
    obs->on_memory(testing::access(emu::Space::Shared, emu::MemOp::Load, 4, &ld, warp,
                                   [&](unsigned l) -> uint64_t {
                                     if (rect)
                                       return base + 128 * (l % 16) + 4 * (l / 16 + 2 * warp);
                                     return base + 128 * l + 4 * warp;
                                   }));
  }
  w.finish_block({0, 0, 0}, std::move(obs));
  return w.buffers();
}

TEST(PaddingWhatIf, SquareTileNeedsOneWord) {
  // Column reads: 32 lanes in one bank, 32 wavefronts each; rows of 33
  // words put lane l in bank l + warp: 1 wavefront.
  auto b = run_tile(false);
  ASSERT_EQ(b.size(), 1u);  // the untouched buffer is not listed
  EXPECT_EQ(b[0].name, "tile");
  EXPECT_EQ(b[0].pitch, 128u);
  EXPECT_EQ(b[0].pad_words, 1u);
  EXPECT_TRUE(b[0].removes);
  EXPECT_EQ(b[0].ops[0].requests, 2u);
  EXPECT_EQ(b[0].ops[0].wavefronts, 64u);
  EXPECT_EQ(b[0].ops[0].padded_wavefronts, 2u);
  EXPECT_EQ(b[0].ops[1].wavefronts, 2u);  // the row stores stay at 1
  EXPECT_EQ(b[0].ops[1].padded_wavefronts, 2u);
  EXPECT_EQ(b[0].padded_bytes, 32u * 132);
}

TEST(PaddingWhatIf, RectangularTileNeedsTwoWords) {
  // Rows 0..15 of two columns: 16-way conflicts (16 wavefronts). One word
  // of padding puts (row r, column c) in bank r + c: lanes 1 and 16 meet,
  // 2 wavefronts; two words (bank 2r + c) separate all 32.
  auto b = run_tile(true);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].pitch, 128u);
  EXPECT_EQ(b[0].ops[0].wavefronts, 32u);
  EXPECT_EQ(b[0].pad_words, 2u);
  EXPECT_TRUE(b[0].removes);
  EXPECT_EQ(b[0].ops[0].padded_wavefronts, 2u);
}

TEST(PaddingWhatIf, BulkFilledBuffersAreTheSwizzleWhatIfs) {
  auto model = bank::make_model("sm_90");
  PaddingWhatIf w(model.get(), {padding_span("", 0, 4096)});
  emu::InstrInfo tma = testing::instr(1, 10, "cp.async.bulk.tensor.2d");
  emu::InstrInfo ld = testing::instr(2, 11, "ld.shared.u32");
  auto obs = w.make_block_observer({0, 0, 0});
  emu::BulkCopy c{};
  c.phase = emu::BulkPhase::Issue;
  c.kind = emu::BulkKind::Load;
  c.tensor = true;
  c.shared_base = 0;
  c.instr = &tma;
  obs->on_bulk_copy(c);
  obs->on_memory(testing::access(emu::Space::Shared, emu::MemOp::Load, 4, &ld, 0,
                                 [](unsigned l) { return 128ull * l; }));
  w.finish_block({0, 0, 0}, std::move(obs));
  EXPECT_TRUE(w.buffers().empty());
}

// Requests that repeat per (warp, instruction) are counted through a memo
// of each one's last request (BlockPadding): the same stream with every
// event from a warp of its own (so the memo never hits) must give the same
// buffers, field by field. The stream repeats, alternates between two
// address sets per instruction (the memo's entry is then another request),
// and varies masks, over three warps and three instructions.
TEST(PaddingWhatIf, RepeatedRequestsCountAsWithoutTheMemo) {
  auto model = bank::make_model("sm_90");
  emu::InstrInfo st = testing::instr(1, 10, "st.shared.u32");
  emu::InstrInfo ld = testing::instr(2, 11, "ld.shared.u32");
  emu::InstrInfo ld2 = testing::instr(3, 12, "ld.shared.u32");
  const emu::InstrInfo* instrs[] = {&st, &ld, &ld2};
  std::mt19937 rng(7);
  std::vector<emu::MemAccess> stream;
  for (int i = 0; i < 400; ++i) {
    if (i > 0 && rng() % 3 == 0) {  // the same request again
      stream.push_back(stream[rng() % stream.size()]);
      continue;
    }
    unsigned warp = rng() % 3, which = rng() % 3, column = rng() % 2;
    uint32_t mask = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) | 1u : ~0u;
    stream.push_back(testing::access(
        emu::Space::Shared, which == 0 ? emu::MemOp::Store : emu::MemOp::Load, 4, instrs[which],
        warp,
        [&](unsigned l) -> uint64_t {
          return which == 0 ? 256 + 128 * column + 4 * l : 256 + 128 * l + 4 * (column + warp);
        },
        mask));
  }
  auto run = [&](bool memo) {
    PaddingWhatIf w(model.get(), {padding_span("tile", 256, 4096)});
    w.on_kernel_begin({});
    auto obs = w.make_block_observer({0, 0, 0});
    for (size_t i = 0; i < stream.size(); ++i) {
      emu::MemAccess a = stream[i];
      if (!memo) a.warp = static_cast<uint32_t>(100 + i);
      obs->on_memory(a);
    }
    w.finish_block({0, 0, 0}, std::move(obs));
    return w.buffers();
  };
  auto with = run(true), without = run(false);
  ASSERT_EQ(with.size(), 1u);
  ASSERT_EQ(without.size(), 1u);
  const PaddingBuffer &x = with[0], &y = without[0];
  EXPECT_EQ(x.ops[0].requests + x.ops[1].requests, stream.size());
  EXPECT_GT(x.ops[0].wavefronts, x.ops[0].requests);  // conflicted: not vacuous
  EXPECT_EQ(x.pitch, y.pitch);
  EXPECT_EQ(x.pad_words, y.pad_words);
  EXPECT_EQ(x.removes, y.removes);
  EXPECT_EQ(x.padded_bytes, y.padded_bytes);
  for (size_t o = 0; o < x.ops.size(); ++o) {
    EXPECT_EQ(x.ops[o].requests, y.ops[o].requests) << o;
    EXPECT_EQ(x.ops[o].wavefronts, y.ops[o].wavefronts) << o;
    EXPECT_EQ(x.ops[o].ideal, y.ops[o].ideal) << o;
    EXPECT_EQ(x.ops[o].padded_wavefronts, y.ops[o].padded_wavefronts) << o;
  }
  EXPECT_EQ(x.unmodelled, y.unmodelled);
  EXPECT_EQ(x.incomplete, y.incomplete);
  EXPECT_EQ(x.worst, y.worst);
}

// The buffers' records against the rules written out plainly: a block keeps
// its distinct requests (lanes outside the mask are not part of one) in the
// order first made, with counts, at most 2^15 (more: incomplete); the
// launch merges the blocks in the order they finish, adding to the requests
// it holds and keeping new ones while it holds fewer than 2^15 (the others
// are dropped: incomplete). The counts come from the requests held. The
// stream fills the launch (block 4) and a block of its own (block 5); it
// runs twice, with two blocks' tables alive at once and then one block
// after the other, so that a block takes the pooled tables of the one
// before it (blocks 0 and 1 make the same requests: a stale memo would
// count into the old tables).
TEST(PaddingWhatIf, FullBuffersCountAsTheRulesSay) {
  auto model = bank::make_model("sm_90");
  emu::InstrInfo st = testing::instr(1, 10, "st.shared.u32");
  emu::InstrInfo ld = testing::instr(2, 11, "ld.shared.u32");
  emu::InstrInfo ld2 = testing::instr(3, 12, "ld.shared.u32");
  std::mt19937 rng(11);
  std::vector<emu::MemAccess> distinct;  // 40,000 requests, mostly conflicted
  for (int i = 0; i < 40000; ++i) {
    const unsigned kind = rng() % 3;
    const uint32_t mask = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) | 1u : ~0u;
    std::array<uint64_t, 32> addr{};
    for (auto& x : addr) x = 4 * (rng() % 1024);
    distinct.push_back(testing::access(
        emu::Space::Shared, kind == 0 ? emu::MemOp::Store : emu::MemOp::Load, 4,
        kind == 0   ? &st
        : kind == 1 ? &ld
                    : &ld2,
        rng() % 8, [&](unsigned l) { return addr[l]; }, mask));
  }
  // Each block: requests [from, to) of `distinct`, some shuffled, some made
  // twice in a row (the memo's case) or again later by another warp.
  auto block = [&](size_t from, size_t to, bool shuffle) {
    std::vector<emu::MemAccess> out;
    for (size_t i = from; i < to; ++i) {
      out.push_back(distinct[i]);
      if (rng() % 4 == 0) out.push_back(out.back());
      if (rng() % 8 == 0) {
        out.push_back(out[rng() % out.size()]);
        out.back().warp = rng() % 8;
      }
    }
    if (shuffle) std::shuffle(out.begin(), out.end(), rng);
    return out;
  };
  const std::vector<emu::MemAccess> small = block(32000, 32100, false);
  const std::vector<std::vector<emu::MemAccess>> blocks = {small,
                                                           small,
                                                           block(0, 20000, false),
                                                           block(10000, 30000, false),
                                                           block(25000, 40000, true),
                                                           block(0, 40000, true),
                                                           small};

  // The rules, with a map from a request's content.
  using Key = std::tuple<emu::MemOp, uint32_t, std::array<uint64_t, 32>>;
  struct Kept {
    std::vector<std::pair<Key, uint64_t>> order;
    std::map<Key, size_t> at;
    bool incomplete = false;
    void add(const Key& k, uint64_t n) {
      if (auto it = at.find(k); it != at.end()) {
        order[it->second].second += n;
      } else if (order.size() < (size_t{1} << 15)) {
        at.emplace(k, order.size());
        order.push_back({k, n});
      } else {
        incomplete = true;
      }
    }
  };
  Kept launch;
  for (const auto& events : blocks) {
    Kept b;
    for (const emu::MemAccess& a : events) {
      std::array<uint64_t, 32> addr{};
      for (unsigned l = 0; l < 32; ++l) addr[l] = (a.mask >> l & 1) ? a.addr[l] : 0;
      b.add({a.op, a.mask, addr}, 1);
    }
    launch.incomplete |= b.incomplete;
    for (const auto& [k, n] : b.order) launch.add(k, n);
  }
  std::array<PadOpCounts, 3> want{};
  for (const auto& [k, n] : launch.order) {
    bank::Request q;
    q.op = std::get<0>(k) == emu::MemOp::Store ? bank::Op::Store : bank::Op::Load;
    q.mask = std::get<1>(k);
    q.addr = std::get<2>(k);
    const bank::Result r = model->evaluate(q);
    PadOpCounts& o = want[q.op == bank::Op::Store ? 1 : 0];
    o.requests += n;
    o.wavefronts += uint64_t{r.wavefronts} * n;
    o.ideal += uint64_t{r.ideal} * n;
  }
  ASSERT_TRUE(launch.incomplete);  // not vacuous: the cap is reached

  for (int run = 0; run < 2; ++run) {
    PaddingWhatIf w(model.get(), {padding_span("tile", 0, 4096), padding_span("other", 4096, 64)});
    w.on_kernel_begin({});
    std::unique_ptr<emu::BlockObserver> prev;
    for (size_t b = 0; b < blocks.size(); ++b) {
      auto obs = w.make_block_observer({static_cast<uint32_t>(b), 0, 0});
      for (const emu::MemAccess& a : blocks[b]) obs->on_memory(a);
      if (prev) w.finish_block({static_cast<uint32_t>(b - 1), 0, 0}, std::move(prev));
      prev = std::move(obs);
      if (run == 1) w.finish_block({static_cast<uint32_t>(b), 0, 0}, std::move(prev));
    }
    if (prev) w.finish_block({static_cast<uint32_t>(blocks.size() - 1), 0, 0}, std::move(prev));
    const auto& got = w.buffers();
    ASSERT_EQ(got.size(), 1u) << run;
    EXPECT_TRUE(got[0].incomplete) << run;
    EXPECT_EQ(got[0].pitch, 0u) << run;
    for (size_t o = 0; o < 3; ++o) {
      EXPECT_EQ(got[0].ops[o].requests, want[o].requests) << run << " " << o;
      EXPECT_EQ(got[0].ops[o].wavefronts, want[o].wavefronts) << run << " " << o;
      EXPECT_EQ(got[0].ops[o].ideal, want[o].ideal) << run << " " << o;
      EXPECT_EQ(got[0].ops[o].padded_wavefronts, want[o].wavefronts) << run << " " << o;
    }
  }
}

}  // namespace
}  // namespace smemlab::check
