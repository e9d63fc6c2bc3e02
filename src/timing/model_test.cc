// The time model's behaviour: occupancy by the CUDA occupancy calculator's
// rules (worked by hand from its formulas), waves and tail arithmetic, the
// classification of PTX instructions, and the model's monotonicity.
#include "timing/model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>

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
  EXPECT_TRUE(own_shared_access("ld.shared.v4.f32"));
  EXPECT_TRUE(own_shared_access("atom.shared.add.u32"));
  EXPECT_TRUE(own_shared_access("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
  EXPECT_FALSE(own_shared_access("ld.shared::cluster.u32"));  // a peer's: DSMEM
  EXPECT_FALSE(own_shared_access("cp.async.ca.shared.global"));
  EXPECT_FALSE(own_shared_access("ld.global.f32"));
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
  // Shared wavefronts and global sectors (4 a cycle) share the L1 data path.
  EXPECT_EQ(naive.limiter, Resource::L1);
  EXPECT_EQ(padded.limiter, Resource::Dram);
  EXPECT_GT(naive.duration_ns, 1.3 * padded.duration_ns);
  const double warps = 128.0 * 128 * 8, global = 4096.0 * 4096 * 4 / 32 / 4;
  EXPECT_NEAR(naive.resource_ns[int(Resource::L1)],
              (warps * 4 * 33 + 2 * global) * 125 / 16384 / 1.98, 1e-6);
  EXPECT_GT(naive.resource_ns[int(Resource::L1)], naive.resource_ns[int(Resource::Shared)]);
  // The column read (line 12) holds its wavefronts and its store's cycles.
  ASSERT_FALSE(naive.lines.empty());
  EXPECT_EQ(naive.lines.front().line, 12);
  EXPECT_NEAR(naive.lines.front().share, (warps * 4 * 32 + global) / (warps * 4 * 33 + 2 * global),
              1e-9);
  // DRAM: 128 MiB in and out at the measured copy bandwidth, plus the launch.
  EXPECT_NEAR(padded.duration_ns, 4096.0 * 4096 * 8 / 3078 + 7200, 1.0);
  // Nsight Compute's duration: the kernel floor instead of the launch path.
  EXPECT_NEAR(padded.kernel_ns, padded.duration_ns - 7200 + 2000, 1e-6);
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
  EXPECT_NEAR(p.resource_ns[int(Resource::Latency)], 1000 * 692.4 / 1.98, 1.0);
  // One warp: its chain is the same round trips, each also issued (a warp
  // issues 1 a clock, more than its block's 1 warp at 4 a clock), and the
  // block holds its slot block_slot_cycles (456) longer.
  EXPECT_EQ(p.limiter, Resource::Chain);
  EXPECT_NEAR(p.resource_ns[int(Resource::Chain)], (1000 * (692.4 + 1) + 456) / 1.98, 1.0);
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

// Re-reads whose distances spread evenly over the block's span: the
// fraction within x of it is `reuse` x.
ReuseProfile even_distances(double reuse) {
  ReuseProfile r;
  for (int i = 0; i < kReuseOctaves; ++i) r.within[i] = std::ldexp(reuse, -i);
  return r;
}

// A naive matmul's loads: each block re-reads its rows and columns, so 15
// of 16 cached sectors hit in L1 while the block's bytes fit.
LaunchWork reuse_work(double block_bytes) {
  LaunchWork w;
  w.blocks = 4096;
  w.threads_per_block = 256;
  LineWork l{"m.cu", 51};
  l.pipe[int(Pipe::Lsu)] = 4096.0 * 8 * 1024;
  l.load_requests = l.pipe[int(Pipe::Lsu)];
  l.l1_sectors = l.cached_loads = 4096.0 * 16 * block_bytes / 32;
  w.lines = {l};
  w.footprint_bytes = 32e6;
  w.l1_reuse = even_distances(15.0 / 16);
  w.l1_block_bytes = block_bytes;
  w.mlp = 2;
  return w;
}

TEST(Model, L1HitsWithinBlocks) {
  const double kib = 1024;
  Prediction p = predict(reuse_work(62 * kib));
  ASSERT_TRUE(p.valid);
  EXPECT_EQ(p.occupancy.blocks_per_sm, 8u);
  // 8 resident blocks x 62 KiB = 496 KiB, twice the 248 KiB of L1 (8 KiB of
  // shared memory reserved): the re-reads within half the span hit.
  EXPECT_NEAR(p.l1_hit_fraction, 15.0 / 32, 1e-12);
  EXPECT_NEAR(p.l2_bytes, 4096.0 * 16 * 62 * kib * (1 - p.l1_hit_fraction), 1.0);
  // Between octaves: interpolated in log2 of the distance (496 x 4/3 KiB
  // loaded: x = 0.375, 0.415 octaves past 2^-1).
  Prediction p3 = predict(reuse_work(62 * kib * 4 / 3));
  const double f = std::log2(4.0 / 3);
  EXPECT_NEAR(p3.l1_hit_fraction, 15.0 / 32 + f * (15.0 / 64 - 15.0 / 32), 1e-12);
  // Lockstep re-reads (all at the shortest distance, like warps reading one
  // row together) hit however much the blocks load.
  LaunchWork lockstep = reuse_work(62 * kib);
  for (double& x : lockstep.l1_reuse.within) x = 15.0 / 16;
  EXPECT_NEAR(predict(lockstep).l1_hit_fraction, 15.0 / 16, 1e-12);
  // Small blocks fit: every re-read hits.
  Prediction q = predict(reuse_work(16 * kib));
  EXPECT_NEAR(q.l1_hit_fraction, 15.0 / 16, 1e-12);
  EXPECT_NEAR(q.l2_bytes, 4096.0 * 16 * 16 * kib / 16, 1.0);
  // Without reuse, all sectors go on to L2; hits also shorten the round trip.
  LaunchWork none = reuse_work(16 * kib);
  none.l1_reuse = {};
  Prediction n = predict(none);
  EXPECT_DOUBLE_EQ(n.l2_bytes, 4096.0 * 16 * 16 * kib);
  EXPECT_LT(q.resource_ns[int(Resource::Latency)], n.resource_ns[int(Resource::Latency)]);
  // Stores never hit: sectors that are not cached loads all go on.
  none = reuse_work(16 * kib);
  none.lines[0].cached_loads = 0;
  EXPECT_DOUBLE_EQ(predict(none).l2_bytes, n.l2_bytes);
}

TEST(Model, BlockChainOfATreeReduction) {
  // 264 blocks of 256 threads, 8 steps of: two shared loads, an add, a
  // shared store and a barrier. Each warp waits for its loads; 8 blocks per
  // SM, 2 blocks on the busiest SM, so one round.
  LaunchWork w;
  w.blocks = 264;
  w.threads_per_block = 256;
  const double warps = 264.0 * 8;
  LineWork l{"r.cu", 40};
  l.pipe[int(Pipe::Lsu)] = warps * 8 * 3;
  l.pipe[int(Pipe::Int)] = warps * 8;
  l.pipe[int(Pipe::Control)] = warps * 8;
  l.shared_round_trips = warps * 8 * 2;
  l.shared_wavefronts = warps * 8 * 3;
  l.block_barriers = 264.0 * 8;
  w.lines = {l};
  Prediction p = predict(w);
  // Issue: the block's 8 warps x 5 instructions at 4 a clock (10) beats a
  // warp's own 5; then two shared loads and a barrier a step, the barrier
  // after shared loads costing barrier_drain_load (5.63) a warp of the
  // block (h100.def, measured: drain_lds_T256 38-77 cycles).
  const double chain = 8 * (10 + 2 * 28.7) + 8 * (5.63 * 8);
  EXPECT_NEAR(p.chain_cycles, chain, 1e-9);
  EXPECT_EQ(p.limiter, Resource::Chain);
  // Each block also holds its slot block_slot_cycles (456) longer.
  const double slot = chain + 456;
  EXPECT_NEAR(p.resource_ns[int(Resource::Chain)], slot / 1.98, 1e-9);
  // Four times the blocks: 8 on the busiest SM still fit at once, one
  // round, and the SM starts one only every 159 cycles: the slower binds
  // (the round, since a barrier drains the block's loads).
  for (LineWork* x : {&w.lines[0]}) {
    for (double& q : x->pipe) q *= 4;
    x->shared_round_trips *= 4;
    x->shared_wavefronts *= 4;
    x->block_barriers *= 4;
  }
  w.blocks *= 4;
  EXPECT_NEAR(predict(w).resource_ns[int(Resource::Chain)], std::max(slot, 8 * 159.0) / 1.98, 1e-9);
  // Eight times: two rounds.
  for (double& q : w.lines[0].pipe) q *= 2;
  w.lines[0].shared_round_trips *= 2;
  w.lines[0].block_barriers *= 2;
  w.blocks *= 2;
  EXPECT_NEAR(predict(w).resource_ns[int(Resource::Chain)], std::max(2 * slot, 16 * 159.0) / 1.98,
              1e-9);
}

// The block_spin micro-benchmark's shape (h100.def block_launch_cycles,
// block_slot_cycles): 65536 blocks of 256 threads whose warps each spend C
// cycles issuing dependent ALU work; measured per block per SM: 160 at
// C = 0..512, 183 at 1024, 311 at 2048, 569 at 4096, 1089 at 8192.
TEST(Model, BlockLaunchAndSlotTime) {
  auto per_block = [](double c) {
    LaunchWork w;
    w.blocks = 65536;
    w.threads_per_block = 256;
    LineWork l{"spin.cu", 1};
    l.pipe[int(Pipe::Int)] = 65536.0 * 8;  // one instruction a warp ...
    l.dependent_issue = 65536.0 * 8 * c;   // ... on a dependent path of c cycles
    w.lines = {l};
    Prediction p = predict(w);
    return p.resource_ns[int(Resource::Chain)] * 1.98 / double(p.waves.per_busiest_sm);
  };
  // 497 blocks on the busiest SM, 8 at once: ceil(497 / 8) = 63 rounds.
  EXPECT_NEAR(per_block(0), 159, 1e-9);
  EXPECT_NEAR(per_block(512), 159, 1e-9);
  EXPECT_NEAR(per_block(4096), (4096 + 456) * 63 / 497.0, 1e-9);
  for (auto [c, measured] :
       {std::pair{1024.0, 183.0}, {2048.0, 311.0}, {4096.0, 569.0}, {8192.0, 1089.0}})
    EXPECT_NEAR(per_block(c) / measured, 1.0, 0.06) << c;
}

// A column-major store: every sector a request writes is partial, so the
// L2 takes them at its merge rate, not its bandwidth; whole-sector stores
// of the same sectors go at the bandwidth.
TEST(Model, PartialSectorStoresAtTheL2MergeRate) {
  LaunchWork w;
  w.blocks = 132 * 64;
  w.threads_per_block = 256;
  LineWork l{"t.cu", 63};
  const double requests = 132.0 * 64 * 8 * 16;
  l.pipe[int(Pipe::Lsu)] = requests;
  l.l1_sectors = requests * 32;
  w.lines = {l};
  w.footprint_bytes = 1e6;  // DRAM far below L2's time
  const Gpu& g = h100();
  LaunchWork whole = w;
  Prediction pw = predict(whole);
  EXPECT_NEAR(pw.resource_ns[int(Resource::L2)], requests * 32 * 32 / g.l2_bandwidth_gbs, 1e-6);
  w.partial_store_sectors = requests * 32;
  Prediction pp = predict(w);
  EXPECT_NEAR(pp.resource_ns[int(Resource::L2)], requests * 32 / g.l2_partial_writes, 1e-6);
  EXPECT_EQ(pp.limiter, Resource::L2);
  // Never more partial sectors than sectors reach L2.
  w.partial_store_sectors = requests * 64;
  EXPECT_NEAR(predict(w).resource_ns[int(Resource::L2)], pp.resource_ns[int(Resource::L2)], 1e-6);
}

// microbench.cu's phase_l2_S0_T1024_R2 shape: 264 blocks of 1024 threads
// (2 per SM, one round), 256 iterations of: each warp loads a word from L2
// and stores it to shared memory, a barrier, 32 conflict-free shared loads
// per warp, a barrier. Phase 1 keeps the data path busy (2 blocks x 32
// warps x 32 wavefronts) while phase 0 waits on L2; in step, the SM pays
// both, one after the other (measured 2803-2821 cycles an iteration
// against 2048 on the data path, docs/validation.md §6.7).
// The phase rows' two lines over the grid: phase 0 (the L2 load, its
// shared store, a barrier) and phase 1 (32 shared loads, a barrier).
std::pair<LineWork, LineWork> phase_l2_lines(double warps, double it, double warps_per_block = 32) {
  LineWork a{"p.cu", 10};
  a.pipe[int(Pipe::Lsu)] = warps * it * 2;
  a.load_requests = warps * it;
  a.l1_sectors = warps * it * 4;
  a.shared_wavefronts = warps * it;
  a.shared_stores = warps * it;
  a.block_barriers = warps / warps_per_block * it;
  LineWork b{"p.cu", 20};
  b.phase = 1;
  b.pipe[int(Pipe::Lsu)] = warps * it * 32;
  b.shared_wavefronts = warps * it * 32;
  b.shared_round_trips = warps * it * 32;
  b.block_barriers = warps / warps_per_block * it;
  return {a, b};
}

LaunchWork phase_l2_launch(uint64_t blocks, std::vector<LineWork> lines, uint32_t threads = 1024) {
  LaunchWork w;
  w.blocks = blocks;
  w.threads_per_block = threads;
  w.regs_per_thread = 32;
  w.footprint_bytes = 4 << 20;
  w.lines = std::move(lines);
  return w;
}

TEST(Model, PhasesInStep) {
  const double warps = 264.0 * 32, it = 256;
  auto [a, b] = phase_l2_lines(warps, it);
  auto launch = [&](std::vector<LineWork> lines) {
    return predict(phase_l2_launch(264, std::move(lines)));
  };
  const Prediction alone_a = launch({a}), alone_b = launch({b});
  const Prediction p = launch({a, b});
  EXPECT_EQ(p.phases, 2u);
  // Phase 1: load/store issue (2 x 32 x 32 at 0.993 a clock) beats the
  // data path's 2048 and the block's own chain, then its barrier drains the
  // shared loads of the block's 32 warps (5.63 a warp, once for the round:
  // the two blocks drain together); phase 0: its chain (an L2 round trip,
  // the issue, the barrier after its shared stores, 3.53 a warp) beats the
  // round's 2 x 32 x 2 cycles.
  const double phase1 = 2 * 32 * 32 / h100().lsu_rate, drain1 = 5.63 * 32;
  ASSERT_GT(phase1, alone_b.chain_cycles / it - drain1);
  ASSERT_GT(alone_a.chain_cycles / it, 2 * 32 * 2.0);
  const double round = it * (alone_a.chain_cycles / it + phase1 + drain1);
  // Measured 2803-2821 cycles an iteration (the data path and the L2
  // phase, one after the other, each ended by its barrier).
  EXPECT_NEAR(round / it / 2812, 1.0, 0.1);
  EXPECT_NEAR(p.phase_round_cycles, round, 1e-6 * round);
  EXPECT_EQ(p.limiter, Resource::Phases);
  EXPECT_NEAR(p.resource_ns[int(Resource::Phases)], round / 1.98, 1e-6 * round);
  // Beyond every other term: the max() of the whole block's work would
  // have the SM lend phase 0's waits to the other block's phase 1.
  for (int r = 0; r < kResources; ++r)
    if (r != int(Resource::Phases)) {
      EXPECT_GT(p.resource_ns[int(Resource::Phases)], p.resource_ns[r]);
    }
  // Each line's share of the term: its part of its phase's binding term.
  ASSERT_EQ(p.lines.size(), 2u);
  EXPECT_NEAR(p.lines[0].share, it * (phase1 + drain1) / round, 1e-9);
  // The same work in one phase (no barrier between): no phase term, the
  // old maximum binds.
  b.phase = 0;
  const Prediction one = launch({a, b});
  EXPECT_EQ(one.phase_round_cycles, 0);
  EXPECT_NE(one.limiter, Resource::Phases);
  EXPECT_LT(one.duration_ns, p.duration_ns);
  // A what-if's wavefronts (kEveryPhase) spread like the phases' own:
  // removing all of them leaves phase 1 bound by issue alone.
  b.phase = 1;
  LineWork what_if{"what-if", 0};
  what_if.phase = kEveryPhase;
  what_if.shared_wavefronts = -(a.shared_wavefronts + b.shared_wavefronts);
  const Prediction fixed = launch({a, b, what_if});
  EXPECT_NEAR(fixed.phase_round_cycles, round, 1e-6 * round);  // issue binds phase 1 either way
}

// The same work as PhasesInStep in four rounds of resident blocks (4 x
// the blocks, a quarter of the iterations each: the grid's totals
// unchanged). The first round runs in step; the three later ones, their
// blocks starting as others retire, keep part of its excess over the round
// with its phases overlapped (the largest resource or chain of the whole
// round): 1 - 0.50 x (1 - 1/R) with R resident blocks (h100.def
// phase_step_loss), 0.75 for two 1024-thread blocks, 0.5625 for eight
// 256-thread ones. Measured (microbench.cu drain_rounds_l2_T1024_R2 on the
// H100: 2696 cycles an iteration in four rounds against 2829 in one;
// kept_l2 on the H200: 2669 against 2800 with T1024 x 2, 2422 against
// 2556 with T256 x 8).
TEST(Model, LaterRoundsKeepPartOfTheStep) {
  const double warps = 264.0 * 32, it = 256;
  auto check = [&](uint32_t threads, double kept, double measured) {
    const double per_block = threads / 32.0, blocks = warps / per_block;
    auto [a, b] = phase_l2_lines(warps, it, per_block);
    const Prediction p = predict(phase_l2_launch(uint64_t(blocks), {a, b}, threads));
    const double round = p.phase_round_cycles;
    const Prediction p4 = predict(phase_l2_launch(uint64_t(4 * blocks), {a, b}, threads));
    EXPECT_NEAR(p4.phase_round_cycles, round / 4, 1e-6 * round);
    const double overlap = p4.phase_overlap_cycles;
    EXPECT_GT(overlap, 0);
    EXPECT_LT(overlap, p4.phase_round_cycles);
    const double later = overlap + kept * (p4.phase_round_cycles - overlap);
    EXPECT_NEAR(p4.resource_ns[int(Resource::Phases)] * 1.98, p4.phase_round_cycles + 3 * later,
                1e-6 * round);
    const double ratio =
        p4.resource_ns[int(Resource::Phases)] / p.resource_ns[int(Resource::Phases)];
    EXPECT_NEAR(ratio, measured, 0.03) << threads << " threads";
  };
  check(1024, 0.75, 2669.0 / 2800.0);
  EXPECT_NEAR(2669.0 / 2800.0, 2696.0 / 2829.0, 0.01);  // the H200 stands in for the H100
  check(256, 0.5625, 2422.0 / 2556.0);
}

// Loads that wait for L2 slow the load/store pipe (h100.def
// lsu_wait_slowdown, measured: tests/timing/microbench_l1miss.cu, 64 warps
// per SM in batches of 8 loads: 1.20 x the all-hit cycles when every batch
// held a waiting load). The naive matmul's shape: 8 blocks of 256 threads
// per SM, every request load/store bound.
TEST(Model, LoadsWaitingForL2SlowTheLoadStorePipe) {
  auto lsu = [](double waiting, double mlp, int from = 2) {
    LaunchWork w;
    w.blocks = 4096;
    w.threads_per_block = 256;
    w.regs_per_thread = 32;
    LineWork l{"m.cu", 51};
    l.pipe[int(Pipe::Lsu)] = l.load_requests = 4096.0 * 8 * 1024;
    w.lines = {l};
    w.mlp = mlp;
    // `waiting` of the requests have a sector first loaded within 2
    // memory instructions (the round trip spans 290.7 x 0.993 / 64 = 4.5).
    for (int i = from; i < kReuseOctaves; ++i) w.l1_reuse.waiting[i] = waiting;
    return predict(w).resource_ns[int(Resource::Lsu)];
  };
  const double hits = lsu(0, 8);
  EXPECT_NEAR(hits, 32 * 8 * 1024 / 0.993 / 1.98, 1e-6 * hits);  // 32 blocks on the busiest SM
  EXPECT_NEAR(lsu(1, 8) / hits, 1.20, 1e-9);
  // One waiting request in a batch of 8 holds the batch: the whole slowdown.
  EXPECT_NEAR(lsu(1.0 / 8, 8) / hits, 1.20, 1e-9);
  // One in 16 with batches of 8: half the batches wait.
  EXPECT_NEAR(lsu(1.0 / 16, 8) / hits, 1.10, 1e-9);
  // Requests whose sectors were all first loaded 8 or more of the warp's
  // memory instructions back (octave 4 on) are L1 hits by then: no wait.
  EXPECT_NEAR(lsu(1, 8, 4) / hits, 1.0, 1e-9);
  // 4 to 8 back: interpolated in log2 over the 4.5-instruction window.
  const double part = std::log2(290.7 * 0.993 / 64) - 2;
  EXPECT_NEAR(lsu(1, 1, 3) / hits, 1 + 0.2 * part, 1e-6);  // batches of one load
}

// A block barrier after a phase costs the SM the drain of the block's
// warps (h100.def barrier_drain_*, measured: tests/timing/microbench.cu's
// drain rows, one 1024-thread block per SM: 157-170 cycles after shared
// loads, 85-126 after shared stores, 53-79 after FFMAs): per warp of the
// block 5.63, 3.53 or 2.24, never below barrier_cycles (19.2).
TEST(Model, BarrierDrainByPhaseKind) {
  enum Kind { Loads, Stores, Alu };
  auto barrier = [](uint32_t threads, Kind kind) {
    LaunchWork w;
    w.blocks = 132;
    w.threads_per_block = threads;
    const double warps = 132.0 * threads / 32;
    LineWork l{"d.cu", 1};
    l.pipe[int(Pipe::Fp32)] = warps;
    if (kind == Loads) l.shared_round_trips = warps;
    if (kind == Stores) l.shared_stores = warps;
    w.lines = {l};
    const double without = predict(w).chain_cycles;
    w.lines[0].block_barriers = 132;
    return predict(w).chain_cycles - without;
  };
  EXPECT_NEAR(barrier(1024, Loads), 5.63 * 32, 1e-9);
  EXPECT_NEAR(barrier(1024, Stores), 3.53 * 32, 1e-9);
  EXPECT_NEAR(barrier(1024, Alu), 2.24 * 32, 1e-9);
  EXPECT_NEAR(barrier(256, Loads), 5.63 * 8, 1e-9);
  EXPECT_NEAR(barrier(128, Alu), 19.2, 1e-9);  // 2.24 x 4 < barrier_cycles
  // Within 10% of the measured rows' means at 1024 threads (164.6, 104.7).
  EXPECT_NEAR(barrier(1024, Loads) / 164.6, 1.0, 0.1);
  EXPECT_NEAR(barrier(1024, Stores) / 104.7, 1.0, 0.1);
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
