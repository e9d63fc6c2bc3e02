// Thread-block clusters end to end: kernels/cluster.cu (nvcc 13.0, sm_90a
// and sm_100a PTX) against CPU references: a distributed-shared-memory
// histogram (clusters of 2 from __cluster_dims__, of 4 from the launch),
// the cluster special registers in a 3-D grid, a peer block's mbarrier
// and the bugs a cluster adds (deadlock, a peer that exited, a rank
// outside the cluster).
#include <algorithm>
#include <random>

#include "emu_test_util.h"

namespace smemlab::emu::test {
namespace {

class ClusterKernels : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    m = Module::load_file(dev, ptx_path(std::string("cluster.") + GetParam() + ".ptx"));
  }
  Device dev;
  std::unique_ptr<Module> m;
};

std::vector<int> reference_histogram(const std::vector<int>& in, int nbins) {
  std::vector<int> h(static_cast<size_t>(nbins), 0);
  for (int v : in) ++h[static_cast<size_t>(std::clamp(v, 0, nbins - 1))];
  return h;
}

TEST_P(ClusterKernels, DistributedSharedMemoryHistogram) {
  std::mt19937 rng(7);
  std::vector<int> in(20000);
  for (int& v : in) v = static_cast<int>(rng() % 80) - 6;  // some clamped at both ends
  uint64_t din = upload(dev, in);
  struct Case {
    const char* kernel;
    Dim3 cluster, grid;
    int bins_per_block;
  } cases[] = {{"histCluster2", {1, 1, 1}, {6}, 32},  // __cluster_dims__(2,1,1)
               {"histAnyCluster", {4, 1, 1}, {8}, 16},
               {"histAnyCluster", {2, 1, 1}, {4}, 40}};
  for (const Case& c : cases)
    for (const char* sched : {"gpu", "serial", "random:5"}) {
      SCOPED_TRACE(testing::Message() << c.kernel << " cluster " << c.cluster.x << " " << sched);
      const int csize = c.cluster.x == 1 ? 2 : static_cast<int>(c.cluster.x);
      const int nbins = csize * c.bins_per_block;
      std::vector<int> zero(static_cast<size_t>(nbins), 0);
      uint64_t dbins = upload(dev, zero);
      LaunchConfig cfg{c.grid, {128}, static_cast<uint32_t>(c.bins_per_block * 4)};
      cfg.cluster = c.cluster;
      cfg.schedule = *parse_schedule(sched);
      auto st = launch(*m, find_kernel(*m, c.kernel), cfg, dbins, nbins, c.bins_per_block, din,
                       static_cast<int>(in.size()));
      ASSERT_TRUE(st.ok()) << st.error->what();
      EXPECT_EQ(st.blocks_run, c.grid.count());
      EXPECT_EQ(download<int>(dev, dbins, static_cast<size_t>(nbins)),
                reference_histogram(in, nbins));
    }
}

TEST_P(ClusterKernels, SpecialRegistersIn3D) {
  const Dim3 grid{4, 2, 4}, cluster{2, 1, 2};
  uint64_t out = dev.malloc(grid.count() * 16 * 4);
  LaunchConfig cfg{grid, {32}};
  cfg.cluster = cluster;
  auto st = launch(*m, find_kernel(*m, "clusterRegs"), cfg, out);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto v = download<unsigned>(dev, out, grid.count() * 16);
  for (uint32_t z = 0; z < grid.z; ++z)
    for (uint32_t y = 0; y < grid.y; ++y)
      for (uint32_t x = 0; x < grid.x; ++x) {
        const unsigned* o = &v[((z * grid.y + y) * grid.x + x) * 16];
        SCOPED_TRACE(testing::Message() << x << "," << y << "," << z);
        const unsigned rx = x % 2, rz = z % 2;
        EXPECT_EQ(o[0], rx + 2 * rz);  // rank: x fastest
        EXPECT_EQ(o[1], 4u);
        EXPECT_EQ(o[2], x / 2);
        EXPECT_EQ(o[3], y);
        EXPECT_EQ(o[4], z / 2);
        EXPECT_EQ(o[5], 2u);
        EXPECT_EQ(o[6], 2u);
        EXPECT_EQ(o[7], 2u);
        EXPECT_EQ(o[8], rx);
        EXPECT_EQ(o[9], 0u);
        EXPECT_EQ(o[10], rz);
        EXPECT_EQ(o[11], 2u);
        EXPECT_EQ(o[12], 1u);
        EXPECT_EQ(o[13], 2u);
        EXPECT_EQ(o[14], 1u);  // explicit
        EXPECT_EQ(o[15], 4u);
      }
  // A plain launch is a grid of 1x1x1 clusters.
  st = launch(*m, find_kernel(*m, "clusterRegs"), LaunchConfig{grid, {32}}, out);
  ASSERT_TRUE(st.ok()) << st.error->what();
  v = download<unsigned>(dev, out, grid.count() * 16);
  for (uint32_t b = 0; b < grid.count(); ++b) {
    const unsigned* o = &v[b * 16];
    const unsigned want[16] = {0, 1, b % 4, (b / 4) % 2, b / 8, 4, 2, 4, 0, 0, 0, 1, 1, 1, 0, 1};
    for (int i = 0; i < 16; ++i) EXPECT_EQ(o[i], want[i]) << b << " " << i;
  }
}

TEST_P(ClusterKernels, PeerMbarrierElectAndRepeatedAsmLabels) {
  uint64_t out = dev.malloc(2 * 64 * 4);
  auto st = launch(*m, find_kernel(*m, "peerBarrier"), LaunchConfig{{2}, {64}}, out);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto v = download<int>(dev, out, 128);
  for (int rank = 0; rank < 2; ++rank)
    for (int t = 0; t < 64; ++t)
      EXPECT_EQ(v[static_cast<size_t>(rank * 64 + t)], 100 + (rank ^ 1) + (t % 32 == 0 ? 1000 : 0))
          << rank << " " << t;
}

TEST_P(ClusterKernels, BugsAreReported) {
  uint64_t out = dev.malloc(128 * 4);
  const std::string k = find_kernel(*m, "clusterBugs");
  auto st = launch(*m, k, LaunchConfig{{2}, {64}}, out, 0);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::Deadlock);
  EXPECT_NE(st.error->message.find("[127 of 128 threads of the cluster arrived]"),
            std::string::npos)
      << st.error->what();
  EXPECT_NE(st.error->message.find("block rank 1 (block (1,0,0)) warp 0 lanes 0x00000001 wait at "
                                   "bar.sync"),
            std::string::npos)
      << st.error->what();
  EXPECT_NE(st.error->source.find("cluster.cu:"), std::string::npos) << st.error->source;

  st = launch(*m, k, LaunchConfig{{2}, {64}}, out, 1);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::ClusterExit);
  EXPECT_EQ(st.error->block.x, 0u);
  EXPECT_NE(st.error->message.find("block rank 1 (block (1,0,0)), which has exited"),
            std::string::npos)
      << st.error->what();

  st = launch(*m, k, LaunchConfig{{2}, {64}}, out, 2);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::OutOfBounds);
  EXPECT_NE(st.error->message.find("of block rank 2) is outside the cluster of 2 blocks"),
            std::string::npos)
      << st.error->what();
}

TEST_P(ClusterKernels, HopperControlAndClusterShapeChecks) {
  uint64_t out = dev.malloc(32 * 4);
  auto st = launch(*m, find_kernel(*m, "hopperControl"), LaunchConfig{{1}, {32}}, out);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto v = download<int>(dev, out, 32);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(v[static_cast<size_t>(i)], i);
  // __cluster_dims__(2,1,1): a grid of 3 blocks, or clusters of 4, are refused.
  LaunchConfig cfg{{3}, {64}};
  st = launch(*m, find_kernel(*m, "clusterBugs"), cfg, out, 0);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error->message.find("grid (3,1,1) is not a whole number of clusters of (2,1,1)"),
            std::string::npos)
      << st.error->what();
  cfg = LaunchConfig{{4}, {64}};
  cfg.cluster = {4, 1, 1};
  st = launch(*m, find_kernel(*m, "clusterBugs"), cfg, out, 0);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error->message.find("compiled for clusters of (2,1,1) blocks (__cluster_dims__); "
                                   "the launch asks for (4,1,1)"),
            std::string::npos)
      << st.error->what();
}

TEST_P(ClusterKernels, SampledBlocksRunTheirWholeClusters) {
  std::vector<int> in(4000);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i % 64);
  uint64_t din = upload(dev, in);
  std::vector<int> zero(64, 0);
  uint64_t dbins = upload(dev, zero);
  LaunchConfig cfg{{8}, {128}, 32 * 4};
  cfg.only_blocks = {{5, 0, 0}, {1, 0, 0}, {4, 0, 0}};  // clusters (4,5), (0,1)
  auto st = launch(*m, find_kernel(*m, "histCluster2"), cfg, dbins, 64, 32, din, 4000);
  ASSERT_TRUE(st.ok()) << st.error->what();
  EXPECT_EQ(st.blocks_run, 4u);
}

INSTANTIATE_TEST_SUITE_P(Dialects, ClusterKernels, ::testing::Values("sm90", "sm100"));

}  // namespace
}  // namespace smemlab::emu::test
