// Texture lookups through texture objects (kernels/texture.cu, nvcc 13 PTX
// for sm_90 and sm_100) against CPU references written from the CUDA
// programming guide's filtering formulas.
#include <cmath>
#include <numeric>

#include "emu_test_util.h"

namespace smemlab::emu::test {
namespace {

class TextureKernels : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    m = Module::load_file(dev, ptx_path(std::string("texture.") + GetParam() + ".ptx"));
  }
  Device dev;
  std::unique_ptr<Module> m;
};

TEST_P(TextureKernels, BilinearResampleWithClamp) {
  const int W = 5, H = 3;
  std::vector<float> img(W * H);
  for (int i = 0; i < W * H; ++i) img[i] = static_cast<float>(i * i % 17);
  texture::Descriptor d;
  d.base = upload(dev, img);
  d.dims = 2;
  d.width = W;
  d.height = H;
  d.filter = texture::Filter::Linear;
  uint64_t tex = dev.create_texture(d);
  const int w = 8, h = 6;
  const float scale = 0.6f;
  uint64_t out = dev.malloc(w * h * 4);
  auto st = launch(*m, find_kernel(*m, "resample"), {{1, 1}, {8, 8}}, tex, out, w, h, scale);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto got = download<float>(dev, out, w * h);
  auto texel = [&](int x, int y) {
    x = std::clamp(x, 0, W - 1), y = std::clamp(y, 0, H - 1);
    return img[y * W + x];
  };
  auto q = [](float f) { return std::nearbyint(f * 256.0f) / 256.0f; };  // 1.8 fixed point
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float u = (x + 0.5f) * scale - 0.5f, v = (y + 0.5f) * scale - 0.5f;
      int i = static_cast<int>(std::floor(u)), j = static_cast<int>(std::floor(v));
      float a = q(u - std::floor(u)), b = q(v - std::floor(v));
      float ref = (1 - a) * (1 - b) * texel(i, j) + a * (1 - b) * texel(i + 1, j) +
                  (1 - a) * b * texel(i, j + 1) + a * b * texel(i + 1, j + 1);
      ASSERT_FLOAT_EQ(got[y * w + x], ref) << x << "," << y;
    }
  EXPECT_TRUE(dev.destroy_texture(tex));
  auto gone = launch(*m, find_kernel(*m, "resample"), {{1, 1}, {8, 8}}, tex, out, w, h, scale);
  ASSERT_FALSE(gone.ok());
  EXPECT_NE(gone.error->message.find("is not a texture object"), std::string::npos);
}

TEST_P(TextureKernels, Tex1DfetchGather) {
  std::vector<int> data(100);
  std::iota(data.begin(), data.end(), 1000);
  std::vector<int> idx = {0, 5, 99, 42, -3, 150, 7};
  texture::Descriptor d;
  d.base = upload(dev, data);
  d.format = texture::Format::S32;
  d.width = 100;
  uint64_t tex = dev.create_texture(d);
  uint64_t pi = upload(dev, idx), po = dev.malloc(idx.size() * 4);
  auto st =
      launch(*m, find_kernel(*m, "gather"), {{1}, {32}}, tex, pi, po, static_cast<int>(idx.size()));
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto out = download<int>(dev, po, idx.size());
  for (size_t i = 0; i < idx.size(); ++i)
    EXPECT_EQ(out[i], data[static_cast<size_t>(std::clamp(idx[i], 0, 99))]) << i;
}

// A warp's lanes reading through different objects over different
// allocations (exec_tex keeps the last object and allocation per
// warp-instruction: each lane must still read its own), then a lane whose
// object's memory was freed among lanes reading a live one.
TEST_P(TextureKernels, TexelsOfSeveralObjectsInOneWarp) {
  const uint64_t pt = dev.malloc(32 * 8), pi = dev.malloc(32 * 4), po = dev.malloc(32 * 4);
  std::vector<int> a(64), b(40);
  std::iota(a.begin(), a.end(), 1000);
  std::iota(b.begin(), b.end(), 5000);
  texture::Descriptor da, db;
  da.base = upload(dev, a);
  da.format = db.format = texture::Format::S32;
  da.width = 64;
  db.base = upload(dev, b);
  db.width = 40;
  const uint64_t ta = dev.create_texture(da), tb = dev.create_texture(db);
  std::vector<uint64_t> texs(32);
  std::vector<int> idx(32);
  for (int i = 0; i < 32; ++i) {
    texs[i] = i % 3 == 1 ? tb : ta;  // runs of a, then b between them
    idx[i] = (i * 7) % 40;
  }
  dev.copy_to(pt, texs.data(), texs.size() * 8);
  dev.copy_to(pi, idx.data(), idx.size() * 4);
  auto st = launch(*m, find_kernel(*m, "gather_each"), {{1}, {32}}, pt, pi, po, 32);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto out = download<int>(dev, po, 32);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(out[i], (i % 3 == 1 ? b : a)[static_cast<size_t>(idx[i])]) << i;

  // An object whose buffer was freed, read by lane 20 after lanes reading a
  // live one: lane 20 faults as any global read outside every allocation.
  std::vector<int> c(32, 7);
  texture::Descriptor dc = db;
  dc.base = upload(dev, c);
  dc.width = 32;
  const uint64_t tc = dev.create_texture(dc);
  ASSERT_TRUE(dev.free(dc.base));
  for (int i = 0; i < 32; ++i) {
    texs[i] = i == 20 ? tc : ta;
    idx[i] = i;
  }
  dev.copy_to(pt, texs.data(), texs.size() * 8);
  dev.copy_to(pi, idx.data(), idx.size() * 4);
  auto freed = launch(*m, find_kernel(*m, "gather_each"), {{1}, {32}}, pt, pi, po, 32);
  ASSERT_FALSE(freed.ok());
  const std::string what = freed.error->what();
  EXPECT_NE(what.find("global texture read of 4 bytes"), std::string::npos) << what;
  EXPECT_NE(what.find("outside every allocation"), std::string::npos) << what;
  EXPECT_NE(what.find("thread (20,0,0)"), std::string::npos) << what;
}

TEST_P(TextureKernels, LayeredUchar4AsNormalizedFloat) {
  const int w = 4, h = 2, layers = 3;
  std::vector<uint8_t> px(w * h * layers * 4);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>(i * 7);
  texture::Descriptor d;
  d.base = upload(dev, px);
  d.format = texture::Format::U8;
  d.channels = 4;
  d.dims = 2;
  d.layered = true;
  d.width = w, d.height = h, d.layers = layers;
  d.read = texture::Read::NormalizedFloat;
  uint64_t tex = dev.create_texture(d);
  uint64_t out = dev.malloc(px.size() * 4);
  auto st = launch(*m, find_kernel(*m, "layered"), {{layers}, {w, h}}, tex, out, w, h, layers);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto got = download<float>(dev, out, px.size());
  for (size_t i = 0; i < px.size(); ++i) ASSERT_EQ(got[i], px[i] / 255.0f) << i;
}

TEST_P(TextureKernels, Volume3DNormalizedWrap) {
  const int n = 4;
  std::vector<float> vol(n * n * n);
  for (int i = 0; i < n * n * n; ++i) vol[i] = static_cast<float>(i);
  texture::Descriptor d;
  d.base = upload(dev, vol);
  d.dims = 3;
  d.width = d.height = d.depth = n;
  d.normalized_coords = true;
  d.address = {texture::Address::Wrap, texture::Address::Wrap, texture::Address::Wrap};
  d.filter = texture::Filter::Linear;
  uint64_t tex = dev.create_texture(d);
  // Texel centres (exact), a point between centres, and one wrapped around.
  std::vector<float> pts = {0.125f, 0.125f, 0.125f, 0, 0.375f, 0.625f, 0.875f, 0,
                            0.25f,  0.125f, 0.125f, 0, 1.125f, 0.125f, 0.125f, 0};
  uint64_t pp = upload(dev, pts), po = dev.malloc(4 * 4);
  auto st = launch(*m, find_kernel(*m, "volume"), {{1}, {32}}, tex, pp, po, 4);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto got = download<float>(dev, po, 4);
  EXPECT_EQ(got[0], 0.0f);
  EXPECT_EQ(got[1], 1 + 2 * 4 + 3 * 16.0f);
  EXPECT_EQ(got[2], 0.5f);  // halfway between x = 0 and x = 1
  EXPECT_EQ(got[3], 0.0f);  // 1.125 wraps to 0.125
}

TEST_P(TextureKernels, BadDescriptorsAreRejected) {
  std::vector<float> v(16);
  texture::Descriptor d;
  d.base = upload(dev, v);
  d.width = 17;  // one past the allocation
  EXPECT_THROW(dev.create_texture(d), std::invalid_argument);
  d.width = 16;
  d.format = texture::Format::S32;
  d.filter = texture::Filter::Linear;
  EXPECT_THROW(dev.create_texture(d), std::invalid_argument);
  EXPECT_EQ(dev.texture(12345), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Dialects, TextureKernels, ::testing::Values("sm90", "sm100"));

// Surfaces (kernels/surface.cu): suld/sust through surface objects, against
// CPU references; x is a byte offset, y/layer element indices.
class SurfaceKernels : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    m = Module::load_file(dev, ptx_path(std::string("surface.") + GetParam() + ".ptx"));
  }
  Device dev;
  std::unique_ptr<Module> m;
};

TEST_P(SurfaceKernels, ReadModifyWrite2DWithPitch) {
  const int W = 7, H = 5, pitch_floats = 8;  // rows padded to 32 bytes
  std::vector<float> img(pitch_floats * H, -1.0f);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) img[y * pitch_floats + x] = static_cast<float>(x * y) * 0.5f;
  texture::Descriptor d;
  d.base = upload(dev, img);
  d.dims = 2, d.width = W, d.height = H, d.pitch = pitch_floats * 4;
  uint64_t surf = dev.create_surface(d);
  EXPECT_EQ(dev.texture(surf), nullptr);  // a surface is not a texture
  auto st = launch(*m, find_kernel(*m, "scaleInPlace"), {{2, 2}, {4, 4}}, surf, W, H, 3.0f);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto got = download<float>(dev, d.base, img.size());
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < pitch_floats; ++x)
      EXPECT_EQ(got[y * pitch_floats + x],
                x < W ? img[y * pitch_floats + x] * 3.0f + x + 10 * y : -1.0f)  // padding untouched
          << x << "," << y;
}

TEST_P(SurfaceKernels, Float4CopyBetweenSurfaces) {
  const int W = 6, H = 3;
  std::vector<float> src(W * H * 4), zero(W * H * 4, 0.0f);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) + 0.25f;
  texture::Descriptor a, b;
  a.base = upload(dev, src), b.base = upload(dev, zero);
  a.dims = b.dims = 2, a.channels = b.channels = 4;
  a.width = b.width = W, a.height = b.height = H;
  uint64_t sa = dev.create_surface(a), sb = dev.create_surface(b);
  auto st = launch(*m, find_kernel(*m, "mirrorRows"), {{H}, {8}}, sa, sb, W, H);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto got = download<float>(dev, b.base, zero.size());
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 4; ++c)
        ASSERT_EQ(got[(y * W + x) * 4 + c], src[(y * W + (W - 1 - x)) * 4 + c]) << x << "," << y;
}

TEST_P(SurfaceKernels, ByteSurfaceZeroModePastTheEnd) {
  std::vector<uint8_t> in = {10, 20, 30, 40, 250};
  texture::Descriptor d;
  d.base = upload(dev, in);
  d.format = texture::Format::U8, d.width = 5;
  uint64_t s = dev.create_surface(d);
  uint64_t out = dev.malloc(5);
  auto st = launch(*m, find_kernel(*m, "byteNeighbours"), {{1}, {32}}, s, out, 5);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto got = download<uint8_t>(dev, out, 5);
  std::vector<uint8_t> want = {30, 50, 70, 34 /* 40 + 250 wraps */, 250 /* + 0 */};
  EXPECT_EQ(got, want);
}

TEST_P(SurfaceKernels, LayeredWithClampAtTheEdge) {
  const int W = 4, H = 2, L = 3;
  std::vector<int32_t> v(W * H * L);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i * 7);
  texture::Descriptor d;
  d.base = upload(dev, v);
  d.format = texture::Format::S32, d.dims = 2, d.layered = true;
  d.width = W, d.height = H, d.layers = L;
  uint64_t s = dev.create_surface(d);
  uint64_t edge = dev.malloc(v.size() * 4);
  auto st = launch(*m, find_kernel(*m, "layeredAdd"), {{L}, {W, H}}, s, edge, W, H, L);
  ASSERT_TRUE(st.ok()) << st.error->what();
  auto got = download<int32_t>(dev, d.base, v.size());
  auto e = download<int32_t>(dev, edge, v.size());
  for (int l = 0; l < L; ++l)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        size_t i = static_cast<size_t>((l * H + y) * W + x);
        EXPECT_EQ(got[i], v[i] + l);
        EXPECT_EQ(e[i], v[static_cast<size_t>((l * H + y) * W + std::min(x + 2, W - 1))]);
      }
}

TEST_P(SurfaceKernels, TrapModeOutOfRangeAndBadHandlesFail) {
  std::vector<float> buf(4, 0.0f);
  texture::Descriptor d;
  d.base = upload(dev, buf);
  d.width = 4;
  uint64_t s = dev.create_surface(d);
  auto st = launch(*m, find_kernel(*m, "outOfRange"), {{1}, {2}}, s, 4);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error->kind, FaultKind::Surface);
  EXPECT_NE(st.error->message.find("outside the 4x1x1 surface"), std::string::npos)
      << st.error->message;
  uint64_t tex = dev.create_texture(d);
  auto wrong = launch(*m, find_kernel(*m, "outOfRange"), {{1}, {1}}, tex, 0);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error->message.find("is not a surface object"), std::string::npos);
  EXPECT_TRUE(dev.destroy_surface(s));
  EXPECT_FALSE(dev.destroy_surface(s));
  d.width = 5;  // one float past the allocation
  EXPECT_THROW(dev.create_surface(d), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Dialects, SurfaceKernels, ::testing::Values("sm90", "sm100"));

}  // namespace
}  // namespace smemlab::emu::test
