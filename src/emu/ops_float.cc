// Float ops off the fast path: rounding modes other than .rn, .ftz, .sat,
// f16/bf16 (computed in f32 and rounded back), min/max NaN rules, and the
// approximate instructions. Approximations return the correctly rounded
// (or C library) value, which is within the PTX ISA's stated error bounds
// but not bit-identical to the hardware's (see docs/emulator.md).
// Compiled with -frounding-math so that fesetround is honoured.
#include <bit>
#include <cfenv>
#include <cmath>

#include "emu/decode_context.h"
#include "emu/exec.h"
#include "emu/half.h"
#include "emu/ops_alu.h"
#include "emu/ops_float_lane.h"
#include "emu/ops_float_vec.h"

namespace smemlab::emu {
namespace {

template <typename V>
V one(uint8_t f, uint8_t flags, uint8_t tk, V a, V b, V c, bool* pred) {
  bool ftz = flags & kFtz;
  if (ftz && sizeof(V) == 4) {
    a = flush_subnormal(a);
    b = flush_subnormal(b);
    c = flush_subnormal(c);
  }
  V r;
  int mode = fe_mode(flags);
  if (mode != FE_TONEAREST) {
    int old = std::fegetround();
    std::fesetround(mode);
    volatile V va = a, vb = b, vc = c;
    r = fslow_compute<V>(f, va, vb, vc, tk, pred);
    std::fesetround(old);
  } else {
    r = fslow_compute<V>(f, a, b, c, tk, pred);
  }
  if (ftz && sizeof(V) == 4) r = flush_subnormal(r);
  if (flags & kSat) r = saturate(r);
  return r;
}

float from16(uint16_t x, bool bf) { return bf ? bf16_to_float(x) : half_to_float(x); }
uint16_t to16(float x, bool bf) { return bf ? float_to_bf16(x) : float_to_half(x); }

// A 16-bit result computed in f32: rounded, except that every NaN result is
// the canonical 0x7fff in f16 and bf16 alike, whatever the operands'
// payloads (measured: add, mul, fma, min, max, ex2, tanh; tests/validation/
// nan/), where the f32 NaN rounded would keep only its top mantissa bit.
uint16_t result16(float r, bool bf) { return std::isnan(r) ? uint16_t{0x7fff} : to16(r, bf); }

// f32 in the round-to-nearest environment (every launch's, and the mode of
// all but directed-rounding ops): `one` per lane with the operation a
// template argument, so its switch is folded away once per warp-instruction
// instead of taken per lane (BlackScholes' ex2/lg2/rcp/sqrt). The same
// calls in the same order per lane as `one`, so the same bits.
template <uint8_t F>
void f32_nearest(uint64_t* D, const uint64_t* A, const uint64_t* B, const uint64_t* C,
                 uint32_t exec, uint8_t flags) {
  SMEMLAB_FOR_LANES(exec, D[l] = put(f32_nearest_lane(F, flags, get<float>(A[l]), get<float>(B[l]),
                                                      get<float>(C[l]))));
}

// exec_fslow's f32 round-to-nearest ops: the lanes the vectors decide
// (ops_float_vec.h, not .sat: its clamp stays here), the rest through
// f32_nearest. False for anything else (other types, directed rounding,
// testp's predicate).
bool fslow_f32_nearest(uint64_t* D, const uint64_t* A, const uint64_t* B, const uint64_t* C,
                       const Op& op, uint32_t exec) {
  if (op.t != F32 || fe_mode(op.aux2) != FE_TONEAREST || op.aux == F_TESTP) return false;
  static const F32VectorFn vector = f32_vector();
  if (vector && !(op.aux2 & kSat)) exec = vector(op.aux, op.aux2 & kFtz, D, A, B, C, exec);
  return exec == 0 || f32_nearest_lanes(op.aux, op.aux2, D, A, B, C, exec);
}

// f32 and f64 in a directed rounding mode (.rz/.rm/.rp: eigenvalues'
// __fadd_ru and friends): the environment switched once per
// warp-instruction instead of once per lane. `one`'s other steps (.ftz's
// flushes, .sat's clamp) are exact, so where they run relative to the
// switch does not change a bit.
template <typename V>
void directed_lanes(uint64_t* D, const uint64_t* A, const uint64_t* B, const uint64_t* C,
                    const Op& op, uint32_t exec, int mode) {
  const bool ftz = (op.aux2 & kFtz) && sizeof(V) == 4, sat = op.aux2 & kSat;
  bool p = false;
  const int old = std::fegetround();
  std::fesetround(mode);
  SMEMLAB_FOR_LANES(exec, {
    V a = get<V>(A[l]), b = get<V>(B[l]), c = get<V>(C[l]);
    if (ftz) {
      a = flush_subnormal(a);
      b = flush_subnormal(b);
      c = flush_subnormal(c);
    }
    volatile V va = a, vb = b, vc = c;  // (computed here, under the mode)
    V r = fslow_compute<V>(op.aux, va, vb, vc, op.t2, &p);
    if (ftz) r = flush_subnormal(r);
    if (sat) r = saturate(r);
    D[l] = put(r);
  });
  std::fesetround(old);
}

}  // namespace

bool f32_nearest_lanes(uint8_t f, uint8_t flags, uint64_t* D, const uint64_t* A, const uint64_t* B,
                       const uint64_t* C, uint32_t exec) {
  switch (f) {
#define SMEMLAB_F32_NEAREST(op)               \
  case op:                                    \
    f32_nearest<op>(D, A, B, C, exec, flags); \
    return true;
    SMEMLAB_F32_NEAREST(F_ADD)
    SMEMLAB_F32_NEAREST(F_SUB)
    SMEMLAB_F32_NEAREST(F_MUL)
    SMEMLAB_F32_NEAREST(F_FMA)
    SMEMLAB_F32_NEAREST(F_DIV)
    SMEMLAB_F32_NEAREST(F_RCP)
    SMEMLAB_F32_NEAREST(F_SQRT)
    SMEMLAB_F32_NEAREST(F_RSQRT)
    SMEMLAB_F32_NEAREST(F_ABS)
    SMEMLAB_F32_NEAREST(F_NEG)
    SMEMLAB_F32_NEAREST(F_MIN)
    SMEMLAB_F32_NEAREST(F_MAX)
    SMEMLAB_F32_NEAREST(F_MIN_NAN)
    SMEMLAB_F32_NEAREST(F_MAX_NAN)
    SMEMLAB_F32_NEAREST(F_EX2)
    SMEMLAB_F32_NEAREST(F_LG2)
    SMEMLAB_F32_NEAREST(F_SIN)
    SMEMLAB_F32_NEAREST(F_COS)
    SMEMLAB_F32_NEAREST(F_TANH)
    SMEMLAB_F32_NEAREST(F_COPYSIGN)
#undef SMEMLAB_F32_NEAREST
    default:
      return false;  // F_TESTP writes a predicate, not D
  }
}

void exec_fslow(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  uint64_t* D = regw(w, op.r[0]);
  const uint64_t* A = reg(w, op.r[1]);
  const int sources = fslow_sources(op.aux);
  const uint64_t* B = sources >= 2 ? reg(w, op.r[2]) : A;
  const uint64_t* C = sources >= 3 ? reg(w, op.r[3]) : A;
  if (fslow_f32_nearest(D, A, B, C, op, exec)) return;
  if (const int mode = fe_mode(op.aux2); mode != FE_TONEAREST && op.aux != F_TESTP) {
    if (op.t == F32) return directed_lanes<float>(D, A, B, C, op, exec, mode);
    if (op.t == F64) return directed_lanes<double>(D, A, B, C, op, exec, mode);
  }
  uint32_t preds = 0;
  SMEMLAB_FOR_LANES(exec, {
    bool p = false;
    uint64_t res = 0;
    switch (op.t) {
      case F32:
        res = put(one<float>(op.aux, op.aux2, op.t2, get<float>(A[l]), get<float>(B[l]),
                             get<float>(C[l]), &p));
        break;
      case F64:
        res = put(one<double>(op.aux, op.aux2, op.t2, get<double>(A[l]), get<double>(B[l]),
                              get<double>(C[l]), &p));
        break;
      case F16:
      case BF16: {
        bool bf = op.t == BF16;
        float r = one<float>(
            op.aux, op.aux2 & ~kFtz, op.t2, from16(static_cast<uint16_t>(A[l]), bf),
            from16(static_cast<uint16_t>(B[l]), bf), from16(static_cast<uint16_t>(C[l]), bf), &p);
        // One rounding: f16 results of add/mul/fma computed in f32 are exact
        // enough that rounding f32 -> f16 is correct except in rare double-rounding cases.
        res = result16(r, bf);
        break;
      }
      default: {  // f16x2 / bf16x2: two halves
        bool bf = op.t == BF16X2;
        uint64_t out = 0;
        for (int h = 0; h < 2; ++h) {
          auto part = [&](uint64_t v) { return from16(static_cast<uint16_t>(v >> (16 * h)), bf); };
          float r =
              one<float>(op.aux, op.aux2 & ~kFtz, op.t2, part(A[l]), part(B[l]), part(C[l]), &p);
          out |= static_cast<uint64_t>(result16(r, bf)) << (16 * h);
        }
        res = out;
      }
    }
    if (op.aux != F_TESTP) D[l] = res;
    preds |= static_cast<uint32_t>(p) << l;
  });
  if (op.aux == F_TESTP) w.P[op.r[0]] = (w.P[op.r[0]] & ~exec) | preds;
}

}  // namespace smemlab::emu

// ---- Decoders -----------------------------------------------------------------

namespace smemlab::emu {

void decode_float_fn(Insn& d) {
  const std::string& o = d.opcode();
  FOp f = o == "rcp"     ? F_RCP
          : o == "sqrt"  ? F_SQRT
          : o == "rsqrt" ? F_RSQRT
          : o == "ex2"   ? F_EX2
          : o == "lg2"   ? F_LG2
          : o == "sin"   ? F_SIN
          : o == "cos"   ? F_COS
          : o == "tanh"  ? F_TANH
                         : F_COPYSIGN;
  // rcp.approx.f64 (PTX requires .ftz with it) is a rule of its own; the
  // f32 .approx forms keep the correctly rounded value (docs/emulator.md).
  if (f == F_RCP && d.t == F64 && d.in.has_mod("approx")) f = F_RCP_APPROX_F64;
  d.fslow(f, f == F_COPYSIGN ? 2 : 1);
}

void decode_testp(Insn& d) {
  static const char* kinds[] = {"finite",     "infinite", "number",
                                "notanumber", "normal",   "subnormal"};
  int k = mod_index(kinds, 6, d.in);
  if (k < 0) d.unsupported();
  d.need(2);
  d.op.code = code(FSLOW, d.t);
  d.op.aux = F_TESTP;
  d.op.t2 = static_cast<uint8_t>(k);
  d.op.r[0] = d.c.pred(d.operands()[0]);
  d.op.r[1] = d.c.src(d.operands()[1], d.t);
  d.push();
}

}  // namespace smemlab::emu
