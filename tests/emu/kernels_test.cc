// End-to-end: small kernels compiled by nvcc (sm_90 and sm_100 dialects),
// emulated, and compared with CPU references.
#include <bit>
#include <cmath>
#include <cstdio>
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

TEST_P(Kernels, WarpSoftmaxWithWarpSize) {
  auto m = load("warpinfo");
  int rows = 5, cols = 96;
  std::vector<float> in(rows * cols);
  for (int i = 0; i < rows * cols; ++i) in[i] = static_cast<float>((i * 37) % 23) * 0.25f - 2.f;
  uint64_t din = upload(dev, in), dout = dev.malloc(in.size() * 4);
  // 3 blocks of 2 warps: the sixth warp has no row and returns early.
  auto st = launch(*m, find_kernel(*m, "softmaxRows"), {{3}, {64}}, din, dout, rows, cols);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto out = download<float>(dev, dout, in.size());
  for (int r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c) mx = std::max(mx, static_cast<double>(in[r * cols + c]));
    for (int c = 0; c < cols; ++c) sum += std::exp(in[r * cols + c] - mx);
    for (int c = 0; c < cols; ++c) {
      double ref = std::exp(in[r * cols + c] - mx) / sum;
      ASSERT_NEAR(out[r * cols + c], ref, 1e-6 * ref + 1e-9) << r << "," << c;
    }
  }
}

TEST_P(Kernels, SpecialRegisters) {
  auto m = load("warpinfo");
  int blocks = 2, threads = 64;
  uint64_t dout = dev.malloc(blocks * threads * 16 * 4);
  auto st = launch(*m, find_kernel(*m, "specialRegs"), {{2}, {64}, 256}, dout);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto v = download<uint32_t>(dev, dout, blocks * threads * 16);
  for (int t = 0; t < blocks * threads; ++t) {
    const uint32_t* r = &v[t * 16];
    uint32_t lane = static_cast<uint32_t>(t % 32);
    EXPECT_EQ(r[0], 32u) << "warpSize";
    EXPECT_EQ(r[1], static_cast<uint32_t>(t % threads / 32)) << "%warpid";
    EXPECT_LT(r[1], r[2]) << "%warpid < %nwarpid";
    EXPECT_LT(r[3], r[4]) << "%smid < %nsmid";
    EXPECT_EQ(r[5], 1u << lane) << "%lanemask_eq";
    EXPECT_EQ(r[6], static_cast<uint32_t>((2ull << lane) - 1)) << "%lanemask_le";
    EXPECT_EQ(r[7], (1u << lane) - 1) << "%lanemask_lt";
    EXPECT_EQ(r[8], ~((1u << lane) - 1)) << "%lanemask_ge";
    EXPECT_EQ(r[9], static_cast<uint32_t>(~((2ull << lane) - 1))) << "%lanemask_gt";
    EXPECT_EQ(r[10], 256u) << "%dynamic_smem_size";
    EXPECT_EQ(r[11], 256u) << "%total_smem_size (no static shared)";
    EXPECT_EQ(r[12], 0u) << "%envreg0";
    EXPECT_LT(r[13], r[14]) << "%globaltimer advances";
    EXPECT_EQ(r[15], lane) << "%laneid";
  }
}

TEST_P(Kernels, PrintfOutputInBlockOrder) {
  auto m = load("devruntime");
  int n = 12;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * static_cast<float>(i);
  uint64_t dx = upload(dev, x);
  std::string out;
  LaunchConfig cfg{{3}, {4}};
  cfg.threads = 2;  // blocks finish in any order; the output is still in block order
  cfg.printf_sink = [&](const std::string& s) { out += s; };
  auto st = launch(*m, find_kernel(*m, "hello"), cfg, dx, n);
  ASSERT_TRUE(st.ok()) << st.error->what();
  std::string ref;
  for (int t = 0; t < n; ++t) {
    if (t % 3) continue;
    char line[256];
    std::snprintf(line, sizeof line, "block %d thread %d: x=%.2f %s %c %lld %5u|%-4x|%%\n", t / 4,
                  t % 4, static_cast<double>(x[t]), t % 2 ? "odd" : "even", 'a' + t,
                  -1234567890123ll * t, static_cast<unsigned>(t), static_cast<unsigned>(t));
    ref += line;
  }
  EXPECT_EQ(out, ref);
}

TEST_P(Kernels, AssertFailsTheLaunchWithItsMessage) {
  auto m = load("devruntime");
  std::vector<int> v(8, 1);
  v[5] = 0;
  uint64_t dv = upload(dev, v);
  auto st = launch(*m, find_kernel(*m, "checkPositive"), {{2}, {4}}, dv, 8);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::Assert);
  EXPECT_NE(st.error->message.find("assertion failed: `v[t] > 0`"), std::string::npos)
      << st.error->message;
  EXPECT_NE(st.error->message.find("devruntime.cu:16"), std::string::npos) << st.error->message;
  EXPECT_NE(st.error->message.find("checkPositive"), std::string::npos) << st.error->message;
  EXPECT_EQ(st.error->block.x, 1u);
  EXPECT_EQ(st.error->thread.x, 1u);
  // Without the bad value the same kernel passes.
  v[5] = 3;
  dev.copy_to(dv, v.data(), v.size() * 4);
  EXPECT_TRUE(launch(*m, find_kernel(*m, "checkPositive"), {{2}, {4}}, dv, 8).ok());
}

TEST_P(Kernels, DeviceHeapWithNewDeleteMallocFree) {
  auto m = load("devruntime");
  int blocks = 4, per_block = 10;
  std::vector<int> v(blocks * per_block);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i * i) - 50;
  uint64_t dv = upload(dev, v), dsums = dev.malloc(blocks * 8);
  auto st = launch(*m, find_kernel(*m, "heapList"), {{4}, {32}}, dv, per_block, dsums);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto sums = download<long long>(dev, dsums, blocks);
  for (int b = 0; b < blocks; ++b) {
    long long ref = 0;
    for (int i = 0; i < per_block; ++i) ref += v[b * per_block + i];
    EXPECT_EQ(sums[b], ref) << b;
  }
  EXPECT_EQ(dev.memory().heap().live_bytes(), 0u);  // everything was freed
}

TEST_P(Kernels, DeviceHeapOverrunIsOutOfBounds) {
  auto m = load("devruntime");
  auto st = launch(*m, find_kernel(*m, "heapOverrun"), {{1}, {1}}, 8);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::OutOfBounds);
  EXPECT_NE(st.error->message.find("malloc(32)"), std::string::npos) << st.error->message;
}

TEST_P(Kernels, StructAndArrayParametersByValue) {
  struct Affine {
    float scale;
    double shift;
    int n;
  };
  struct Taps {
    float w[5];
  };
  static_assert(sizeof(Affine) == 24 && sizeof(Taps) == 20);
  auto m = load("structs");
  Affine a{0.5f, 3.25, 37};
  Taps t{{0.1f, -0.2f, 1.0f, 0.25f, 0.05f}};
  std::vector<float> in(a.n);
  for (int i = 0; i < a.n; ++i) in[i] = static_cast<float>((i * 7) % 11) - 4.f;
  uint64_t din = upload(dev, in), dout = dev.malloc(a.n * 2 * 4);
  auto st = launch(*m, find_kernel(*m, "affineFir"), {{2}, {32}}, din, dout, a, t);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto out = download<float>(dev, dout, a.n * 2);
  for (int i = 0; i < a.n; ++i) {
    float s = 0.f;
    for (int k = 0; k < 5; ++k) {
      int j = i + k - 2;
      if (j >= 0 && j < a.n) s = std::fma(t.w[k], in[j], s);
    }
    float lo = std::fmin(s, in[i]) * a.scale;
    float hi = std::fmax(s, in[i]) * a.scale + static_cast<float>(a.shift);
    // nvcc may contract the sums into fma or not: compare within an ulp or two.
    EXPECT_NEAR(out[2 * i], lo, 1e-5f) << i;
    EXPECT_NEAR(out[2 * i + 1], hi, 1e-5f) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Dialects, Kernels, ::testing::Values("sm90", "sm100"));

}  // namespace
}  // namespace smemlab::emu::test
