// The swizzle what-if: the remap of a box's bytes between tensor-map
// swizzle modes (worked out by hand from the programming guide's
// permutation) and the wavefronts of a reader under each mode.
#include "check/swizzle_whatif.h"

#include <gtest/gtest.h>

#include <vector>

#include "bank/hopper.h"
#include "check/event_builder.h"

namespace smemlab::check {
namespace {

TEST(SwizzleWhatIf, RemapFollowsTheData) {
  uint64_t out = 0;
  // 128-byte rows, 128B swizzle at 1024: row 3, chunk 1 sits in chunk 1^3 = 2.
  ASSERT_TRUE(SwizzleWhatIf::remap(1024, 128, 3, 0, 1024 + 3 * 128 + 2 * 16 + 4, &out));
  EXPECT_EQ(out, 1024u + 3 * 128 + 16 + 4);  // unswizzled: chunk 1
  // Rows of 128 bytes do not fit a 64- or 32-byte span.
  EXPECT_FALSE(SwizzleWhatIf::remap(1024, 128, 3, 2, 1024, &out));
  EXPECT_FALSE(SwizzleWhatIf::remap(1024, 128, 3, 1, 1024, &out));
  // 64-byte rows without a swizzle (64 apart) -> 128B: a span apart, row 3's
  // chunk 1 in chunk 1^3 = 2 of its 128 bytes.
  ASSERT_TRUE(SwizzleWhatIf::remap(1024, 64, 0, 3, 1024 + 3 * 64 + 16, &out));
  EXPECT_EQ(out, 1024u + 3 * 128 + 2 * 16);
  // ... and back; the padding of a row narrower than the span is no data.
  ASSERT_TRUE(SwizzleWhatIf::remap(1024, 64, 3, 0, 1024 + 3 * 128 + 2 * 16, &out));
  EXPECT_EQ(out, 1024u + 3 * 64 + 16);
  EXPECT_FALSE(SwizzleWhatIf::remap(1024, 64, 3, 0, 1024 + 3 * 128 + (4 ^ 3) * 16, &out));
}

TEST(SwizzleWhatIf, ReadersOfA128BSwizzledTileUnderEachMode) {
  // A 128B-swizzled box of 8 rows x 128 bytes at 1024; a warp reads 16
  // bytes per lane, lane l row l % 8, chunk l / 8 (a column of chunks per
  // quarter-warp). Swizzled, each quarter-warp's 8 chunks are 8 different
  // chunk slots of a 128-byte row: all 32 banks once, 1 wavefront each, 4
  // in all. Unswizzled, the 8 rows' same chunk share 4 banks: 8 wavefronts
  // per quarter-warp, 32. 32B and 64B cannot hold 128-byte rows.
  auto model = bank::make_model("sm_90");
  SwizzleWhatIf w(model.get());
  w.on_kernel_begin({});
  emu::InstrInfo tma = testing::instr(1, 10, "cp.async.bulk.tensor.2d");
  emu::InstrInfo ld = testing::instr(2, 11, "ld.shared.v4.f32");
  auto obs = w.make_block_observer({0, 0, 0});
  emu::BulkCopy c{};
  c.phase = emu::BulkPhase::Issue;
  c.kind = emu::BulkKind::Load;
  c.tensor = true;
  c.swizzle = 3;
  c.shared_base = 1024;
  c.row_bytes = 128;
  c.rows = 8;
  c.pitch = 128;
  c.instr = &tma;
  obs->on_bulk_copy(c);
  auto swz = [](uint32_t a) { return a ^ ((a >> 7 & 7) << 4); };
  obs->on_memory(testing::access(emu::Space::Shared, emu::MemOp::Load, 16, &ld, 0, [&](unsigned l) {
    return uint64_t{swz(1024 + (l % 8) * 128 + (l / 8) * 16)};
  }));
  // A read outside the box is not the buffer's.
  obs->on_memory(testing::access(emu::Space::Shared, emu::MemOp::Load, 4, &ld, 0,
                                 [](unsigned l) { return 4ull * l; }));
  w.finish_block({0, 0, 0}, std::move(obs));
  ASSERT_EQ(w.buffers().size(), 1u);
  const SwizzleBuffer& b = w.buffers().begin()->second;
  EXPECT_EQ(b.reads, 1u);
  EXPECT_EQ(b.wavefronts[0], std::optional<uint64_t>(32));
  EXPECT_FALSE(b.wavefronts[1]);
  EXPECT_FALSE(b.wavefronts[2]);
  EXPECT_EQ(b.wavefronts[3], std::optional<uint64_t>(4));
}

// descriptor_under names each mode in the descriptor's own field order
// (0 none, 1 128B, 2 64B, 3 32B) with that mode's canonical strides.
TEST(SwizzleWhatIf, DescriptorUnderEachLayout) {
  const unsigned bytes[kSwizzleModes] = {0, 32, 64, 128};
  for (int m = 0; m < kSwizzleModes; ++m) {
    const bank::GmmaDescriptor d = bank::decode_gmma_descriptor(descriptor_under(2048 + 32, m));
    EXPECT_EQ(d.start, 2048u + 32) << m;
    EXPECT_EQ(d.swizzle_bytes, bytes[m]) << m;
    EXPECT_EQ(d.sbo, m == 0 ? 256u : 8u * bytes[m]) << m;
    EXPECT_EQ(d.lbo, m == 0 ? 128u : 16u) << m;
  }
}

// A B operand (N = 64, K-major f16) no TMA load fills, read through a
// 128B-swizzled descriptor, twice: a descriptor-only buffer whose reads
// cost N/4 = 16 wavefronts each under every layout (one per core matrix:
// bank::gmma_operand_cost), computed for each layout's own descriptor.
TEST(SwizzleWhatIf, DescriptorOnlyBufferUnderEachLayout) {
  auto model = bank::make_model("sm_90");
  SwizzleWhatIf w(model.get());
  w.on_kernel_begin({});
  emu::InstrInfo mma = testing::instr(3, 12, "wgmma.mma_async");
  auto obs = w.make_block_observer({0, 0, 0});
  emu::Wgmma g{};
  g.kind = emu::WgmmaKind::Mma;
  g.instr = &mma;
  g.n = 64;
  g.b.desc = descriptor_under(4096, 3);
  g.b.start = 4096;
  g.b.swizzle = 1;  // the field: 128B
  g.b.elem_bytes = 2;
  g.b.mn = 64;
  const std::vector<uint64_t> chunks = bank::gmma_core_matrices({g.b.desc, false, 2, 64, 0});
  std::vector<uint32_t> c32(chunks.begin(), chunks.end());
  g.b.chunks = c32;
  obs->on_wgmma(g);
  obs->on_wgmma(g);
  g.warp = 1;  // the warpgroup's other warps read the same operand: counted once
  obs->on_wgmma(g);
  w.finish_block({0, 0, 0}, std::move(obs));
  EXPECT_TRUE(w.buffers().empty());
  ASSERT_EQ(w.descriptor_buffers().size(), 1u);
  const DescriptorBuffer& d = w.descriptor_buffers().begin()->second;
  EXPECT_EQ(d.reads, 2u);
  EXPECT_EQ(d.swizzle, 3);  // 128B as a mode
  EXPECT_EQ(d.shared_base, 4096u);
  EXPECT_FALSE(d.operand_a);
  for (int m = 0; m < kSwizzleModes; ++m)
    EXPECT_EQ(d.wavefronts[m], std::optional<uint64_t>(32)) << m;
}

}  // namespace
}  // namespace smemlab::check
