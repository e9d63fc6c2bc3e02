// Texture sampling: addressing modes, point and linear filtering with 1.8
// fixed-point weights, normalized coordinates, read modes, layers, 2D/3D.
#include "emu/ops_texture.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace smemlab::emu::texture {
namespace {

// A texture over a host vector; device address = 0x1000 + byte offset.
template <typename V>
struct Tex {
  std::vector<V> data;
  Descriptor d;
  Fetch fetch() const {
    return [this](uint64_t addr, void* out, unsigned bytes) {
      ASSERT_GE(addr, 0x1000u);
      ASSERT_LE(addr - 0x1000 + bytes, data.size() * sizeof(V));
      std::memcpy(out, reinterpret_cast<const uint8_t*>(data.data()) + (addr - 0x1000), bytes);
    };
  }
};

Tex<float> line4() {  // 1D floats 10, 20, 30, 40
  Tex<float> t;
  t.data = {10, 20, 30, 40};
  t.d.base = 0x1000;
  t.d.width = 4;
  return t;
}

TEST(Texture, PointClampAndBorder) {
  auto t = line4();
  EXPECT_EQ(sample(t.d, t.fetch(), 2.7f, 0, 0, 0).f[0], 30.0f);
  EXPECT_EQ(sample(t.d, t.fetch(), -3.0f, 0, 0, 0).f[0], 10.0f);
  EXPECT_EQ(sample(t.d, t.fetch(), 9.0f, 0, 0, 0).f[0], 40.0f);
  t.d.address[0] = Address::Border;
  t.d.border = {7, 0, 0, 0};
  EXPECT_EQ(sample(t.d, t.fetch(), 4.0f, 0, 0, 0).f[0], 7.0f);
  EXPECT_EQ(sample(t.d, t.fetch(), 3.99f, 0, 0, 0).f[0], 40.0f);
  // Wrap needs normalized coordinates: unnormalized, it clamps.
  t.d.address[0] = Address::Wrap;
  EXPECT_EQ(sample(t.d, t.fetch(), 5.0f, 0, 0, 0).f[0], 40.0f);
}

TEST(Texture, NormalizedWrapAndMirror) {
  auto t = line4();
  t.d.normalized_coords = true;
  t.d.address[0] = Address::Wrap;
  EXPECT_EQ(sample(t.d, t.fetch(), 1.3f, 0, 0, 0).f[0], 20.0f);  // 0.3 * 4 = 1.2
  EXPECT_EQ(sample(t.d, t.fetch(), -0.1f, 0, 0, 0).f[0], 40.0f);
  t.d.address[0] = Address::Mirror;
  EXPECT_EQ(sample(t.d, t.fetch(), 1.1f, 0, 0, 0).f[0], 40.0f);  // 4.4 -> texel 3 mirrored
  EXPECT_EQ(sample(t.d, t.fetch(), 1.9f, 0, 0, 0).f[0], 10.0f);  // 7.6 -> 7 -> 0
}

TEST(Texture, LinearUsesTexelCentresAndEightBitWeights) {
  auto t = line4();
  t.d.filter = Filter::Linear;
  EXPECT_EQ(sample(t.d, t.fetch(), 1.5f, 0, 0, 0).f[0], 20.0f);  // a texel centre
  EXPECT_EQ(sample(t.d, t.fetch(), 2.0f, 0, 0, 0).f[0], 25.0f);
  // frac 0.3 -> 77/256 (0.30078...), not 0.3.
  float got = sample(t.d, t.fetch(), 1.8f, 0, 0, 0).f[0];
  EXPECT_FLOAT_EQ(got, 20.0f + 10.0f * 77.0f / 256.0f);
  EXPECT_NE(got, 23.0f);
  // Clamp at the edge: below the first centre, both taps are texel 0.
  EXPECT_EQ(sample(t.d, t.fetch(), 0.2f, 0, 0, 0).f[0], 10.0f);
}

TEST(Texture, Linear2DBilinear) {
  Tex<float> t;
  t.data = {0, 10, 100, 110};  // 2x2
  t.d.base = 0x1000;
  t.d.dims = 2;
  t.d.width = t.d.height = 2;
  t.d.filter = Filter::Linear;
  EXPECT_EQ(sample(t.d, t.fetch(), 1.0f, 1.0f, 0, 0).f[0], 55.0f);
  EXPECT_EQ(sample(t.d, t.fetch(), 0.5f, 1.5f, 0, 0).f[0], 100.0f);
}

TEST(Texture, ReadModesAndChannels) {
  Tex<uint8_t> t;
  t.data = {0, 255, 51, 128, 1, 2, 3, 4};  // two uchar4 texels
  t.d.base = 0x1000;
  t.d.width = 2;
  t.d.channels = 4;
  t.d.format = Format::U8;
  Texel e = sample(t.d, t.fetch(), 0.5f, 0, 0, 0);
  EXPECT_TRUE(e.integer);
  EXPECT_EQ(e.i[1], 255);
  t.d.read = Read::NormalizedFloat;
  Texel n = sample(t.d, t.fetch(), 0.5f, 0, 0, 0);
  EXPECT_FALSE(n.integer);
  EXPECT_EQ(n.f[1], 1.0f);
  EXPECT_EQ(n.f[2], 0.2f);
  t.d.filter = Filter::Linear;
  EXPECT_NO_THROW(sample(t.d, t.fetch(), 1.0f, 0, 0, 0));
  t.d.read = Read::Element;
  EXPECT_THROW(sample(t.d, t.fetch(), 1.0f, 0, 0, 0), std::invalid_argument);
  Tex<int8_t> s;
  s.data = {-128, 127};
  s.d.base = 0x1000;
  s.d.width = 2;
  s.d.format = Format::S8;
  s.d.read = Read::NormalizedFloat;
  EXPECT_EQ(sample(s.d, s.fetch(), 0.5f, 0, 0, 0).f[0], -1.0f);  // -128/127 clamps to -1
}

TEST(Texture, LayersPitchAnd3D) {
  Tex<float> t;  // 2 layers of 3x2 with a pitch of 4 floats
  t.data.assign(2 * 2 * 4, -1);
  for (int l = 0; l < 2; ++l)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x) t.data[l * 8 + y * 4 + x] = 100.0f * l + 10.0f * y + x;
  t.d.base = 0x1000;
  t.d.dims = 2;
  t.d.layered = true;
  t.d.layers = 2;
  t.d.width = 3;
  t.d.height = 2;
  t.d.pitch = 16;
  EXPECT_EQ(sample(t.d, t.fetch(), 2.5f, 1.5f, 0, 1).f[0], 112.0f);
  EXPECT_EQ(fetch_texel(t.d, t.fetch(), 7, 1, 0, 0).f[0], 12.0f);  // clamped x
  Tex<float> v;                                                    // 3D 2x2x2
  v.data = {0, 1, 2, 3, 4, 5, 6, 7};
  v.d.base = 0x1000;
  v.d.dims = 3;
  v.d.width = v.d.height = v.d.depth = 2;
  v.d.filter = Filter::Linear;
  EXPECT_EQ(sample(v.d, v.fetch(), 1.0f, 1.0f, 1.0f, 0).f[0], 3.5f);
  EXPECT_EQ(sample(v.d, v.fetch(), 1.5f, 0.5f, 1.5f, 0).f[0], 5.0f);
}

// The CUDA programming guide's cubemap table: the major axis picks the face,
// (s/|m| + 1) / 2 and (t/|m| + 1) / 2 are its coordinates.
TEST(Texture, CubeFaceSelection) {
  struct Case {
    float x, y, z;
    int face;
    float u, v;
  } cases[] = {
      {1, 0.5f, -0.5f, 0, 0.75f, 0.25f},     // +x: s = -z, t = -y
      {-1, 0.5f, -0.5f, 1, 0.25f, 0.25f},    // -x: s = z, t = -y
      {0.5f, 1, -0.5f, 2, 0.75f, 0.25f},     // +y: s = x, t = z
      {0.5f, -1, -0.5f, 3, 0.75f, 0.75f},    // -y: s = x, t = -z
      {0.5f, -0.5f, 2, 4, 0.625f, 0.625f},   // +z: s = x, t = -y
      {0.5f, -0.5f, -2, 5, 0.375f, 0.625f},  // -z: s = -x, t = -y
  };
  for (const Case& c : cases) {
    CubeFace f = cube_face(c.x, c.y, c.z);
    EXPECT_EQ(f.face, c.face) << c.x << " " << c.y << " " << c.z;
    EXPECT_FLOAT_EQ(f.u, c.u) << c.face;
    EXPECT_FLOAT_EQ(f.v, c.v) << c.face;
  }
}

}  // namespace
}  // namespace smemlab::emu::texture
