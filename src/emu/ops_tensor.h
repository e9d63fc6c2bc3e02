// Tensor-core semantics as pure functions, no interpreter state: where each
// element of an mma.sync / wmma fragment lives in its matrix, the thread-to-
// row mapping of ldmatrix / stmatrix / movmatrix, and the matrix arithmetic
// D = A*B + C with the accumulation rules stated below. The executors in the
// interpreter gather registers into matrices with these and scatter back.
//
// Accumulation (what this emulator computes; the ISA leaves the internal
// order and rounding of the k-sum to the implementation):
//  - f16/bf16/tf32 inputs: every product a*b is exact (in double), the k
//    products and c are summed in double in k order, and the sum is rounded
//    once to the accumulator type (f32 or f16, round to nearest even). The
//    double sum is exact unless the terms span more than ~30 binary orders of
//    magnitude. H100 tensor cores align the products to the largest exponent
//    and truncate, so a GPU result may differ from this one in the last bit
//    of the f32 (docs/emulator.md).
//  - tf32 operands: the low 13 mantissa bits of each 32-bit register are
//    ignored (truncated), as the tensor core reads only the tf32 bits.
//  - e4m3/e5m2 (fp8) inputs: exact like f16 (a product has at most 8
//    significant bits); A and B may differ (e4m3 x e5m2).
//  - s8/u8 -> s32: exact integer products and sum, wrapped to 32 bits
//    (.satfinite: clamped to the s32 range).
//  - f64 (m8n8k4): d = fma(a[k], b[k], d) in k order starting from c, each
//    step rounded to nearest even (IEEE double FMA).
#pragma once

#include <bit>
#include <cstdint>
#include <stdexcept>

#include "emu/half.h"

namespace smemlab::emu::tensor {

enum class Elem : uint8_t { F16, BF16, TF32, F32, F64, S8, U8, S32, E4M3, E5M2 };
unsigned elem_bits(Elem e);  // storage bits: 16, 16, 32, 32, 64, 8, 8, 32, 8, 8
constexpr bool is_fp8(Elem e) { return e == Elem::E4M3 || e == Elem::E5M2; }
// Elements of type e per register (32-bit registers; one f64 per 64-bit one).
inline unsigned per_register(Elem e) { return e == Elem::F64 ? 1 : 32 / elem_bits(e); }

enum class Operand : uint8_t { A, B, C };  // C also stands for D
struct Shape {
  unsigned m, n, k;
};
struct Pos {
  unsigned row, col;
  bool operator==(const Pos&) const = default;
};

// Thrown for a shape/type combination that has no layout here.
class Unsupported : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// mma.sync.aligned: shapes m16n8k8 and m16n8k16 (f16, bf16 A/B; f32 or f16
// C/D), m16n8k8 (tf32 A/B, f32 C/D), m16n8k16 and m16n8k32 (s8/u8 A/B, s32
// C/D; e4m3/e5m2 A/B, f32 or f16 C/D: the s8 layouts), m8n8k4 (f64). Element i of `lane`'s fragment
// (i counts elements low to high as the ISA's a0, a1, ...) sits at this row and column of its
// matrix (A: m x k, B: k x n, C/D: m x n).
unsigned mma_elements(Shape s, Elem e, Operand op);  // per lane
Pos mma_position(Shape s, Elem e, Operand op, unsigned lane, unsigned i);

// wmma (the fragments of CUDA's mma.h; their layout is implementation-
// defined). Shapes: m16n16k16 f16 (A, B: 16 elements per lane in the 8
// registers nvcc declares; this emulator's choice: the second 8 repeat the
// first 8), m16n16k16 bf16 (A, B: 8 in 4 registers), C/D f32 or f16: 8;
// m16n16k8 tf32 (A, B: 4; C/D: 8), m8n8k4 f64 (1, 1, 2), m16n16k16 s8/u8
// (A, B: 8; C/D s32: 8). The positions follow the mma.sync
// layouts the instructions are built from (two m16n8 halves side by side in
// n), so that load -> mma -> store round trips and element-wise operations on
// accumulator fragments behave as on the GPU.
unsigned wmma_elements(Shape s, Elem e, Operand op);
Pos wmma_position(Shape s, Elem e, Operand op, unsigned lane, unsigned i);

struct MmaSpec {
  Shape shape{16, 8, 16};
  Elem a = Elem::F16, b = Elem::F16, c = Elem::F32, d = Elem::F32;
  bool satfinite = false;  // integer: clamp to s32
};
// D = A*B + C. Matrices are row-major arrays of element bit patterns (in the
// low bits): A m*k, B k*n, C and D m*n. Throws Unsupported for a type
// combination this does not compute.
void mma(const MmaSpec& spec, const uint64_t* A, const uint64_t* B, const uint64_t* C, uint64_t* D);

// double -> f16 rounded once to nearest even (f16 accumulators).
uint16_t double_to_half(double x);

// mma() in three steps, for executors that convert each fragment element
// once straight from its register (the same bits as mma()):
//  - input_value: the exact value of an A, B or C element (tf32: its 19
//    bits; integers exactly);
//  - mma_sums: acc (m x n, row-major) holds C's values on entry and the sums
//    on exit, A (m x k) and B (k x n) row-major values; each acc[r][c] adds
//    A[r][k] * B[k][c] for k = 0, 1, ... in that order, each product and
//    sum rounded to double (exact products for every input type but f64,
//    exact sums for integers), or with f64 inputs (fma_chain) one IEEE fma
//    per k; vectorized across columns, so each element's operations are
//    those of the scalar loop in the same order (tensor_sums.cc);
//  - mma_result: a sum rounded or wrapped to D's bits.
// check_mma_types throws Unsupported for what mma() refuses.
// input_value_of<E> is input_value for a type known at compile time (the
// executors' per-type loops).
double input_value(Elem e, uint64_t bits);
double fp8_value(Elem e, uint8_t bits);
template <Elem E>
inline double input_value_of(uint64_t bits) {
  if constexpr (E == Elem::F16)
    return half_to_float(static_cast<uint16_t>(bits));
  else if constexpr (E == Elem::BF16)
    return bf16_to_float(static_cast<uint16_t>(bits));
  else if constexpr (E == Elem::TF32)
    return std::bit_cast<float>(static_cast<uint32_t>(bits) & 0xffffe000u);
  else if constexpr (E == Elem::F32)
    return std::bit_cast<float>(static_cast<uint32_t>(bits));
  else if constexpr (E == Elem::F64)
    return std::bit_cast<double>(bits);
  else if constexpr (E == Elem::S8)
    return static_cast<int8_t>(bits);
  else if constexpr (E == Elem::U8)
    return static_cast<uint8_t>(bits);
  else if constexpr (E == Elem::S32)
    return static_cast<int32_t>(bits);
  else
    return fp8_value(E, static_cast<uint8_t>(bits));
}
void check_mma_types(const MmaSpec& spec);
void mma_sums(Shape s, bool fma_chain, const double* A, const double* B, double* acc);
inline uint64_t mma_result(const MmaSpec& sp, double sum) {
  if (sp.a == Elem::S8 || sp.a == Elem::U8) {
    // The double sum of s8/u8 products and an s32 C is exact (< 2^53).
    auto acc = static_cast<int64_t>(sum);
    if (sp.satfinite) acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
    return static_cast<uint32_t>(static_cast<int32_t>(static_cast<uint32_t>(acc)));
  }
  if (sp.a == Elem::F64) return std::bit_cast<uint64_t>(sum);
  // One rounding to the accumulator type (f16 through f32: a double -> f32
  // -> f16 chain could round twice, so round to f16 from the double).
  if (sp.d == Elem::F32) return std::bit_cast<uint32_t>(static_cast<float>(sum));
  return double_to_half(sum);
}

// ldmatrix/stmatrix m8n8 .b16: destination register j of every lane holds
// two elements of matrix j, whose row r was addressed by lane 8j + r. The
// element in half h (0 = low 16 bits) of `lane`'s register is at this
// position of the 8x8 matrix (.trans: transposed).
Pos ldmatrix_position(bool trans, unsigned lane, unsigned half);

// movmatrix.sync.aligned.m8n8.trans.b16: lane's result register, half h,
// comes from this lane and half of the source fragment.
struct LaneHalf {
  unsigned lane, half;
};
LaneHalf movmatrix_source(unsigned lane, unsigned half);

// cvt.{rna,rn,rz}{.satfinite}.tf32.f32: f32 bits rounded to the 19 bits of
// tf32 (the low 13 mantissa bits cleared). .rna rounds ties away from zero.
// NaN stays NaN; .satfinite turns infinities (and overflow) into the largest
// finite tf32 of the same sign and NaN into the canonical NaN.
enum class Tf32Round : uint8_t { Rna, Rn, Rz };
uint32_t to_tf32(uint32_t f32_bits, Tf32Round mode, bool satfinite = false);

// fp8 (OCP FP8: e4m3 = E4M3FN, bias 7, no infinity, NaN = S.1111.111;
// e5m2 = bias 15, IEEE-like). The value of an 8-bit pattern, exactly.
double fp8_value(Elem e, uint8_t bits);
// cvt.rn.satfinite{.relu}.{e4m3,e5m2}x2.{f32,f16x2}, one element: `x`
// (an f32 or f16 value, exact in double) rounded to nearest even; finite
// results beyond the largest finite value (448, 57344) and infinities
// become it with the sign of x; NaN becomes 0x7f. .relu: negative values
// (and -0) become +0 first.
uint8_t to_fp8(Elem e, double x, bool relu);
// cvt.rn{.relu}.f16x2.{e4m3,e5m2}x2, one element: exact (every e4m3 and
// e5m2 value is an f16); NaN becomes the canonical f16 NaN 0x7fff; .relu:
// negative values become +0.
uint16_t fp8_to_half(Elem e, uint8_t bits, bool relu);

}  // namespace smemlab::emu::tensor
