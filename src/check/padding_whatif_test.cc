// The padding what-if: the row pitch read off the access pattern, the
// padded offsets, and the smallest padding that removes a tile's conflicts
// (worked out by hand from the 32-bank rule: word w sits in bank w % 32).
#include "check/padding_whatif.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "check/event_builder.h"

namespace smemlab::check {
namespace {

TEST(PaddingWhatIf, PaddedOffsetsAndRowPitch) {
  EXPECT_EQ(PaddingWhatIf::padded(3 * 128 + 8, 128, 4), 3u * 132 + 8);
  EXPECT_EQ(PaddingWhatIf::padded(100, 128, 4), 100u);  // row 0 stays
  uint64_t column[32], rect[32];
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

}  // namespace
}  // namespace smemlab::check
