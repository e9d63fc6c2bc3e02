// exec_fslow's f32 round-to-nearest ops eight lanes at a time (see
// ops_float_vec.h). Why each op's vector result is the per-lane loop's:
// - add/sub/mul/div/rcp/sqrt/fma and rsqrt's double sqrt and divide are
//   IEEE operations rounded once in the environment's mode (round to nearest:
//   exec_fslow comes here only for .rn ops in the launch's environment),
//   which vaddps & co. compute exactly as the loop's scalar instructions
//   and fmaf do; abs/neg are the sign bit's and/xor either way.
// - NaNs: which NaN an x86 operation returns depends on operand order, so a
//   lane with a NaN input or result goes to the loop, which stays the one
//   definition of NaN payloads.
// - .ftz's flush is a bit operation on the same inputs and result.
// - ex2 (the loop: glibc's exp2f, within 0.502 ulp of 2^x: 0.002 ulp before
//   its final rounding) is computed here to within 2^-46 relative in
//   double; where that value is more than 1/64 float ulp from a rounding
//   midpoint, 2^x is too, and any value within 0.002 ulp of 2^x rounds to
//   the same float: exp2f's. Lanes nearer a midpoint (about 3 %), and x
//   outside [-125, 127) (subnormal or overflowing results, inf, NaN), go to
//   the loop. OpsFloatVec.Ex2MatchesExp2fOnEveryFloat checks all 2^32 inputs.
#include "emu/ops_float_vec.h"

#include <immintrin.h>

#include "emu/program.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")

namespace smemlab::emu {
namespace {

// Lanes j..j+7's f32 values (the low halves of eight 64-bit slots).
inline __m256 load8(const uint64_t* A) {
  const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  const __m256i lo =
      _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(A)), even);
  const __m256i hi = _mm256_permutevar8x32_epi32(
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(A + 4)), even);
  return _mm256_castsi256_ps(
      _mm256_set_m128i(_mm256_castsi256_si128(hi), _mm256_castsi256_si128(lo)));
}

// Four 64-bit lanes' store mask from bits 0-3 of `m`.
inline __m256i mask4(uint32_t m) {
  const __m256i bit = _mm256_setr_epi64x(1, 2, 4, 8);
  return _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(m), bit), bit);
}

// Writes r's lanes set in `m` (8 bits) zero-extended, as put<float> does.
inline void store8(uint64_t* D, __m256 r, uint32_t m) {
  const __m256i v = _mm256_castps_si256(r);
  _mm256_maskstore_epi64(reinterpret_cast<long long*>(D), mask4(m & 15),
                         _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)));
  _mm256_maskstore_epi64(reinterpret_cast<long long*>(D + 4), mask4(m >> 4),
                         _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1)));
}

// .ftz: subnormals become zeros of their sign.
inline __m256 flush(__m256 v) {
  const __m256i b = _mm256_castps_si256(v);
  const __m256i mag = _mm256_and_si256(b, _mm256_set1_epi32(0x7fffffff));
  const __m256i sub = _mm256_andnot_si256(_mm256_cmpeq_epi32(mag, _mm256_setzero_si256()),
                                          _mm256_cmpgt_epi32(_mm256_set1_epi32(0x00800000), mag));
  return _mm256_castsi256_ps(
      _mm256_blendv_epi8(b, _mm256_and_si256(b, _mm256_set1_epi32(INT32_MIN)), sub));
}

inline uint32_t nan_lanes(__m256 v) {
  return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
}

// ln2^n / n!, n = 0..11: 2^f = sum c_n f^n for |f| <= 1/2 with the first
// omitted term (0.3466^12 / 12!) under 2^-47.
struct Exp2Poly {
  double c[12];
  constexpr Exp2Poly() : c() {
    const double ln2 = 0x1.62e42fefa39efp-1;
    double t = 1.0;
    for (int n = 0; n < 12; ++n) {
      c[n] = t;
      t = t * ln2 / (n + 1);
    }
  }
};
constexpr Exp2Poly kExp2;

// 2^x for four x in [-125, 127) to within 2^-46 relative, and the lanes
// (bits 0-3) whose value lies within 1/64 float ulp of a float midpoint.
inline __m128 exp2_4(__m128 x, uint32_t* near_mid) {
  const __m256d xd = _mm256_cvtps_pd(x);
  const __m256d k = _mm256_round_pd(xd, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256d f = _mm256_sub_pd(xd, k);  // exact: |f| <= 1/2
  __m256d p = _mm256_set1_pd(kExp2.c[11]);
  for (int n = 10; n >= 0; --n) p = _mm256_fmadd_pd(p, f, _mm256_set1_pd(kExp2.c[n]));
  const __m256i e = _mm256_slli_epi64(
      _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k)), _mm256_set1_epi64x(1023)), 52);
  const __m256d y = _mm256_mul_pd(p, _mm256_castsi256_pd(e));  // exact: a power of two
  // The float grid's midpoints are where the low 29 bits of y's significand
  // are 2^28; 1/64 float ulp is 2^23 of y's ulps (y is a normal float's size).
  const __m256i low = _mm256_and_si256(_mm256_castpd_si256(y), _mm256_set1_epi64x((1 << 29) - 1));
  const __m256i d = _mm256_sub_epi64(low, _mm256_set1_epi64x(1 << 28));
  const __m256i near = _mm256_and_si256(_mm256_cmpgt_epi64(d, _mm256_set1_epi64x(-(1 << 23) - 1)),
                                        _mm256_cmpgt_epi64(_mm256_set1_epi64x((1 << 23) + 1), d));
  *near_mid = static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(near)));
  return _mm256_cvtpd_ps(y);
}

// ex2 of eight lanes; *left gets the lanes for the loop.
inline __m256 exp2_8(__m256 x, uint32_t* left) {
  const __m256 in_range = _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(-125.0f), _CMP_GE_OQ),
                                        _mm256_cmp_ps(x, _mm256_set1_ps(127.0f), _CMP_LT_OQ));
  uint32_t near_lo = 0, near_hi = 0;
  const __m128 lo = exp2_4(_mm256_castps256_ps128(x), &near_lo);
  const __m128 hi = exp2_4(_mm256_extractf128_ps(x, 1), &near_hi);
  *left = (~static_cast<uint32_t>(_mm256_movemask_ps(in_range)) & 0xff) | near_lo | near_hi << 4;
  return _mm256_set_m128(hi, lo);
}

inline __m256 rsqrt_8(__m256 a) {
  const __m256d one = _mm256_set1_pd(1.0);
  const __m128 lo = _mm256_cvtpd_ps(
      _mm256_div_pd(one, _mm256_sqrt_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a)))));
  const __m128 hi = _mm256_cvtpd_ps(
      _mm256_div_pd(one, _mm256_sqrt_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)))));
  return _mm256_set_m128(hi, lo);
}

// Op F over lanes j..j+7: the result, and in *left the lanes for the loop.
template <uint8_t F>
inline __m256 op8(__m256 a, __m256 b, __m256 c, uint32_t* left) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 r;
  uint32_t in_nan = nan_lanes(a);
  if constexpr (F == F_ADD || F == F_SUB || F == F_MUL || F == F_DIV || F == F_FMA)
    in_nan |= nan_lanes(b);
  if constexpr (F == F_FMA) in_nan |= nan_lanes(c);
  uint32_t hard = 0;
  if constexpr (F == F_ADD) r = _mm256_add_ps(a, b);
  if constexpr (F == F_SUB) r = _mm256_sub_ps(a, b);
  if constexpr (F == F_MUL) r = _mm256_mul_ps(a, b);
  if constexpr (F == F_DIV) r = _mm256_div_ps(a, b);
  if constexpr (F == F_FMA) r = _mm256_fmadd_ps(a, b, c);
  if constexpr (F == F_RCP) r = _mm256_div_ps(_mm256_set1_ps(1.0f), a);
  if constexpr (F == F_SQRT) r = _mm256_sqrt_ps(a);
  if constexpr (F == F_RSQRT) r = rsqrt_8(a);
  if constexpr (F == F_ABS) r = _mm256_andnot_ps(sign, a);
  if constexpr (F == F_NEG) r = _mm256_xor_ps(sign, a);
  if constexpr (F == F_EX2) r = exp2_8(a, &hard);
  *left = in_nan | nan_lanes(r) | hard;
  return r;
}

template <uint8_t F>
uint32_t lanes(bool ftz, uint64_t* D, const uint64_t* A, const uint64_t* B, const uint64_t* C,
               uint32_t exec) {
  uint32_t left = 0;
  for (uint32_t j = 0; j < 32; j += 8) {
    const uint32_t m = (exec >> j) & 0xff;
    if (m == 0) continue;
    __m256 a = load8(A + j), b = load8(B + j), c = load8(C + j);
    if (ftz) {
      a = flush(a);
      b = flush(b);
      c = flush(c);
    }
    uint32_t hard = 0;
    __m256 r = op8<F>(a, b, c, &hard);
    if (ftz) r = flush(r);
    store8(D + j, r, m & ~hard);
    left |= (m & hard) << j;
  }
  return left;
}

uint32_t f32_vector_avx2(uint8_t f, bool ftz, uint64_t* D, const uint64_t* A, const uint64_t* B,
                         const uint64_t* C, uint32_t exec) {
  switch (f) {
#define SMEMLAB_F32_VECTOR(op) \
  case op:                     \
    return lanes<op>(ftz, D, A, B, C, exec);
    SMEMLAB_F32_VECTOR(F_ADD)
    SMEMLAB_F32_VECTOR(F_SUB)
    SMEMLAB_F32_VECTOR(F_MUL)
    SMEMLAB_F32_VECTOR(F_FMA)
    SMEMLAB_F32_VECTOR(F_DIV)
    SMEMLAB_F32_VECTOR(F_RCP)
    SMEMLAB_F32_VECTOR(F_SQRT)
    SMEMLAB_F32_VECTOR(F_RSQRT)
    SMEMLAB_F32_VECTOR(F_ABS)
    SMEMLAB_F32_VECTOR(F_NEG)
    SMEMLAB_F32_VECTOR(F_EX2)
#undef SMEMLAB_F32_VECTOR
    default:
      return exec;
  }
}

}  // namespace
}  // namespace smemlab::emu

#pragma GCC pop_options

namespace smemlab::emu {

F32VectorFn f32_vector() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &f32_vector_avx2
                                                                         : nullptr;
}

}  // namespace smemlab::emu
