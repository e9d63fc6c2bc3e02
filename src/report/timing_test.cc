// report/timing.h's sentences: `run --gpu --time`'s predicted-beside-measured
// line, for the measured H100 and for a GPU with published figures only.
#include "report/timing.h"

#include <gtest/gtest.h>

namespace smemlab::report {
namespace {

GpuPrediction prediction(const char* key, double ns) {
  GpuPrediction g;
  for (const timing::GpuSpec& s : timing::gpus())
    if (std::string(s.key) == key) g.gpu = &s;
  g.p.valid = true;
  g.p.duration_ns = ns;
  g.p.limiter = timing::Resource::Dram;
  return g;
}

TEST(PredictedVsMeasured, RatioAndLabels) {
  EXPECT_EQ(predicted_vs_measured(prediction("h100", 12000), 10000, "NVIDIA H100 80GB HBM3"),
            "predicted 12 µs on an H100 (limited by DRAM), measured 10 µs on NVIDIA H100 80GB "
            "HBM3: predicted/measured 1.20");
  EXPECT_EQ(predicted_vs_measured(prediction("v100", 2.5e6), 2e6, "Tesla V100-SXM2-32GB"),
            "predicted 2.5 ms on a V100 SXM2 (limited by DRAM), measured 2 ms on "
            "Tesla V100-SXM2-32GB: predicted/measured 1.25; unvalidated: no measurements on a "
            "V100 SXM2");
  GpuPrediction none = prediction("h100", 0);
  none.p.valid = false;
  none.p.why_not = "the block does not fit on an SM";
  EXPECT_EQ(predicted_vs_measured(none, 5000, "GPU"),
            "no time predicted (the block does not fit on an SM), measured 5 µs on GPU");
}

}  // namespace
}  // namespace smemlab::report
