// The SIMD video instructions: vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2
// vset2 on half-word pairs and their four-byte forms (vadd4 ... vset4).
//   vop2.dtype.atype.btype{.sat}  d{.mask}, a{.asel}, b{.bsel}, c;   merge
//   vop2.dtype.atype.btype.add    d{.mask}, a{.asel}, b{.bsel}, c;   accumulate
//   vset2.atype.btype.cmp{.add}   d{.mask}, a{.asel}, b{.bsel}, c;
// Each element of a and b is picked from the eight bytes (four half-words)
// of b:a by its selector digit and sign- or zero-extended by its type; the
// results are clamped to the destination element's range with .sat; merge
// puts the results in the masked elements of d and c's elements in the
// others, accumulate adds the masked results to c (a 32-bit sum). The PTX
// ISA's pseudo-code, as the H100 computes it: programs.video_simd compares
// 286 forms on 64 operand triples with tests/data/h100_video.txt.
// The scalar video instructions (vadd, vmad, vshl, ...) are not decoded:
// their intermediate precision differs from the ISA's text on the H100.
#include <fmt/format.h>

#include <cstring>

#include "emu/decode_context.h"
#include "emu/exec.h"

namespace smemlab::emu {

namespace {

enum VideoOp : uint8_t { V_ADD, V_SUB, V_AVRG, V_ABSDIFF, V_MIN, V_MAX, V_SET };
constexpr uint8_t kVideoFour = 0x8;  // aux: four byte elements (else two half-words)
// aux2 flags
constexpr uint8_t kVSat = 1, kVAdd = 2, kVSignA = 4, kVSignB = 8;

// A selector suffix of `name` (".b3210", ".h10"): its digits, highest
// element first; the name is cut back to the register.
bool split_selector(std::string* name, std::string* digits) {
  size_t dot = name->rfind('.');
  if (dot == std::string::npos || dot + 2 > name->size()) return false;
  char k = (*name)[dot + 1];
  if (k != 'b' && k != 'h') return false;
  std::string d = name->substr(dot + 2);
  if (d.empty()) return false;
  for (char c : d)
    if (c < '0' || c > '7') return false;
  *digits = std::string(1, k) + d;
  name->resize(dot);
  return true;
}

// Element sources of a selector: per result element i (0 = lowest), the
// index of the byte (four-way) or half-word (two-way) of b:a it takes,
// packed 3 bits each.
uint32_t selector(Insn& d, const std::string& sel, bool four, bool mask) {
  size_t n = four ? 4 : 2;
  char kind = four ? 'b' : 'h';
  if (sel[0] != kind) d.unsupported();
  std::string digits = sel.substr(1);
  uint32_t out = 0;
  if (mask) {  // .b3210 / .h10: the set of elements written
    for (char c : digits) {
      unsigned e = static_cast<unsigned>(c - '0');
      if (e >= n || (out >> e & 1)) d.unsupported();
      out |= 1u << e;
    }
    // The ISA lists masks highest element first (.b310, .h10): anything
    // else is not a mask it defines.
    for (size_t i = 1; i < digits.size(); ++i)
      if (digits[i] >= digits[i - 1]) d.unsupported();
    return out;
  }
  if (digits.size() != n) d.unsupported();
  for (size_t i = 0; i < n; ++i) {
    unsigned e = static_cast<unsigned>(digits[n - 1 - i] - '0');
    if (e >= 2 * n) d.unsupported();
    out |= e << (3 * i);
  }
  return out;
}

}  // namespace

void decode_video(Insn& d) {
  const std::string& name = d.opcode();
  bool four = name.back() == '4';
  std::string base = name.substr(0, name.size() - 1);
  static const char* const kOps[] = {"vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"};
  int op = -1;
  for (int i = 0; i < 7; ++i)
    if (base == kOps[i]) op = i;
  if (op < 0) d.unsupported();
  bool set = op == V_SET;
  d.need(4);
  // Types: dtype.atype.btype (vset: atype.btype, the result unsigned).
  if (d.tys.size() != (set ? 2u : 3u)) d.unsupported();
  for (T t : d.tys)
    if (t != U32 && t != S32) d.unsupported();
  T dt = set ? U32 : d.tys[0], at = d.tys[set ? 0 : 1], bt = d.tys[set ? 1 : 2];
  bool add = d.in.has_mod("add");
  if (add && d.sat) d.unsupported();  // the ISA: .sat cannot be used with .add
  if (set && d.sat) d.unsupported();
  static const char* const kCmps[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  int cmp = mod_index(kCmps, 6, d.in);
  if (set != (cmp >= 0)) d.unsupported();
  size_t known = d.tys.size() + (add ? 1 : 0) + (d.sat ? 1 : 0) + (set ? 1 : 0);
  if (d.in.mods.size() != known) d.unsupported();

  ptx::Operand dst = d.operands()[0], a = d.operands()[1], b = d.operands()[2];
  std::string mask = four ? "b3210" : "h10", asel = four ? "b3210" : "h10",
              bsel = four ? "b7654" : "h32";
  std::string sel;
  if (dst.kind == ptx::Operand::Kind::Reg && split_selector(&dst.name, &sel)) mask = sel;
  if (a.kind == ptx::Operand::Kind::Reg && split_selector(&a.name, &sel)) asel = sel;
  if (b.kind == ptx::Operand::Kind::Reg && split_selector(&b.name, &sel)) bsel = sel;
  if (dst.minus || a.minus || b.minus || d.operands()[3].minus) d.unsupported();

  d.op.code = code(VIDEO, dt);
  d.op.t = static_cast<uint8_t>(dt);  // the destination's type: what .sat clamps to
  d.op.aux = static_cast<uint8_t>(op | (four ? kVideoFour : 0));
  d.op.aux2 = static_cast<uint8_t>((d.sat ? kVSat : 0) | (add ? kVAdd : 0) |
                                   (at == S32 ? kVSignA : 0) | (bt == S32 ? kVSignB : 0));
  d.op.t2 = static_cast<uint8_t>(set ? cmp : 0);
  d.op.imm = static_cast<int64_t>(selector(d, asel, four, false)) |
             static_cast<int64_t>(selector(d, bsel, four, false)) << 12 |
             static_cast<int64_t>(selector(d, mask, four, true)) << 24;
  d.op.r[0] = d.c.dst(dst);
  d.op.r[1] = d.c.src(a, U32);
  d.op.r[2] = d.c.src(b, U32);
  d.op.r[3] = d.c.src(d.operands()[3], U32);
  d.push();
}

void exec_video(BlockCtx&, Warp& w, const Op& op, uint32_t, uint32_t exec) {
  const uint64_t *A = reg(w, op.r[1]), *B = reg(w, op.r[2]), *C = reg(w, op.r[3]);
  uint64_t* D = regw(w, op.r[0]);
  const bool four = op.aux & kVideoFour;
  const int vop = op.aux & 7, n = four ? 4 : 2, bits = four ? 8 : 16;
  const bool sat = op.aux2 & kVSat, add = op.aux2 & kVAdd, sa = op.aux2 & kVSignA,
             sb = op.aux2 & kVSignB, sd = static_cast<T>(op.t) == S32;
  const uint32_t asel = static_cast<uint32_t>(op.imm) & 0xfff,
                 bsel = static_cast<uint32_t>(op.imm >> 12) & 0xfff,
                 mask = static_cast<uint32_t>(op.imm >> 24) & 0xf;
  const uint64_t elem_mask = (uint64_t{1} << bits) - 1;
  const int64_t lo = sd ? -(int64_t{1} << (bits - 1)) : 0,
                hi = sd ? (int64_t{1} << (bits - 1)) - 1 : static_cast<int64_t>(elem_mask);
  // Element e of b:a, sign-extended when `sign`.
  auto pick = [&](uint64_t ab, unsigned e, bool sign) {
    uint64_t x = ab >> (e * static_cast<unsigned>(bits)) & elem_mask;
    return sign && (x >> (bits - 1)) ? static_cast<int64_t>(x) - (int64_t{1} << bits)
                                     : static_cast<int64_t>(x);
  };
  SMEMLAB_FOR_LANES(exec, {
    uint64_t ab = static_cast<uint32_t>(A[l]) | static_cast<uint64_t>(static_cast<uint32_t>(B[l]))
                                                    << 32;
    uint32_t c = static_cast<uint32_t>(C[l]), d = add ? c : 0;
    for (int i = 0; i < n; ++i) {
      int64_t x = pick(ab, asel >> (3 * i) & 7, sa), y = pick(ab, bsel >> (3 * i) & 7, sb), t = 0;
      switch (vop) {
        case V_ADD:
          t = x + y;
          break;
        case V_SUB:
          t = x - y;
          break;
        case V_AVRG:
          t = x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1;
          break;
        case V_ABSDIFF:
          t = x > y ? x - y : y - x;
          break;
        case V_MIN:
          t = x < y ? x : y;
          break;
        case V_MAX:
          t = x > y ? x : y;
          break;
        default: {
          const bool r[6] = {x == y, x != y, x<y, x <= y, x> y, x >= y};
          t = r[op.t2 % 6];
        }
      }
      if (sat) t = t < lo ? lo : t > hi ? hi : t;
      bool on = mask >> i & 1;
      if (add) {
        if (on) d += static_cast<uint32_t>(t);
      } else {
        uint64_t v = on ? static_cast<uint64_t>(t) : c >> (i * bits);
        d |= static_cast<uint32_t>((v & elem_mask) << (i * bits));
      }
    }
    D[l] = sd ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(d))) : d;
  });
}

}  // namespace smemlab::emu
