// One TMA copy per process on the GPU, for scripts/tma-rules/run: which
// copies an H100 refuses (the encode's CUresult, the error the launch ends
// with) and, for those it takes, the shared-memory image (load) or the
// global tensor after it (store, reduce), dumped raw for check.py.
//   probe key=value ...
// keys: mode=load|store|reduce|prefetch|enc type=<CUtensorMapDataType> es=<element bytes>
// rank=N dim=a,b,.. box=a,b,.. (im2col: channels,pixels) est=a,b,.. (element strides)
// sw=0..3 nan=0|1 l2=N c=a,b,.. (coordinates) off=a,b (im2col offsets) soff=N (shared
// offset from a 1024-byte boundary) aoff=N (global address offset) im2col=0|1 lo=a,b
// hi=a,b stride=a,b,.. (bytes, else packed rows padded to 16) pat=b|w (tensor bytes
// i*37+11, or 32-bit words 0x40000000 + their byte offset) dump=FILE
// Prints: enc=<CUresult> <name> [launch=<error> sync=<error> timeout=<0|1>
// global_changed=<bytes>]. Build: nvcc -gencode arch=compute_90a,code=[sm_90a,compute_90a].
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tensor_map.cuh"  // (tests/programs: the encoders, fetched as the test programs do)

constexpr unsigned kDump = 2048;

struct Args {
  int c[5];
  uint16_t off[3];
  unsigned soff, tx;
};

#define COORDS1 "%3"
#define COORDS2 "%3, %4"
#define COORDS3 "%3, %4, %5"
#define COORDS4 "%3, %4, %5, %6"
#define COORDS5 "%3, %4, %5, %6, %7"
#define INS                                                                                        \
  "r"(dst), "l"(&map), "r"(sbar), "r"(a.c[0]), "r"(a.c[1]), "r"(a.c[2]), "r"(a.c[3]), "r"(a.c[4]), \
      "h"(a.off[0]), "h"(a.off[1]), "h"(a.off[2])

__global__ void probe(const __grid_constant__ CUtensorMap map, Args a, int dims, int im2col,
                      int mode, uint8_t* out, unsigned* flags) {
  extern __shared__ uint8_t smem[];
  __shared__ uint64_t bar;
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const uint32_t base = (raw + 1023) & ~1023u;
  uint8_t* box = smem + (base - raw) + a.soff;
  for (unsigned i = threadIdx.x; i < kDump; i += blockDim.x)
    box[i] = (mode == 1 || mode == 3) ? static_cast<uint8_t>(i * 7 + 3) : 0;
  const uint32_t sbar = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  const uint32_t dst = base + a.soff;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    if (mode == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"(a.tx)
                   : "memory");
#define TILE(N)                                                                                    \
  asm volatile("cp.async.bulk.tensor." #N                                                          \
               "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {" COORDS##N \
               "}], [%2];" ::INS                                                                   \
               : "memory")
      if (!im2col && dims == 1) TILE(1);
      if (!im2col && dims == 2) TILE(2);
      if (!im2col && dims == 3) TILE(3);
      if (!im2col && dims == 4) TILE(4);
      if (!im2col && dims == 5) TILE(5);
      if (im2col && dims == 4)
        asm volatile(
            "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%3, %4, %5, %6}], [%2], {%8, %9};" ::INS
            : "memory");
    } else if (mode == 1) {
#define STORE(N)                                                                                  \
  asm volatile("cp.async.bulk.tensor." #N "d.global.shared::cta.tile.bulk_group [%1, {" COORDS##N \
               "}], [%0];" ::INS                                                                  \
               : "memory")
      if (dims == 1) STORE(1);
      if (dims == 2) STORE(2);
      if (dims == 3) STORE(3);
      if (dims == 4) STORE(4);
      if (dims == 5) STORE(5);
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    } else if (mode == 3) {
      asm volatile(
          "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%1, {%3, %4}], "
          "[%0];" ::INS
          : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    } else {
#define PREF(N)                                                                                    \
  asm volatile("cp.async.bulk.prefetch.tensor." #N "d.L2.global.tile [%1, {" COORDS##N "}];" ::INS \
               : "memory")
      if (dims == 1) PREF(1);
      if (dims == 2) PREF(2);
      if (dims == 3) PREF(3);
      if (dims == 4) PREF(4);
      if (dims == 5) PREF(5);
    }
  }
  if (mode == 0) {
    long long t0 = clock64();
    unsigned done = 0;
    while (!done) {
      asm volatile(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
          " selp.u32 %0, 1, 0, p;\n}"
          : "=r"(done)
          : "r"(sbar)
          : "memory");
      if (clock64() - t0 > 2000000000ll) {
        if (threadIdx.x == 0) flags[0] = 1;
        break;
      }
    }
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < kDump; i += blockDim.x) out[i] = box[i];
}

std::vector<long long> list(const char* s) {
  std::vector<long long> v;
  while (*s) {
    char* e;
    v.push_back(std::strtoll(s, &e, 0));
    s = *e ? e + 1 : e;
  }
  return v;
}

using GetErr = CUresult (*)(CUresult, const char**);

int main(int argc, char** argv) {
  std::string mode = "load", pat = "b";
  const char* dumpf = nullptr;
  int type = 7, es = 4, rank = 2, sw = 0, nan = 0, im2col = 0, l2 = 0;
  unsigned soff = 0, aoff = 0;
  std::vector<long long> dim, box, est, c, off, lo, hi, strd;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto eq = a.find('=');
    std::string k = a.substr(0, eq);
    const char* v = argv[i] + eq + 1;
    if (k == "mode")
      mode = v;
    else if (k == "type")
      type = atoi(v);
    else if (k == "es")
      es = atoi(v);
    else if (k == "rank")
      rank = atoi(v);
    else if (k == "dim")
      dim = list(v);
    else if (k == "box")
      box = list(v);
    else if (k == "est")
      est = list(v);
    else if (k == "sw")
      sw = atoi(v);
    else if (k == "nan")
      nan = atoi(v);
    else if (k == "l2")
      l2 = atoi(v);
    else if (k == "c")
      c = list(v);
    else if (k == "off")
      off = list(v);
    else if (k == "soff")
      soff = atoi(v);
    else if (k == "aoff")
      aoff = atoi(v);
    else if (k == "im2col")
      im2col = atoi(v);
    else if (k == "lo")
      lo = list(v);
    else if (k == "hi")
      hi = list(v);
    else if (k == "stride")
      strd = list(v);
    else if (k == "pat")
      pat = v;
    else if (k == "dump")
      dumpf = v;
  }
  while ((int)est.size() < rank) est.push_back(1);
  while (c.size() < 5) c.push_back(0);
  while (off.size() < 3) off.push_back(0);
  cuuint64_t d[5], s[5];
  cuuint32_t b[5], e[5];
  int low[3] = {}, up[3] = {};
  for (int i = 0; i < rank; ++i) d[i] = dim[i], e[i] = est[i];
  for (size_t i = 0; i < box.size(); ++i) b[i] = box[i];
  for (size_t i = 0; i < lo.size(); ++i) low[i] = lo[i];
  for (size_t i = 0; i < hi.size(); ++i) up[i] = hi[i];
  uint64_t st = (d[0] * es + 15) / 16 * 16;
  for (int i = 1; i < rank; ++i) {
    s[i - 1] = (size_t)(i - 1) < strd.size() ? strd[i - 1] : st;
    st = s[i - 1] * d[i];
  }
  uint64_t bytes = rank == 1 ? d[0] * es : st;
  std::vector<uint8_t> t(bytes);
  if (pat == "w") {
    for (size_t i = 0; i + 3 < t.size(); i += 4) {
      uint32_t w = 0x40000000u + (uint32_t)i;
      std::memcpy(&t[i], &w, 4);
    }
  } else {
    for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<uint8_t>(i * 37 + 11);
  }
  auto tiled = encode_tiled();
  auto i2c = encode_im2col();
  auto geterr = reinterpret_cast<GetErr>(driver_entry("cuGetErrorName"));
  void* dt;
  cudaMalloc(&dt, bytes + 4096);
  cudaMemcpy(dt, t.data(), bytes, cudaMemcpyHostToDevice);
  CUtensorMap map;
  auto oob =
      nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  CUresult r = im2col ? i2c(&map, (CUtensorMapDataType)type, rank, (char*)dt + aoff, d, s, low, up,
                            b[0], b[1], e, CU_TENSOR_MAP_INTERLEAVE_NONE, (CUtensorMapSwizzle)sw,
                            (CUtensorMapL2promotion)l2, oob)
                      : tiled(&map, (CUtensorMapDataType)type, rank, (char*)dt + aoff, d, s, b, e,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, (CUtensorMapSwizzle)sw,
                              (CUtensorMapL2promotion)l2, oob);
  const char* rn = "?";
  if (geterr) geterr(r, &rn);
  std::printf("enc=%d %s", (int)r, rn);
  unsigned tx = 0;
  if (im2col)
    tx = b[0] * b[1] * es;
  else {
    tx = b[0] * es;
    for (int i = 1; i < rank; ++i) tx *= (b[i] + e[i] - 1) / e[i];
  }
  Args a = {};
  for (int i = 0; i < 5; ++i) a.c[i] = c[i];
  for (int i = 0; i < 3; ++i) a.off[i] = off[i];
  a.soff = soff;
  a.tx = tx;
  uint8_t* dout;
  unsigned* flags;
  cudaMalloc(&dout, kDump);
  cudaMalloc(&flags, 16);
  cudaMemset(dout, 0xee, kDump);
  cudaMemset(flags, 0, 16);
  std::vector<uint8_t> got(kDump, 0xee), gt(bytes);
  unsigned hf[4] = {};
  if (r == CUDA_SUCCESS && mode != "enc") {
    cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 8192);
    int m = mode == "load" ? 0 : mode == "store" ? 1 : mode == "reduce" ? 3 : 2;
    probe<<<1, 128, 1024 + soff + kDump>>>(map, a, rank, im2col, m, dout, flags);
    cudaError_t le = cudaGetLastError();
    cudaError_t se = cudaDeviceSynchronize();
    std::printf(" launch=%s sync=%s", cudaGetErrorName(le), cudaGetErrorName(se));
    if (se == cudaSuccess) {
      cudaMemcpy(got.data(), dout, kDump, cudaMemcpyDeviceToHost);
      cudaMemcpy(gt.data(), dt, bytes, cudaMemcpyDeviceToHost);
      cudaMemcpy(hf, flags, 16, cudaMemcpyDeviceToHost);
      std::printf(" timeout=%u", hf[0]);
      if (m == 1 || m == 3) {
        size_t ch = 0;
        for (size_t i = 0; i < bytes; ++i) ch += gt[i] != t[i];
        std::printf(" global_changed=%zu", ch);
      }
    }
  }
  std::printf("\n");
  if (dumpf) {
    FILE* f = std::fopen(dumpf, "wb");
    std::fwrite(got.data(), 1, kDump, f);
    if (mode == "store" || mode == "reduce") std::fwrite(gt.data(), 1, bytes, f);
    std::fclose(f);
  }
  return 0;
}
