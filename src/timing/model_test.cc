// The time model's behaviour: occupancy by the CUDA occupancy calculator's
// rules (worked by hand from its formulas), waves and tail arithmetic, the
// classification of PTX instructions, and the model's monotonicity.
#include "timing/model.h"

#include <gtest/gtest.h>

#include "timing/classify.h"
#include "timing/occupancy.h"

namespace smemlab::timing {
namespace {

TEST(Occupancy, CalculatorRules) {
  const Gpu& g = h100();
  // 8 warps x 32 regs: 64 warps/SM bind (8 blocks) before registers (8 too: 65536/8192).
  Occupancy o = occupancy(g, 256, 32, 0);
  EXPECT_EQ(o.blocks_per_sm, 8u);
  EXPECT_EQ(o.resident_warps, 64u);
  // 64 regs: 2048 per warp, 16384 per block -> 4 blocks by registers.
  o = occupancy(g, 256, 64, 0);
  EXPECT_EQ(o.blocks_per_sm, 4u);
  EXPECT_EQ(o.limited_by, "registers");
  // 33 regs round up to 1280 per warp (256-register units): 65536/(1280*8) = 6.
  EXPECT_EQ(occupancy(g, 256, 33, 0).blocks_per_sm, 6u);
  // 48 KiB + 1 KiB reserved = 50176 bytes: 233472/50176 = 4 blocks.
  o = occupancy(g, 128, 32, 48 * 1024);
  EXPECT_EQ(o.blocks_per_sm, 4u);
  EXPECT_EQ(o.limited_by, "shared memory");
  // 227 KiB is the most a block may have: one fits; one byte more does not.
  EXPECT_EQ(occupancy(g, 128, 32, 227 * 1024).blocks_per_sm, 1u);
  o = occupancy(g, 128, 32, 227 * 1024 + 1);
  EXPECT_EQ(o.blocks_per_sm, 0u);
  // 32-thread blocks: the 32-block limit binds before 64 warps.
  o = occupancy(g, 32, 16, 0);
  EXPECT_EQ(o.blocks_per_sm, 32u);
  EXPECT_EQ(o.limited_by, "blocks");
  EXPECT_EQ(occupancy(g, 1024, 0, 0).blocks_per_sm, 2u);
  // 255 registers: 8192 per warp, so 8 warps of a block fill the file.
  EXPECT_EQ(occupancy(g, 256, 255, 0).blocks_per_sm, 1u);
  EXPECT_EQ(occupancy(g, 512, 255, 0).blocks_per_sm, 0u);
}

TEST(Waves, FullWavesAndTail) {
  const Gpu& g = h100();
  Waves w = waves(g, 1000, 4);  // 528 slots
  EXPECT_EQ(w.full, 1u);
  EXPECT_EQ(w.tail_blocks, 472u);
  EXPECT_EQ(w.per_busiest_sm, 8u);  // ceil(1000/132)
  EXPECT_DOUBLE_EQ(w.count(), 2.0);
  w = waves(g, 528, 4);
  EXPECT_EQ(w.full, 1u);
  EXPECT_EQ(w.tail_blocks, 0u);
  w = waves(g, 10, 4);
  EXPECT_EQ(w.full, 0u);
  EXPECT_EQ(w.tail_blocks, 10u);
  EXPECT_EQ(w.per_busiest_sm, 1u);
}

TEST(Classify, PtxToPipes) {
  EXPECT_EQ(pipe_of("fma.rn.f32"), Pipe::Fp32);
  EXPECT_EQ(pipe_of("setp.lt.f32"), Pipe::Fp32);
  EXPECT_EQ(pipe_of("add.s32"), Pipe::Int);
  EXPECT_EQ(pipe_of("mad.lo.s32"), Pipe::Int);
  EXPECT_EQ(pipe_of("cvt.rzi.s32.f32"), Pipe::Int);
  EXPECT_EQ(pipe_of("fma.rn.f64"), Pipe::Fp64);
  EXPECT_EQ(pipe_of("ex2.approx.f32"), Pipe::Sfu);
  EXPECT_EQ(pipe_of("ld.shared.v4.f32"), Pipe::Lsu);
  EXPECT_EQ(pipe_of("st.global.f32"), Pipe::Lsu);
  EXPECT_EQ(pipe_of("bar.sync"), Pipe::Control);
  EXPECT_EQ(pipe_of("bra.uni"), Pipe::Control);
  EXPECT_EQ(pipe_of("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), Pipe::Tensor);
}

// A 4096x4096 float transpose through a 32x32 tile, 32x8 threads: what the
// analyses count for it, with `ways` wavefronts per shared load request
// (32: the naive tile's column read; 1: padded).
LaunchWork transpose_work(double ways) {
  LaunchWork w;
  w.blocks = 128 * 128;
  w.threads_per_block = 256;
  w.regs_per_thread = 32;
  w.shared_per_block = 32 * 32 * 4;
  const double warps = double(w.blocks) * 8, n = 4096.0 * 4096.0;
  LineWork load{"t.cu", 10}, store{"t.cu", 12};
  load.pipe[int(Pipe::Lsu)] = warps * 8;  // 4 global loads + 4 shared stores per thread
  load.pipe[int(Pipe::Int)] = warps * 20;
  load.l1_sectors = n * 4 / 32;
  load.load_requests = warps * 4;
  load.shared_wavefronts = warps * 4;
  load.block_barriers = double(w.blocks);
  store.pipe[int(Pipe::Lsu)] = warps * 8;
  store.l1_sectors = n * 4 / 32;
  store.shared_wavefronts = warps * 4 * ways;
  w.lines = {load, store};
  w.footprint_bytes = n * 8;
  w.mlp = 4;
  return w;
}

TEST(Model, ConflictBoundTileSlowerThanPadded) {
  Prediction naive = predict(transpose_work(32)), padded = predict(transpose_work(1));
  ASSERT_TRUE(naive.valid);
  ASSERT_TRUE(padded.valid);
  EXPECT_EQ(naive.limiter, Resource::Shared);
  EXPECT_EQ(padded.limiter, Resource::Dram);
  EXPECT_GT(naive.duration_ns, 1.3 * padded.duration_ns);
  // The column read (line 12) holds 32/33 of the wavefronts.
  ASSERT_FALSE(naive.lines.empty());
  EXPECT_EQ(naive.lines.front().line, 12);
  EXPECT_NEAR(naive.lines.front().share, 32.0 / 33.0, 1e-9);
  // DRAM: 128 MiB in and out at the measured copy bandwidth, plus the launch.
  EXPECT_NEAR(padded.duration_ns, 4096.0 * 4096 * 8 / 2917.8 + 2000, 1.0);
}

TEST(Model, MonotoneInWavefronts) {
  double last = 0;
  for (double ways : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0}) {
    Prediction p = predict(transpose_work(ways));
    EXPECT_GE(p.duration_ns, last) << ways;
    last = p.duration_ns;
  }
}

TEST(Model, LatencyBindsFewWarps) {
  // One block of one warp doing 1000 dependent loads: no bandwidth binds,
  // 1000 round trips to DRAM do.
  LaunchWork w;
  w.blocks = 1;
  w.threads_per_block = 32;
  LineWork l{"c.cu", 3};
  l.pipe[int(Pipe::Lsu)] = 1000;
  l.load_requests = 1000;
  l.l1_sectors = 1000;
  w.lines = {l};
  w.footprint_bytes = 1000 * 32;
  Prediction p = predict(w);
  EXPECT_EQ(p.limiter, Resource::Latency);
  EXPECT_NEAR(p.resource_ns[int(Resource::Latency)], 1000 * 692.4 / 1.98, 1.0);
  // More warps in flight at once: the same loads take less time.
  w.threads_per_block = 256;
  EXPECT_LT(predict(w).duration_ns, p.duration_ns);
}

TEST(Model, TailOfLastWave) {
  // 133 blocks on 132 SMs, one block per SM (shared memory): two rounds on
  // one SM, so twice the time of 132 blocks for per-SM work.
  LaunchWork w;
  w.threads_per_block = 256;
  w.shared_per_block = 200 * 1024;
  LineWork l{"k.cu", 1};
  l.pipe[int(Pipe::Fp32)] = 1e6;
  w.lines = {l};
  w.blocks = 132;
  Prediction a = predict(w);
  w.blocks = 133;
  l.pipe[int(Pipe::Fp32)] = 1e6 * 133 / 132;  // the same work per block
  w.lines = {l};
  Prediction b = predict(w);
  EXPECT_EQ(b.waves.tail_blocks, 1u);
  EXPECT_NEAR(b.resource_ns[int(Resource::Issue)], 2 * a.resource_ns[int(Resource::Issue)], 1e-6);
}

TEST(Model, DramFootprintRules) {
  const Gpu& g = h100();
  // Unknown footprint: every L2 sector from DRAM.
  EXPECT_DOUBLE_EQ(dram_bytes(g, -1, 1e9), 1e9);
  // Fits in L2: read once.
  EXPECT_DOUBLE_EQ(dram_bytes(g, 16e6, 1e9), 16e6);
  // Never more than the traffic itself.
  EXPECT_DOUBLE_EQ(dram_bytes(g, 1e9, 1e8), 1e8);
  // Larger than L2: re-reads partly miss.
  double d = dram_bytes(g, 2 * g.l2_bytes, 10 * g.l2_bytes);
  EXPECT_DOUBLE_EQ(d, 2 * g.l2_bytes + 8 * g.l2_bytes * 0.5);
}

TEST(Model, BlockThatDoesNotFit) {
  LaunchWork w;
  w.blocks = 1;
  w.threads_per_block = 2048;
  Prediction p = predict(w);
  EXPECT_FALSE(p.valid);
  EXPECT_NE(p.why_not.find("threads per block"), std::string::npos);
}

}  // namespace
}  // namespace smemlab::timing
