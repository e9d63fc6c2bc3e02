// The Tensor Memory Accelerator: the tensor-map encoding, the swizzle, and
// cp.async.bulk.tensor loads, stores and reductions through the interpreter
// against a reference written differently from the implementation (per
// element: box index -> tensor coordinates -> dense shared offset -> the
// programming guide's swizzle as row/chunk arithmetic), plus decode errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <vector>

#include "emu/launch.h"
#include "emu/snippet_test_util.h"
#include "emu/tma.h"

namespace smemlab::emu::test {
namespace {

using tma::DataType;
using tma::Swizzle;
using tma::TensorMap;

// ---- the reference ------------------------------------------------------

// The programming guide's description of the swizzle modes: in every
// 128-byte row of shared memory, the 16-byte chunks of each 32/64/128-byte
// span are permuted by XOR with the row number modulo the chunks per span.
uint32_t guide_swizzle(Swizzle s, uint32_t addr) {
  const uint32_t span = s == Swizzle::B32 ? 2 : s == Swizzle::B64 ? 4 : s == Swizzle::B128 ? 8 : 1;
  const uint32_t row = addr / 128, chunk = addr % 128 / 16, within = addr % 16;
  const uint32_t moved = chunk / span * span + (chunk % span ^ row % span);
  return row * 128 + moved * 16 + within;
}

struct Case {
  TensorMap m;
  std::vector<int32_t> c;  // coordinates
  uint32_t soff = 1024;    // the box's shared offset
};

uint64_t tensor_bytes(const TensorMap& m) {
  return m.rank == 1 ? m.dim[0] * tma::element_bytes(m.type)
                     : m.dim[m.rank - 1] * m.stride[m.rank - 2];
}

// Shared bytes from one box row to the next: the row's bytes without a
// swizzle, the swizzle's span (32, 64, 128) with one, as an H100 lays out
// a row narrower than the span.
uint32_t reference_pitch(const TensorMap& m) {
  return m.swizzle == Swizzle::None ? m.box[0] * tma::element_bytes(m.type)
                                    : 16u << static_cast<int>(m.swizzle);
}

// Calls f(unswizzled byte offset in the box, in bounds, global byte offset)
// per element.
template <class F>
void reference_walk(const Case& k, F&& f) {
  const TensorMap& m = k.m;
  const uint32_t es = tma::element_bytes(m.type), pitch = reference_pitch(m);
  uint32_t n[5] = {1, 1, 1, 1, 1};
  for (uint32_t i = 0; i < m.rank; ++i)
    n[i] = i == 0 ? m.box[0] : (m.box[i] + m.elem_stride[i] - 1) / m.elem_stride[i];
  uint64_t row = 0;
  for (uint32_t k4 = 0; k4 < n[4]; ++k4)
    for (uint32_t k3 = 0; k3 < n[3]; ++k3)
      for (uint32_t k2 = 0; k2 < n[2]; ++k2)
        for (uint32_t k1 = 0; k1 < n[1]; ++k1, ++row)
          for (uint32_t k0 = 0; k0 < n[0]; ++k0) {
            const uint32_t kk[5] = {k0, k1, k2, k3, k4};
            bool inb = true;
            uint64_t goff = 0;
            for (uint32_t i = 0; i < m.rank; ++i) {
              int64_t g = int64_t{k.c[i]} + int64_t{kk[i]} * (i == 0 ? 1 : m.elem_stride[i]);
              inb = inb && g >= 0 && static_cast<uint64_t>(g) < m.dim[i];
              goff += static_cast<uint64_t>(g) * (i == 0 ? es : m.stride[i - 1]);
            }
            f(static_cast<uint32_t>(row * pitch + k0 * es), inb, goff);
          }
}

// ---- the kernels ----------------------------------------------------------

std::string coords_text(uint32_t dims) {
  std::string s;
  for (uint32_t i = 0; i < dims; ++i) s += fmt::format("{}%r{}", i ? ", " : "", 10 + i);
  return s;
}

// One thread: mbarrier at smem[0]; `body` runs the copy (box at smem +
// soff); then bytes [soff, soff + dump) of shared memory are copied to out
// (a load) or were first filled from `in` (a store).
std::string kernel_text(const std::string& body, bool fill_first) {
  const std::string copy_loop =
      R"(
  mov.u32 %r5, 0;
$Lcopy:
  setp.ge.u32 %p2, %r5, %r4;
  @%p2 bra $Ldone;
  add.u32 %r6, %r3, %r5;
  cvt.u64.u32 %rd4, %r5;
  add.u64 %rd5, %rd3, %rd4;
  )" +
      std::string(fill_first ? "ld.global.u32 %r7, [%rd5];\n  st.shared.u32 [%r6], %r7;"
                             : "ld.shared.u32 %r7, [%r6];\n  st.global.u32 [%rd5], %r7;") +
      R"(
  add.u32 %r5, %r5, 4;
  bra $Lcopy;
$Ldone:
)";
  return R"(.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .align 64 .b8 map[128], .param .u64 buf, .param .u32 dump,
                  .param .u32 soff, .param .u32 tx, .param .s32 c0, .param .s32 c1,
                  .param .s32 c2, .param .s32 c3, .param .s32 c4)
{
  .reg .pred %p<4>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;
  mov.u32 %r1, smem;
  ld.param.u32 %r2, [soff];
  add.u32 %r3, %r1, %r2;
  ld.param.u32 %r4, [dump];
  ld.param.u64 %rd3, [buf];
  ld.param.u32 %r8, [tx];
  ld.param.s32 %r10, [c0];
  ld.param.s32 %r11, [c1];
  ld.param.s32 %r12, [c2];
  ld.param.s32 %r13, [c3];
  ld.param.s32 %r14, [c4];
  mov.u64 %rd1, map;
  cvta.param.u64 %rd2, %rd1;
  mbarrier.init.shared.b64 [%r1], 1;
)" + (fill_first ? copy_loop : "") +
         body + (fill_first ? "" : copy_loop) + "  ret;\n}\n";
}

std::string load_body(uint32_t dims, const std::string& extra_mods = "",
                      const std::string& extra_ops = "") {
  return fmt::format(R"(
  mbarrier.arrive.expect_tx.shared.b64 _, [%r1], %r8;
  cp.async.bulk.tensor.{}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes{} [%r3], [%rd2, {{{}}}], [%r1]{};
$Lwait:
  mbarrier.try_wait.parity.shared.b64 %p1, [%r1], 0;
  @!%p1 bra $Lwait;
)",
                     dims, extra_mods, coords_text(dims), extra_ops);
}

std::string store_body(uint32_t dims, const std::string& op) {
  return fmt::format(R"(
  fence.proxy.async.shared::cta;
  {}.{}d.global.shared::cta{}.tile.bulk_group [%rd2, {{{}}}], [%r3];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
)",
                     op.empty() ? "cp.async.bulk.tensor" : "cp.reduce.async.bulk.tensor", dims,
                     op.empty() ? "" : "." + op, coords_text(dims));
}

struct TmaRun {
  std::string error;
  FaultKind kind = FaultKind::Internal;
  std::vector<uint8_t> tensor, shared;  // after the kernel
};

uint32_t dump_bytes(const Case& k) {
  const tma::Box b = tma::tile_box(k.m);
  const uint64_t bytes = uint64_t{b.rows} * reference_pitch(k.m);
  return static_cast<uint32_t>((bytes + 1023) / 1024 * 1024);
}

// Runs `body` on a tensor holding `tensor` and shared memory from `shared`
// (a store) or zeros (a load).
TmaRun run_case(const Case& k, const std::string& body, const std::vector<uint8_t>& tensor,
                const std::vector<uint8_t>* shared, uint32_t tx, uint32_t threads = 1) {
  Device dev;
  TmaRun r;
  const uint32_t dump = dump_bytes(k);
  std::unique_ptr<Module> mod;
  try {
    mod = Module::load_text(dev, kernel_text(body, shared != nullptr), "tma.ptx");
    mod->kernel("k");
  } catch (const std::exception& e) {
    r.error = e.what();
    return r;
  }
  uint64_t t = dev.malloc(tensor.size(), "tensor");
  dev.copy_to(t, tensor.data(), tensor.size());
  uint64_t buf = dev.malloc(dump, "buf");
  if (shared) dev.copy_to(buf, shared->data(), dump);
  TensorMap m = k.m;
  m.address = t;
  ArgBytes map(128);
  tma::encode(m, map.data());
  int32_t c[5] = {};
  for (size_t i = 0; i < k.c.size(); ++i) c[i] = k.c[i];
  LaunchConfig cfg{{1}, {threads}, k.soff + dump};
  cfg.budget = 10'000'000;
  auto st = launch_raw(*mod, "k", cfg,
                       {map, arg(buf), arg(dump), arg(k.soff), arg(tx), arg(c[0]), arg(c[1]),
                        arg(c[2]), arg(c[3]), arg(c[4])});
  if (!st.ok()) {
    r.error = st.error->what();
    r.kind = st.error->kind;
    return r;
  }
  r.tensor.resize(tensor.size());
  dev.copy_from(r.tensor.data(), t, tensor.size());
  r.shared.resize(dump);
  dev.copy_from(r.shared.data(), buf, dump);
  return r;
}

std::vector<uint8_t> pattern(uint64_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(x >> 24);
  }
  return v;
}

TensorMap map_of(DataType t, std::vector<uint64_t> dims, std::vector<uint64_t> strides,
                 std::vector<uint32_t> box, std::vector<uint32_t> es, Swizzle s) {
  TensorMap m;
  m.type = t;
  m.rank = static_cast<uint32_t>(dims.size());
  m.swizzle = s;
  for (uint32_t i = 0; i < m.rank; ++i) {
    m.dim[i] = dims[i];
    m.box[i] = box[i];
    m.elem_stride[i] = es[i];
    if (i + 1 < m.rank) m.stride[i] = strides[i];
  }
  return m;
}

// A load of case k against the reference: every byte of shared memory
// from the box's offset on.
void check_load(const Case& k, const std::string& body = "", uint32_t threads = 1) {
  const uint32_t es = tma::element_bytes(k.m.type);
  const auto tensor = pattern(tensor_bytes(k.m), 7);
  const uint32_t tx = static_cast<uint32_t>(tma::tile_box(k.m).bytes());
  TmaRun r = run_case(k, body.empty() ? load_body(k.m.rank) : body, tensor, nullptr, tx, threads);
  ASSERT_TRUE(r.error.empty()) << r.error;
  std::vector<uint8_t> want(dump_bytes(k), 0);
  // The H100's NaN fill: bytes f7 7f over the element, whatever its type.
  const uint64_t fill = k.m.oob_fill ? 0x7ff77ff77ff77ff7ull : 0;
  reference_walk(k, [&](uint32_t off, bool inb, uint64_t goff) {
    const uint32_t at = guide_swizzle(k.m.swizzle, k.soff + off) - k.soff;
    if (inb)
      std::memcpy(&want[at], &tensor[goff], es);
    else
      std::memcpy(&want[at], &fill, es);
  });
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(int{r.shared[i]}, int{want[i]}) << "shared byte " << i << " of the box";
}

TEST(TmaPure, SwizzleIsTheGuidesPermutation) {
  for (Swizzle s : {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128})
    for (uint32_t a = 0; a < 4096; ++a) ASSERT_EQ(tma::swizzle(s, a), guide_swizzle(s, a)) << a;
  // Each mode permutes the bytes of its repeat and repeats after it.
  EXPECT_EQ(tma::swizzle(Swizzle::B128, 128 * 3 + 16), 128u * 3 + 16 * 2);
  EXPECT_EQ(tma::swizzle(Swizzle::B128, 1024 + 128 * 3 + 16), 1024u + 128 * 3 + 16 * 2);
  EXPECT_EQ(tma::swizzle(Swizzle::B32, 128 + 4), 128u + 16 + 4);
  EXPECT_EQ(tma::swizzle(Swizzle::B64, 128 * 2 + 48), 128u * 2 + 16);
}

TEST(TmaPure, EncodingRoundTripsAndRejectsOtherBytes) {
  TensorMap m =
      map_of(DataType::BF16, {100, 7, 3}, {208, 208 * 7}, {64, 5, 2}, {1, 2, 3}, Swizzle::B128);
  m.address = 0x800000001230ull;
  m.oob_fill = 1;
  m.l2_promotion = 3;
  m.dim[1] = uint64_t{1} << 32;
  m.stride[1] = (uint64_t{1} << 40) - 16;
  uint8_t b[128];
  tma::encode(m, b);
  TensorMap d;
  std::string why;
  ASSERT_TRUE(tma::decode(b, &d, &why)) << why;
  EXPECT_EQ(d.type, DataType::BF16);
  EXPECT_EQ(d.rank, 3u);
  EXPECT_EQ(d.address, m.address);
  EXPECT_EQ(d.dim[1], uint64_t{1} << 32);
  EXPECT_EQ(d.stride[1], m.stride[1]);
  EXPECT_EQ(d.box[0], 64u);
  EXPECT_EQ(d.elem_stride[2], 3u);
  EXPECT_EQ(d.swizzle, Swizzle::B128);
  EXPECT_EQ(d.oob_fill, 1);
  b[30] ^= 1;
  EXPECT_FALSE(tma::decode(b, &d, &why));
  EXPECT_NE(why.find("changed"), std::string::npos);
  uint8_t zero[128] = {};
  EXPECT_FALSE(tma::decode(zero, &d, &why));
}

TEST(TmaPure, ReductionsPerType) {
  using tma::Red;
  EXPECT_TRUE(tma::reduce_defined(Red::Add, DataType::F16));
  EXPECT_FALSE(tma::reduce_defined(Red::Add, DataType::S64));
  EXPECT_FALSE(tma::reduce_defined(Red::Inc, DataType::S32));
  EXPECT_FALSE(tma::reduce_defined(Red::Xor, DataType::F32));
  EXPECT_EQ(tma::reduce(Red::Min, DataType::S32, 0xfffffffeu, 3), 0xfffffffeu);  // -2 < 3
  EXPECT_EQ(tma::reduce(Red::Min, DataType::U32, 0xfffffffeu, 3), 3u);
  EXPECT_EQ(tma::reduce(Red::Inc, DataType::U32, 5, 5), 0u);
  EXPECT_EQ(tma::reduce(Red::Dec, DataType::U32, 0, 9), 9u);
  EXPECT_EQ(tma::reduce(Red::Add, DataType::F32, fbits(1.5f), fbits(2.25f)), fbits(3.75f));
  EXPECT_EQ(tma::reduce(Red::Add, DataType::F16, 0x3c00, 0x3c00), 0x4000u);  // 1 + 1 = 2
  EXPECT_EQ(tma::reduce(Red::Add, DataType::F32_FTZ, fbits(1e-40f), 0), 0u);
  EXPECT_EQ(tma::reduce(Red::Max, DataType::BF16, 0x7fc0 /* NaN */, 0x3f80), 0x3f80u);
}

TEST(TmaLoad, Tile2dSwizzle128WithOutOfBoundsRows) {
  // 40 x 64 floats, rows padded to 272 bytes; a 32 x 8 box at (40, -3):
  // three rows above the tensor and the columns past 63 read zeros.
  Case k{map_of(DataType::F32, {64, 40}, {272}, {32, 8}, {1, 1}, Swizzle::B128), {40, -3}};
  check_load(k);
}

TEST(TmaLoad, Tile3dElementStridesSwizzle64) {
  Case k{map_of(DataType::U16, {40, 9, 11}, {96, 96 * 9}, {16, 5, 7}, {3, 2, 3}, Swizzle::B64),
         {32, 5, 4}};
  check_load(k);
}

TEST(TmaLoad, Tile1dPastTheEnd) {
  Case k{map_of(DataType::U8, {100}, {}, {64}, {1}, Swizzle::None), {48}, 1152};
  check_load(k);
}

TEST(TmaLoad, Tile4dBf16NoSwizzle) {
  Case k{map_of(DataType::BF16, {8, 3, 5, 2}, {16, 48, 240}, {8, 3, 4, 2}, {1, 1, 2, 1},
                Swizzle::None),
         {0, 1, -1, 1}};
  check_load(k);
}

TEST(TmaLoad, Tile5dF64NanFillSwizzle32) {
  Case k{map_of(DataType::F64, {3, 2, 2, 2, 3}, {32, 64, 128, 256}, {2, 2, 2, 2, 2},
                {1, 1, 1, 1, 1}, Swizzle::B32),
         {2, -1, 0, 1, 2}};
  k.m.oob_fill = 1;
  check_load(k);
}

TEST(TmaPure, NanFillIsTheH100s) {
  EXPECT_EQ(tma::nan_fill(DataType::F16), 0x7ff7u);
  EXPECT_EQ(tma::nan_fill(DataType::BF16), 0x7ff7u);
  EXPECT_EQ(tma::nan_fill(DataType::F32), 0x7ff77ff7u);
  EXPECT_EQ(tma::nan_fill(DataType::TF32), 0x7ff77ff7u);
  EXPECT_EQ(tma::nan_fill(DataType::F64), 0x7ff77ff77ff77ff7ull);
}

TEST(TmaLoad, RowsNarrowerThanTheSwizzleAreASpanApart) {
  // 64-byte rows with the 128-byte swizzle (tma_probe's "64-byte rows"),
  // 32-byte rows with the 64-byte one, 48-byte rows with the 128-byte one,
  // at a 128- but not 1024-byte aligned destination.
  check_load(
      {map_of(DataType::F32, {40, 20}, {160}, {16, 8}, {1, 1}, Swizzle::B128), {0, 0}, 1024});
  check_load({map_of(DataType::U16, {40, 20}, {80}, {16, 8}, {1, 1}, Swizzle::B64), {8, 3}, 1152});
  check_load({map_of(DataType::F32, {40, 20}, {160}, {12, 8}, {1, 1}, Swizzle::B128), {4, 15}});
}

TEST(TmaLoad, Bf16NanFillNoSwizzle) {
  Case k{map_of(DataType::BF16, {24, 10}, {48}, {16, 4}, {1, 1}, Swizzle::None), {16, 8}};
  k.m.oob_fill = 1;
  check_load(k);
}

TEST(TmaFaults, CoordinatesTheGpuRefuses) {
  Case k{map_of(DataType::F32, {40, 20}, {160}, {8, 4}, {1, 1}, Swizzle::None), {5, 3}};
  const auto tensor = pattern(tensor_bytes(k.m), 1);
  const auto shared = pattern(dump_bytes(k), 2);
  // Dimension 0 not 16 bytes in: every copy traps (load, store, prefetch).
  TmaRun r = run_case(k, load_body(2), tensor, nullptr, 128);
  EXPECT_NE(r.error.find("tensor coordinate 0 (5) is 20 bytes into dimension 0"), std::string::npos)
      << r.error;
  EXPECT_EQ(r.kind, FaultKind::IllegalInstruction);
  r = run_case(k, store_body(2, ""), tensor, &shared, 0);
  EXPECT_NE(r.error.find("not a multiple of 16"), std::string::npos) << r.error;
  r = run_case(k, "  cp.async.bulk.prefetch.tensor.2d.L2.global [%rd2, {%r10, %r11}];\n", tensor,
               nullptr, 0);
  EXPECT_NE(r.error.find("not a multiple of 16"), std::string::npos) << r.error;
  // A negative coordinate: loads take it, stores and reductions trap.
  k.c = {-4, -1};
  check_load(k);
  for (const char* op : {"", "add"}) {
    r = run_case(k, store_body(2, op), tensor, &shared, 0);
    EXPECT_NE(r.error.find("tensor coordinate 0 is -4: a store or reduction takes no negative"),
              std::string::npos)
        << op << r.error;
  }
  k.c = {0, -1};
  r = run_case(k, store_body(2, ""), tensor, &shared, 0);
  EXPECT_NE(r.error.find("tensor coordinate 1 is -1"), std::string::npos) << r.error;
  // Past the end is clipped, not refused.
  k.c = {36, 18};
  r = run_case(k, store_body(2, ""), tensor, &shared, 0);
  EXPECT_TRUE(r.error.empty()) << r.error;
}

TEST(TmaFaults, SharedAddressNot128Aligned) {
  // 16-byte aligned and no swizzle is not enough (an H100: misaligned address).
  Case k{map_of(DataType::F32, {40, 20}, {160}, {8, 4}, {1, 1}, Swizzle::None), {0, 0}, 1040};
  TmaRun r = run_case(k, load_body(2), pattern(tensor_bytes(k.m), 1), nullptr, 128);
  EXPECT_NE(r.error.find("must be 128-byte aligned (offset 1040)"), std::string::npos) << r.error;
  EXPECT_EQ(r.kind, FaultKind::Misaligned);
}

TEST(TmaLoad, MulticastToTheBlockItself) {
  Case k{map_of(DataType::F32, {64, 40}, {256}, {32, 8}, {1, 1}, Swizzle::B128), {0, 0}};
  const auto tensor = pattern(tensor_bytes(k.m), 3);
  std::string body = load_body(2, ".multicast::cluster", ", %rs1");
  body = "  mov.u16 %rs1, 1;\n" + body;
  TmaRun r = run_case(k, body, tensor, nullptr, 1024);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(std::memcmp(r.shared.data() + 128 * 5 + 16 * 5, tensor.data() + 256 * 5, 16), 0);
  TmaRun bad =
      run_case(k, "  mov.u16 %rs1, 3;\n" + body.substr(body.find('\n') + 1), tensor, nullptr, 1024);
  EXPECT_NE(bad.error.find("ctaMask 0x3"), std::string::npos) << bad.error;
}

// A cluster of 4: rank 0's one thread multicasts a box to the blocks of
// ctaMask, each of which expects the box's bytes on its own mbarrier (the
// same CTA-relative offset); blocks outside the mask keep a zero tile.
// Every block then dumps its tile to buf + rank * dump.
TEST(TmaLoad, MulticastToTheBlocksOfACluster) {
  Case k{map_of(DataType::F32, {64, 40}, {256}, {32, 8}, {1, 1}, Swizzle::B128), {8, 4}};
  const auto tensor = pattern(tensor_bytes(k.m), 7);
  TmaRun one = run_case(k, load_body(2), tensor, nullptr, 1024);  // the single-block result
  ASSERT_TRUE(one.error.empty()) << one.error;
  const std::string text = R"(.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry mc(.param .align 64 .b8 map[128], .param .u64 buf, .param .u32 dump,
                   .param .u32 tx, .param .u16 mask, .param .s32 c0, .param .s32 c1)
{
  .reg .pred %p<4>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, bar;
  mov.u32 %r3, smem;
  ld.param.u32 %r4, [dump];
  ld.param.u64 %rd3, [buf];
  ld.param.u32 %r8, [tx];
  ld.param.u16 %rs1, [mask];
  ld.param.s32 %r10, [c0];
  ld.param.s32 %r11, [c1];
  mov.u64 %rd1, map;
  cvta.param.u64 %rd2, %rd1;
  mov.u32 %r20, %cluster_ctarank;
  cvt.u32.u16 %r21, %rs1;
  shr.u32 %r22, %r21, %r20;
  and.b32 %r22, %r22, 1;
  setp.eq.u32 %p3, %r22, 1;
  mbarrier.init.shared.b64 [%r1], 1;
  @%p3 mbarrier.arrive.expect_tx.shared.b64 _, [%r1], %r8;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  setp.eq.u32 %p2, %r20, 0;
  @%p2 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r3], [%rd2, {%r10, %r11}], [%r1], %rs1;
  @!%p3 bra $Ldump;
$Lwait:
  mbarrier.try_wait.parity.shared.b64 %p1, [%r1], 0;
  @!%p1 bra $Lwait;
$Ldump:
  mul.wide.u32 %rd6, %r20, %r4;
  add.u64 %rd3, %rd3, %rd6;
  mov.u32 %r5, 0;
$Lcopy:
  setp.ge.u32 %p2, %r5, %r4;
  @%p2 bra $Ldone;
  add.u32 %r6, %r3, %r5;
  cvt.u64.u32 %rd4, %r5;
  add.u64 %rd5, %rd3, %rd4;
  ld.shared.u32 %r7, [%r6];
  st.global.u32 [%rd5], %r7;
  add.u32 %r5, %r5, 4;
  bra $Lcopy;
$Ldone:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";
  const uint32_t dump = dump_bytes(k);
  auto run = [&](uint16_t mask, std::vector<uint8_t>* out) -> std::string {
    Device dev;
    auto mod = Module::load_text(dev, text, "mc.ptx");
    uint64_t t = dev.malloc(tensor.size(), "tensor");
    dev.copy_to(t, tensor.data(), tensor.size());
    uint64_t buf = dev.malloc(4 * dump, "buf");
    TensorMap m = k.m;
    m.address = t;
    ArgBytes map(128);
    tma::encode(m, map.data());
    LaunchConfig cfg{{4}, {1}, dump};
    cfg.cluster = {4, 1, 1};
    cfg.budget = 10'000'000;
    auto st = launch_raw(
        *mod, "mc", cfg,
        {map, arg(buf), arg(dump), arg(static_cast<uint32_t>(tma::tile_box(k.m).bytes())),
         arg(mask), arg(k.c[0]), arg(k.c[1])});
    if (!st.ok()) return st.error->what();
    out->resize(4 * dump);
    dev.copy_from(out->data(), buf, 4 * dump);
    return "";
  };
  std::vector<uint8_t> got;
  ASSERT_EQ(run(0b1011, &got), "");
  const std::vector<uint8_t> zero(dump, 0);
  for (uint32_t r = 0; r < 4; ++r)
    EXPECT_EQ(std::vector<uint8_t>(got.begin() + r * dump, got.begin() + (r + 1) * dump),
              r == 2 ? zero : one.shared)
        << "rank " << r;
  std::string e = run(0b10001, &got);
  EXPECT_NE(e.find("multicast to ctaMask 0x11: the cluster has 4 blocks (ranks 0 to 3)"),
            std::string::npos)
      << e;
}

TEST(TmaLoad, PhaseWaitsForTheBoxBytes) {
  // expect_tx of more bytes than the box: the phase never completes, and
  // the spin detector (mbar_watch.h) names the missing bytes.
  Case k{map_of(DataType::F32, {64, 40}, {256}, {32, 8}, {1, 1}, Swizzle::None), {0, 0}};
  TmaRun r = run_case(k, load_body(2), pattern(tensor_bytes(k.m), 1), nullptr, 1024 + 16);
  EXPECT_NE(r.error.find("every arrival is made but 16 announced bytes never come"),
            std::string::npos)
      << r.error;
}

// A TMA load or reduction executed by a whole warp is one copy per lane,
// even with the same operands in every lane (the H100 in run 15,
// tests/validation/hopper/public/tma_warp_issue.cu: reduce_same adds the box
// 32 times, reduce_two each of its two boxes 16 times, load_same reads 32
// boxes); only stores are issued once per distinct operands
// (HopperEvents.AWarpStoresOncePerDistinctOperandsReducesPerLane).
// The load: lane 0 announces 32 boxes' bytes and 32 lanes issue the copy.
TEST(TmaLoad, AWarpWithTheSameOperandsIssuesOneCopyPerLane) {
  const std::string body = R"(
  mov.u32 %r20, %tid.x;
  setp.eq.u32 %p3, %r20, 0;
  shl.b32 %r8, %r8, 5;
  @%p3 mbarrier.arrive.expect_tx.shared.b64 _, [%r1], %r8;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd2, {%r10, %r11}], [%r1];
$Lwait:
  mbarrier.try_wait.parity.shared.b64 %p1, [%r1], 0;
  @!%p1 bra $Lwait;
)";
  check_load({map_of(DataType::F32, {64, 40}, {256}, {32, 8}, {1, 1}, Swizzle::B128), {8, 4}}, body,
             32);
}

// The reduction shows it in global memory: the tile is added once per lane;
// with two coordinates (odd lanes 8 rows further down) each box 16 times.
TEST(TmaStore, AWarpReducesOncePerLane) {
  for (bool split : {false, true}) {
    Case k{map_of(DataType::S32, {16, 24}, {64}, {8, 4}, {1, 1}, Swizzle::None), {4, 3}};
    const std::string lanes = split ? R"(
  mov.u32 %r20, %tid.x;
  and.b32 %r21, %r20, 1;
  mad.lo.u32 %r11, %r21, 8, %r11;
)"
                                    : "";
    const auto tensor = pattern(tensor_bytes(k.m), 11);
    const auto shared = pattern(dump_bytes(k), 13);
    TmaRun r = run_case(k, lanes + store_body(2, "add"), tensor, &shared, 0, 32);
    ASSERT_TRUE(r.error.empty()) << r.error;
    std::vector<uint8_t> want = tensor;
    const uint32_t times = split ? 16 : 32;
    for (int32_t down : split ? std::vector<int32_t>{0, 8} : std::vector<int32_t>{0}) {
      Case at = k;
      at.c[1] += down;
      reference_walk(at, [&](uint32_t off, bool inb, uint64_t goff) {
        if (!inb) return;
        uint32_t a, b;
        std::memcpy(&a, &want[goff], 4);
        std::memcpy(&b, &shared[off], 4);
        a += times * b;
        std::memcpy(&want[goff], &a, 4);
      });
    }
    EXPECT_EQ(r.tensor, want) << (split ? "two coordinates" : "one");
  }
}

TEST(TmaStore, Tile2dSwizzle128ClipsAtTheEdge) {
  Case k{map_of(DataType::F32, {64, 40}, {272}, {32, 8}, {1, 1}, Swizzle::B128), {48, 36}};
  const auto tensor = pattern(tensor_bytes(k.m), 5);
  const auto shared = pattern(dump_bytes(k), 9);
  TmaRun r = run_case(k, store_body(2, ""), tensor, &shared, 0);
  ASSERT_TRUE(r.error.empty()) << r.error;
  std::vector<uint8_t> want = tensor;
  reference_walk(k, [&](uint32_t off, bool inb, uint64_t goff) {
    if (inb)
      std::memcpy(&want[goff], &shared[guide_swizzle(k.m.swizzle, k.soff + off) - k.soff], 4);
  });
  EXPECT_EQ(r.tensor, want);
}

TEST(TmaStore, ReduceAddS32AndMinU32) {
  for (const char* op : {"add", "min"}) {
    Case k{map_of(op[0] == 'a' ? DataType::S32 : DataType::U32, {16, 6}, {64}, {8, 4}, {1, 1},
                  Swizzle::B32),
           {4, 3}};
    const auto tensor = pattern(tensor_bytes(k.m), 11);
    const auto shared = pattern(dump_bytes(k), 13);
    TmaRun r = run_case(k, store_body(2, op), tensor, &shared, 0);
    ASSERT_TRUE(r.error.empty()) << r.error;
    std::vector<uint8_t> want = tensor;
    reference_walk(k, [&](uint32_t off, bool inb, uint64_t goff) {
      if (!inb) return;
      uint32_t a, b;
      std::memcpy(&a, &want[goff], 4);
      std::memcpy(&b, &shared[guide_swizzle(k.m.swizzle, k.soff + off) - k.soff], 4);
      uint32_t v = op[0] == 'a' ? a + b : std::min(a, b);
      std::memcpy(&want[goff], &v, 4);
    });
    EXPECT_EQ(r.tensor, want) << op;
  }
}

TEST(TmaStore, UndefinedReductionFaults) {
  Case k{map_of(DataType::F32, {16, 6}, {64}, {8, 4}, {1, 1}, Swizzle::None), {0, 0}};
  const auto shared = pattern(dump_bytes(k), 1);
  TmaRun r = run_case(k, store_body(2, "inc"), pattern(tensor_bytes(k.m), 1), &shared, 0);
  EXPECT_NE(r.error.find(".inc is not defined for CU_TENSOR_MAP_DATA_TYPE_FLOAT32"),
            std::string::npos)
      << r.error;
}

TEST(TmaMap, BadMapsFaultNamingWhy) {
  Case k{map_of(DataType::F32, {64, 40}, {256}, {32, 8}, {1, 1}, Swizzle::None), {0, 0}};
  // A 3-D copy through a rank-2 map.
  TmaRun r = run_case(k, load_body(3), pattern(tensor_bytes(k.m), 1), nullptr, 1024);
  EXPECT_NE(r.error.find("a .3d copy with a tensor map of rank 2"), std::string::npos) << r.error;
  // The prefetch of a map that is not one: the map parameter's bytes overwritten.
  r = run_case(k,
               "  mov.u64 %rd6, 0;\n  ld.param.u64 %rd7, [buf];\n"
               "  cp.async.bulk.prefetch.tensor.1d.L2.global [%rd7, {%r10}];\n",
               pattern(tensor_bytes(k.m), 1), nullptr, 0);
  EXPECT_NE(r.error.find("not made by cuTensorMapEncode"), std::string::npos) << r.error;
  // An interleaved map is not modelled.
  k.m.interleave = tma::Interleave::B16;
  r = run_case(k, load_body(2), pattern(tensor_bytes(k.m), 1), nullptr, 1024);
  EXPECT_NE(r.error.find("CU_TENSOR_MAP_INTERLEAVE_16B tensor maps are not supported"),
            std::string::npos)
      << r.error;
}

TEST(TmaDecode, UnsupportedFormsNameThemselves) {
  struct {
    const char* insn;
    const char* says;
  } cases[] = {
      {"cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes "
       "[%r3], [%rd2, {%r10, %r11}], [%r1];",
       "'.tile::gather4' is not supported"},
      {"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
       ".cta_group::2 [%r3], [%rd2, {%r10, %r11}], [%r1];",
       "'.cta_group::2' is not supported"},
      {"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
       "[%r3], [%rd2, {%r10}], [%r1];",
       "expects 2 tensor coordinates, found 1"},
      {"cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group "
       "[%rd2, {%r10, %r11, %r12}], [%r3];",
       "'.im2col_no_offs' is not supported"},
      {"cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u64 [%rd2], [%r3], 16;",
       ".inc is not defined for .u64"},
      {"cp.async.bulk.tensor.2d.shared::cluster.global.tile [%r3], [%rd2, {%r10, %r11}], [%r1];",
       "needs .mbarrier::complete_tx::bytes"},
  };
  for (const auto& c : cases) {
    auto r =
        run_snippet(std::string("  mov.u64 %rd2, 0;\n  mov.u32 %r3, 0;\n  mov.u32 %r1, 0;\n"
                                "  mov.u32 %r10, 0;\n  mov.u32 %r11, 0;\n  mov.u32 %r12, 0;\n  ") +
                    c.insn);
    EXPECT_FALSE(r.ok) << c.insn;
    EXPECT_NE(r.error.find(c.says), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("snippet.ptx:22:"), std::string::npos) << r.error;
  }
}

}  // namespace
}  // namespace smemlab::emu::test
