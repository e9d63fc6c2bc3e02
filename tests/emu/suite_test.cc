// Every kernel of kernels/ (PTX built by kernels/CMakeLists.txt with nvcc
// -arch=sm_90) emulated at small sizes and checked against CPU references
// written here with the same math as the bench/ references (which are CUDA
// host code and cannot be linked into a CPU-only test).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numeric>
#include <random>
#include <set>

#include "emu_test_util.h"
#include "session/launch_spec.h"

namespace smemlab::emu::test {
namespace {

std::string suite(const std::string& topic) {
  return std::string(SMEMLAB_KERNEL_PTX_DIR) + "/" + topic + ".ptx";
}

std::vector<session::Recipe> recipes_of(const std::string& cu) { return session::read_recipes(cu); }

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

void expect_ok(const LaunchStatus& st, const std::string& k) {
  ASSERT_TRUE(st.ok()) << k << ": " << st.error->what();
}

// Runs every recipe of kernels/TOPIC.cu on the sm_90 PTX and hands the
// prepared launch (buffers included) to `check` after a successful run.
void for_each_recipe(const std::string& topic,
                     const std::function<void(session::Prepared&)>& check) {
  int runs = 0;
  for (const auto& r : recipes_of(std::string(SMEMLAB_SOURCE_DIR) + "/kernels/" + topic + ".cu")) {
    SCOPED_TRACE(r.text);
    session::LaunchOptions o;
    session::PreparedInput in;
    in.recipes = {r};
    session::apply_recipe(o, in);
    o.file = suite(topic);
    session::Prepared p;
    ASSERT_NO_THROW(session::prepare_launch(o, &p));
    auto st = launch_raw(*p.module, p.kernel, p.config, p.args.bytes);
    ASSERT_TRUE(st.ok()) << st.error->what();
    check(p);
    ++runs;
  }
  EXPECT_GT(runs, 0);
}

template <class V>
std::vector<V> arg_buffer(const session::Prepared& p, size_t i) {
  return download<V>(p.device, p.args.buffer[i], p.specs[i].count);
}
int arg_int(const session::Prepared& p, size_t i) { return std::stoi(p.specs[i].value); }

TEST(Suite, MatmulRecipesMatchDoubleReference) {
  for_each_recipe("matmul", [](session::Prepared& p) {
    auto A = arg_buffer<float>(p, 0), B = arg_buffer<float>(p, 1), C = arg_buffer<float>(p, 2);
    int M = arg_int(p, 3), N = arg_int(p, 4), K = arg_int(p, 5);
    double err = 0, norm = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double ref = 0;
        for (int k = 0; k < K; ++k) ref += static_cast<double>(A[i * K + k]) * B[k * N + j];
        err += (C[i * N + j] - ref) * (C[i * N + j] - ref);
        norm += ref * ref;
      }
    EXPECT_LT(std::sqrt(err / norm), 5e-6) << p.kernel;  // the bench's threshold is 5e-5
  });
}

TEST(Suite, TransposeRecipesMatchReference) {
  for_each_recipe("transpose", [](session::Prepared& p) {
    auto in = arg_buffer<float>(p, 0), out = arg_buffer<float>(p, 1);
    int rows = arg_int(p, 2), cols = arg_int(p, 3);
    bool copy = p.kernel.find("Copy") != std::string::npos;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        ASSERT_EQ(copy ? out[r * cols + c] : out[c * rows + r], in[r * cols + c])
            << p.kernel << " " << r << "," << c;
  });
}

TEST(Suite, Reduction) {
  Device dev;
  auto m = Module::load_file(dev, suite("reduction"));
  int n = 4099;
  auto in = random_floats(n, 4);
  double ref = std::accumulate(in.begin(), in.end(), 0.0);
  uint64_t din = upload(dev, in);
  for (const char* k :
       {"reduce_interleaved_divergent", "reduce_interleaved_strided", "reduce_sequential",
        "reduce_first_add", "reduce_unrolled_warp", "reduce_shuffle"}) {
    // reduce_first_add and later add two elements per thread on load.
    bool two = std::string(k) != "reduce_interleaved_divergent" &&
               std::string(k) != "reduce_interleaved_strided" &&
               std::string(k) != "reduce_sequential";
    uint32_t blocks = static_cast<uint32_t>((n + 256 * (two ? 2 : 1) - 1) / (256 * (two ? 2 : 1)));
    uint64_t dout = dev.malloc(blocks * 4);
    expect_ok(launch(*m, k, {{blocks}, {256}}, din, dout, n), k);
    auto part = download<float>(dev, dout, blocks);
    double sum = std::accumulate(part.begin(), part.end(), 0.0);
    EXPECT_NEAR(sum, ref, 1e-3) << k;
  }
  for (const char* k : {"reduce_best", "reduce_grid_stride_u2_occ8", "reduce_grid_stride_u8"}) {
    uint32_t blocks = 3;
    uint64_t parts = dev.malloc(blocks * 4), ticket = dev.malloc(4), out = dev.malloc(4);
    expect_ok(launch(*m, k, {{blocks}, {256}}, din, parts, ticket, out, n), k);
    EXPECT_NEAR(download<float>(dev, out, 1)[0], ref, 1e-3) << k;
    EXPECT_EQ(download<unsigned>(dev, ticket, 1)[0], 0u)
        << k << ": ticket reset for the next launch";
  }
}

TEST(Suite, Reverse) {
  Device dev;
  auto m = Module::load_file(dev, suite("reverse"));
  std::vector<int> v(64);
  std::iota(v.begin(), v.end(), 0);
  for (const char* k : {"staticReverse", "dynamicReverse"}) {
    uint64_t d = upload(dev, v);
    expect_ok(launch(*m, k, {{1}, {64}, std::string(k) == "dynamicReverse" ? 256u : 0u}, d, 64), k);
    auto out = download<int>(dev, d, 64);
    for (int i = 0; i < 64; ++i) ASSERT_EQ(out[i], 63 - i) << k;
  }
  for (long long n : {1000LL, 1023LL, 1024LL}) {
    std::vector<int> in(n);
    std::iota(in.begin(), in.end(), 7);
    uint64_t din = upload(dev, in), dout = dev.malloc(n * 4);
    expect_ok(launch(*m, "reverseBlocksShared", {{static_cast<uint32_t>((n + 1023) / 1024)}, {256}},
                     din, dout, n),
              "rbs");
    auto out = download<int>(dev, dout, n);
    for (long long i = 0; i < n; ++i)
      ASSERT_EQ(out[i], in[n - 1 - i]) << "reverseBlocksShared " << n;
    uint64_t dout2 = dev.malloc(n * 4);
    expect_ok(launch(*m, "reverseVec4", {{2}, {128}}, din, dout2, n), "reverseVec4");
    out = download<int>(dev, dout2, n);
    for (long long i = 0; i < n; ++i) ASSERT_EQ(out[i], in[n - 1 - i]) << "reverseVec4 " << n;
  }
  std::vector<int> ia(40);
  std::vector<float> fa = random_floats(30, 5);
  std::vector<char> ca(50);
  std::iota(ia.begin(), ia.end(), 0);
  std::iota(ca.begin(), ca.end(), 0);
  uint64_t dia = upload(dev, ia), dfa = upload(dev, fa), dca = upload(dev, ca);
  expect_ok(launch(*m, "carveShared", {{1}, {64}, 330}, dia, dfa, dca, 40, 30, 50), "carveShared");
  auto oi = download<int>(dev, dia, 40);
  auto of = download<float>(dev, dfa, 30);
  auto oc = download<char>(dev, dca, 50);
  for (int i = 0; i < 40; ++i) ASSERT_EQ(oi[i], ia[39 - i]);
  for (int i = 0; i < 30; ++i) ASSERT_EQ(of[i], fa[29 - i]);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(oc[i], ca[49 - i]);
}

template <class T>
void check_tiles(Module& m, Device& dev, const char* k, Dim3 block, uint32_t shared) {
  uint32_t tile = block.x * block.y;
  uint64_t d = dev.malloc(2 * tile * sizeof(T));
  expect_ok(launch(m, k, {{2}, block, shared}, d), k);
  auto out = download<T>(dev, d, 2 * tile);
  std::string name = k;
  bool identity =
      name.find("RowReadRow") != std::string::npos || name.find("ColReadCol") != std::string::npos;
  for (uint32_t b = 0; b < 2; ++b) {
    for (uint32_t i = 0; i < tile; ++i) {
      uint32_t y = i / block.x, x = i % block.x;
      T want;
      if (identity)
        want = b * tile + i;
      else if (block.y == block.x)
        want = b * tile + x * block.x + y;  // tile[x][y] written by thread (y=x, x=y)
      else
        want = b * tile + (i % block.y) * block.x + i / block.y;  // rect: element (icol, irow)
      ASSERT_EQ(out[b * tile + i], want)
          << k << " block " << b << " idx " << i << " (" << x << "," << y << ")";
    }
  }
}

TEST(Suite, Tiles) {
  Device dev;
  auto m = Module::load_file(dev, suite("tiles"));
  Dim3 sq{32, 32}, rect{32, 16};
  for (auto [k, shared] :
       std::vector<std::pair<const char*, uint32_t>>{{"setRowReadRow", 0},
                                                     {"setColReadCol", 0},
                                                     {"setRowReadCol", 0},
                                                     {"setRowReadColDyn", 4096},
                                                     {"setRowReadColPad", 0},
                                                     {"setRowReadColPad2", 0},
                                                     {"setRowReadColDynPad", 4224}})
    check_tiles<int>(*m, dev, k, sq, shared);
  for (auto [k, shared] :
       std::vector<std::pair<const char*, uint32_t>>{{"setRowReadColRect", 0},
                                                     {"setRowReadColRectPad", 0},
                                                     {"setRowReadColRectDyn", 2048},
                                                     {"setRowReadColRectDynPad", 2176}})
    check_tiles<int>(*m, dev, k, rect, shared);
  for (auto [k, shared] :
       std::vector<std::pair<const char*, uint32_t>>{{"setRowReadRow8", 0},
                                                     {"setColReadCol8", 0},
                                                     {"setRowReadCol8", 0},
                                                     {"setRowReadColPad8", 0},
                                                     {"setRowReadColDyn8", 8192},
                                                     {"setRowReadColDynPad8", 8448}})
    check_tiles<long long>(*m, dev, k, sq, shared);
  for (const char* k : {"setRowReadColRect8", "setRowReadColRectPad8"})
    check_tiles<long long>(*m, dev, k, rect, 0);
}

TEST(Suite, Filter) {
  Device dev;
  auto m = Module::load_file(dev, suite("filter"));
  const float c[21] = {0.01f, 0.02f, 0.03f, 0.04f, 0.05f, 0.06f, 0.07f, 0.08f, 0.09f, 0.10f, 0.11f,
                       0.10f, 0.09f, 0.08f, 0.07f, 0.06f, 0.05f, 0.04f, 0.03f, 0.02f, 0.01f};
  for (auto [k, n, per] :
       std::vector<std::tuple<const char*, int, int>>{{"fir_one_per_thread", 1000, 1},
                                                      {"fir_two_per_thread", 1001, 2},
                                                      {"fir_best", 1003, 4}}) {
    auto x = random_floats(n, 6);
    uint64_t dx = upload(dev, x), dy = dev.malloc(n * 4);
    uint32_t blocks = static_cast<uint32_t>((n + 256 * per - 1) / (256 * per));
    expect_ok(launch(*m, k, {{blocks}, {256}}, dx, dy, n), k);
    auto y = download<float>(dev, dy, n);
    for (int i = 0; i < n; ++i) {
      double ref = 0;
      for (int t = -10; t <= 10; ++t)
        if (i + t >= 0 && i + t < n) ref += static_cast<double>(c[t + 10]) * x[i + t];
      ASSERT_NEAR(y[i], ref, 1e-5) << k << " " << i;
    }
  }
}

TEST(Suite, ConfigChunkReverse) {
  Device dev;
  auto m = Module::load_file(dev, suite("config"));
  long long n = 1500;
  auto in = random_floats(n, 7);
  for (const char* k : {"smemChunkReverse", "smemOptinProbe"}) {
    uint64_t din = upload(dev, in), dout = dev.malloc(n * 4);
    expect_ok(launch(*m, k, {{2}, {128}, 2048}, din, dout, n, 512), k);
    auto out = download<float>(dev, dout, n);
    for (long long base = 0; base < n; base += 512) {
      long long len = std::min(512LL, n - base);
      for (long long i = 0; i < len; ++i)
        ASSERT_EQ(out[base + i], in[base + len - 1 - i]) << k << " " << base + i;
    }
  }
}

}  // namespace
}  // namespace smemlab::emu::test

// Every `// smemlab:` recipe of kernels/*.cu, as `smemlab run` would launch
// it, for the sm_90 PTX and (when built) the sm_100 and sm_120 dialects.
namespace smemlab::emu::test {
namespace {

void run_recipes(const std::string& ptx_dir, const std::string& suffix) {
  int runs = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SMEMLAB_SOURCE_DIR) + "/kernels")) {
    // (Not the hidden copies `smemlab fix` writes beside a kernel while the
    // fix tests run in parallel with this one.)
    if (entry.path().extension() != ".cu" || entry.path().filename().string()[0] == '.') continue;
    std::string topic = entry.path().stem().string();
    std::string ptx = ptx_dir + "/" + topic + suffix;
    ASSERT_TRUE(std::filesystem::exists(ptx)) << ptx;
    for (const auto& r : recipes_of(entry.path().string())) {
      SCOPED_TRACE(topic + ":" + r.text);
      session::LaunchOptions o;
      session::PreparedInput in;
      in.recipes = {r};
      session::apply_recipe(o, in);
      o.file = ptx;
      session::Prepared p;
      try {
        session::prepare_launch(o, &p);
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
        continue;
      }
      auto st = launch_raw(*p.module, p.kernel, p.config, p.args.bytes);
      EXPECT_TRUE(st.ok()) << st.error->what();
      ++runs;
    }
  }
  EXPECT_GT(runs, 50);
}

TEST(SuiteRecipes, Sm90) { run_recipes(SMEMLAB_KERNEL_PTX_DIR, ".ptx"); }
#ifdef SMEMLAB_KERNEL_PTX_NVVM20_DIR
TEST(SuiteRecipes, Sm100) { run_recipes(SMEMLAB_KERNEL_PTX_NVVM20_DIR, ".sm_100.ptx"); }
TEST(SuiteRecipes, Sm120) { run_recipes(SMEMLAB_KERNEL_PTX_NVVM20_DIR, ".sm_120.ptx"); }
#endif

}  // namespace
}  // namespace smemlab::emu::test
