// Tensor-core semantics: fragment layouts against the PTX ISA's formulas and
// as bijections onto their matrices, and the accumulation rules.
#include "emu/ops_tensor.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <set>
#include <vector>

#include "emu/half.h"

namespace smemlab::emu::tensor {
namespace {

struct Case {
  Shape s;
  Elem e;
};

// Every element of the matrix is held by exactly one (lane, i).
void expect_bijection(Shape s, Elem e, Operand op, bool wmma) {
  unsigned rows = op == Operand::B ? s.k : s.m, cols = op == Operand::A ? s.k : s.n;
  std::set<std::pair<unsigned, unsigned>> seen;
  unsigned per = wmma ? wmma_elements(s, e, op) : mma_elements(s, e, op);
  unsigned distinct = rows * cols / 32;
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned i = 0; i < per; ++i) {
      Pos p = wmma ? wmma_position(s, e, op, lane, i) : mma_position(s, e, op, lane, i);
      ASSERT_LT(p.row, rows);
      ASSERT_LT(p.col, cols);
      bool fresh = seen.insert({p.row, p.col}).second;
      if (i < distinct) {
        EXPECT_TRUE(fresh) << "lane " << lane << " i " << i;
      }
    }
  }
  EXPECT_EQ(seen.size(), rows * cols);
}

TEST(TensorLayout, MmaFragmentsCoverTheirMatrices) {
  for (Case c :
       {Case{{16, 8, 8}, Elem::F16}, Case{{16, 8, 16}, Elem::BF16}, Case{{16, 8, 8}, Elem::TF32},
        Case{{16, 8, 16}, Elem::S8}, Case{{16, 8, 32}, Elem::U8}, Case{{8, 8, 4}, Elem::F64}})
    for (Operand op : {Operand::A, Operand::B, Operand::C}) {
      SCOPED_TRACE(::testing::Message()
                   << c.s.m << "x" << c.s.n << "x" << c.s.k << " op " << static_cast<int>(op));
      expect_bijection(c.s, c.e, op, false);
    }
}

TEST(TensorLayout, MmaFormulasOfTheIsa) {
  // m16n8k16 f16, lane 6 (groupID 1, threadID_in_group 2).
  EXPECT_EQ(mma_position({16, 8, 16}, Elem::F16, Operand::A, 6, 0), (Pos{1, 4}));
  EXPECT_EQ(mma_position({16, 8, 16}, Elem::F16, Operand::A, 6, 3), (Pos{9, 5}));
  EXPECT_EQ(mma_position({16, 8, 16}, Elem::F16, Operand::A, 6, 5), (Pos{1, 13}));
  EXPECT_EQ(mma_position({16, 8, 16}, Elem::F16, Operand::A, 6, 6), (Pos{9, 12}));
  EXPECT_EQ(mma_position({16, 8, 16}, Elem::F16, Operand::B, 6, 3), (Pos{13, 1}));
  EXPECT_EQ(mma_position({16, 8, 16}, Elem::F32, Operand::C, 6, 3), (Pos{9, 5}));
  // m16n8k8 tf32: a1 is row groupID+8, a2 column threadID_in_group+4.
  EXPECT_EQ(mma_position({16, 8, 8}, Elem::TF32, Operand::A, 6, 1), (Pos{9, 2}));
  EXPECT_EQ(mma_position({16, 8, 8}, Elem::TF32, Operand::A, 6, 2), (Pos{1, 6}));
  EXPECT_EQ(mma_position({16, 8, 8}, Elem::TF32, Operand::B, 6, 1), (Pos{6, 1}));
  // m16n8k32 s8: a9 is row groupID, column tig*4 + 1 + 16.
  EXPECT_EQ(mma_position({16, 8, 32}, Elem::S8, Operand::A, 6, 9), (Pos{1, 25}));
  EXPECT_EQ(mma_position({16, 8, 32}, Elem::S8, Operand::A, 6, 4), (Pos{9, 8}));
  EXPECT_EQ(mma_position({16, 8, 32}, Elem::S8, Operand::B, 6, 5), (Pos{25, 1}));
  // m8n8k4 f64.
  EXPECT_EQ(mma_position({8, 8, 4}, Elem::F64, Operand::A, 6, 0), (Pos{1, 2}));
  EXPECT_EQ(mma_position({8, 8, 4}, Elem::F64, Operand::C, 6, 1), (Pos{1, 5}));
  EXPECT_THROW(mma_position({16, 8, 32}, Elem::F16, Operand::A, 0, 0), Unsupported);
}

TEST(TensorLayout, WmmaFragmentsCoverTheirMatrices) {
  for (Case c :
       {Case{{16, 16, 16}, Elem::F16}, Case{{16, 16, 16}, Elem::BF16},
        Case{{16, 16, 8}, Elem::TF32}, Case{{16, 16, 16}, Elem::S8}, Case{{8, 8, 4}, Elem::F64}})
    for (Operand op : {Operand::A, Operand::B, Operand::C}) {
      SCOPED_TRACE(::testing::Message()
                   << c.s.m << "x" << c.s.n << "x" << c.s.k << " op " << static_cast<int>(op));
      expect_bijection(c.s, c.e, op, true);
    }
  EXPECT_EQ(wmma_elements({16, 16, 16}, Elem::F16, Operand::A), 16u);
  EXPECT_EQ(wmma_elements({16, 16, 16}, Elem::BF16, Operand::B), 8u);
  EXPECT_EQ(wmma_elements({16, 16, 16}, Elem::F32, Operand::C), 8u);
  EXPECT_EQ(wmma_elements({16, 16, 8}, Elem::TF32, Operand::A), 4u);
  EXPECT_EQ(wmma_elements({16, 16, 16}, Elem::S8, Operand::B), 8u);
}

TEST(TensorLayout, LdmatrixAndMovmatrix) {
  // Lane 5 gets row 1, columns 2 and 3; transposed: column 1, rows 2 and 3.
  EXPECT_EQ(ldmatrix_position(false, 5, 0), (Pos{1, 2}));
  EXPECT_EQ(ldmatrix_position(false, 5, 1), (Pos{1, 3}));
  EXPECT_EQ(ldmatrix_position(true, 5, 1), (Pos{3, 1}));
  // movmatrix twice is the identity; once, it transposes.
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned h = 0; h < 2; ++h) {
      LaneHalf s = movmatrix_source(lane, h);
      LaneHalf back = movmatrix_source(s.lane, s.half);
      EXPECT_EQ(back.lane, lane);
      EXPECT_EQ(back.half, h);
      Pos dst = ldmatrix_position(false, lane, h), src = ldmatrix_position(false, s.lane, s.half);
      EXPECT_EQ(dst.row, src.col);
      EXPECT_EQ(dst.col, src.row);
    }
}

uint64_t h(float f) { return float_to_half(f); }
uint64_t f32(float f) { return std::bit_cast<uint32_t>(f); }
float as_f32(uint64_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b)); }

TEST(TensorMath, F16ToF32IsExactProductsOneRounding) {
  // m16n8k16, row 0 of A all (1 + 2^-10), column 0 of B all (1 + 2^-10):
  // each product 1 + 2^-9 + 2^-20 is exact only beyond f16/f32-product
  // rounding; sixteen of them plus c = 2^24 rounds once.
  MmaSpec sp;  // m16n8k16 f16 -> f32
  std::vector<uint64_t> A(16 * 16, h(0)), B(16 * 8, h(0)), C(16 * 8, f32(0)), D(16 * 8);
  float x = 1.0f + 0x1p-10f;
  for (unsigned k = 0; k < 16; ++k) A[k] = B[k * 8] = h(x);
  mma(sp, A.data(), B.data(), C.data(), D.data());
  double exact = 16.0 * (double(x) * double(x));
  EXPECT_EQ(as_f32(D[0]), static_cast<float>(exact));
  EXPECT_EQ(as_f32(D[1]), 0.0f);
  // Small terms that a k-ordered f32 sum would drop one by one.
  for (unsigned k = 0; k < 16; ++k) A[k] = h(0x1p-12f), B[k * 8] = h(0x1p-12f);
  C[0] = f32(1.0f);
  mma(sp, A.data(), B.data(), C.data(), D.data());
  EXPECT_EQ(as_f32(D[0]), 1.0f + 0x1p-20f);
}

TEST(TensorMath, F16AccumulatorRoundsOnce) {
  MmaSpec sp{{16, 8, 8}, Elem::F16, Elem::F16, Elem::F16, Elem::F16};
  std::vector<uint64_t> A(16 * 8, h(0)), B(8 * 8, h(0)), C(16 * 8, h(0)), D(16 * 8);
  // 2048 + 1 + 2^-11: the exact sum rounds up to 2050 in f16 (spacing 2),
  // while rounding 2048 + 1 first (a tie, to even 2048) would lose it.
  C[0] = h(2048.0f);
  A[0] = h(1.0f), B[0] = h(1.0f);
  A[1] = h(0x1p-11f), B[8] = h(1.0f);
  mma(sp, A.data(), B.data(), C.data(), D.data());
  EXPECT_EQ(half_to_float(static_cast<uint16_t>(D[0])), 2050.0f);
}

TEST(TensorMath, Bf16AndTf32Inputs) {
  MmaSpec sp{{16, 8, 16}, Elem::BF16, Elem::BF16, Elem::F32, Elem::F32};
  std::vector<uint64_t> A(16 * 16, 0), B(16 * 8, 0), C(16 * 8, f32(0.5f)), D(16 * 8);
  A[0] = float_to_bf16(3.0f), B[0] = float_to_bf16(-2.0f);
  mma(sp, A.data(), B.data(), C.data(), D.data());
  EXPECT_EQ(as_f32(D[0]), -5.5f);
  EXPECT_EQ(as_f32(D[9]), 0.5f);
  // tf32 reads the top 19 bits: 1 + 2^-20 is 1 to the tensor core.
  MmaSpec t{{16, 8, 8}, Elem::TF32, Elem::TF32, Elem::F32, Elem::F32};
  std::vector<uint64_t> a(16 * 8, f32(0)), b(8 * 8, f32(0)), c(16 * 8, f32(0)), d(16 * 8);
  a[0] = f32(1.0f + 0x1p-20f), b[0] = f32(3.0f);
  a[1] = f32(1.0f + 0x1p-10f), b[8] = f32(1.0f);
  mma(t, a.data(), b.data(), c.data(), d.data());
  EXPECT_EQ(as_f32(d[0]), 4.0f + 0x1p-10f);
}

TEST(TensorMath, IntegersWrapOrSaturate) {
  MmaSpec sp{{16, 8, 32}, Elem::S8, Elem::U8, Elem::S32, Elem::S32};
  std::vector<uint64_t> A(16 * 32, 0), B(32 * 8, 0), C(16 * 8, 0), D(16 * 8);
  for (unsigned k = 0; k < 32; ++k) A[k] = static_cast<uint8_t>(-128), B[k * 8] = 255;
  C[0] = static_cast<uint32_t>(INT32_MIN);  // wraps below INT32_MIN
  mma(sp, A.data(), B.data(), C.data(), D.data());
  int64_t exact = int64_t{INT32_MIN} + 32 * (-128) * 255;
  EXPECT_EQ(static_cast<int32_t>(D[0]), static_cast<int32_t>(static_cast<uint32_t>(exact)));
  sp.satfinite = true;
  mma(sp, A.data(), B.data(), C.data(), D.data());
  EXPECT_EQ(static_cast<int32_t>(D[0]), INT32_MIN);
  C[0] = 7;
  A[32] = 5, B[1] = 6;  // row 1 x column 1 = 5 * 6 ... only k = 0 non-zero
  mma(sp, A.data(), B.data(), C.data(), D.data());
  EXPECT_EQ(static_cast<int32_t>(D[8 + 1]), 30);
  EXPECT_THROW(mma({{16, 8, 32}, Elem::S8, Elem::S8, Elem::F32, Elem::F32}, A.data(), B.data(),
                   C.data(), D.data()),
               Unsupported);
}

TEST(TensorMath, F64IsAnFmaChain) {
  MmaSpec sp{{8, 8, 4}, Elem::F64, Elem::F64, Elem::F64, Elem::F64};
  auto d = [](double x) { return std::bit_cast<uint64_t>(x); };
  std::vector<uint64_t> A(8 * 4, d(0)), B(4 * 8, d(0)), C(8 * 8, d(0)), D(8 * 8);
  double e = 0x1p-30;
  A[0] = d(1 + e), B[0] = d(1 - e), C[0] = d(-1);  // fma keeps -e^2
  mma(sp, A.data(), B.data(), C.data(), D.data());
  EXPECT_EQ(std::bit_cast<double>(D[0]), -e * e);
}

// fp8 reference, written from the OCP FP8 definitions: every pattern's
// value from sign, exponent and mantissa fields; conversions by searching
// all finite patterns for the nearest (ties to the even pattern), clamped.
double ref_fp8(bool e4m3, unsigned bits) {
  unsigned man_bits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  unsigned exp = (bits >> man_bits) & (e4m3 ? 15 : 31), man = bits & ((1u << man_bits) - 1);
  double sign = bits & 0x80 ? -1 : 1;
  if (e4m3 && exp == 15 && man == 7) return NAN;
  if (!e4m3 && exp == 31) return man ? NAN : sign * INFINITY;
  double frac = static_cast<double>(man) / (1u << man_bits);
  return exp == 0 ? sign * frac * std::pow(2.0, 1.0 - bias)
                  : sign * (1 + frac) * std::pow(2.0, static_cast<double>(exp) - bias);
}

unsigned ref_to_fp8(bool e4m3, double x) {
  if (std::isnan(x)) return 0x7f;
  unsigned best = 0;
  double best_err = INFINITY;
  for (unsigned b = 0; b < 256; ++b) {
    double v = ref_fp8(e4m3, b);
    if (!std::isfinite(v) || std::signbit(v) != std::signbit(x)) continue;
    double err = std::isinf(x) ? -std::fabs(v) : std::fabs(v - x);
    if (err < best_err || (err == best_err && (b & 1) == 0 && (best & 1) == 1))
      best = b, best_err = err;
  }
  return best;
}

TEST(TensorMath, Fp8ValuesAndConversions) {
  for (bool e4m3 : {true, false}) {
    Elem e = e4m3 ? Elem::E4M3 : Elem::E5M2;
    for (unsigned b = 0; b < 256; ++b) {
      double want = ref_fp8(e4m3, b), got = fp8_value(e, static_cast<uint8_t>(b));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << b;
        EXPECT_EQ(fp8_to_half(e, static_cast<uint8_t>(b), false), 0x7fffu);
        continue;
      }
      EXPECT_EQ(got, want) << b;
      EXPECT_EQ(half_to_float(fp8_to_half(e, static_cast<uint8_t>(b), false)), want) << b;
      EXPECT_EQ(fp8_to_half(e, static_cast<uint8_t>(b), true),
                b & 0x80 ? 0u : fp8_to_half(e, static_cast<uint8_t>(b), false))
          << b;
    }
    // Every f16 value, and f32 values around each fp8 midpoint.
    for (unsigned h = 0; h < 0x10000; ++h) {
      double x = half_to_float(static_cast<uint16_t>(h));
      ASSERT_EQ(to_fp8(e, x, false), ref_to_fp8(e4m3, x)) << std::hex << h;
      if (!std::isnan(x)) {
        ASSERT_EQ(to_fp8(e, x, true), ref_to_fp8(e4m3, std::signbit(x) ? 0.0 : x)) << h;
      }
    }
    for (unsigned b = 0; b < 0x7f; ++b) {
      double lo = ref_fp8(e4m3, b), hi = ref_fp8(e4m3, b + 1);
      if (!std::isfinite(hi)) continue;
      for (double x : {(lo + hi) / 2, std::nextafter((lo + hi) / 2, 0.0),
                       std::nextafter((lo + hi) / 2, 1e9)}) {
        float f = static_cast<float>(x);
        ASSERT_EQ(to_fp8(e, f, false), ref_to_fp8(e4m3, f)) << x;
        ASSERT_EQ(to_fp8(e, -f, false), ref_to_fp8(e4m3, -f)) << x;
      }
    }
    EXPECT_EQ(to_fp8(e, INFINITY, false), e4m3 ? 0x7eu : 0x7bu);
    EXPECT_EQ(to_fp8(e, -1e30, false), e4m3 ? 0xfeu : 0xfbu);
  }
}

TEST(TensorMath, Fp8MmaMixesFormats) {
  MmaSpec sp{{16, 8, 32}, Elem::E4M3, Elem::E5M2, Elem::F32, Elem::F32};
  std::vector<uint64_t> A(16 * 32, 0), B(32 * 8, 0), C(16 * 8, 0), D(16 * 8);
  A[0] = 0x38;  // e4m3 1.0
  A[1] = 0x01;  // e4m3 2^-9
  B[0] = 0x44;  // e5m2 4.0
  B[8] = 0x7b;  // e5m2 57344
  C[0] = std::bit_cast<uint32_t>(0.5f);
  mma(sp, A.data(), B.data(), C.data(), D.data());
  EXPECT_EQ(std::bit_cast<float>(static_cast<uint32_t>(D[0])), 4.5f + 57344.0f / 512);
  EXPECT_EQ(mma_position({16, 8, 32}, Elem::E4M3, Operand::A, 6, 9), (Pos{1, 25}));
  EXPECT_THROW(mma({{16, 8, 32}, Elem::E4M3, Elem::S8, Elem::S32, Elem::S32}, A.data(), B.data(),
                   C.data(), D.data()),
               Unsupported);
}

// mma against the scalar loop it must equal bit for bit: inputs whose
// products span about 2^-80..2^80, so the double sums round and any change
// of the k order (or of the columns' independent chains) changes some D.
// Every shape whose sums the executors vectorize (n = 8 and 16, m even),
// f64's fma chain, and the integer sums.
TEST(TensorMath, SumsAreTheScalarLoopsBitForBit) {
  struct Spec {
    Shape s;
    Elem in, acc;
  };
  const Spec specs[] = {{{16, 8, 16}, Elem::F16, Elem::F32},  {{16, 16, 16}, Elem::BF16, Elem::F32},
                        {{16, 8, 8}, Elem::TF32, Elem::F32},  {{16, 16, 8}, Elem::TF32, Elem::F32},
                        {{16, 8, 16}, Elem::BF16, Elem::F16}, {{8, 8, 4}, Elem::F64, Elem::F64},
                        {{16, 8, 32}, Elem::S8, Elem::S32},   {{16, 16, 16}, Elem::U8, Elem::S32}};
  uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  auto input = [&](Elem e) -> uint64_t {
    const uint32_t r = next();
    const float mant = 1.0f + static_cast<float>(r & 0x3ff) / 1024.0f;
    const float v = std::ldexp(r & 0x400 ? -mant : mant, static_cast<int>((r >> 11) % 80) - 40);
    switch (e) {
      case Elem::F16:  // f16 has less range: exponents -3..0
        return h(std::ldexp(mant, static_cast<int>((r >> 11) % 4) - 3) * (r & 0x400 ? -1 : 1));
      case Elem::BF16:
        return float_to_bf16(v);
      case Elem::TF32:
        return std::bit_cast<uint32_t>(v) | (r >> 19);  // low bits the mma must ignore
      case Elem::F64:
        return std::bit_cast<uint64_t>(static_cast<double>(v) / 3.0);
      default:
        return r >> 24;  // s8/u8 bits
    }
  };
  for (const Spec& p : specs) {
    MmaSpec sp{p.s, p.in, p.in, p.acc, p.acc};
    const unsigned M = p.s.m, N = p.s.n, K = p.s.k;
    std::vector<uint64_t> A(M * K), B(K * N), C(M * N), D(M * N);
    for (auto& x : A) x = input(p.in);
    for (auto& x : B) x = input(p.in);
    if (p.acc != Elem::S32) {
      // A cancelling pair of products, +big^2 at k1 and -big^2 at k2: what
      // is added before k1 rounds to big^2's spacing, what comes after k2
      // does not, so the result depends on the order of the sums.
      const unsigned k1 = next() % (K / 2), k2 = K / 2 + next() % (K / 2);
      const float big = p.in == Elem::F16 ? 0x1p15f : 0x1p40f;
      auto enc = [&](float v) -> uint64_t {
        return p.in == Elem::F16    ? h(v)
               : p.in == Elem::BF16 ? float_to_bf16(v)
               : p.in == Elem::F64  ? std::bit_cast<uint64_t>(static_cast<double>(v))
                                    : std::bit_cast<uint32_t>(v);
      };
      for (unsigned r = 0; r < M; ++r) A[r * K + k1] = A[r * K + k2] = enc(big);
      for (unsigned c = 0; c < N; ++c) B[k1 * N + c] = enc(big), B[k2 * N + c] = enc(-big);
    }
    for (auto& x : C) {
      const uint32_t r = next();
      x = p.acc == Elem::F32   ? f32(std::ldexp(1.0f + (r & 0xfff) / 4096.0f, (r >> 12) % 40 - 20))
          : p.acc == Elem::F16 ? h(1.0f + (r & 0xff) / 256.0f)
          : p.acc == Elem::F64 ? std::bit_cast<uint64_t>(static_cast<double>(r) / 7.0)
                               : uint64_t{r};
    }
    mma(sp, A.data(), B.data(), C.data(), D.data());
    for (unsigned r = 0; r < M; ++r)
      for (unsigned c = 0; c < N; ++c) {
        double d = input_value(p.acc, C[r * N + c]);
        for (unsigned k = 0; k < K; ++k) {
          const double a = input_value(p.in, A[r * K + k]), b = input_value(p.in, B[k * N + c]);
          d = p.in == Elem::F64 ? std::fma(a, b, d) : d + a * b;
        }
        uint64_t want;
        if (p.acc == Elem::S32)
          want = static_cast<uint32_t>(static_cast<int64_t>(d));
        else if (p.acc == Elem::F64)
          want = std::bit_cast<uint64_t>(d);
        else if (p.acc == Elem::F32)
          want = std::bit_cast<uint32_t>(static_cast<float>(d));
        else
          want = double_to_half(d);
        ASSERT_EQ(D[r * N + c], want)
            << "m" << M << "n" << N << "k" << K << " type " << int(p.in) << " at " << r << "," << c;
      }
  }
}

}  // namespace
}  // namespace smemlab::emu::tensor
