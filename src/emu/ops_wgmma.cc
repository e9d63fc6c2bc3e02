#include "emu/ops_wgmma.h"

#include <bit>
#include <cstring>

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

DescAddressing::DescAddressing(const MatrixDesc& d, bool mn_major, unsigned elem_bytes)
    : start_(d.start),
      lbo_(d.lbo),
      sbo_(d.sbo),
      base_offset_(d.base_offset),
      eb_shift_(static_cast<unsigned>(std::countr_zero(elem_bytes))),
      t_shift_(4 - eb_shift_),  // elements per 16 bytes: 1 << t_shift_
      t_mask_((1u << t_shift_) - 1),
      w_shift_(d.swizzle ? 4u - (d.swizzle & 3u) : 0u),  // modes 1, 2, 3: 128, 64, 32 B
      w_mask_((1u << w_shift_) - 1),
      row_bytes_(16u << w_shift_),
      k_chunk_(d.swizzle ? 16 : d.lbo),
      mn_major_(mn_major),
      swizzled_(d.swizzle != 0) {}

uint32_t desc_address(const MatrixDesc& d, bool mn_major, unsigned elem_bytes, unsigned mn,
                      unsigned k) {
  return DescAddressing(d, mn_major, elem_bytes)(mn, k);
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

namespace {
// Four doubles (GCC's vector extension: one AVX2 register, two SSE2 ones),
// moved with memcpy (unaligned) inside the function only: passing one by
// value would differ between the two clones' ABIs.
using Double4 = double __attribute__((vector_size(32)));
}  // namespace

// Compiled for FMA (with AVX's 256-bit registers) too, picked where the CPU
// has it.
// Blocks of 4 rows x 8 columns (a quarter of one of D's column blocks) keep
// their sums in registers across k; every sum still adds its k products to
// C one at a time in k order. A product of two inputs is exact in double, so
// the fused multiply-add the contraction makes rounds as the sum alone did.
__attribute__((target_clones("fma", "default"))) void wgmma_float(unsigned n, unsigned k,
                                                                  const double* a, const double* b,
                                                                  const double* c, double* d) {
  constexpr unsigned kRows = 4, ld = 8;
  for (unsigned c0 = 0; c0 < n; c0 += 8)
    for (unsigned r0 = 0; r0 < 16; r0 += kRows) {
      Double4 lo[kRows], hi[kRows];
      const double* crow = c + c0 * 16 + r0 * ld;
      for (unsigned r = 0; r < kRows; ++r) {
        std::memcpy(&lo[r], crow + r * ld, sizeof(Double4));
        std::memcpy(&hi[r], crow + r * ld + 4, sizeof(Double4));
      }
      const double* arow = a + size_t{r0} * k;
      const double* bp = b + c0;
      for (unsigned kk = 0; kk < k; ++kk, bp += n) {
        Double4 b0, b1;
        std::memcpy(&b0, bp, sizeof b0);
        std::memcpy(&b1, bp + 4, sizeof b1);
        for (unsigned r = 0; r < kRows; ++r) {
          const double x = arow[r * size_t{k} + kk];
          lo[r] += x * b0;
          hi[r] += x * b1;
        }
      }
      double* drow = d + c0 * 16 + r0 * ld;
      for (unsigned r = 0; r < kRows; ++r) {
        std::memcpy(drow + r * ld, &lo[r], sizeof(Double4));
        std::memcpy(drow + r * ld + 4, &hi[r], sizeof(Double4));
      }
    }
}

void wgmma_int(unsigned n, unsigned k, const int64_t* a, const int64_t* b, const int64_t* c,
               int64_t* d) {
  int64_t acc[256];
  for (unsigned r = 0; r < 16; ++r) {
    for (unsigned col = 0; col < n; ++col) acc[col] = c[d_block_offset(r, col)];
    for (unsigned kk = 0; kk < k; ++kk) {
      const int64_t x = a[r * k + kk];
      const int64_t* brow = b + size_t{kk} * n;
      for (unsigned col = 0; col < n; ++col) acc[col] += x * brow[col];
    }
    for (unsigned col = 0; col < n; ++col) d[d_block_offset(r, col)] = acc[col];
  }
}

}  // namespace smemlab::emu::tensor
