#include "emu/ops_texture.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "emu/half.h"

namespace smemlab::emu::texture {
namespace {

bool is_int(Format f) { return f != Format::F16 && f != Format::F32; }

// Index i on an axis of n texels after the address mode; false: border.
// Wrap and mirror exist only with normalized coordinates (CUDA clamps
// otherwise).
bool address(Address mode, bool normalized, int64_t i, uint32_t n, int64_t* out) {
  if (!normalized && (mode == Address::Wrap || mode == Address::Mirror)) mode = Address::Clamp;
  int64_t N = n;
  // (Inside the axis every mode is the identity: no 64-bit divisions for
  // the common texel.)
  if (i >= 0 && i < N) {
    *out = i;
    return true;
  }
  switch (mode) {
    case Address::Wrap:
      *out = ((i % N) + N) % N;
      return true;
    case Address::Mirror: {
      int64_t m = ((i % (2 * N)) + 2 * N) % (2 * N);
      *out = m < N ? m : 2 * N - 1 - m;
      return true;
    }
    case Address::Border:
      *out = i;
      return i >= 0 && i < N;
    default:
      *out = i < 0 ? 0 : i >= N ? N - 1 : i;
      return true;
  }
}

// The texel at already-addressed indices, converted per the read mode.
Texel load(const Descriptor& d, const Fetch& fetch, int64_t x, int64_t y, int64_t z, int layer) {
  uint64_t addr = d.base + static_cast<uint64_t>(x) * d.texel_bytes() +
                  static_cast<uint64_t>(y) * d.row_bytes() +
                  static_cast<uint64_t>(z) * d.row_bytes() * d.height +
                  static_cast<uint64_t>(layer) * d.row_bytes() * d.height * d.depth;
  uint8_t raw[16] = {};
  fetch(addr, raw, static_cast<unsigned>(d.texel_bytes()));
  Texel t;
  t.f[3] = 1.0f;  // missing alpha reads as 1 (missing colour channels as 0)
  t.i[3] = 1;
  t.integer = d.read == Read::Element && is_int(d.format);
  unsigned b = format_bytes(d.format);
  for (unsigned c = 0; c < d.channels; ++c) {
    const uint8_t* p = raw + c * b;
    int64_t iv = 0;
    float fv = 0;
    switch (d.format) {
      case Format::U8:
        iv = *p;
        fv = iv / 255.0f;
        break;
      case Format::S8:
        iv = static_cast<int8_t>(*p);
        fv = std::fmax(static_cast<float>(iv) / 127.0f, -1.0f);
        break;
      case Format::U16: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        iv = v;
        fv = static_cast<float>(iv) / 65535.0f;
        break;
      }
      case Format::S16: {
        int16_t v;
        std::memcpy(&v, p, 2);
        iv = v;
        fv = std::fmax(static_cast<float>(iv) / 32767.0f, -1.0f);
        break;
      }
      case Format::U32: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        iv = v;
        fv = static_cast<float>(v);
        break;
      }
      case Format::S32: {
        int32_t v;
        std::memcpy(&v, p, 4);
        iv = v;
        fv = static_cast<float>(v);
        break;
      }
      case Format::F16: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        fv = half_to_float(v);
        break;
      }
      case Format::F32:
        std::memcpy(&fv, p, 4);
        break;
    }
    t.i[c] = iv;
    t.f[c] = fv;
  }
  if (d.channels < 4) t.f[3] = t.integer ? 0.0f : 1.0f, t.i[3] = t.integer ? 0 : 1;
  return t;
}

Texel border(const Descriptor& d) {
  Texel t;
  t.integer = d.read == Read::Element && is_int(d.format);
  for (int c = 0; c < 4; ++c) {
    t.f[c] = d.border[static_cast<size_t>(c)];
    t.i[c] = static_cast<int64_t>(d.border[static_cast<size_t>(c)]);
  }
  return t;
}

// Texel at integer coordinates of the axes in use, addressed.
Texel at(const Descriptor& d, const Fetch& fetch, int64_t x, int64_t y, int64_t z, int layer) {
  int64_t ix = 0, iy = 0, iz = 0;
  bool in = address(d.address[0], d.normalized_coords, x, d.width, &ix);
  if (d.dims >= 2) in = address(d.address[1], d.normalized_coords, y, d.height, &iy) && in;
  if (d.dims >= 3) in = address(d.address[2], d.normalized_coords, z, d.depth, &iz) && in;
  if (!in) return border(d);
  return load(d, fetch, ix, iy, iz, layer);
}

// 1.8 fixed point: the fraction snapped to the nearest 1/256.
float weight(float frac) { return std::nearbyint(frac * 256.0f) / 256.0f; }

}  // namespace

unsigned format_bytes(Format f) {
  switch (f) {
    case Format::U8:
    case Format::S8:
      return 1;
    case Format::U16:
    case Format::S16:
    case Format::F16:
      return 2;
    default:
      return 4;
  }
}

Texel fetch_texel(const Descriptor& d, const Fetch& fetch, int32_t x, int32_t y, int32_t z,
                  int layer) {
  Descriptor e = d;
  e.normalized_coords = false;
  return at(e, fetch, x, y, z, layer);
}

Texel sample(const Descriptor& d, const Fetch& fetch, float x, float y, float z, int layer) {
  if (d.layered)
    layer = layer < 0                             ? 0
            : layer >= static_cast<int>(d.layers) ? static_cast<int>(d.layers) - 1
                                                  : layer;
  float c[3] = {x, y, z};
  const uint32_t n[3] = {d.width, d.height, d.depth};
  if (d.normalized_coords)
    for (unsigned a = 0; a < d.dims; ++a) c[a] *= static_cast<float>(n[a]);
  if (d.filter == Filter::Point) {
    int64_t i[3] = {0, 0, 0};
    for (unsigned a = 0; a < d.dims; ++a) i[a] = static_cast<int64_t>(std::floor(c[a]));
    return at(d, fetch, i[0], i[1], i[2], layer);
  }
  if (d.read == Read::Element && is_int(d.format))
    throw std::invalid_argument("linear filtering needs a float or normalized-float read");
  // Linear: the 2^dims texels around (c - 0.5), weights in 1.8 fixed point.
  int64_t i0[3] = {0, 0, 0};
  float w[3] = {0, 0, 0};
  for (unsigned a = 0; a < d.dims; ++a) {
    float b = c[a] - 0.5f;
    float fl = std::floor(b);
    i0[a] = static_cast<int64_t>(fl);
    w[a] = weight(b - fl);
  }
  Texel out;
  out.f = {0, 0, 0, 0};
  unsigned corners = 1u << d.dims;
  for (unsigned k = 0; k < corners; ++k) {
    float wk = 1.0f;
    int64_t idx[3] = {0, 0, 0};
    for (unsigned a = 0; a < d.dims; ++a) {
      bool hi = (k >> a) & 1u;
      idx[a] = i0[a] + (hi ? 1 : 0);
      wk *= hi ? w[a] : 1.0f - w[a];
    }
    Texel t = at(d, fetch, idx[0], idx[1], idx[2], layer);
    for (int ch = 0; ch < 4; ++ch)
      out.f[static_cast<size_t>(ch)] += wk * t.f[static_cast<size_t>(ch)];
  }
  return out;
}

}  // namespace smemlab::emu::texture
