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

}  // namespace
}  // namespace smemlab::emu::test
