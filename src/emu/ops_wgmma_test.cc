// wgmma.mma_async through the interpreter, against an independent CPU
// reference: the shared-memory image and the register fragments are made
// here from the PTX ISA's layouts (written again, not taken from
// ops_wgmma.cc), a 128-thread kernel runs one wgmma, and every D element is
// compared with a plain triple loop over the logical matrices.
#include "emu/ops_wgmma.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "emu/half.h"
#include "emu/launch.h"
#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

using tensor::Elem;

// ---- The reference layouts (PTX ISA, "Shared Memory Matrix Layout" and
// "Register Fragments") ------------------------------------------------------

struct Layout {
  bool mn_major = false;  // imm-trans = 1
  unsigned swizzle = 0;   // bytes of a swizzle row: 0 (none), 32, 64, 128
  uint32_t start = 0;     // byte offset of the matrix in the image
  uint32_t lbo = 0, sbo = 0;
  unsigned base_offset = 0;
};

// The canonical layouts as CuTe writes them (cute/atom/mma_traits_sm90_gmma.hpp),
// in units of 16-byte chunks of T elements, W = swizzle / 16:
//   K-major:  ((8,m),(T,2)) : ((W,SBO),(1,LBO or 1))
//   MN-major: none ((T,1,m),(8,k)) : ((1,T,SBO),(1,LBO)); else ((T,W,m),(8,k)) :
//   ((1,T,LBO),(W,SBO))
// evaluated coordinate by coordinate, then Swizzle<B,4,3> on the address
// relative to the pattern that starts base_offset x 128 bytes into 1024.
uint32_t ref_address(const Layout& l, unsigned eb, unsigned mn, unsigned k) {
  const unsigned t = 16 / eb, w = l.swizzle ? l.swizzle / 16 : 1;
  uint32_t bytes;
  if (!l.mn_major) {
    unsigned row = mn % 8, group = mn / 8, chunk = k / t, elem = k % t;
    bytes = row * 16 * w + group * l.sbo + chunk * (l.swizzle ? 16 : l.lbo) + elem * eb;
  } else {
    unsigned elem = mn % t, chunk = (mn / t) % w, group = mn / t / w, krow = k % 8, kgrp = k / 8;
    if (!l.swizzle)
      bytes = elem * eb + (mn / t) * l.sbo + krow * 16 + kgrp * l.lbo;
    else
      bytes = elem * eb + chunk * 16 + group * l.lbo + krow * 16 * w + kgrp * l.sbo;
  }
  uint32_t a = l.start + bytes;
  if (l.swizzle) {
    unsigned bits = l.swizzle == 128 ? 3 : l.swizzle == 64 ? 2 : 1;
    uint32_t row = ((a >> 7) + 8 - l.base_offset) % (1u << bits);
    a ^= row << 4;
  }
  return a;
}

uint64_t make_desc(const Layout& l) {
  uint64_t mode = l.swizzle == 128 ? 1 : l.swizzle == 64 ? 2 : l.swizzle == 32 ? 3 : 0;
  return uint64_t{(l.start & 0x3ffff) >> 4} | uint64_t{(l.lbo & 0x3ffff) >> 4} << 16 |
         uint64_t{(l.sbo & 0x3ffff) >> 4} << 32 | uint64_t{l.base_offset} << 49 | mode << 62;
}

// D: warp w, lane l, element i -> (16w + l/4 + 8((i/2)%2), 8(i/4) + 2(l%4) + i%2).
std::pair<unsigned, unsigned> ref_d(unsigned tid, unsigned i) {
  unsigned w = tid / 32, l = tid % 32;
  return {16 * w + l / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (l % 4) + i % 2};
}
// A in registers: element i of thread tid (4 registers).
std::pair<unsigned, unsigned> ref_a(unsigned bits, unsigned tid, unsigned i) {
  unsigned w = tid / 32, l = tid % 32, g = l / 4, c = l % 4;
  if (bits == 16) return {16 * w + g + 8 * ((i / 2) % 2), 2 * c + i % 2 + 8 * (i / 4)};
  if (bits == 32) return {16 * w + g + 8 * (i % 2), c + 4 * (i / 2)};
  return {16 * w + g + 8 * ((i / 4) % 2), 4 * c + i % 4 + 16 * (i / 8)};
}

// Element encodings and values.
double fp8_ref(bool e4m3, uint8_t b) {
  int mb = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  int e = (b & 0x7f) >> mb, m = b & ((1 << mb) - 1);
  double v = e ? std::ldexp(1.0 + m / double(1 << mb), e - bias)
               : std::ldexp(m / double(1 << mb), 1 - bias);
  return b & 0x80 ? -v : v;
}

struct Case {
  Elem ab = Elem::F16, b = Elem::F16, d = Elem::F32;
  unsigned n = 8;
  bool a_regs = false;
  Layout la, lb;
  bool scale_d = true, neg_a = false, neg_b = false, satfinite = false;
  double c_bias = 0;  // added to every C element (integer overflow tests)
  unsigned seed = 1;
};

std::string type_name(Elem e) {
  switch (e) {
    case Elem::F16:
      return "f16";
    case Elem::BF16:
      return "bf16";
    case Elem::TF32:
      return "tf32";
    case Elem::F32:
      return "f32";
    case Elem::S8:
      return "s8";
    case Elem::U8:
      return "u8";
    case Elem::S32:
      return "s32";
    case Elem::E4M3:
      return "e4m3";
    case Elem::E5M2:
      return "e5m2";
    default:
      return "?";
  }
}

unsigned bits_of(Elem e) {
  return e == Elem::F16 || e == Elem::BF16 ? 16 : e == Elem::TF32 ? 32 : 8;
}
unsigned k_of(Elem e) { return bits_of(e) == 16 ? 16 : bits_of(e) == 32 ? 8 : 32; }

// A random element: its stored bits and exact value (small, so every sum is exact).
std::pair<uint32_t, double> random_elem(Elem e, std::mt19937& rng) {
  int v = static_cast<int>(rng() % 9) - 4;  // -4..4
  switch (e) {
    case Elem::F16:
      return {float_to_half(v / 2.0f), v / 2.0};
    case Elem::BF16:
      return {float_to_bf16(v / 4.0f), v / 4.0};
    case Elem::TF32:  // low 13 bits are not read: fill them with noise
      return {std::bit_cast<uint32_t>(v / 2.0f) | (rng() & 0x1fffu), v / 2.0};
    case Elem::S8:
      return {static_cast<uint8_t>(v * 30), v * 30.0};
    case Elem::U8:
      return {static_cast<uint8_t>((v + 4) * 30), (v + 4) * 30.0};
    default: {
      uint8_t b = static_cast<uint8_t>(rng());
      double x = fp8_ref(e == Elem::E4M3, b);
      if (!std::isfinite(x) || std::fabs(x) > 64 || (b & 0x7f) == (e == Elem::E4M3 ? 0x7f : 0x7c))
        return {0, 0.0};
      return {b, x};
    }
  }
}

std::string wgmma_ptx(const Case& c, unsigned smem) {
  const unsigned k = k_of(c.ab), dregs = c.d == Elem::F16 ? c.n / 4 : c.n / 2;
  const bool ints = c.d == Elem::S32, is16 = bits_of(c.ab) == 16;
  std::string d = "{";
  for (unsigned j = 0; j < dregs; ++j) d += (j ? ", %d" : "%d") + std::to_string(j);
  d += "}";
  std::string line = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.n) + "k" +
                     std::to_string(k) + (c.satfinite ? ".satfinite." : ".") + type_name(c.d) +
                     "." + type_name(c.ab) + "." + type_name(c.b) + " " + d + ", " +
                     (c.a_regs ? "{%a0, %a1, %a2, %a3}" : "%rd7") + ", %rd8, %p2";
  if (!ints) line += std::string(", ") + (c.neg_a ? "-1" : "1") + ", " + (c.neg_b ? "-1" : "1");
  if (is16 && !c.a_regs) line += std::string(", ") + (c.la.mn_major ? "1" : "0");
  if (is16) line += std::string(", ") + (c.lb.mn_major ? "1" : "0");
  line += ";";
  std::string loads, stores;
  for (unsigned j = 0; j < dregs; ++j) {
    loads +=
        "  ld.global.u32 %d" + std::to_string(j) + ", [%rd11+" + std::to_string(4 * j) + "];\n";
    stores +=
        "  st.global.u32 [%rd11+" + std::to_string(4 * j) + "], %d" + std::to_string(j) + ";\n";
  }
  return ".version 8.0\n.target sm_90a\n.address_size 64\n"
         ".visible .entry w(.param .u64 img, .param .u32 words, .param .u64 descs,\n"
         "                  .param .u64 aregs, .param .u64 out)\n{\n"
         "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n"
         "  .reg .b32 %d<128>;\n  .reg .b32 %a<4>;\n"
         "  .shared .align 1024 .b8 sm[" +
         std::to_string(smem) +
         "];\n"
         "  ld.param.u64 %rd1, [img];\n  ld.param.u32 %r1, [words];\n"
         "  ld.param.u64 %rd2, [descs];\n  ld.param.u64 %rd3, [aregs];\n"
         "  ld.param.u64 %rd4, [out];\n  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %r2;\n"
         "$Lcopy:\n  setp.ge.u32 %p1, %r3, %r1;\n  @%p1 bra $Ldone;\n"
         "  mul.wide.u32 %rd5, %r3, 4;\n  add.s64 %rd6, %rd1, %rd5;\n  ld.global.u32 %r4, [%rd6];\n"
         "  mov.u32 %r5, sm;\n  shl.b32 %r6, %r3, 2;\n  add.u32 %r5, %r5, %r6;\n"
         "  st.shared.u32 [%r5], %r4;\n  add.u32 %r3, %r3, 128;\n  bra $Lcopy;\n"
         "$Ldone:\n  bar.sync 0;\n"
         "  ld.global.u64 %rd7, [%rd2];\n  ld.global.u64 %rd8, [%rd2+8];\n"
         "  mov.u32 %r7, sm;\n  shr.u32 %r7, %r7, 4;\n  cvt.u64.u32 %rd9, %r7;\n"
         "  add.s64 %rd7, %rd7, %rd9;\n  add.s64 %rd8, %rd8, %rd9;\n"
         "  mul.wide.u32 %rd10, %r2, 16;\n  add.s64 %rd10, %rd3, %rd10;\n"
         "  ld.global.v4.u32 {%a0, %a1, %a2, %a3}, [%rd10];\n"
         "  mul.wide.u32 %rd11, %r2, " +
         std::to_string(4 * dregs) +
         ";\n"
         "  add.s64 %rd11, %rd4, %rd11;\n" +
         loads +
         "  ld.global.u32 %r8, [%rd2+16];\n  setp.ne.u32 %p2, %r8, 0;\n"
         "  wgmma.fence.sync.aligned;\n  " +
         line +
         "\n"
         "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n" +
         stores + "  ret;\n}\n";
}

// Runs case c: returns "" when every element of D matches the reference.
std::string run_case(const Case& c) {
  const unsigned n = c.n, k = k_of(c.ab), eb = bits_of(c.ab) / 8;
  const bool ints = c.d == Elem::S32;
  std::mt19937 rng(c.seed);
  // Logical matrices (values) and their stored bits.
  std::vector<double> A(64 * k), B(size_t{k} * n), C(64 * n);
  std::vector<uint32_t> Abits(64 * k), Bbits(size_t{k} * n);
  for (unsigned i = 0; i < 64 * k; ++i) std::tie(Abits[i], A[i]) = random_elem(c.ab, rng);
  for (unsigned i = 0; i < k * n; ++i) std::tie(Bbits[i], B[i]) = random_elem(c.b, rng);
  for (auto& x : C)
    x = ints ? static_cast<double>(static_cast<int>(rng() % 2001) - 1000)
             : (static_cast<int>(rng() % 65) - 32) / 4.0;
  for (auto& x : C) x += c.c_bias;
  // The shared-memory image.
  std::vector<uint8_t> img(65536, 0);
  auto place = [&](const Layout& l, unsigned mn, unsigned kk, uint32_t bits) {
    uint32_t a = ref_address(l, eb, mn, kk);
    EXPECT_LE(a + eb, img.size());
    std::memcpy(&img[a], &bits, eb);
  };
  uint32_t top = 0;
  for (unsigned kk = 0; kk < k; ++kk) {
    for (unsigned nn = 0; nn < n; ++nn) {
      place(c.lb, nn, kk, Bbits[kk * n + nn]);
      top = std::max(top, ref_address(c.lb, eb, nn, kk) + eb);
    }
    if (!c.a_regs)
      for (unsigned m = 0; m < 64; ++m) {
        place(c.la, m, kk, Abits[m * k + kk]);
        top = std::max(top, ref_address(c.la, eb, m, kk) + eb);
      }
  }
  const uint32_t smem = (top + 1023) / 1024 * 1024;
  img.resize(smem);
  // A fragments and D (C) fragments per thread.
  const unsigned dregs = c.d == Elem::F16 ? n / 4 : n / 2, per = 32 / bits_of(c.ab);
  std::vector<uint32_t> aregs(128 * 4, 0), dinit(size_t{128} * dregs, 0);
  for (unsigned tid = 0; tid < 128; ++tid) {
    for (unsigned i = 0; i < 4 * per; ++i) {
      auto [r, col] = ref_a(bits_of(c.ab), tid, i);
      aregs[tid * 4 + i / per] |= Abits[r * k + col] << (bits_of(c.ab) * (i % per));
    }
    for (unsigned i = 0; i < n / 2; ++i) {
      auto [r, col] = ref_d(tid, i);
      double v = C[r * n + col];
      uint32_t bits = ints               ? static_cast<uint32_t>(static_cast<int32_t>(v))
                      : c.d == Elem::F32 ? std::bit_cast<uint32_t>(static_cast<float>(v))
                                         : float_to_half(static_cast<float>(v));
      if (c.d == Elem::F16)
        dinit[tid * dregs + i / 2] |= bits << (16 * (i % 2));
      else
        dinit[tid * dregs + i] = bits;
    }
  }
  Device dev;
  auto mod = Module::load_text(dev, wgmma_ptx(c, smem), "wgmma_test.ptx");
  uint64_t d_img = dev.malloc(img.size()), d_desc = dev.malloc(24),
           d_a = dev.malloc(aregs.size() * 4), d_out = dev.malloc(dinit.size() * 4);
  dev.copy_to(d_img, img.data(), img.size());
  uint64_t descs[3] = {make_desc(c.la), make_desc(c.lb), c.scale_d ? 1u : 0u};
  dev.copy_to(d_desc, descs, sizeof descs);
  dev.copy_to(d_a, aregs.data(), aregs.size() * 4);
  dev.copy_to(d_out, dinit.data(), dinit.size() * 4);
  LaunchConfig cfg{{1}, {128}, 0};
  cfg.threads = 1;  // every case on this host thread (the executor's B cache)
  auto st =
      launch(*mod, "w", cfg, d_img, static_cast<uint32_t>(img.size() / 4), d_desc, d_a, d_out);
  if (!st.ok()) return st.error->what();
  std::vector<uint32_t> out(dinit.size());
  dev.copy_from(out.data(), d_out, out.size() * 4);
  // The plain triple loop.
  for (unsigned tid = 0; tid < 128; ++tid)
    for (unsigned i = 0; i < n / 2; ++i) {
      auto [r, col] = ref_d(tid, i);
      double sum = c.scale_d ? C[r * n + col] : 0;
      for (unsigned kk = 0; kk < k; ++kk)
        sum += (c.neg_a ? -1 : 1) * A[r * k + kk] * (c.neg_b ? -1 : 1) * B[kk * n + col];
      uint32_t want, got;
      if (c.d == Elem::F16) {
        want = float_to_half(static_cast<float>(sum));
        got = (out[tid * dregs + i / 2] >> (16 * (i % 2))) & 0xffff;
      } else {
        got = out[tid * dregs + i];
        if (ints) {
          double s = c.satfinite ? std::clamp(sum, -2147483648.0, 2147483647.0) : sum;
          want = static_cast<uint32_t>(static_cast<int64_t>(s));
        } else {
          want = std::bit_cast<uint32_t>(static_cast<float>(sum));
        }
      }
      if (want != got) return fmt::format("D({}, {}): want 0x{:x}, got 0x{:x}", r, col, want, got);
    }
  return "";
}

// K-major layouts of an mn x (32 bytes of k) matrix at `start`.
Layout k_major(unsigned swizzle, uint32_t start) {
  Layout l;
  l.swizzle = swizzle;
  l.start = start;
  if (swizzle) {
    l.lbo = 16;  // not used
    l.sbo = 8 * swizzle;
  } else {
    l.lbo = 128;  // the two k chunks' core matrices side by side
    l.sbo = 256;
  }
  return l;
}
// MN-major layouts (16-bit elements, k = 16) of an mn x 16 matrix.
Layout mn_major(unsigned swizzle, uint32_t start, unsigned mn) {
  Layout l;
  l.mn_major = true;
  l.swizzle = swizzle;
  l.start = start;
  if (swizzle) {
    l.sbo = 8 * swizzle;      // the second 8 k rows
    l.lbo = 2 * 8 * swizzle;  // the next swizzle-row width of mn
  } else {
    l.sbo = 128;           // the next 8 mn elements
    l.lbo = mn / 8 * 128;  // the second 8 k rows
  }
  return l;
}

TEST(Wgmma, DescriptorFields) {
  Layout l{false, 128, 0x12340, 0x450, 0x1230, 5};
  tensor::MatrixDesc d = tensor::decode_desc(make_desc(l));
  EXPECT_EQ(d.start, 0x12340u);
  EXPECT_EQ(d.lbo, 0x450u);
  EXPECT_EQ(d.sbo, 0x1230u);
  EXPECT_EQ(d.base_offset, 5u);
  EXPECT_EQ(d.swizzle, 1u);
  // Every swizzle, both majors, elements of 1, 2 and 4 bytes (the k of
  // 32 bytes each type's wgmma reads), a base offset, and padded strides.
  for (unsigned eb : {1u, 2u, 4u})
    for (unsigned sw : {0u, 32u, 64u, 128u})
      for (bool mn : {false, true})
        for (uint32_t pad : {0u, 1024u})
          for (unsigned row = 0; row < 64; ++row)
            for (unsigned k = 0; k < 32 / eb; ++k) {
              Layout x = mn ? mn_major(sw, 2048 + 384, 64) : k_major(sw, 2048 + 32);
              x.base_offset = sw ? 3 : 0;
              x.lbo += pad;
              x.sbo += 2 * pad;
              ASSERT_EQ(tensor::desc_address(tensor::decode_desc(make_desc(x)), mn, eb, row, k),
                        ref_address(x, eb, row, k))
                  << eb << " " << sw << " " << mn << " " << pad << " " << row << " " << k;
            }
}

TEST(Wgmma, ClassicSwizzled128Tile) {
  // A tile of f16 rows of 64 elements (128 bytes), each 16-byte chunk c of
  // row r stored at chunk c ^ (r % 8), as a program writes it by hand.
  Layout l = k_major(128, 0);
  for (unsigned r = 0; r < 64; ++r)
    for (unsigned k = 0; k < 16; ++k) {
      uint32_t hand = r * 128 + (((k / 8) ^ (r % 8)) * 16) + (k % 8) * 2;
      ASSERT_EQ(ref_address(l, 2, r, k), hand);
      ASSERT_EQ(tensor::desc_address(tensor::decode_desc(make_desc(l)), false, 2, r, k), hand);
      // The second k-block of the same rows: start advanced by 32 bytes.
      Layout l2 = k_major(128, 32);
      uint32_t hand2 = r * 128 + (((2 + k / 8) ^ (r % 8)) * 16) + (k % 8) * 2;
      ASSERT_EQ(tensor::desc_address(tensor::decode_desc(make_desc(l2)), false, 2, r, k), hand2);
    }
}

#define WGMMA_CASE(c) EXPECT_EQ(run_case(c), "")

TEST(Wgmma, F16KMajorEverySwizzle) {
  for (unsigned sw : {0u, 32u, 64u, 128u})
    for (unsigned n : {8u, 64u, 256u}) {
      Case c;
      c.n = n;
      c.la = k_major(sw, 0);
      c.lb = k_major(sw, 8192);
      c.seed = sw + n;
      SCOPED_TRACE(std::to_string(sw) + " n" + std::to_string(n));
      WGMMA_CASE(c);
    }
}

TEST(Wgmma, F16MNMajorTransposes) {
  for (unsigned sw : {0u, 32u, 64u, 128u}) {
    Case c;
    c.n = 128;
    c.la = mn_major(sw, 0, 64);
    c.lb = mn_major(sw, 8192, 128);
    c.seed = 3 + sw;
    SCOPED_TRACE(sw);
    WGMMA_CASE(c);
    c.lb = k_major(sw, 8192);  // A transposed only
    WGMMA_CASE(c);
  }
}

TEST(Wgmma, AFromRegistersAndEveryN) {
  for (unsigned n = 8; n <= 256; n += 8) {
    Case c;
    c.n = n;
    c.a_regs = true;
    c.lb = k_major(128, 0);
    c.seed = n;
    SCOPED_TRACE(n);
    WGMMA_CASE(c);
  }
}

TEST(Wgmma, TypesAndAccumulators) {
  struct T {
    Elem a, b, d;
  };
  for (T t : {T{Elem::F16, Elem::F16, Elem::F16}, T{Elem::BF16, Elem::BF16, Elem::F32},
              T{Elem::TF32, Elem::TF32, Elem::F32}, T{Elem::E4M3, Elem::E5M2, Elem::F32},
              T{Elem::E5M2, Elem::E4M3, Elem::F16}, T{Elem::E4M3, Elem::E4M3, Elem::F32},
              T{Elem::S8, Elem::U8, Elem::S32}, T{Elem::U8, Elem::S8, Elem::S32},
              T{Elem::S8, Elem::S8, Elem::S32}, T{Elem::U8, Elem::U8, Elem::S32}})
    for (bool regs : {false, true}) {
      Case c;
      c.ab = t.a, c.b = t.b, c.d = t.d;
      c.n = 48;
      c.a_regs = regs;
      c.la = k_major(64, 0);
      c.lb = k_major(32, 4096);
      c.seed = static_cast<unsigned>(t.a) * 10 + static_cast<unsigned>(t.b) + regs;
      SCOPED_TRACE(type_name(t.a) + "." + type_name(t.b) + " -> " + type_name(t.d) +
                   (regs ? " A in registers" : ""));
      WGMMA_CASE(c);
    }
}

// Every A/B type through every swizzle, K-major, with strides wider than the
// dense layout needs (gaps between core matrices and row groups).
TEST(Wgmma, EveryTypeEverySwizzlePaddedStrides) {
  for (Elem e : {Elem::F16, Elem::BF16, Elem::TF32, Elem::E4M3, Elem::E5M2, Elem::S8, Elem::U8})
    for (unsigned sw : {0u, 32u, 64u, 128u}) {
      Case c;
      c.ab = c.b = e;
      c.d = e == Elem::S8 || e == Elem::U8 ? Elem::S32 : Elem::F32;
      c.n = 24;
      auto padded = [&](uint32_t start) {
        Layout l = k_major(sw, start);
        if (sw) {
          l.sbo = 2 * 8 * sw;  // a row group's worth of gap after each group
        } else {
          l.lbo = 384;  // the second k chunk's core matrices 384 bytes on
          l.sbo = 896;
        }
        return l;
      };
      c.la = padded(0);
      c.lb = padded(16384);
      c.seed = static_cast<unsigned>(e) * 7 + sw;
      SCOPED_TRACE(type_name(e) + " swizzle " + std::to_string(sw));
      WGMMA_CASE(c);
    }
}

// The executor keeps B's converted values for the next warp of the group
// while the bytes it reads are the same: a B of the same form but other
// bytes (two launches, one host thread) must be read again.
TEST(Wgmma, ChangedSharedOperandIsReadAgain) {
  for (unsigned seed : {11u, 12u, 13u}) {
    Case c;
    c.n = 64;
    c.la = k_major(128, 0);
    c.lb = k_major(128, 8192);
    c.seed = seed;
    SCOPED_TRACE(seed);
    WGMMA_CASE(c);
  }
}

TEST(Wgmma, ScaleDAndNegation) {
  Case c;
  c.n = 32;
  c.la = k_major(128, 0);
  c.lb = k_major(128, 8192);
  c.scale_d = false;
  WGMMA_CASE(c);
  c.scale_d = true, c.neg_a = true;
  WGMMA_CASE(c);
  c.neg_b = true;
  WGMMA_CASE(c);
  c.ab = c.b = Elem::E4M3, c.neg_a = false;
  WGMMA_CASE(c);
}

TEST(Wgmma, BaseOffsetAnchorsThePattern) {
  for (unsigned sw : {32u, 64u, 128u}) {
    Case c;
    c.n = 64;
    c.la = k_major(sw, 1024 + 384);
    c.la.base_offset = 3;
    c.lb = mn_major(sw, 16384 + 256, 64);
    c.lb.base_offset = 2;
    SCOPED_TRACE(sw);
    WGMMA_CASE(c);
  }
}

TEST(Wgmma, IntegersWrapOrSaturate) {
  for (bool sat : {false, true}) {
    Case c;
    c.ab = Elem::U8, c.b = Elem::U8, c.d = Elem::S32;
    c.n = 16;
    c.la = k_major(128, 0);
    c.lb = k_major(128, 8192);
    c.c_bias = 2147480000.0;  // sums pass INT32_MAX
    c.satfinite = sat;
    SCOPED_TRACE(sat);
    WGMMA_CASE(c);
  }
}

// Decode errors name the instruction and its PTX position (snippet.ptx:LINE:COL;
// the snippet's body starts on line 16).
void expect_decode_error(const std::string& body, const std::string& what) {
  auto r = run_snippet(body, 128);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find(what), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("snippet.ptx:16:"), std::string::npos) << r.error;
}

TEST(Wgmma, UnsupportedFormsAreDecodeErrors) {
  const std::string d4 = "{%r1, %r2, %r3, %r4}";
  expect_decode_error(
      "  wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 " + d4 + ", %rd1, %rd2, 1, 1, 1, 0, 0;",
      "unsupported instruction 'wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16'"
      " (no such wgmma shape and types on sm_90a)");
  expect_decode_error(
      "  wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {" +
          std::string("%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8,%r9,%r10,%r11,%r12,%r13,%r14,"
                      "%r1,%r2,%r3,%r4,%r5,%r6}") +
          ", %rd1, %rd2, 1;",
      "no such wgmma shape");
  expect_decode_error(
      "  wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%r1, %r2}, %rd1, %rd2, "
      "1, 1, 1, 0, 0;",
      "no such wgmma shape");
  expect_decode_error(
      "  wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc " + d4 + ", %rd1, %rd2, 1;",
      "single-bit wgmma (.b1 .and.popc) is not supported");
  expect_decode_error("  wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + d4 +
                          ", %rd1, %rd2, %rd3, %r5, 0, 1, 1, 1, 0, 0;",
                      "sparse wgmma.mma_async.sp is not supported");
  expect_decode_error(
      "  wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 " + d4 + ", %rd1, %rd2, 1, 1, 1, 0, 0;",
      "expects 6 operands, found 8");
  expect_decode_error(
      "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + d4 + ", %rd1, %rd2, 1, 2, 1, 0, 0;",
      "imm-scale-a must be an immediate (1 or -1)");
  expect_decode_error(
      "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r1, %r2}, %rd1, %rd2, "
      "1, 1, 1, 0, 0;",
      "expects 4 registers in this fragment, found 2");
  expect_decode_error("  wgmma.wait_group.sync.aligned %r1;", "N must be an immediate");
  expect_decode_error("  ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%rd1];",
                      "need sm_100a or later");
  expect_decode_error("  stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%rd1], {%r1};",
                      "need sm_100a or later");
  expect_decode_error("  cvt.rn.bf16x2.e4m3x2 %r1, %h1;", "fp8 conversions");
  expect_decode_error("  cvt.rn.satfinite.e2m1x2.f32 %h1, %f1, %f2;", "fp8 conversions");
}

TEST(Wgmma, NeedsAWholeWarpgroupAndUniformDescriptors) {
  const std::string op =
      "  wgmma.fence.sync.aligned;\n"
      "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, "
      "1, 1, 0, 0;";
  auto r = run_snippet(
      "  .shared .align 1024 .b8 sm[4096];\n  mov.u64 %rd1, 0;\n  mov.u64 %rd2, 0;\n" + op, 64);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(
      r.error.find("needs a whole warpgroup (warps 0..3 of 32 threads each), but the block has "
                   "64 threads"),
      std::string::npos)
      << r.error;
  auto u = run_snippet(
      "  .shared .align 1024 .b8 sm[4096];\n  cvt.u64.u32 %rd1, %r15;\n  mov.u64 %rd2, 0;\n" + op,
      128);
  ASSERT_FALSE(u.ok);
  EXPECT_NE(u.error.find("the A descriptor differs between the threads of warp 0"),
            std::string::npos)
      << u.error;
  auto o = run_snippet(
      "  .shared .align 1024 .b8 sm[4096];\n  mov.u64 %rd1, 0;\n  mov.u64 %rd2, 0x100;\n" + op,
      128);
  ASSERT_FALSE(o.ok);
  EXPECT_NE(
      o.error.find("reads matrix B element (0, 0) at shared offset 4096, past the block's 4096 "
                   "bytes"),
      std::string::npos)
      << o.error;
}

}  // namespace
}  // namespace smemlab::emu::test
