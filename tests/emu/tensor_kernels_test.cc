// Tensor-core, cp.async and mbarrier kernels written as users write them
// (kernels/tensor.cu, nvcc 13 PTX for sm_90 and sm_100), emulated and
// compared with CPU references. Inputs are small multiples of powers of two,
// so every product and sum is exact and the results must be equal bit for bit.
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>

#include "emu/half.h"
#include "emu_test_util.h"

namespace smemlab::emu::test {
namespace {

class TensorKernels : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    m = Module::load_file(dev, ptx_path(std::string("tensor.") + GetParam() + ".ptx"));
  }
  LaunchStatus run(const std::string& name, Dim3 grid, Dim3 block, auto... args) {
    LaunchConfig cfg{grid, block};
    cfg.budget = 10'000'000;
    return launch(*m, find_kernel(*m, name), cfg, args...);
  }
  Device dev;
  std::unique_ptr<Module> m;
};

// value(i) in [-2, 2) in steps of 1/8.
float small(int i) { return static_cast<float>((i * 37 + 11) % 32 - 16) / 8.0f; }

// C = scale * A (M x K, row-major) * B (K x N given n-major: b[n * K + k]).
std::vector<double> reference(const std::vector<double>& a, const std::vector<double>& b, int M,
                              int N, int K, double scale) {
  std::vector<double> c(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += a[i * K + k] * b[j * K + k];
      c[i * N + j] = scale * s;
    }
  return c;
}

TEST_P(TensorKernels, WmmaHalfGemm) {
  const int M = 32, N = 48, K = 64;
  std::vector<uint16_t> a(M * K), b(N * K);
  std::vector<double> da(M * K), db(N * K);
  for (int i = 0; i < M * K; ++i) a[i] = float_to_half(small(i)), da[i] = small(i);
  for (int i = 0; i < N * K; ++i) b[i] = float_to_half(small(i + 5)), db[i] = small(i + 5);
  uint64_t pa = upload(dev, a), pb = upload(dev, b), pc = dev.malloc(M * N * 4);
  auto st = run("wmmaHalf", {N / 16, M / 16}, {32}, pa, pb, pc, M, N, K);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto c = download<float>(dev, pc, M * N);
  auto ref = reference(da, db, M, N, K, 2.0);
  for (int i = 0; i < M * N; ++i) ASSERT_EQ(c[i], static_cast<float>(ref[i])) << i;
}

TEST_P(TensorKernels, WmmaBf16Gemm) {
  const int M = 16, N = 32, K = 32;
  std::vector<uint16_t> a(M * K), b(N * K);
  std::vector<double> da(M * K), db(N * K);
  for (int i = 0; i < M * K; ++i) a[i] = float_to_bf16(small(i)), da[i] = small(i);
  for (int i = 0; i < N * K; ++i) b[i] = float_to_bf16(small(3 * i)), db[i] = small(3 * i);
  uint64_t pa = upload(dev, a), pb = upload(dev, b), pc = dev.malloc(M * N * 4);
  auto st = run("wmmaBf16", {N / 16, M / 16}, {32}, pa, pb, pc, M, N, K);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto c = download<float>(dev, pc, M * N);
  auto ref = reference(da, db, M, N, K, 2.0);
  for (int i = 0; i < M * N; ++i) ASSERT_EQ(c[i], static_cast<float>(ref[i])) << i;
}

// Inputs over 2^-40..2^40 so the double sums round: each k-step's mma
// adds its 16 products to the accumulator's f32 value in k order in double
// and rounds once to f32 (ops_tensor.h); the reference does exactly that
// per 16-wide k-step. A fragment element gathered from (or a result
// scattered to) the wrong place, or a k-step rounded differently, changes
// some of the 512 results (the k order inside one mma rarely shows after
// the f32 rounding: TensorMath.SumsAreTheScalarLoopsBitForBit checks it).
TEST_P(TensorKernels, WmmaBf16SumsRoundPerKStepInKOrder) {
  const int M = 16, N = 32, K = 64;
  auto wide = [](int i) {
    const float mant = 1.0f + static_cast<float>((i * 7919) % 128) / 128.0f;
    return std::ldexp(i % 3 ? mant : -mant, (i * 37) % 81 - 40);
  };
  std::vector<uint16_t> a(M * K), b(N * K);
  std::vector<double> da(M * K), db(N * K);
  for (int i = 0; i < M * K; ++i) a[i] = float_to_bf16(wide(i)), da[i] = bf16_to_float(a[i]);
  for (int i = 0; i < N * K; ++i) b[i] = float_to_bf16(wide(i + 1000)), db[i] = bf16_to_float(b[i]);
  uint64_t pa = upload(dev, a), pb = upload(dev, b), pc = dev.malloc(M * N * 4);
  auto st = run("wmmaBf16", {N / 16, M / 16}, {32}, pa, pb, pc, M, N, K);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto c = download<float>(dev, pc, M * N);
  int inexact = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0;
      for (int k0 = 0; k0 < K; k0 += 16) {
        double d = acc;
        for (int k = k0; k < k0 + 16; ++k) d = d + da[i * K + k] * db[j * K + k];
        inexact += static_cast<double>(static_cast<float>(d)) != d;
        acc = static_cast<float>(d);
      }
      ASSERT_EQ(c[i * N + j], 2 * acc) << i << "," << j;
    }
  EXPECT_GT(inexact, 100);  // the inputs do exercise rounding
}

// A fragment load that runs past its allocation faults naming the access,
// as each lane's own translation reports it (the warp-wide range check
// only takes the accesses that all succeed).
TEST_P(TensorKernels, WmmaLoadPastTheEndFaults) {
  const int M = 16, N = 16, K = 32;
  std::vector<uint16_t> a(M * K, float_to_half(1.0f)), b(N * K - 8, float_to_half(1.0f));
  uint64_t pa = upload(dev, a), pb = upload(dev, b), pc = dev.malloc(M * N * 4);
  auto st = run("wmmaHalf", {N / 16, M / 16}, {32}, pa, pb, pc, M, N, K);
  ASSERT_FALSE(st.ok());
  const std::string e = st.error->what();
  EXPECT_NE(e.find("global wmma of 2 bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("past the end of"), std::string::npos) << e;
}

TEST_P(TensorKernels, WmmaInt8Gemm) {
  const int M = 32, N = 16, K = 48;
  std::vector<int8_t> a(M * K), b(N * K);
  std::vector<double> da(M * K), db(N * K);
  for (int i = 0; i < M * K; ++i) a[i] = static_cast<int8_t>((i * 53) % 255 - 127), da[i] = a[i];
  for (int i = 0; i < N * K; ++i) b[i] = static_cast<int8_t>((i * 29) % 251 - 125), db[i] = b[i];
  uint64_t pa = upload(dev, a), pb = upload(dev, b), pc = dev.malloc(M * N * 4);
  auto st = run("wmmaInt8", {N / 16, M / 16}, {32}, pa, pb, pc, M, N, K);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto c = download<int32_t>(dev, pc, M * N);
  auto ref = reference(da, db, M, N, K, 2.0);
  for (int i = 0; i < M * N; ++i) ASSERT_EQ(c[i], static_cast<int32_t>(ref[i])) << i;
}

TEST_P(TensorKernels, WmmaTf32GemmStoresColumnMajor) {
  const int M = 16, N = 32, K = 24;
  std::vector<float> a(M * K), b(N * K);
  std::vector<double> da(M * K), db(N * K);
  // Values with more than tf32's 10 mantissa bits: __float_to_tf32 (cvt.rna)
  // rounds them, ties away from zero; the reference uses the rounded values.
  auto tf32 = [](float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    return std::bit_cast<float>((x + 0x1000u) & 0xffffe000u);
  };
  for (int i = 0; i < M * K; ++i) a[i] = small(i) * (1 + 0x1p-12f), da[i] = tf32(a[i]);
  for (int i = 0; i < N * K; ++i) b[i] = small(i + 7) * (1 + 0x1p-11f), db[i] = tf32(b[i]);
  uint64_t pa = upload(dev, a), pb = upload(dev, b), pc = dev.malloc(M * N * 4);
  auto st = run("wmmaTf32", {N / 16, M / 16}, {32}, pa, pb, pc, M, N, K);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto c = download<float>(dev, pc, M * N);
  auto ref = reference(da, db, M, N, K, 1.0);
  // Tile (tm, tn) is stored column-major with leading dimension N.
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      int tile = (i / 16) * 16 * N + (j / 16) * 16;
      ASSERT_EQ(c[tile + (j % 16) * N + i % 16], static_cast<float>(ref[i * N + j]))
          << i << "," << j;
    }
}

TEST_P(TensorKernels, WmmaF64GemmAccumulatesIntoC) {
  const int M = 16, N = 8, K = 12;
  std::vector<double> a(M * K), b(N * K), c0(M * N);
  for (int i = 0; i < M * K; ++i) a[i] = small(i) / 3.0;  // not exact: fma order matters
  for (int i = 0; i < N * K; ++i) b[i] = small(2 * i + 1);
  for (int i = 0; i < M * N; ++i) c0[i] = small(i + 3);
  uint64_t pa = upload(dev, a), pb = upload(dev, b), pc = upload(dev, c0);
  auto st = run("wmmaF64", {N / 8, M / 8}, {32}, pa, pb, pc, M, N, K);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto c = download<double>(dev, pc, M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double d = c0[i * N + j];
      for (int k = 0; k < K; ++k) d = std::fma(a[i * K + k], b[j * K + k], d);
      ASSERT_EQ(c[i * N + j], d) << i << "," << j;
    }
}

TEST_P(TensorKernels, MmaSyncWithLdmatrixAndStmatrix) {
  const int M = 32, N = 16, K = 32;
  std::vector<uint16_t> a(M * K), b(N * K);
  std::vector<double> da(M * K), db(N * K);
  for (int i = 0; i < M * K; ++i) a[i] = float_to_half(small(i)), da[i] = small(i);
  for (int i = 0; i < N * K; ++i) b[i] = float_to_half(small(i * 5 + 1)), db[i] = small(i * 5 + 1);
  uint64_t pa = upload(dev, a), pb = upload(dev, b), pc = dev.malloc(M * N * 4),
           pc16 = dev.malloc(M * N * 2);
  auto st = run("mmaLdmatrix", {N / 8, M / 16}, {32}, pa, pb, pc, pc16, N, K);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto c = download<float>(dev, pc, M * N);
  auto c16 = download<uint16_t>(dev, pc16, M * N);
  auto ref = reference(da, db, M, N, K, 1.0);
  for (int i = 0; i < M * N; ++i) {
    ASSERT_EQ(c[i], static_cast<float>(ref[i])) << i;
    ASSERT_EQ(c16[i], float_to_half(static_cast<float>(ref[i]))) << i;
  }
}

TEST_P(TensorKernels, MovmatrixTransposes) {
  // Fragment: lane l holds row l/4, columns 2(l%4) and 2(l%4)+1.
  std::vector<uint32_t> in(32);
  auto elem = [](int r, int c) { return static_cast<uint32_t>(100 * r + c); };
  for (int l = 0; l < 32; ++l)
    in[l] = elem(l / 4, 2 * (l % 4)) | elem(l / 4, 2 * (l % 4) + 1) << 16;
  uint64_t pi = upload(dev, in), po = dev.malloc(32 * 4);
  auto st = run("transpose8", {1}, {32}, pi, po);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto out = download<uint32_t>(dev, po, 32);
  for (int l = 0; l < 32; ++l)
    ASSERT_EQ(out[l], elem(2 * (l % 4), l / 4) | elem(2 * (l % 4) + 1, l / 4) << 16) << l;
}

TEST_P(TensorKernels, CpAsyncDoubleBuffer) {
  const int blocks = 2, tiles = 3;
  std::vector<float> in(blocks * tiles * 128 * 4);
  for (size_t i = 0; i < in.size(); ++i) in[i] = small(static_cast<int>(i));
  uint64_t pi = upload(dev, in), po = dev.malloc(blocks * 128 * 4);
  auto st = run("cpAsyncSum", {blocks}, {128}, pi, po, tiles);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto out = download<float>(dev, po, blocks * 128);
  for (int bl = 0; bl < blocks; ++bl)
    for (int t = 0; t < 128; ++t) {
      float acc = 0;
      for (int i = 0; i < tiles; ++i) {
        const float* v = &in[((bl * tiles + i) * 128 + 127 - t) * 4];
        acc += v[0] + v[1] + v[2] + v[3];
      }
      ASSERT_EQ(out[bl * 128 + t], acc) << bl << " " << t;
    }
}

TEST_P(TensorKernels, CudaBarrierMemcpyAsync) {
  const int blocks = 2, n = 256;
  std::vector<int> in(blocks * n);
  std::iota(in.begin(), in.end(), 7);
  uint64_t pi = upload(dev, in), po = dev.malloc(in.size() * 4);
  auto st = run("barrierCopy", {blocks}, {n}, pi, po);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto out = download<int>(dev, po, in.size());
  for (int bl = 0; bl < blocks; ++bl)
    for (int t = 0; t < n; ++t) ASSERT_EQ(out[bl * n + t], in[bl * n + (t + 1) % n] + 1) << t;
}

TEST_P(TensorKernels, BulkCopyThroughMbarrierTransactions) {
  const int blocks = 2;
  std::vector<float> in(blocks * 512);
  for (size_t i = 0; i < in.size(); ++i) in[i] = small(static_cast<int>(i));
  uint64_t pi = upload(dev, in), po = dev.malloc(in.size() * 4);
  auto st = run("bulkCopy", {blocks}, {128}, pi, po);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto out = download<float>(dev, po, in.size());
  for (int bl = 0; bl < blocks; ++bl)
    for (int i = 0; i < 512; ++i) ASSERT_EQ(out[bl * 512 + i], in[bl * 512 + 511 - i] * 2) << i;
}

INSTANTIATE_TEST_SUITE_P(Dialects, TensorKernels, ::testing::Values("sm90", "sm100"));

}  // namespace
}  // namespace smemlab::emu::test
