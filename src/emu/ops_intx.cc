// Integer ops that CUB, CCCL's cuda::ptx wrappers and int8 quantization code
// emit through intrinsics: bfind (__clz-style "find leading bit"), bmsk
// (cuda::ptx::bmsk_clamp, used by CUB's radix sort and histogram), dp4a /
// dp2a (__dp4a / __dp2a_lo/hi), mul24 / mad24 (__mul24, __umul24) and sad
// (__sad, __usad). Semantics as the PTX ISA's pseudo-code; decoded into Call
// executors here, so the interpreter loop only gains table-generated cases.
#include <cstdint>

#include "emu/decode_context.h"
#include "emu/exec.h"

namespace smemlab::emu {

namespace {

bool is_signed(T t) { return t == S8 || t == S16 || t == S32 || t == S64; }

// Sign- or zero-extends byte/halfword `i` of `x`.
int64_t part(uint32_t x, int bytes, int i, bool sign) {
  uint32_t bits = 8 * bytes;
  uint32_t v = (x >> (bits * i)) & ((1u << bits) - 1);
  if (sign && (v >> (bits - 1))) return static_cast<int64_t>(v) - (int64_t{1} << bits);
  return v;
}

int64_t ext24(uint32_t x, bool sign) {
  x &= 0xffffff;
  return sign && (x & 0x800000) ? static_cast<int64_t>(x) - (1 << 24) : x;
}

}  // namespace

// bfind{.shiftamt}.{u32,s32,u64,s64} d, a  (d is .u32)
void decode_bfind(Insn& d) {
  d.need(2);
  if (d.t != U32 && d.t != S32 && d.t != U64 && d.t != S64) d.unsupported();
  d.op.code = code(BFIND, d.t);
  d.op.aux = d.in.has_mod("shiftamt") ? 1 : 0;
  d.op.r[0] = d.c.dst(d.operands()[0]);
  d.op.r[1] = d.c.src(d.operands()[1], d.t);
  d.push();
}

void exec_bfind(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  const uint64_t* A = reg(w, op.r[1]);
  uint64_t* D = regw(w, op.r[0]);
  const T t = static_cast<T>(op.t);
  const int msb = t == U32 || t == S32 ? 31 : 63;
  SMEMLAB_FOR_LANES(exec, {
    uint64_t a = msb == 31 ? A[l] & 0xffffffffu : A[l];
    if (is_signed(t) && ((a >> msb) & 1)) a = ~a & (msb == 31 ? 0xffffffffu : ~uint64_t{0});
    uint32_t num = 0xffffffffu;
    for (int i = msb; i >= 0; --i)
      if ((a >> i) & 1) {
        num = static_cast<uint32_t>(i);
        break;
      }
    if (op.aux && num != 0xffffffffu) num = static_cast<uint32_t>(msb) - num;
    D[l] = num;
  });
}

// bmsk.{clamp,wrap}.b32 d, a, b: a mask of b bits starting at bit a.
void decode_bmsk(Insn& d) {
  d.need(3);
  bool clamp = d.in.has_mod("clamp"), wrap = d.in.has_mod("wrap");
  if (clamp == wrap || d.t != U32) d.unsupported();
  d.op.code = code(BMSK, U32);
  d.op.aux = clamp ? 1 : 0;
  d.op.r[0] = d.c.dst(d.operands()[0]);
  d.op.r[1] = d.c.src(d.operands()[1], U32);
  d.op.r[2] = d.c.src(d.operands()[2], U32);
  d.push();
}

uint32_t bmsk(uint32_t a, uint32_t b, bool clamp) {
  uint32_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
  uint32_t mask0 = ~0u << a1;
  uint32_t mask1 = sum >= 32 ? 0 : ~0u << sum;
  bool overflow = sum >= 32;
  if (clamp) {
    if (a >= 32) mask0 = 0, overflow = true;
    if (b >= 32) overflow = true;
  }
  if (overflow)
    mask1 = 0;
  else if (b1 == 0)
    mask1 = ~0u;
  return mask0 & ~mask1;
}

void exec_bmsk(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  const uint64_t *A = reg(w, op.r[1]), *B = reg(w, op.r[2]);
  uint64_t* D = regw(w, op.r[0]);
  SMEMLAB_FOR_LANES(
      exec, D[l] = bmsk(static_cast<uint32_t>(A[l]), static_cast<uint32_t>(B[l]), op.aux != 0));
}

// dp4a.atype.btype d, a, b, c and dp2a.{lo,hi}.atype.btype d, a, b, c
// (atype, btype .u32/.s32; d and c are .s32 if either is signed, else .u32).
void decode_dp(Insn& d) {
  d.need(4);
  if (d.tys.size() != 2) d.unsupported();
  for (T t : d.tys)
    if (t != U32 && t != S32) d.unsupported();
  bool two = d.opcode() == "dp2a";
  bool lo = d.in.has_mod("lo"), hi = d.in.has_mod("hi");
  if (two ? lo == hi : lo || hi) d.unsupported();
  T out = d.tys[0] == S32 || d.tys[1] == S32 ? S32 : U32;
  d.op.code = code(two ? DP2A : DP4A, out);
  d.op.aux = static_cast<uint8_t>((d.tys[0] == S32 ? 1 : 0) | (d.tys[1] == S32 ? 2 : 0));
  d.op.aux2 = hi ? 1 : 0;
  d.op.r[0] = d.c.dst(d.operands()[0]);
  d.op.r[1] = d.c.src(d.operands()[1], d.tys[0]);
  d.op.r[2] = d.c.src(d.operands()[2], d.tys[1]);
  d.op.r[3] = d.c.src(d.operands()[3], out);
  d.push();
}

namespace {
// The 32-bit result stored canonically for the op's type (s32 sign-extended).
uint64_t put32(T t, int64_t v) {
  uint32_t u = static_cast<uint32_t>(v);
  return t == S32 ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(u))) : u;
}
}  // namespace

void exec_dp4a(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  const uint64_t *A = reg(w, op.r[1]), *B = reg(w, op.r[2]), *C = reg(w, op.r[3]);
  uint64_t* D = regw(w, op.r[0]);
  bool sa = op.aux & 1, sb = op.aux & 2;
  SMEMLAB_FOR_LANES(exec, {
    int64_t s = static_cast<int64_t>(C[l]);
    for (int i = 0; i < 4; ++i)
      s +=
          part(static_cast<uint32_t>(A[l]), 1, i, sa) * part(static_cast<uint32_t>(B[l]), 1, i, sb);
    D[l] = put32(static_cast<T>(op.t), s);
  });
}

void exec_dp2a(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  const uint64_t *A = reg(w, op.r[1]), *B = reg(w, op.r[2]), *C = reg(w, op.r[3]);
  uint64_t* D = regw(w, op.r[0]);
  bool sa = op.aux & 1, sb = op.aux & 2;
  int base = op.aux2 ? 2 : 0;  // .hi: bytes 2 and 3 of b
  SMEMLAB_FOR_LANES(exec, {
    int64_t s = static_cast<int64_t>(C[l]);
    for (int i = 0; i < 2; ++i)
      s += part(static_cast<uint32_t>(A[l]), 2, i, sa) *
           part(static_cast<uint32_t>(B[l]), 1, base + i, sb);
    D[l] = put32(static_cast<T>(op.t), s);
  });
}

// mul24.{lo,hi}.{u32,s32} d, a, b and mad24.{lo,hi}.{u32,s32} d, a, b, c:
// the 48-bit product of the low 24 bits; .lo its low 32 bits, .hi bits 47..16.
void decode_int24(Insn& d) {
  bool mad = d.opcode() == "mad24";
  d.need(mad ? 4 : 3);
  bool lo = d.in.has_mod("lo"), hi = d.in.has_mod("hi");
  if (lo == hi || (d.t != U32 && d.t != S32) || d.sat) d.unsupported();
  d.op.code = code(mad ? MAD24 : MUL24, d.t);
  d.op.aux = hi ? 1 : 0;
  d.op.r[0] = d.c.dst(d.operands()[0]);
  for (size_t i = 1; i < d.operands().size(); ++i) d.op.r[i] = d.c.src(d.operands()[i], d.t);
  d.push();
}

namespace {
void int24(Warp& w, const Op& op, uint32_t exec, bool mad) {
  const uint64_t *A = reg(w, op.r[1]), *B = reg(w, op.r[2]), *C = mad ? reg(w, op.r[3]) : nullptr;
  uint64_t* D = regw(w, op.r[0]);
  bool sign = op.t == S32;
  SMEMLAB_FOR_LANES(exec, {
    int64_t p = ext24(static_cast<uint32_t>(A[l]), sign) * ext24(static_cast<uint32_t>(B[l]), sign);
    uint32_t r = static_cast<uint32_t>(op.aux ? static_cast<uint64_t>(p) >> 16 : p);
    if (mad) r += static_cast<uint32_t>(C[l]);
    D[l] = put32(static_cast<T>(op.t), static_cast<int32_t>(r));
  });
}
}  // namespace

void exec_mul24(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  int24(w, op, exec, false);
}
void exec_mad24(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  int24(w, op, exec, true);
}

// sad.type d, a, b, c: d = c + |a - b|.
void decode_sad(Insn& d) {
  if (is_float(d.t)) d.unsupported();
  d.simple(SAD, 3);
}

void exec_sad(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  const uint64_t *A = reg(w, op.r[1]), *B = reg(w, op.r[2]), *C = reg(w, op.r[3]);
  uint64_t* D = regw(w, op.r[0]);
  const T t = static_cast<T>(op.t);
  const int bits = t == U16 || t == S16 ? 16 : t == U32 || t == S32 ? 32 : 64;
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  SMEMLAB_FOR_LANES(exec, {
    uint64_t a = A[l] & mask, b = B[l] & mask, diff;
    if (is_signed(t)) {  // registers hold signed values sign-extended to 64 bits
      int64_t x = static_cast<int64_t>(A[l]), y = static_cast<int64_t>(B[l]);
      diff = x > y ? static_cast<uint64_t>(x) - static_cast<uint64_t>(y)
                   : static_cast<uint64_t>(y) - static_cast<uint64_t>(x);
    } else {
      diff = a > b ? a - b : b - a;
    }
    uint64_t r = (diff + C[l]) & mask;
    if (is_signed(t) && bits < 64 && (r >> (bits - 1)) & 1) r |= ~mask;  // canonical form
    D[l] = r;
  });
}

}  // namespace smemlab::emu
