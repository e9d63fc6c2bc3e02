// Every row of the H100 ground truth (Nsight Compute counters for one
// single-warp request each) must come out of the sm_90 model exactly.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bank/bank.h"

namespace smemlab::bank {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

std::filesystem::path patterns_path() {
  // shared/ beside the clone is the source of truth; tests/data holds the
  // copy taken when this test was written, for checkouts without shared/.
  std::filesystem::path shared = SMEMLAB_SHARED_DIR "/ground-truth/h100/patterns.tsv";
  if (std::filesystem::exists(shared)) return shared;
  return SMEMLAB_SOURCE_DIR "/tests/data/h100-patterns.tsv";
}

TEST(GroundTruth, EveryH100RowMatchesSm90) {
  auto path = patterns_path();
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot open " << path;
  std::string line;
  std::getline(in, line);
  auto header = split(line, '\t');
  auto col = [&](const std::string& name) {
    auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<size_t>(it - header.begin());
  };
  size_t c_name = col("name"), c_op = col("op"), c_width = col("width"), c_mask = col("mask"),
         c_wf = col("wavefronts"), c_bc = col("bank_conflicts"), c_addr = col("addresses");
  auto model = make_model("sm_90");
  int rows = 0, atomics = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto f = split(line, '\t');
    ASSERT_EQ(f.size(), header.size()) << line;
    Request r;
    r.op = parse_op(f[c_op]);
    r.width = static_cast<unsigned>(std::stoul(f[c_width]));
    r.mask = static_cast<uint32_t>(std::stoul(f[c_mask], nullptr, 0));
    auto addrs = split(f[c_addr], ',');
    ASSERT_EQ(addrs.size(), 32u) << f[c_name];
    for (unsigned i = 0; i < 32; ++i) r.addr[i] = std::stoull(addrs[i]);
    Result res = model->evaluate(r);
    EXPECT_EQ(res.wavefronts, std::stoul(f[c_wf])) << f[c_name];
    if (!f[c_bc].empty())
      EXPECT_EQ(res.bank_conflicts, std::stoul(f[c_bc])) << f[c_name];
    else
      ++atomics;
    ++rows;
  }
  EXPECT_GE(rows, 266) << path;
  EXPECT_GT(atomics, 0);
}

}  // namespace
}  // namespace smemlab::bank
