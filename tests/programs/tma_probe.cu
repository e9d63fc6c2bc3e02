// TMA loads that pin down the shared-memory image, byte for byte, and the
// copies an H100 refuses: each image case loads one box into zeroed shared
// memory at a 1024-byte-aligned base plus an offset and dumps the bytes;
// the program compares them with its own model of the H100 (the
// programming guide's swizzle as row/chunk arithmetic on the shared
// address, box rows a swizzle span apart when narrower than it, zeros or
// the H100's NaN fill, bytes f7 7f repeated, out of bounds, im2col's pixel
// walk as docs/emulator.md states it) and prints PASS/FAIL per case. A
// refused case checks the refusal: the encode's CUresult, or the error the
// launch ends with (an illegal instruction for a coordinate 0 that is not
// 16 bytes into its dimension, or for a store at a negative coordinate; a
// misaligned address for a box not 128-byte aligned in shared memory).
// A trap ends the process's CUDA context, so each trapping case runs in a
// child process forked before the parent touches CUDA.
// --dump FILE writes every image case's bytes (scripts/gpu-tma compares
// GPU and emulator). Build: nvcc -arch=sm_90a.
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tensor_map.cuh"

constexpr unsigned kDump = 2048;

struct Args {
  int c[5];
  uint16_t off[3];
  unsigned soff, tx;
};

__global__ void probe(const __grid_constant__ CUtensorMap map, Args a, int dims, int im2col,
                      int store, uint8_t* out) {
  extern __shared__ uint8_t smem[];
  __shared__ uint64_t bar;
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const uint32_t base = (raw + 1023) & ~1023u;
  uint8_t* box = smem + (base - raw) + a.soff;
  for (unsigned i = threadIdx.x; i < kDump; i += blockDim.x) box[i] = 0;
  const uint32_t sbar = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  const uint32_t dst = base + a.soff;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0 && store) {  // a 2-D store of the zeroed box (a refused case)
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
            &map),
        "r"(a.c[0]), "r"(a.c[1]), "r"(dst)
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
  if (store) return;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"(a.tx)
                 : "memory");
#define TILE(N, ...)                                                                         \
  asm volatile(                                                                              \
      "cp.async.bulk.tensor." #N                                                             \
      "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {" __VA_ARGS__  \
      "}], [%2];" ::"r"(dst),                                                                \
      "l"(&map), "r"(sbar), "r"(a.c[0]), "r"(a.c[1]), "r"(a.c[2]), "r"(a.c[3]), "r"(a.c[4]), \
      "h"(a.off[0]), "h"(a.off[1]), "h"(a.off[2])                                            \
      : "memory")
    if (!im2col && dims == 1) TILE(1, "%3");
    if (!im2col && dims == 2) TILE(2, "%3, %4");
    if (!im2col && dims == 3) TILE(3, "%3, %4, %5");
    if (!im2col && dims == 4) TILE(4, "%3, %4, %5, %6");
    if (!im2col && dims == 5) TILE(5, "%3, %4, %5, %6, %7");
    if (im2col && dims == 4)
      asm volatile(
          "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%3, %4, %5, %6}], [%2], {%7, %8};" ::"r"(dst),
          "l"(&map), "r"(sbar), "r"(a.c[0]), "r"(a.c[1]), "r"(a.c[2]), "r"(a.c[3]), "h"(a.off[0]),
          "h"(a.off[1])
          : "memory");
  }
  asm volatile(
      "{\n .reg .pred p;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
      " @!p bra WAIT;\n}" ::"r"(sbar)
      : "memory");
  for (unsigned i = threadIdx.x; i < kDump; i += blockDim.x) out[i] = box[i];
}

// ---- the host side: cases and the model ----------------------------------

struct Case {
  const char* name;
  CUtensorMapDataType type;
  unsigned esize;
  int rank;
  cuuint64_t dim[5];
  cuuint32_t box[5];  // tiled; im2col: {channels, pixels}
  cuuint32_t es[5];
  CUtensorMapSwizzle sw;
  bool nan;
  Args a;
  bool im2col;
  int lower[3], upper[3];
  // What the H100 does (measured, docs/emulator.md): the image the model
  // gives, or a refusal.
  enum Expect { kImage, kIllegalInstruction, kMisaligned, kEncodeRefused } expect = kImage;
  bool store = false;  // a 2-D store instead of the load (refused cases only)
};

uint64_t stride_of(const Case& k, int i) {  // bytes of dimension i (packed, rows padded to 16)
  uint64_t s = (k.dim[0] * k.esize + 15) / 16 * 16;
  for (int j = 1; j < i; ++j) s *= k.dim[j];
  return i == 0 ? k.esize : s;
}

uint32_t guide_swizzle(CUtensorMapSwizzle s, uint32_t addr) {
  const uint32_t span = s == CU_TENSOR_MAP_SWIZZLE_32B    ? 2
                        : s == CU_TENSOR_MAP_SWIZZLE_64B  ? 4
                        : s == CU_TENSOR_MAP_SWIZZLE_128B ? 8
                                                          : 1;
  const uint32_t row = addr / 128, chunk = addr % 128 / 16;
  return row * 128 + (chunk / span * span + (chunk % span ^ row % span)) * 16 + addr % 16;
}

// Tensor coordinates of element e of box row r (docs/emulator.md's model).
void coords(const Case& k, unsigned r, int64_t g[5]) {
  if (!k.im2col) {
    for (int i = 1; i < k.rank; ++i) {
      unsigned n = (k.box[i] + k.es[i] - 1) / k.es[i];
      g[i] = k.a.c[i] + int64_t(r % n) * k.es[i];
      r /= n;
    }
    return;
  }
  int64_t carry = r;
  for (int s = 1; s < k.rank - 1; ++s) {
    const int64_t lo = k.lower[s - 1], hi = int64_t(k.dim[s]) + k.upper[s - 1] - 1, es = k.es[s];
    const int64_t first = k.a.c[s] <= hi ? (hi - k.a.c[s]) / es + 1 : 1, full = (hi - lo) / es + 1;
    int64_t pos;
    if (carry < first) {
      pos = k.a.c[s] + carry * es, carry = 0;
    } else {
      carry -= first;
      pos = lo + carry % full * es, carry = 1 + carry / full;
    }
    g[s] = pos + k.a.off[s - 1];
  }
  g[k.rank - 1] = k.a.c[k.rank - 1] + carry;
}

std::vector<uint8_t> model(const Case& k, const std::vector<uint8_t>& t, unsigned* bytes) {
  std::vector<uint8_t> img(kDump, 0);
  const unsigned row = k.box[0] * k.esize;
  // Rows narrower than the swizzle's span are a span apart.
  const unsigned pitch = k.sw == CU_TENSOR_MAP_SWIZZLE_NONE ? row : 16u << k.sw;
  unsigned rows = k.im2col ? k.box[1] : 1;
  if (!k.im2col)
    for (int i = 1; i < k.rank; ++i) rows *= (k.box[i] + k.es[i] - 1) / k.es[i];
  *bytes = row * rows;                         // the mbarrier's bytes: no padding
  const uint64_t nan = 0x7ff77ff77ff77ff7ull;  // bytes f7 7f, whatever the type
  for (unsigned r = 0; r < rows; ++r) {
    int64_t g[5] = {};
    coords(k, r, g);
    for (unsigned e = 0; e < row / k.esize; ++e) {
      g[0] = k.a.c[0] + e;
      bool inb = true;
      uint64_t off = 0;
      for (int i = 0; i < k.rank; ++i) {
        inb = inb && g[i] >= 0 && uint64_t(g[i]) < k.dim[i];
        off += uint64_t(g[i]) * stride_of(k, i);
      }
      const uint32_t at =
          guide_swizzle(k.sw, 1024 * 4 + k.a.soff + r * pitch + e * k.esize) - 1024 * 4 - k.a.soff;
      if (at + k.esize > kDump) continue;
      if (inb)
        std::memcpy(&img[at], &t[off], k.esize);
      else if (k.nan)
        std::memcpy(&img[at], &nan, k.esize);
      else
        std::memset(&img[at], 0, k.esize);
    }
  }
  return img;
}

const Case kCases[] = {
    {"f32 2d 128B",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
     4,
     2,
     {40, 20},
     {32, 8},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_128B,
     false,
     {{5, 3}, {}, 0, 0},
     false,
     {},
     {},
     Case::kIllegalInstruction},
    {"f32 2d 128B, 64-byte rows",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
     4,
     2,
     {40, 20},
     {16, 8},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_128B,
     false,
     {{0, 0}, {}, 0, 0},
     false,
     {},
     {}},
    {"f16 2d 64B at +128",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
     2,
     2,
     {64, 30},
     {32, 16},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_64B,
     false,
     {{8, 2}, {}, 128, 0},
     false,
     {},
     {}},
    {"u8 2d 32B at +256",
     CU_TENSOR_MAP_DATA_TYPE_UINT8,
     1,
     2,
     {64, 30},
     {32, 12},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_32B,
     false,
     {{40, 25}, {}, 256, 0},
     false,
     {},
     {},
     Case::kIllegalInstruction},
    {"f32 NaN fill",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
     4,
     2,
     {20, 10},
     {8, 4},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     true,
     {{-2, -1}, {}, 0, 0},
     false,
     {},
     {},
     Case::kIllegalInstruction},
    {"bf16 NaN fill",
     CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
     2,
     2,
     {24, 10},
     {16, 4},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     true,
     {{16, 8}, {}, 0, 0},
     false,
     {},
     {}},
    {"f64 NaN fill",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
     8,
     2,
     {6, 10},
     {4, 4},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     true,
     {{4, 8}, {}, 0, 0},
     false,
     {},
     {}},
    {"u16 3d element strides",
     CU_TENSOR_MAP_DATA_TYPE_UINT16,
     2,
     3,
     {40, 9, 11},
     {16, 5, 7},
     {1, 2, 3},
     CU_TENSOR_MAP_SWIZZLE_64B,
     false,
     {{30, 5, 4}, {}, 0, 0},
     false,
     {},
     {},
     Case::kIllegalInstruction},
    {"f32 5d",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
     4,
     5,
     {8, 3, 3, 2, 2},
     {4, 2, 2, 2, 2},
     {1, 1, 1, 1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     false,
     {{2, 1, -1, 1, 0}, {}, 0, 0},
     false,
     {},
     {},
     Case::kIllegalInstruction},
    {"f16 im2col nhwc",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
     2,
     4,
     {8, 6, 5, 2},
     {8, 40},
     {1, 1, 1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     false,
     {{0, -1, -1, 0}, {1, 2}, 0, 0},
     true,
     {-1, -1},
     {-1, -1}},
    // The refused cases above, moved to where the H100 takes them.
    {"f32 2d 128B at (4, 3)",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
     4,
     2,
     {40, 20},
     {32, 8},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_128B,
     false,
     {{4, 3}, {}, 0, 0},
     false,
     {},
     {}},
    {"u8 2d 32B at +256, x 48",
     CU_TENSOR_MAP_DATA_TYPE_UINT8,
     1,
     2,
     {64, 30},
     {32, 12},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_32B,
     false,
     {{48, 25}, {}, 256, 0},
     false,
     {},
     {}},
    {"f32 NaN fill at (-4, -1)",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
     4,
     2,
     {20, 10},
     {8, 4},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     true,
     {{-4, -1}, {}, 0, 0},
     false,
     {},
     {}},
    {"u16 3d element strides, x 32",
     CU_TENSOR_MAP_DATA_TYPE_UINT16,
     2,
     3,
     {40, 9, 11},
     {16, 5, 7},
     {1, 2, 3},
     CU_TENSOR_MAP_SWIZZLE_64B,
     false,
     {{32, 5, 4}, {}, 0, 0},
     false,
     {},
     {}},
    {"f32 5d, x 4",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
     4,
     5,
     {8, 3, 3, 2, 2},
     {4, 2, 2, 2, 2},
     {1, 1, 1, 1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     false,
     {{4, 1, -1, 1, 0}, {}, 0, 0},
     false,
     {},
     {}},
    {"u32 32B, 16-byte rows",
     CU_TENSOR_MAP_DATA_TYPE_UINT32,
     4,
     2,
     {40, 20},
     {4, 16},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_32B,
     false,
     {{4, 2}, {}, 128, 0},
     false,
     {},
     {}},
    {"f16 NaN fill past the end",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
     2,
     2,
     {24, 10},
     {16, 4},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     true,
     {{16, 8}, {}, 0, 0},
     false,
     {},
     {}},
    {"f16 im2col 128B, 32-byte rows",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
     2,
     4,
     {16, 6, 5, 2},
     {16, 8},
     {1, 1, 1, 1},
     CU_TENSOR_MAP_SWIZZLE_128B,
     false,
     {{0, -1, -1, 0}, {1, 2}, 0, 0},
     true,
     {-1, -1},
     {-1, -1}},
    {"f32 no swizzle at +16",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
     4,
     2,
     {40, 20},
     {8, 4},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     false,
     {{0, 0}, {}, 16, 0},
     false,
     {},
     {},
     Case::kMisaligned},
    {"f32 store at (0, -1)",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
     4,
     2,
     {40, 20},
     {8, 4},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     false,
     {{0, -1}, {}, 0, 0},
     false,
     {},
     {},
     Case::kIllegalInstruction,
     true},
    {"f16 im2col, 4 channels (8 bytes)",
     CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
     2,
     4,
     {8, 6, 5, 2},
     {4, 40},
     {1, 1, 1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     false,
     {{0, -1, -1, 0}, {1, 2}, 0, 0},
     true,
     {-1, -1},
     {-1, -1},
     Case::kEncodeRefused},
    {"u32 NaN fill",
     CU_TENSOR_MAP_DATA_TYPE_UINT32,
     4,
     2,
     {20, 10},
     {8, 4},
     {1, 1},
     CU_TENSOR_MAP_SWIZZLE_NONE,
     true,
     {{0, 0}, {}, 0, 0},
     false,
     {},
     {},
     Case::kEncodeRefused},
};

// One case: encode, launch, compare. *got: the shared image (image cases).
// Prints the case's line; true when the H100's behaviour was seen.
bool run_case(const Case& k, EncodeTiled tiled, EncodeIm2col im2col, std::vector<uint8_t>* got) {
  uint64_t bytes = stride_of(k, k.rank - 1) * k.dim[k.rank - 1];
  if (k.rank == 1) bytes = k.dim[0] * k.esize;
  std::vector<uint8_t> t(bytes);
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<uint8_t>(i * 37 + 11);
  void* d_t;
  uint8_t* d_out;
  cudaMalloc(&d_t, bytes);
  cudaMalloc(&d_out, kDump);
  cudaMemcpy(d_t, t.data(), bytes, cudaMemcpyHostToDevice);
  cuuint64_t strides[4];
  for (int i = 1; i < k.rank; ++i) strides[i - 1] = stride_of(k, i);
  CUtensorMap map;
  const auto oob =
      k.nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  const CUresult r =
      k.im2col
          ? im2col(&map, k.type, k.rank, d_t, k.dim, strides, k.lower, k.upper, k.box[0], k.box[1],
                   k.es, CU_TENSOR_MAP_INTERLEAVE_NONE, k.sw, CU_TENSOR_MAP_L2_PROMOTION_NONE, oob)
          : tiled(&map, k.type, k.rank, d_t, k.dim, strides, k.box, k.es,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, k.sw, CU_TENSOR_MAP_L2_PROMOTION_NONE, oob);
  unsigned box_bytes;
  std::vector<uint8_t> want = model(k, t, &box_bytes);
  got->assign(kDump, 0);
  Args a = k.a;
  a.tx = box_bytes;
  cudaError_t e = cudaSuccess;
  cudaMemset(d_out, 0xee, kDump);
  if (r == CUDA_SUCCESS) {
    cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 8192);
    probe<<<1, 128, 1024 + a.soff + kDump>>>(map, a, k.rank, k.im2col, k.store, d_out);
    e = cudaDeviceSynchronize();
  }
  bool ok;
  if (k.expect == Case::kImage) {
    if (e == cudaSuccess) cudaMemcpy(got->data(), d_out, kDump, cudaMemcpyDeviceToHost);
    int differ = 0;
    for (unsigned i = 0; i < kDump; ++i) differ += (*got)[i] != want[i];
    ok = r == CUDA_SUCCESS && e == cudaSuccess && !differ;
    std::printf("%s %s (%d of %u bytes differ from the model; encode %d, launch %s)\n",
                ok ? "PASS" : "FAIL", k.name, differ, kDump, static_cast<int>(r),
                cudaGetErrorName(e));
  } else {
    const CUresult want_r =
        k.expect == Case::kEncodeRefused ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    const cudaError_t want_e = k.expect == Case::kIllegalInstruction ? cudaErrorIllegalInstruction
                               : k.expect == Case::kMisaligned       ? cudaErrorMisalignedAddress
                                                                     : cudaSuccess;
    ok = r == want_r && e == want_e;
    std::printf("%s %s refused (encode %d, launch %s; the H100: encode %d, launch %s)\n",
                ok ? "PASS" : "FAIL", k.name, static_cast<int>(r), cudaGetErrorName(e),
                static_cast<int>(want_r), cudaGetErrorName(want_e));
  }
  std::fflush(stdout);
  if (e == cudaSuccess) {
    cudaFree(d_t);
    cudaFree(d_out);
  }
  return ok;
}

int main(int argc, char** argv) {
  const char* dump = argc == 3 && std::string(argv[1]) == "--dump" ? argv[2] : nullptr;
  int failures = 0;
  // The trapping cases first, each in a child forked before this process
  // touches CUDA (a trap ends the context it happens in).
  for (const Case& k : kCases) {
    if (k.expect != Case::kIllegalInstruction && k.expect != Case::kMisaligned) continue;
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      auto tiled = encode_tiled();
      auto im2col = encode_im2col();
      std::vector<uint8_t> got;
      const bool ok = tiled && im2col && run_case(k, tiled, im2col, &got);
      std::fflush(stdout);
      _exit(ok ? 0 : 1);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      if (pid < 0 || !WIFEXITED(status))
        std::printf("FAIL %s (its process did not finish)\n", k.name);
      ++failures;
    }
  }
  auto tiled = encode_tiled();
  auto im2col = encode_im2col();
  if (!tiled || !im2col) {
    std::printf("FAIL no cuTensorMapEncode*\n");
    return 1;
  }
  std::vector<uint8_t> all, got;
  for (const Case& k : kCases) {
    if (k.expect == Case::kIllegalInstruction || k.expect == Case::kMisaligned) continue;
    failures += !run_case(k, tiled, im2col, &got);
    if (k.expect == Case::kImage) all.insert(all.end(), got.begin(), got.end());
  }
  if (dump) {
    FILE* f = std::fopen(dump, "wb");
    if (!f || std::fwrite(all.data(), 1, all.size(), f) != all.size()) ++failures;
    if (f) std::fclose(f);
  }
  std::printf(failures ? "FAIL tma_probe\n" : "PASS tma_probe\n");
  return failures ? 1 : 0;
}
