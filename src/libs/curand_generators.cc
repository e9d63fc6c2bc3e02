#include "libs/curand_generators.h"

#include <array>

namespace smemlab::libs::rng {
namespace {

// ---- XORWOW: a linear map over GF(2)^160; M^(2^i) by squaring ----------
using Bits = std::array<uint32_t, 5>;
struct Gf2Matrix {
  std::array<Bits, 160> col;  // image of basis bit j
};

Bits gf2_apply(const Gf2Matrix& m, const Bits& x) {
  Bits r{};
  for (int j = 0; j < 160; ++j)
    if (x[j / 32] >> (j % 32) & 1)
      for (int w = 0; w < 5; ++w) r[w] ^= m.col[j][w];
  return r;
}

Bits xorwow_step(const Bits& v) {
  uint32_t t = v[0] ^ (v[0] >> 2);
  return {v[1], v[2], v[3], v[4], (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1))};
}

// powers[i] = M^(2^i), i < 128 (subsequences are 2^67 apart).
const std::vector<Gf2Matrix>& xorwow_powers() {
  static const std::vector<Gf2Matrix> p = [] {
    std::vector<Gf2Matrix> out(128);
    for (int j = 0; j < 160; ++j) {
      Bits e{};
      e[j / 32] = 1u << (j % 32);
      out[0].col[j] = xorwow_step(e);
    }
    for (int i = 1; i < 128; ++i)
      for (int j = 0; j < 160; ++j) out[i].col[j] = gf2_apply(out[i - 1], out[i - 1].col[j]);
    return out;
  }();
  return p;
}

// ---- MRG32k3a: 3x3 matrices mod m ------------------------------------------
constexpr uint64_t kM1 = 4294967087ull, kM2 = 4294944443ull;
using Mat3 = std::array<std::array<uint64_t, 3>, 3>;

Mat3 mrg_mul(const Mat3& a, const Mat3& b, uint64_t m) {
  Mat3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      unsigned __int128 s = 0;
      for (int k = 0; k < 3; ++k) s += (unsigned __int128)a[i][k] * b[k][j];
      r[i][j] = uint64_t(s % m);
    }
  return r;
}

void mrg_apply(const Mat3& a, uint64_t* s, uint64_t m) {
  uint64_t r[3];
  for (int i = 0; i < 3; ++i) {
    unsigned __int128 acc = 0;
    for (int k = 0; k < 3; ++k) acc += (unsigned __int128)a[i][k] * s[k];
    r[i] = uint64_t(acc % m);
  }
  for (int i = 0; i < 3; ++i) s[i] = r[i];
}

// powers[c][i] = Mc^(2^i), i < 192.
const std::array<std::vector<Mat3>, 2>& mrg_powers() {
  static const std::array<std::vector<Mat3>, 2> p = [] {
    // The recurrences of curand_MRG32k3a (coefficients mod m, negatives wrapped).
    Mat3 m1{{{0, 1, 0}, {0, 0, 1}, {kM1 - 810728, 1403580, 0}}};
    Mat3 m2{{{0, 1, 0}, {0, 0, 1}, {kM2 - 1370589, 0, 527612}}};
    std::array<std::vector<Mat3>, 2> out{std::vector<Mat3>(192), std::vector<Mat3>(192)};
    out[0][0] = m1, out[1][0] = m2;
    for (int i = 1; i < 192; ++i) {
      out[0][i] = mrg_mul(out[0][i - 1], out[0][i - 1], kM1);
      out[1][i] = mrg_mul(out[1][i - 1], out[1][i - 1], kM2);
    }
    return out;
  }();
  return p;
}

// ---- Philox4x32-10 -----------------------------------------------------------
void philox(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]}, k[2] = {key[0], key[1]};
  for (int r = 0; r < 10; ++r) {
    if (r) k[0] += 0x9E3779B9u, k[1] += 0xBB67AE85u;
    uint64_t p0 = uint64_t(0xD2511F53u) * c[0], p1 = uint64_t(0xCD9E8D57u) * c[2];
    uint32_t n[4] = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1),
                     uint32_t(p0 >> 32) ^ c[3] ^ k[1], uint32_t(p0)};
    for (int i = 0; i < 4; ++i) c[i] = n[i];
  }
  for (int i = 0; i < 4; ++i) out[i] = c[i];
}

// 128-bit counter += n at word `from` (0: low 64 bits, 2: high 64 bits).
void add_counter(uint32_t ctr[4], uint64_t n, int from) {
  unsigned __int128 c = 0;
  for (int i = 3; i >= 0; --i) c = (c << 32) | ctr[i];
  c += (unsigned __int128)n << (32 * from);
  for (int i = 0; i < 4; ++i) ctr[i] = uint32_t(c >> (32 * i));
}

}  // namespace

Stream::Stream(Kind kind, uint64_t seed, uint64_t subsequence, uint64_t offset) : kind_(kind) {
  switch (kind) {
    case Kind::Xorwow: {
      uint32_t s0 = uint32_t(seed) ^ 0xaad26b49u, s1 = uint32_t(seed >> 32) ^ 0xf7dcefddu;
      uint32_t t0 = 1099087573u * s0, t1 = 2591861531u * s1;
      d_ = 6615241u + t1 + t0;
      v_[0] = 123456789u + t0, v_[1] = 362436069u ^ t0, v_[2] = 521288629u + t1;
      v_[3] = 88675123u ^ t1, v_[4] = 5783321u + t0;
      break;
    }
    case Kind::Philox:
      key_[0] = uint32_t(seed), key_[1] = uint32_t(seed >> 32);
      break;
    case Kind::Mrg32k3a: {
      for (int i = 0; i < 3; ++i) s1_[i] = s2_[i] = 12345;
      if (seed) {
        uint64_t x1 = uint32_t(seed) ^ 0x55555555u, x2 = uint32_t(seed >> 32) ^ 0xAAAAAAAAu;
        s1_[0] = x1 * 12345 % kM1, s1_[1] = x2 * 12345 % kM1, s1_[2] = x1 * 12345 % kM1;
        s2_[0] = x2 * 12345 % kM2, s2_[1] = x1 * 12345 % kM2, s2_[2] = x2 * 12345 % kM2;
      }
      break;
    }
  }
  skip_subsequences(subsequence);
  skip(offset);
  if (kind == Kind::Philox) philox(ctr_, key_, out_);
}

void Stream::skip_subsequences(uint64_t n) {
  if (!n) return;
  switch (kind_) {
    case Kind::Xorwow: {  // 2^67 steps each; d advances by 362437 * 2^67 = 0 mod 2^32
      Bits v{v_[0], v_[1], v_[2], v_[3], v_[4]};
      for (int b = 0; b < 64 && 67 + b < 128; ++b)
        if (n >> b & 1) v = gf2_apply(xorwow_powers()[67 + b], v);
      for (int i = 0; i < 5; ++i) v_[i] = v[i];
      break;
    }
    case Kind::Philox:
      add_counter(ctr_, n, 2);
      break;              // the counter's high 64 bits
    case Kind::Mrg32k3a:  // 2^76 steps each
      for (int b = 0; b < 64 && 76 + b < 192; ++b)
        if (n >> b & 1) {
          mrg_apply(mrg_powers()[0][76 + b], s1_, kM1);
          mrg_apply(mrg_powers()[1][76 + b], s2_, kM2);
        }
      break;
  }
}

void Stream::skip(uint64_t n) {
  if (!n) return;
  switch (kind_) {
    case Kind::Xorwow: {
      Bits v{v_[0], v_[1], v_[2], v_[3], v_[4]};
      for (int b = 0; b < 64; ++b)
        if (n >> b & 1) v = gf2_apply(xorwow_powers()[b], v);
      for (int i = 0; i < 5; ++i) v_[i] = v[i];
      d_ += uint32_t(362437u * n);
      break;
    }
    case Kind::Philox:
      add_counter(ctr_, (phase_ + n) / 4, 0);
      phase_ = unsigned((phase_ + n) % 4);
      break;
    case Kind::Mrg32k3a:
      for (int b = 0; b < 64; ++b)
        if (n >> b & 1) {
          mrg_apply(mrg_powers()[0][b], s1_, kM1);
          mrg_apply(mrg_powers()[1][b], s2_, kM2);
        }
      break;
  }
}

double Stream::next_mrg_raw() {
  // p1 = a12 s1[1] - a13n s1[0] mod m1, p2 = a21 s2[2] - a23n s2[0] mod m2,
  // in 128 bits: (m1 - a13n) s1[0] alone nears 2^64 (it overflowed for an
  // s1[0] close to m1: the 2 of an H200's first 32768 results it got wrong).
  using U128 = unsigned __int128;
  int64_t p1 = int64_t((U128(1403580) * s1_[1] + U128(kM1 - 810728) * s1_[0]) % kM1);
  int64_t p2 = int64_t((U128(527612) * s2_[2] + U128(kM2 - 1370589) * s2_[0]) % kM2);
  s1_[0] = s1_[1], s1_[1] = s1_[2], s1_[2] = uint64_t(p1);
  s2_[0] = s2_[1], s2_[1] = s2_[2], s2_[2] = uint64_t(p2);
  int64_t r = p1 - p2;
  if (r <= 0) r += int64_t(kM1);
  return double(r);
}

uint32_t Stream::next() {
  switch (kind_) {
    case Kind::Xorwow: {
      uint32_t t = v_[0] ^ (v_[0] >> 2);
      v_[0] = v_[1], v_[1] = v_[2], v_[2] = v_[3], v_[3] = v_[4];
      v_[4] = (v_[4] ^ (v_[4] << 4)) ^ (t ^ (t << 1));
      d_ += 362437u;
      return v_[4] + d_;
    }
    case Kind::Philox: {
      uint32_t r = out_[phase_++];
      if (phase_ == 4) {
        phase_ = 0;
        add_counter(ctr_, 1, 0);
        philox(ctr_, key_, out_);
      }
      return r;
    }
    case Kind::Mrg32k3a:
      return uint32_t(next_mrg_raw() * 1.000000048662);
  }
  return 0;
}

Ordering ordering_of(Kind kind, Layout layout) {
  switch (kind) {
    case Kind::Xorwow:
      if (layout == Layout::Seeded) return {4096, 1, 3133713};
      return {layout == Layout::Dynamic ? 2816u : 4096u, 1};
    case Kind::Philox:
      return {16384, 4};
    case Kind::Mrg32k3a:
      return {layout == Layout::Legacy ? 4096u : 65536u, 1};
  }
  return {4096, 1};
}

}  // namespace smemlab::libs::rng
