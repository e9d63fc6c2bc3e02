// The jump of cuRAND's MT19937 copies (curand_mt19937.h): MT19937's
// characteristic polynomial, x^(2^k) modulo it, and a state advanced by such
// a polynomial of its one-word step.
#include <algorithm>
#include <array>
#include <bit>
#include <mutex>

#include "libs/curand_mt19937.h"

namespace smemlab::libs::mt19937 {
namespace {

constexpr unsigned kDegree = 19937;  // the state's bits

// Polynomials over GF(2), bit i the coefficient of x^i.
using Poly = std::vector<uint64_t>;

bool coef(const Poly& p, size_t i) { return (p[i / 64] >> (i % 64)) & 1; }
void flip(Poly& p, size_t i) { p[i / 64] ^= uint64_t(1) << (i % 64); }

// Bits 64 * w + off .. + 63 of `p` (0 past its end).
uint64_t bits_at(const Poly& p, size_t w, unsigned off) {
  const uint64_t lo = w < p.size() ? p[w] : 0, hi = w + 1 < p.size() ? p[w + 1] : 0;
  return off ? (lo >> off) | (hi << (64 - off)) : lo;
}

// The characteristic polynomial of MT19937's one-word step: the connection
// polynomial Berlekamp-Massey finds for bit 0 of 2 * 19937 outputs, reversed
// (MT19937's is irreducible, so any nonzero output bit has it as its minimal
// polynomial).
Poly characteristic() {
  constexpr size_t n = 2 * kDegree, words = n / 64 + 2;
  Poly rev(words);  // rev bit j = output bit n - 1 - j, so each discrepancy is one AND
  State s = seeded(5489);
  for (size_t i = 0; i < n; ++i) {
    if (i % kWords == 0) twist(s);
    if (temper(s.mt[i % kWords]) & 1) flip(rev, n - 1 - i);
  }
  Poly c(words), b(words);
  c[0] = b[0] = 1;
  size_t len = 0, m = 1;
  for (size_t k = 0; k < n; ++k) {
    // d = sum over i in 0..len of c_i * s[k - i] = parity(c & (rev >> (n - 1 - k))).
    const size_t base = n - 1 - k;
    uint64_t d = 0;
    for (size_t w = 0; w <= len / 64; ++w) d ^= c[w] & bits_at(rev, base / 64 + w, base % 64);
    if (!(std::popcount(d) & 1)) {
      ++m;
      continue;
    }
    Poly t = c;
    for (size_t w = words; w-- > 0;) {  // c ^= b << m
      const size_t src = w * 64 >= m ? w * 64 - m : 0;
      if (w * 64 + 63 < m) break;
      uint64_t v = w * 64 >= m ? bits_at(b, src / 64, src % 64) : b[0] << (m - w * 64);
      c[w] ^= v;
    }
    if (2 * len <= k) {
      len = k + 1 - len;
      b = std::move(t);
      m = 1;
    } else {
      ++m;
    }
  }
  Poly phi(kDegree / 64 + 1);
  for (size_t i = 0; i <= len; ++i)
    if (coef(c, i)) flip(phi, len - i);
  return phi;  // len is 19937: the tests' jumps against stepping check it
}

// p ^= v << pos for a signed bit position (v's bits below 0 are dropped).
void xor_at(Poly& p, uint64_t v, long pos) {
  if (pos < 0) {
    if (pos > -64) p[0] ^= v >> -pos;
    return;
  }
  const size_t w = size_t(pos) / 64, b = size_t(pos) % 64;
  p[w] ^= v << b;
  if (b && w + 1 < p.size()) p[w + 1] ^= v >> (64 - b);
}

// p mod phi for deg p < 2 * kDegree, phi's terms given as their exponents
// below kDegree. A word at a time from the top: phi's second term (19314)
// is 623 below its first, so a word's terms land in lower words only.
void reduce(Poly& p, const std::vector<unsigned>& low) {
  for (size_t w = std::min(p.size(), size_t(2 * kDegree / 64 + 1)); w-- > kDegree / 64;) {
    uint64_t v = p[w];
    if (w == kDegree / 64) v &= ~uint64_t(0) << (kDegree % 64);  // only the bits >= kDegree
    if (!v) continue;
    p[w] ^= v;
    const long base = long(w * 64) - long(kDegree);
    for (unsigned t : low) xor_at(p, v, base + long(t));
  }
}

// p(x)^2 for deg p < kDegree: each bit i moved to 2i.
Poly squared(const Poly& p) {
  static const auto spread = [] {
    std::array<uint16_t, 256> t{};
    for (unsigned b = 0; b < 256; ++b)
      for (unsigned i = 0; i < 8; ++i) t[b] |= uint16_t(((b >> i) & 1) << (2 * i));
    return t;
  }();
  Poly sq(p.size());
  for (size_t w = 0; w <= kDegree / 64 && 2 * w + 1 < sq.size(); ++w) {
    uint64_t lo = 0, hi = 0;
    for (unsigned k = 0; k < 4; ++k) {
      lo |= uint64_t(spread[(p[w] >> (8 * k)) & 0xff]) << (16 * k);
      hi |= uint64_t(spread[(p[w] >> (32 + 8 * k)) & 0xff]) << (16 * k);
    }
    sq[2 * w] = lo, sq[2 * w + 1] = hi;
  }
  return sq;
}

// x^(2^log2) mod phi: the polynomial of a jump by 2^log2 words.
Poly jump_poly(unsigned log2) {
  const Poly phi = characteristic();
  std::vector<unsigned> low;
  for (unsigned i = 0; i < kDegree; ++i)
    if (coef(phi, i)) low.push_back(i);
  Poly p(2 * kDegree / 64 + 2);
  flip(p, 1);
  for (unsigned step = 0; step < log2; ++step) {
    p = squared(p);
    reduce(p, low);
  }
  return p;
}

// A state advanced one word at a time (the reference twist, one word per step).
struct Ring {
  uint32_t mt[kWords] = {};
  unsigned ptr = 0;
  void step() {
    const unsigned p1 = ptr + 1 == kWords ? 0 : ptr + 1;
    const unsigned pm = ptr + kM >= kWords ? ptr + kM - kWords : ptr + kM;
    const uint32_t y = (mt[ptr] & kUpper) | (mt[p1] & kLower);
    mt[ptr] = mt[pm] ^ (y >> 1) ^ ((y & 1) ? kMatrixA : 0);
    ptr = p1;
  }
  // this += o, word k of each counted from its ptr: three runs of contiguous
  // words (split where either ring wraps), so the compiler vectorizes them.
  void add(const Ring& o) {
    unsigned k = 0;
    while (k < kWords) {
      const unsigned a = ptr + k >= kWords ? ptr + k - kWords : ptr + k;
      const unsigned b = o.ptr + k >= kWords ? o.ptr + k - kWords : o.ptr + k;
      const unsigned run = std::min(kWords - a, kWords - b);
      const unsigned len = std::min(run, kWords - k);
      uint32_t* dst = mt + a;
      const uint32_t* src = o.mt + b;
      for (unsigned i = 0; i < len; ++i) dst[i] ^= src[i];
      k += len;
    }
  }
};

// J(f) s by Horner's rule over windows of 7 coefficients: the 128 sums of
// f^0 s .. f^6 s first, then per window 7 steps and one addition.
State jumped_by(const State& s, const Poly& j) {
  constexpr unsigned kWin = 7;
  std::vector<Ring> sums(1u << kWin);
  Ring powers[kWin];
  for (unsigned i = 0; i < kWords; ++i) powers[0].mt[i] = s.mt[i];
  for (unsigned i = 1; i < kWin; ++i) (powers[i] = powers[i - 1]).step();
  for (unsigned d = 1; d < sums.size(); ++d) {
    sums[d] = sums[d & (d - 1)];  // d less its lowest term
    sums[d].add(powers[std::countr_zero(d)]);
  }
  Ring acc;
  const unsigned top = (kDegree + kWin - 1) / kWin * kWin;
  for (unsigned w = top; w >= kWin; w -= kWin) {
    unsigned digit = 0;
    for (unsigned b = 0; b < kWin; ++b) {
      acc.step();
      const unsigned e = w - 1 - b;
      digit = (digit << 1) | (e < kDegree && coef(j, e));
    }
    // Bit i of digit is the coefficient of x^(w - 7 + i): sums[digit] holds its terms.
    if (digit) acc.add(sums[digit]);
  }
  State out;
  for (unsigned k = 0; k < kWords; ++k) {
    const unsigned a = acc.ptr + k;
    out.mt[k] = acc.mt[a >= kWords ? a - kWords : a];
  }
  return out;
}
}  // namespace

State jumped_pow2(const State& s, unsigned log2) { return jumped_by(s, jump_poly(log2)); }

State jumped(const State& s) {
  static std::once_flag once;
  static Poly jump;
  std::call_once(once, [] { jump = jump_poly(2048); });
  return jumped_by(s, jump);
}

}  // namespace smemlab::libs::mt19937
