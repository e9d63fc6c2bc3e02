#include "emu/ops_wgmma.h"

namespace smemlab::emu::tensor {

MatrixDesc decode_desc(uint64_t bits) {
  MatrixDesc d;
  d.start = static_cast<uint32_t>(bits & 0x3fff) << 4;
  d.lbo = static_cast<uint32_t>((bits >> 16) & 0x3fff) << 4;
  d.sbo = static_cast<uint32_t>((bits >> 32) & 0x3fff) << 4;
  d.base_offset = static_cast<uint8_t>((bits >> 49) & 7);
  d.swizzle = static_cast<uint8_t>(bits >> 62);
  return d;
}

unsigned swizzle_row_bytes(uint8_t mode) {
  static constexpr unsigned kBytes[4] = {16, 128, 64, 32};
  return kBytes[mode & 3];
}

uint32_t desc_address(const MatrixDesc& d, bool mn_major, unsigned elem_bytes, unsigned mn,
                      unsigned k) {
  const unsigned t = 16 / elem_bytes;  // elements per 16 bytes
  const unsigned w = swizzle_row_bytes(d.swizzle) / 16;
  const bool swizzled = d.swizzle != 0;
  uint32_t off;
  if (!mn_major) {
    off = (mn % 8) * 16 * w + (mn / 8) * d.sbo + (k / t) * (swizzled ? 16 : d.lbo) +
          (k % t) * elem_bytes;
  } else if (!swizzled) {
    off = (mn % t) * elem_bytes + (mn / t) * d.sbo + (k % 8) * 16 + (k / 8) * d.lbo;
  } else {
    off = (mn % t) * elem_bytes + ((mn / t) % w) * 16 + (mn / (t * w)) * d.lbo + (k % 8) * 16 * w +
          (k / 8) * d.sbo;
  }
  uint32_t addr = d.start + off;
  if (swizzled) {
    // Swizzle<B,4,3>: the 16-byte chunk index (bits 4..4+B) XOR the row of
    // the repeating pattern (bits 7..7+B), counted from the pattern's start.
    const uint32_t mask = w - 1;  // 7, 3, 1
    const uint32_t phase = ((addr >> 7) - d.base_offset) & mask;
    addr ^= phase << 4;
  }
  return addr;
}

unsigned wgmma_k(Elem e) {
  switch (e) {
    case Elem::F16:
    case Elem::BF16:
      return 16;
    case Elem::TF32:
      return 8;
    default:
      return 32;
  }
}

bool wgmma_shape_ok(Elem ab, Elem d, unsigned n) {
  if (n < 8 || n > 256 || n % 8 != 0) return false;
  if (ab == Elem::S8 || ab == Elem::U8) return d == Elem::S32 && (n <= 32 || n % 16 == 0);
  if (ab == Elem::BF16 || ab == Elem::TF32) return d == Elem::F32;
  if (ab == Elem::F16 || is_fp8(ab)) return d == Elem::F32 || d == Elem::F16;
  return false;
}

// Compiled for AVX2 too, picked where the CPU has it (a product of two
// inputs is exact in double, so a contracted multiply-add rounds as the sum).
__attribute__((target_clones("avx2", "default"))) void wgmma_float(unsigned n, unsigned k,
                                                                   const double* a, const double* b,
                                                                   const double* c, double* d) {
  double acc[256];
  for (unsigned r = 0; r < 16; ++r) {
    for (unsigned col = 0; col < n; ++col) acc[col] = c[r * n + col];
    for (unsigned kk = 0; kk < k; ++kk) {
      const double x = a[r * k + kk];
      const double* brow = b + size_t{kk} * n;
      for (unsigned col = 0; col < n; ++col) acc[col] += x * brow[col];
    }
    for (unsigned col = 0; col < n; ++col) d[r * n + col] = acc[col];
  }
}

void wgmma_int(unsigned n, unsigned k, const int64_t* a, const int64_t* b, const int64_t* c,
               int64_t* d) {
  int64_t acc[256];
  for (unsigned r = 0; r < 16; ++r) {
    for (unsigned col = 0; col < n; ++col) acc[col] = c[r * n + col];
    for (unsigned kk = 0; kk < k; ++kk) {
      const int64_t x = a[r * k + kk];
      const int64_t* brow = b + size_t{kk} * n;
      for (unsigned col = 0; col < n; ++col) acc[col] += x * brow[col];
    }
    for (unsigned col = 0; col < n; ++col) d[r * n + col] = acc[col];
  }
}

}  // namespace smemlab::emu::tensor
