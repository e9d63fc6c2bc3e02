// ldmatrix/stmatrix bank cost: every row of the H100 ground truth, plus the
// rule's edges (unused lanes ignored, alignment, generations without it).
#include "bank/ldmatrix.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace smemlab::bank {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

std::filesystem::path table_path() {
  std::filesystem::path shared = SMEMLAB_SHARED_DIR "/ground-truth/h100/ldmatrix.tsv";
  if (std::filesystem::exists(shared)) return shared;
  return SMEMLAB_SOURCE_DIR "/tests/data/h100-ldmatrix.tsv";
}

// "x4.trans" -> 4 matrices, trans.
MatrixRequest parse_shape(const std::string& op, const std::string& shape) {
  MatrixRequest m;
  if (op == "stmatrix")
    m.store = true;
  else
    EXPECT_EQ(op, "ldmatrix");
  EXPECT_EQ(shape[0], 'x') << shape;
  m.matrices = static_cast<unsigned>(shape[1] - '0');
  m.trans = shape.find(".trans") != std::string::npos;
  return m;
}

TEST(Ldmatrix, EveryH100RowMatches) {
  auto path = table_path();
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
  size_t c_name = col("name"), c_op = col("op"), c_shape = col("shape"), c_wf = col("wavefronts"),
         c_addr = col("addresses");
  auto sm90 = make_model("sm_90");
  int rows = 0, stores = 0, trans = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto f = split(line, '\t');
    ASSERT_EQ(f.size(), header.size()) << line;
    MatrixRequest m = parse_shape(f[c_op], f[c_shape]);
    auto addrs = split(f[c_addr], ',');
    ASSERT_EQ(addrs.size(), 32u) << f[c_name];
    for (unsigned i = 0; i < 32; ++i) m.addr[i] = std::stoull(addrs[i]);
    Result res = evaluate_matrix(m);
    EXPECT_EQ(res.wavefronts, std::stoul(f[c_wf])) << f[c_name];
    EXPECT_EQ(res.ideal, m.matrices) << f[c_name];
    EXPECT_EQ(res.bank_conflicts, res.wavefronts - m.matrices) << f[c_name];
    EXPECT_EQ(sm90->evaluate_matrix(m).wavefronts, res.wavefronts) << f[c_name];
    stores += m.store;
    trans += m.trans;
    ++rows;
  }
  EXPECT_GE(rows, 49) << path;
  EXPECT_GT(stores, 0);
  EXPECT_GT(trans, 0);
}

MatrixRequest strided(unsigned matrices, uint64_t stride) {
  MatrixRequest m;
  m.matrices = matrices;
  for (unsigned i = 0; i < 32; ++i) m.addr[i] = i * stride;
  return m;
}

TEST(Ldmatrix, RowStrideRule) {
  // docs/bank-model.md: 16/48/80 -> 1 per matrix, 32 -> 2, 64 -> 4, 128 -> 8.
  for (auto [stride, per] : std::vector<std::pair<uint64_t, unsigned>>{
           {16, 1}, {48, 1}, {80, 1}, {32, 2}, {64, 4}, {128, 8}, {256, 8}})
    for (unsigned x : {1u, 2u, 4u})
      EXPECT_EQ(evaluate_matrix(strided(x, stride)).wavefronts, per * x)
          << "stride " << stride << " x" << x;
}

TEST(Ldmatrix, XorSwizzleIsConflictFree) {
  // A 64-element-wide f16 tile (128-byte rows): chunk c of row r stored at
  // chunk c ^ (r % 8), the CUTLASS-style swizzle.
  MatrixRequest m;
  m.matrices = 4;
  for (unsigned i = 0; i < 32; ++i) {
    unsigned row = i % 8 + 8 * (i / 16), chunk = (i / 8) % 2;
    m.addr[i] = row * 128 + ((chunk ^ (row % 8)) * 16);
  }
  EXPECT_EQ(evaluate_matrix(m).wavefronts, 4u);
  for (unsigned i = 0; i < 32; ++i) {  // unswizzled: every row in the same banks
    unsigned row = i % 8 + 8 * (i / 16), chunk = (i / 8) % 2;
    m.addr[i] = row * 128 + chunk * 16;
  }
  EXPECT_EQ(evaluate_matrix(m).wavefronts, 32u);
}

TEST(Ldmatrix, LanesBeyondTheMatricesAreIgnored) {
  MatrixRequest m = strided(1, 16);
  for (unsigned i = 8; i < 32; ++i) m.addr[i] = 4096 + 256 * i;  // would conflict if used
  Result r = evaluate_matrix(m);
  EXPECT_EQ(r.wavefronts, 1u);
  ASSERT_EQ(r.passes.size(), 1u);
  EXPECT_EQ(r.passes[0].slots.size(), 32u);  // 8 rows x 4 banks
}

TEST(Ldmatrix, NoMergingAcrossMatrices) {
  // All four matrices on the same 8 rows: still one pass each.
  MatrixRequest m;
  m.matrices = 4;
  for (unsigned i = 0; i < 32; ++i) m.addr[i] = (i % 8) * 16;
  EXPECT_EQ(evaluate_matrix(m).wavefronts, 4u);
}

TEST(Ldmatrix, BadRequestsAreErrors) {
  MatrixRequest m = strided(2, 16);
  m.addr[3] = 8;  // rows are 16-byte aligned
  EXPECT_THROW(evaluate_matrix(m), Error);
  m = strided(3, 16);
  EXPECT_THROW(evaluate_matrix(m), Error);
}

TEST(Ldmatrix, GenerationsWithoutTheInstruction) {
  MatrixRequest ld = strided(4, 16), st = ld;
  st.store = true;
  EXPECT_EQ(make_model("sm_75")->evaluate_matrix(ld).wavefronts, 4u);
  EXPECT_THROW(make_model("sm_70")->evaluate_matrix(ld), Error);
  EXPECT_THROW(make_model("sm_80")->evaluate_matrix(st), Error);
  EXPECT_EQ(make_model("sm_90")->evaluate_matrix(st).wavefronts, 4u);
  EXPECT_THROW(make_model("sm_35")->evaluate_matrix(ld), Error);
  EXPECT_THROW(make_model("sm_20")->evaluate_matrix(ld), Error);
}

}  // namespace
}  // namespace smemlab::bank
