// Warpgroup MMA (wgmma.mma_async, sm_90a) as pure functions: the matrix
// descriptor, the shared-memory layouts it describes, the register
// fragments, and the arithmetic of one warp's part of the product.
//
// A warpgroup is 4 consecutive warps whose first warp index is a multiple
// of 4. wgmma.mma_async.m64nNkK computes D (64 x N) = A (64 x K) * B (K x N)
// (+ D): warp q of the group (q = warp index % 4) holds rows 16q..16q+15 of
// D in its registers, and, when A comes from registers, rows 16q..16q+15 of
// A. Those rows need only B and the warp's own rows of A, so the emulator
// runs each warp's part on its own, when that warp issues the instruction
// (docs/emulator.md, "wgmma").
//
// Accumulation: the rules of ops_tensor.h (exact products, the k products
// and C summed in double in k order, rounded once to f32 or f16; integers
// exact, wrapped or .satfinite-clamped to s32).
#pragma once

#include <cstdint>

#include "emu/ops_tensor.h"

namespace smemlab::emu::tensor {

// PTX ISA "Matrix Descriptor Format" (64 bits):
//   bits 0-13  start address >> 4      bits 16-29 leading dimension byte offset >> 4
//   bits 32-45 stride dimension byte offset >> 4
//   bits 49-51 base offset             bits 62-63 swizzle: 0 none, 1 128B, 2 64B, 3 32B
struct MatrixDesc {
  uint32_t start = 0;  // bytes (shared window offset)
  uint32_t lbo = 0;    // bytes
  uint32_t sbo = 0;    // bytes
  uint8_t base_offset = 0;
  uint8_t swizzle = 0;
};
MatrixDesc decode_desc(uint64_t bits);
// Width of a swizzle atom row in bytes: 16 (none), 128, 64, 32.
unsigned swizzle_row_bytes(uint8_t mode);

// Shared-memory byte address of element (mn, k) of a matrix the descriptor
// describes: A is M x K (mn = m), B is K x N (mn = n). K-major (transpose
// 0: A row-major, B column-major) or MN-major (transpose 1; 16-bit types
// only). elem_bytes: 1, 2 or 4. The canonical layouts (in 16-byte units,
// T = 16 / elem_bytes elements each; W = swizzle_row_bytes / 16):
//   K-major  none:     mn % 8 at 16 B, mn / 8 at SBO; k / T at LBO
//   K-major  swizzled: mn % 8 at 16W B, mn / 8 at SBO; k / T at 16 B
//   MN-major none:     mn / T at SBO; k % 8 at 16 B, k / 8 at LBO
//   MN-major swizzled: (mn / T) % W at 16 B, mn / (T W) at LBO;
//                      k % 8 at 16W B, k / 8 at SBO
// then, swizzled, bits 4.. of the address XOR the row phase: for 128B the
// 3 bits ((addr >> 7) - base offset) & 7, for 64B 2 bits, for 32B 1 bit.
uint32_t desc_address(const MatrixDesc& d, bool mn_major, unsigned elem_bytes, unsigned mn,
                      unsigned k);
// desc_address with the quantities of one descriptor and form computed
// once (every count is a power of two: shifts and masks), for the executor,
// which asks for every 16-byte chunk an instruction reads.
class DescAddressing {
 public:
  DescAddressing(const MatrixDesc& d, bool mn_major, unsigned elem_bytes);
  uint32_t operator()(unsigned mn, unsigned k) const {
    const unsigned elem = (mn_major_ ? mn : k) & t_mask_;
    uint32_t off = elem << eb_shift_;
    if (!mn_major_)
      off += (mn & 7) * row_bytes_ + (mn >> 3) * sbo_ + (k >> t_shift_) * k_chunk_;
    else if (!swizzled_)
      off += (mn >> t_shift_) * sbo_ + (k & 7) * 16 + (k >> 3) * lbo_;
    else
      off += (((mn >> t_shift_) & w_mask_) << 4) + (mn >> (t_shift_ + w_shift_)) * lbo_ +
             (k & 7) * row_bytes_ + (k >> 3) * sbo_;
    const uint32_t addr = start_ + off;
    // Swizzle<B,4,3>: the 16-byte chunk index (bits 4..4+B) XOR the row of
    // the repeating pattern (bits 7..7+B), counted from the pattern's start
    // (w_mask_ 0 without a swizzle).
    return addr ^ ((((addr >> 7) - base_offset_) & w_mask_) << 4);
  }

 private:
  uint32_t start_, lbo_, sbo_, base_offset_;
  unsigned eb_shift_, t_shift_, t_mask_, w_shift_, w_mask_, row_bytes_, k_chunk_;
  bool mn_major_, swizzled_;
};

// K of wgmma for an A/B type: 16 (f16, bf16), 8 (tf32), 32 (fp8, s8, u8).
unsigned wgmma_k(Elem e);
// Whether m64nNkK exists for this A/B and D type (PTX ISA: N = 8..256 step 8
// for floating point; 8, 16, 24 and 32..256 step 16 for integers).
bool wgmma_shape_ok(Elem ab, Elem d, unsigned n);

// Element i of a lane's D fragment (i counts elements low to high as the
// ISA's d0, d1, ...; N/2 per lane) sits at this row (0..15, within the
// warp's 16 rows) and column of D.
inline Pos wgmma_d_position(unsigned lane, unsigned i) {
  return {lane / 4 + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * (lane % 4) + (i & 1)};
}
// Element i of a lane's A fragment (registers): the mma.sync m16n8kK A layout
// over the warp's 16 rows.
inline Pos wgmma_a_position(Elem e, unsigned lane, unsigned i) {
  return mma_position({16, 8, wgmma_k(e)}, e, Operand::A, lane, i);
}

// One warp's part: D (16 x n) = A (16 x k) * B (k x n) + C, arrays of
// element values already negated as imm-scale-a/b say: floating point as
// doubles (exact), integers as int64. A and B are row-major; C and D are
// n / 8 column blocks of 16 x 8, each row-major (d_block_offset), the order
// in which the D registers hold them (wgmma_d_position: block g is
// registers 4g..4g+3, and in a block lane l's two elements of one register
// pair are neighbours, 2l and 2l + 1). `c` may alias `d`.
inline unsigned d_block_offset(unsigned row, unsigned col) {
  return (col / 8) * 128 + row * 8 + col % 8;
}
void wgmma_float(unsigned n, unsigned k, const double* a, const double* b, const double* c,
                 double* d);
void wgmma_int(unsigned n, unsigned k, const int64_t* a, const int64_t* b, const int64_t* c,
               int64_t* d);

}  // namespace smemlab::emu::tensor
