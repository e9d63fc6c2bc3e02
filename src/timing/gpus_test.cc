// The per-GPU parameter sets (gpus.def): every table has h100.def's rows,
// the arch lookup, the labels, and a prediction on each GPU that uses that
// GPU's figures (DRAM bandwidth, occupancy limits, pipe rates), checked
// against the published figures worked by hand.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "timing/gpu.h"
#include "timing/model.h"
#include "timing/occupancy.h"

namespace smemlab::timing {
namespace {

const GpuSpec& spec(const std::string& key) {
  for (const GpuSpec& g : gpus())
    if (g.key == key) return g;
  throw std::logic_error("no GPU " + key);
}

TEST(Gpus, EveryTableHasTheH100sRowsWithSources) {
  ASSERT_NO_THROW(gpus());
  ASSERT_EQ(gpus().size(), 6u);
  EXPECT_STREQ(gpus().front().key, "h100");
  EXPECT_TRUE(gpus().front().validated);
  std::set<std::string> keys;
  for (const GpuSpec& g : gpus()) {
    EXPECT_TRUE(keys.insert(g.key).second) << g.key;
    ASSERT_EQ(g.params->size(), h100_params().size()) << g.key;
    for (size_t i = 0; i < g.params->size(); ++i) {
      EXPECT_STREQ((*g.params)[i].name, h100_params()[i].name) << g.key;
      EXPECT_GT(std::string((*g.params)[i].source).size(), 5u)
          << g.key << " " << (*g.params)[i].name;
    }
    if (std::string(g.key) != "h100") {
      EXPECT_FALSE(g.validated) << g.key;
    }
  }
  // The H100's set is h100.def's (the default Gpu).
  EXPECT_EQ(gpus().front().gpu.dram_bandwidth_gbs, h100().dram_bandwidth_gbs);
}

TEST(Gpus, ByArchAndLabels) {
  auto keys = [](std::string_view arch) {
    std::string out;
    for (const GpuSpec* g : gpus_for_arch(arch)) out += std::string(g->key) + " ";
    return out;
  };
  EXPECT_EQ(keys("sm_90"), "h100 ");
  EXPECT_EQ(keys("sm_80"), "a100-80 a100-40 ");
  EXPECT_EQ(keys("sm_89"), "l40s rtx4090 ");
  EXPECT_EQ(keys("sm_70"), "v100 ");
  EXPECT_EQ(keys("sm_35:4"), "");
  EXPECT_EQ(keys("sm_86"), "");
  EXPECT_EQ(validation_note(spec("h100")), "");
  EXPECT_EQ(validation_note(spec("a100-80")), "unvalidated: no measurements on an A100 SXM4 80GB");
  EXPECT_EQ(validation_note(spec("l40s")), "unvalidated: no measurements on an L40S");
  EXPECT_EQ(validation_note(spec("v100")), "unvalidated: no measurements on a V100 SXM2");
  EXPECT_EQ(with_article("RTX 4090"), "an RTX 4090");
}

// A streaming launch: 1 GB read once (footprint 1 GB), nothing else to
// speak of: DRAM binds on every GPU, at its datasheet bandwidth.
TEST(Gpus, DramTermAtEachGpusBandwidth) {
  LaunchWork w;
  w.blocks = 100000;
  w.threads_per_block = 256;
  LineWork l{"copy.cu", 3};
  l.pipe[int(Pipe::Lsu)] = 1e9 / 128;  // one 128-byte load per warp
  l.l1_sectors = 1e9 / 32;
  w.lines = {l};
  w.footprint_bytes = 1e9;
  const std::pair<const char*, double> datasheet[] = {
      {"a100-80", 2039}, {"a100-40", 1555}, {"l40s", 864}, {"rtx4090", 1008}, {"v100", 900}};
  for (const auto& [key, gbs] : datasheet) {
    const GpuSpec& g = spec(key);
    Prediction p = predict(w, g.gpu);
    ASSERT_TRUE(p.valid) << key;
    EXPECT_NEAR(p.resource_ns[int(Resource::Dram)], 1e9 / gbs, 1e-6) << key;
    EXPECT_EQ(p.limiter, Resource::Dram) << key;
    EXPECT_NEAR(p.duration_ns, 1e9 / gbs + g.gpu.launch_ns, 1e-6) << key;
  }
}

// Occupancy by each generation's limits (CUDA guide's per-cc table).
TEST(Gpus, OccupancyByGeneration) {
  // Ada: 48 warps per SM: one 1024-thread block (H100: 2), 24 blocks at most.
  EXPECT_EQ(occupancy(spec("l40s").gpu, 1024, 0, 0).blocks_per_sm, 1u);
  EXPECT_EQ(occupancy(spec("h100").gpu, 1024, 0, 0).blocks_per_sm, 2u);
  Occupancy o = occupancy(spec("rtx4090").gpu, 32, 16, 0);
  EXPECT_EQ(o.blocks_per_sm, 24u);
  EXPECT_EQ(o.limited_by, "blocks");
  // A100: 164 KiB per SM; 48 KiB + 1 KiB reserved per block: 3 blocks.
  o = occupancy(spec("a100-80").gpu, 128, 32, 48 * 1024);
  EXPECT_EQ(o.blocks_per_sm, 3u);
  EXPECT_EQ(o.limited_by, "shared memory");
  // 100 KiB fits an A100's block limit (163 KiB), not Ada's (99 KiB).
  EXPECT_EQ(occupancy(spec("a100-40").gpu, 128, 32, 100 * 1024).blocks_per_sm, 1u);
  EXPECT_EQ(occupancy(spec("l40s").gpu, 128, 32, 100 * 1024).blocks_per_sm, 0u);
  // V100: no reservation, 256-byte units: 96 KiB / 24 KiB = 4 blocks.
  EXPECT_EQ(occupancy(spec("v100").gpu, 128, 32, 24 * 1024).blocks_per_sm, 4u);
  EXPECT_EQ(occupancy(spec("v100").gpu, 128, 32, 96 * 1024 + 1).blocks_per_sm, 0u);
  // No shared memory and no reservation: no shared limit (warps bind).
  o = occupancy(spec("v100").gpu, 256, 0, 0);
  EXPECT_EQ(o.blocks_per_sm, 8u);
  EXPECT_EQ(o.limited_by, "warps");
}

// FP64 work: Ada's 2 results/clk/SM (1/16 warp-instruction) against the
// A100's 32 (1): the pipe term is 16 times longer per clock.
TEST(Gpus, PipeRatesOfTheThroughputTable) {
  LaunchWork w;
  w.blocks = 1;
  w.threads_per_block = 32;
  LineWork l{"f.cu", 1};
  l.pipe[int(Pipe::Fp64)] = 1e6;
  w.lines = {l};
  const Gpu& ada = spec("l40s").gpu;
  const Gpu& a100 = spec("a100-80").gpu;
  Prediction pa = predict(w, ada), pb = predict(w, a100);
  EXPECT_NEAR(pa.resource_ns[int(Resource::Fp64)], 1e6 / 0.0625 / 2.52, 1e-3);
  EXPECT_NEAR(pb.resource_ns[int(Resource::Fp64)], 1e6 / 1.0 / 1.41, 1e-3);
}

}  // namespace
}  // namespace smemlab::timing
