#include "bench/runner.h"

#include <gtest/gtest.h>

#include <cmath>

namespace smemlab::bench {
namespace {

Benchmark named(const std::string& n) {
  return {n, "d", [](Context&) { return Result{}; }};
}

std::vector<std::string> names_of(const std::vector<Benchmark>& all,
                                  const std::vector<size_t>& ix) {
  std::vector<std::string> out;
  for (size_t i : ix) out.push_back(all[i].name);
  return out;
}

TEST(Select, SubstringRegexAndAll) {
  std::vector<Benchmark> all = {named("transpose/naive/8192"), named("transpose/padded/8192"),
                                named("reverse/static"), named("matmul/best/4096")};
  EXPECT_EQ(select_benchmarks(all, "").size(), 4u);
  EXPECT_EQ(names_of(all, select_benchmarks(all, "padded")),
            std::vector<std::string>{"transpose/padded/8192"});
  EXPECT_EQ(names_of(all, select_benchmarks(all, "^(reverse|matmul)/")),
            (std::vector<std::string>{"reverse/static", "matmul/best/4096"}));
  // Not a valid regex: plain substring matching still works, no exception.
  all.push_back(named("odd/a[b"));
  EXPECT_EQ(names_of(all, select_benchmarks(all, "a[b")), std::vector<std::string>{"odd/a[b"});
  EXPECT_TRUE(select_benchmarks(all, "nothing-like-this").empty());
}

TEST(Anchors, PredictedFromTopicAndSize) {
  std::vector<Benchmark> all = {named("anchor/copy"), named("anchor/cublas-sgemm/1024"),
                                named("anchor/cublas-sgemm/4096"),
                                named("anchor/cub-reduce/268435456")};
  EXPECT_EQ(predicted_anchors({"transpose/naive/8192"}, all),
            std::vector<std::string>{"anchor/copy"});
  EXPECT_EQ(predicted_anchors({"matmul/best/4096", "matmul/naive/1024", "matmul/best/4096"}, all),
            (std::vector<std::string>{"anchor/cublas-sgemm/4096", "anchor/cublas-sgemm/1024"}));
  // A size with no registered cuBLAS anchor predicts none (the result's own
  // anchor field is then used after the run).
  EXPECT_TRUE(predicted_anchors({"matmul/odd/1000"}, all).empty());
  EXPECT_EQ(predicted_anchors({"reduction/shuffle"}, all),
            std::vector<std::string>{"anchor/cub-reduce/268435456"});
  EXPECT_TRUE(predicted_anchors({"anchor/copy"}, all).empty());
}

TEST(Compare, FloatsIntsAndL2) {
  EXPECT_EQ(compare(std::vector<float>{1.f, 2.f}, std::vector<float>{1.f, 2.f}, 0.0), "");
  EXPECT_NE(compare(std::vector<float>{1.f, 2.5f}, std::vector<float>{1.f, 2.f}, 1e-3), "");
  EXPECT_NE(compare(std::vector<float>{NAN}, std::vector<float>{1.f}, 1.0), "");
  EXPECT_NE(compare(std::vector<float>{1.f}, std::vector<float>{1.f, 2.f}, 1.0), "");
  EXPECT_EQ(compare(std::vector<int>{3, 4}, std::vector<int>{3, 4}), "");
  EXPECT_NE(compare(std::vector<int>{3, -1}, std::vector<int>{3, 4}).find("index 1"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(relative_l2({3.f, 4.f}, {3.0, 4.0}), 0.0);
  EXPECT_NEAR(relative_l2({3.f, 5.f}, {3.0, 4.0}), 0.2, 1e-12);
  EXPECT_TRUE(std::isinf(relative_l2({NAN, 4.f}, {3.0, 4.0})));
}

TEST(FillRandom, DeterministicInRangeAndVaried) {
  // Larger than one chunk (2^20), so the threaded path runs.
  const size_t n = (size_t(1) << 21) + 17;
  std::vector<float> a(n), b(n), c(n);
  std::mt19937_64 r1(42), r2(42), r3(43);
  fill_random(a, r1, -2.f, 3.f);
  fill_random(b, r2, -2.f, 3.f);
  fill_random(c, r3, -2.f, 3.f);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double sum = 0;
  for (float x : a) {
    ASSERT_GE(x, -2.f);
    ASSERT_LE(x, 3.f);
    sum += x;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.01);  // mean of U(-2, 3)
  // The chunks differ from each other (each has its own engine).
  EXPECT_NE(std::vector<float>(a.begin(), a.begin() + 100),
            std::vector<float>(a.begin() + (1 << 20), a.begin() + (1 << 20) + 100));
  std::vector<int> ints(1000);
  std::mt19937_64 r4(7);
  fill_random(ints, r4, -5, 5);
  for (int x : ints) {
    ASSERT_GE(x, -5);
    ASSERT_LE(x, 5);
  }
}

TEST(Run, ExitCodesWithoutRunningKernels) {
  RunOptions o;
  o.filter = "no-such-benchmark";
  EXPECT_EQ(run_benchmarks(o), 2);  // usage: nothing selected
  o.list = true;
  EXPECT_EQ(run_benchmarks(o), 0);  // listing needs no device
  o = RunOptions{};
  o.filter = "^reverse/static/64$";
  o.json_path = "/nonexistent-dir/out.json";
  EXPECT_EQ(run_benchmarks(o), 2);  // unwritable JSON path, found before any run
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) GTEST_SKIP() << "a GPU is present";
  cudaGetLastError();
  o.json_path.clear();
  EXPECT_EQ(run_benchmarks(o), 3);  // no CUDA device
}

TEST(Median, OddEvenEmpty) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0.0);
}

TEST(Registry, SuiteRegistersAnchorsAndTopics) {
  // The OBJECT library must keep every static registrar: anchors and topics.
  const auto& all = registry();
  auto has = [&](const std::string& n) {
    for (const auto& b : all)
      if (b.name == n) return true;
    return false;
  };
  EXPECT_TRUE(has("anchor/copy"));
  EXPECT_TRUE(has(cublas_anchor(4096)));
  EXPECT_TRUE(has(cub_anchor(1LL << 28)));
  for (const auto& b : all) EXPECT_FALSE(b.description.empty()) << b.name;
}

}  // namespace
}  // namespace smemlab::bench
