// End-to-end: small kernels compiled by nvcc (sm_90 and sm_100 dialects),
// emulated, and compared with CPU references.
#include <bit>
#include <cmath>
#include <numeric>

#include "emu_test_util.h"

namespace smemlab::emu::test {
namespace {

// f16 bits of a float that f16 represents exactly (test inputs only).
uint32_t f16_bits(float f) {
  if (f == 0) return 0;
  int e;
  float m = std::frexp(f, &e);  // f = m * 2^e, m in [0.5, 1)
  uint32_t mant = static_cast<uint32_t>(std::ldexp(m, 11)) & 0x3ff;
  return static_cast<uint32_t>(e - 1 + 15) << 10 | mant;
}

class Kernels : public ::testing::TestWithParam<const char*> {
 protected:
  std::unique_ptr<Module> load(const std::string& base) {
    return Module::load_file(dev, ptx_path(base + "." + GetParam() + ".ptx"));
  }
  Device dev;
};

TEST_P(Kernels, VectorAdd) {
  auto m = load("vecadd");
  int n = 1000;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = 0.5f * i, b[i] = 1.0f / (i + 1);
  uint64_t da = upload(dev, a), db = upload(dev, b), dc = dev.malloc(n * 4);
  auto st = launch(*m, find_kernel(*m, "vecAdd"), {{8}, {128}}, da, db, dc, n);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto c = download<float>(dev, dc, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  EXPECT_GT(st.warp_instructions, 0u);
}

TEST_P(Kernels, ReverseStaticAndDynamicShared) {
  auto m = load("reverse");
  for (const char* k : {"reverseStatic", "reverseDynamic"}) {
    int n = 256 * 3;
    std::vector<int> v(n);
    std::iota(v.begin(), v.end(), 0);
    uint64_t d = upload(dev, v);
    LaunchConfig cfg{{3}, {256}, std::string(k) == "reverseDynamic" ? 1024u : 0u};
    auto st = launch(*m, find_kernel(*m, k), cfg, d, n);
    ASSERT_TRUE(st.ok()) << st.error->what();
    auto out = download<int>(dev, d, n);
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], (i / 256) * 256 + 255 - i % 256) << k << " " << i;
  }
}

TEST_P(Kernels, SharedTileTranspose) {
  auto m = load("transpose");
  int w = 96, h = 64;
  std::vector<float> in(w * h);
  for (int i = 0; i < w * h; ++i) in[i] = static_cast<float>(i);
  uint64_t din = upload(dev, in), dout = dev.malloc(w * h * 4);
  auto st = launch(*m, find_kernel(*m, "transposeShared"), {{3, 2}, {32, 8}}, dout, din, w, h);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto out = download<float>(dev, dout, w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) ASSERT_EQ(out[x * h + y], in[y * w + x]) << x << "," << y;
}

TEST_P(Kernels, ShuffleReductionWithAtomics) {
  auto m = load("reduce");
  int n = 5000;
  std::vector<float> in(n);
  double ref = 0;
  for (int i = 0; i < n; ++i) ref += (in[i] = static_cast<float>(i % 17));
  uint64_t din = upload(dev, in), dout = dev.malloc(4);
  auto st = launch(*m, find_kernel(*m, "reduceShfl"), {{4}, {256}}, din, dout, n);
  ASSERT_TRUE(st.ok()) << st.error->what();
  EXPECT_EQ(download<float>(dev, dout, 1)[0],
            static_cast<float>(ref));  // integers: exact in any order
}

TEST_P(Kernels, FunctionCallInLoopAndDoubleMath) {
  auto m = load("funcloop");
  int n = 70;
  std::vector<int> ks(n);
  for (int i = 0; i < n; ++i) ks[i] = i % 9;
  uint64_t dout = dev.malloc(n * 8), dks = upload(dev, ks), dd = dev.malloc(n * 8);
  auto st = launch(*m, find_kernel(*m, "funcLoop"), {{3}, {32}}, dout, dks, dd, n);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto out = download<long long>(dev, dout, n);
  auto d = download<double>(dev, dd, n);
  for (int i = 0; i < n; ++i) {
    long long acc = 0;
    for (int j = 0; j < ks[i]; ++j) {
      long long r = 1, x = i + j;
      for (int q = 0; q < j % 5; ++q) r = r * x + q;
      acc += r;
    }
    ASSERT_EQ(out[i], acc) << i;
    ASSERT_EQ(d[i], std::sqrt(static_cast<double>(i)) / (i + 1.0)) << i;
  }
}

TEST_P(Kernels, DeterministicAcrossThreadCounts) {
  auto m = load("reduce");
  std::vector<float> in(4096);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 13);
  uint64_t din = upload(dev, in);
  uint64_t a = dev.malloc(4), b = dev.malloc(4);
  LaunchConfig one{{1}, {128}};
  one.threads = 1;
  LaunchConfig many{{1}, {128}};
  many.threads = 4;
  auto s1 = launch(*m, find_kernel(*m, "reduceShfl"), one, din, a, 4096);
  auto s2 = launch(*m, find_kernel(*m, "reduceShfl"), many, din, b, 4096);
  ASSERT_TRUE(s1.ok() && s2.ok());
  EXPECT_EQ(s1.warp_instructions, s2.warp_instructions);
  EXPECT_EQ(download<float>(dev, a, 1), download<float>(dev, b, 1));
}

TEST_P(Kernels, MathLibraryAndWideIntegers) {
  auto m = load("math");
  int n = 64;
  std::vector<float> x(n);
  std::vector<double> xd(n);
  for (int i = 0; i < n; ++i) {
    x[i] = (i - 32) * 0.37f + (i % 5 == 0 ? 1000.f : 0.f);  // includes large arguments for sin/cos
    xd[i] = (i - 20) * 1.3;
  }
  uint64_t dx = upload(dev, x), dxd = upload(dev, xd);
  uint64_t dy = dev.malloc(n * 8 * 4), dyd = dev.malloc(n * 4 * 8), dq = dev.malloc(n * 4 * 8);
  auto st = launch(*m, find_kernel(*m, "mathk"), {{1}, {64}}, dx, dy, dxd, dyd, dq, n);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto y = download<float>(dev, dy, n * 8);
  auto yd = download<double>(dev, dyd, n * 4);
  auto q = download<long long>(dev, dq, n * 4);
  auto near = [](double got, double want, double rel) {
    return std::fabs(got - want) <= rel * std::max(1.0, std::fabs(want));
  };
  for (int i = 0; i < n; ++i) {
    float v = x[i];
    if (std::isfinite(std::exp(v))) {
      EXPECT_TRUE(near(y[i * 8 + 0], std::exp(v), 1e-6)) << i;
    }
    EXPECT_TRUE(near(y[i * 8 + 1], std::log(std::fabs(v) + 1.0), 1e-6)) << i;
    EXPECT_TRUE(near(y[i * 8 + 2], std::sin(v) + std::cos(v), 1e-6)) << i << " " << v;
    EXPECT_TRUE(near(y[i * 8 + 3], std::pow(std::fabs(v), 1.7), 1e-6)) << i;
    EXPECT_TRUE(near(y[i * 8 + 4], std::erf(v) + std::tanh(v), 1e-5)) << i;
    EXPECT_EQ(y[i * 8 + 6], std::fmax(v, 0.5f) + std::floor(v) + std::round(v * 3) + std::trunc(v))
        << i;
    double d = xd[i];
    EXPECT_TRUE(near(yd[i * 4 + 0], std::exp(d) + std::log(std::fabs(d) + 1.0), 1e-15)) << i;
    EXPECT_TRUE(near(yd[i * 4 + 1], std::sin(d) * std::cos(d), 1e-15)) << i;
    EXPECT_TRUE(near(yd[i * 4 + 2],
                     std::pow(std::fabs(d), 0.3) + std::sqrt(std::fabs(d)) + std::cbrt(d), 1e-15))
        << i;
    EXPECT_EQ(yd[i * 4 + 3], d / (d + 3.0) + static_cast<double>(static_cast<long long>(d * 1e6)))
        << i;
    long long a = static_cast<long long>(i) * 1234567891LL - 77;
    EXPECT_EQ(q[i * 4 + 0], a / 7);
    EXPECT_EQ(q[i * 4 + 1], a % 1000003);
    EXPECT_EQ(q[i * 4 + 2], static_cast<long long>(static_cast<unsigned long long>(a) / 13ull));
    unsigned long long hi_u = static_cast<unsigned long long>(
        (static_cast<unsigned __int128>(static_cast<unsigned long long>(a)) *
         0x9E3779B97F4A7C15ull) >>
        64);
    long long hi_s = static_cast<long long>((static_cast<__int128>(a) * -5) >> 64);
    EXPECT_EQ(q[i * 4 + 3], static_cast<long long>(hi_u ^ static_cast<unsigned long long>(hi_s)));
  }
}

TEST_P(Kernels, HalfAndBfloat16) {
  auto m = load("half");
  int n = 32;
  // Values whose f16 sums and products are exact, so an f32 reference is exact.
  auto h = [](float f) { return static_cast<uint16_t>(f16_bits(f)); };
  std::vector<uint16_t> a(n), c(n);
  std::vector<uint32_t> b(n);
  for (int i = 0; i < n; ++i) {
    int k = i % 8;  // keeps every f16 intermediate exact
    a[i] = h(k * 0.25f);
    b[i] = h(k * 0.5f) | (static_cast<uint32_t>(h(1.0f + k)) << 16);
    c[i] =
        static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(i)) >> 16);  // bf16 of i
  }
  uint64_t da = upload(dev, a), db = upload(dev, b), dout = dev.malloc(2 * n * 4),
           dc = upload(dev, c);
  auto st = launch(*m, find_kernel(*m, "halfk"), {{1}, {32}}, da, db, dout, dc, n);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto out = download<float>(dev, dout, 2 * n);
  auto cc = download<uint16_t>(dev, dc, n);
  for (int i = 0; i < n; ++i) {
    int k = i % 8;
    float x = k * 0.25f, ylo = k * 0.5f, yhi = 1.0f + k;
    float s = (ylo * ylo + x) + (yhi * yhi + x);
    EXPECT_EQ(out[i], s + x * x + (x < s ? 1.f : 0.f)) << i;
    EXPECT_EQ(std::bit_cast<float>(static_cast<uint32_t>(cc[i]) << 16), i * 2.5f + 1.0f) << i;
    EXPECT_EQ(out[n + i], 1.5f + out[i]) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Dialects, Kernels, ::testing::Values("sm90", "sm100"));

}  // namespace
}  // namespace smemlab::emu::test
