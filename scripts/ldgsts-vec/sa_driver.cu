// Launches of kernels/matmul.cu's sgemm_async_*_vec that separate the copy
// forms one factor at a time (issue 28, h-hop28c), for Nsight Compute on the
// H100 (scripts/ldgsts-vec/run). One launch per line of CASES below, in
// order; each prints "launch <i> <name> ok". The matching `smemlab analyze`
// recipes are printed by `sa_driver --recipes` (the same sizes and data).
//   nvcc -gencode arch=compute_90a,code=sm_90a -O3 -lineinfo -o sa_driver sa_driver.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "../../kernels/matmul.cu"

namespace {

struct Case {
  const char* name;
  int tile;  // 128: sgemm_async_128x128x16s3_vec (256 threads), 64: 64x128 (128 threads)
  int gx, gy, M, N, K;
  const char* why;
};

// The suite's two recipes first, then one factor at a time.
const Case kCases[] = {
    {"suite128", 128, 2, 2, 130, 132, 70, "the suite recipe"},
    {"suite64", 64, 2, 3, 130, 132, 70, "the suite recipe"},
    {"int128_p528", 128, 1, 1, 128, 132, 64, "interior only (plain forms), B pitch 528"},
    {"int128_p512", 128, 1, 1, 128, 128, 64, "interior only, B pitch 512"},
    {"edge128_p528_all", 128, 1, 1, 127, 132, 64, "checked forms, every B lane reads, pitch 528"},
    {"edge128_p512_all", 128, 1, 1, 127, 128, 64, "checked forms, every B lane reads, pitch 512"},
    {"edge128_p528_k70", 128, 1, 1, 127, 132, 70,
     "+ last slice: rows past K zero-fill whole warps"},
    {"edge128_p512_k70", 128, 1, 1, 127, 128, 70, "the same at pitch 512"},
    {"edge128_col", 128, 1, 1, 127, 4, 64, "B columns past N: lane 0 reads, 31 zero-fill"},
    {"edge128_col8", 128, 1, 1, 127, 8, 64, "lanes 0-1 read"},
    {"edge128_col68", 128, 1, 1, 127, 68, 64, "lanes 0-16 read, pitch 272"},
    {"edge128_col132x", 128, 2, 1, 127, 132, 64, "the suite's column edge: 2 blocks"},
    {"edge128_k16", 128, 1, 1, 127, 132, 16, "one slice only (one cp.async group)"},
    {"edge128_k8", 128, 1, 1, 127, 132, 8, "one slice, half its rows zero-fill"},
    {"edge64_p528_all", 64, 1, 1, 63, 132, 64, "64x128, checked, every lane reads"},
    {"edge64_p528_k70", 64, 1, 1, 63, 132, 70, "64x128, + last slice"},
};

void launch(const Case& c, const float* A, const float* B, float* C) {
  const int threads = c.tile == 128 ? 256 : 128;
  const int smem = c.tile == 128 ? 49920 : 37632;
  auto* k = c.tile == 128 ? sgemm_async_128x128x16s3_vec : sgemm_async_64x128x16s3_vec;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  k<<<dim3(c.gx, c.gy), threads, smem>>>(A, B, C, c.M, c.N, c.K);
}

// A back-to-back sequence of up to 4 cp.async.cg of 16 bytes per lane by each
// warp of one block (the factor the single-instruction probes of run 9 lack):
// copy k of warp w writes shared row 4w + k (512 contiguous bytes), reads
// global bytes (4w + k) * 1024 + goff[k] + 16 * lane; form[k]: 0 the
// predicated form (`lane < reads[k] ? 16 : 0`), 1 the plain form, 2 a .ca copy
// of 4 bytes per lane (contiguous); gap[k] after copy k: 0 nothing, 1
// commit_group, 2 commit + wait_group 0, 3 commit + __nanosleep(sleep_ns).
struct SeqCfg {
  int n, goff[4], form[4], reads[4], gap[4], sleep_ns;
};
__global__ void seq_probe(const char* g, SeqCfg c) {
  extern __shared__ __align__(1024) unsigned char sbuf[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(sbuf));
  for (int k = 0; k < c.n; ++k) {
    const unsigned dst = base + (warp * 4 + k) * 512 + lane * 16;
    const char* src = g + (warp * 4 + k) * 1024 + c.goff[k] + lane * 16;
    if (c.form[k] == 0)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
                   "r"(lane < c.reads[k] ? 16 : 0)
                   : "memory");
    else if (c.form[k] == 1)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
    else
      asm volatile(
          "cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(base + (warp * 4 + k) * 512 + lane * 4),
          "l"(g + (warp * 4 + k) * 1024 + c.goff[k] + lane * 4)
          : "memory");
    if (c.gap[k] >= 1) asm volatile("cp.async.commit_group;" ::: "memory");
    if (c.gap[k] == 2) asm volatile("cp.async.wait_group 0;" ::: "memory");
    if (c.gap[k] == 3) __nanosleep(c.sleep_ns);
  }
  asm volatile("cp.async.commit_group;\n cp.async.wait_group 0;" ::: "memory");
}

struct SeqCase {
  const char* name;
  int warps;
  SeqCfg cfg;
};
// n, goff[4], form[4], reads[4], gap[4], sleep
const SeqCase kSeq[] = {
    {"seq_1_o16", 1, {1, {16}, {0}, {32}, {0}, 0}},
    {"seq_2_o16", 1, {2, {16, 16}, {0, 0}, {32, 32}, {0, 0}, 0}},
    {"seq_2_o16_commit", 1, {2, {16, 16}, {0, 0}, {32, 32}, {1, 0}, 0}},
    {"seq_2_o16_wait", 1, {2, {16, 16}, {0, 0}, {32, 32}, {2, 0}, 0}},
    {"seq_2_o16_sleep5us", 1, {2, {16, 16}, {0, 0}, {32, 32}, {3, 0}, 5000}},
    {"seq_2_o0_o16", 1, {2, {0, 16}, {0, 0}, {32, 32}, {0, 0}, 0}},
    {"seq_2_o16_o0", 1, {2, {16, 0}, {0, 0}, {32, 32}, {0, 0}, 0}},
    {"seq_2_o48", 1, {2, {48, 48}, {0, 0}, {32, 32}, {0, 0}, 0}},
    {"seq_2_o32", 1, {2, {32, 32}, {0, 0}, {32, 32}, {0, 0}, 0}},
    {"seq_3_o16", 1, {3, {16, 16, 16}, {0, 0, 0}, {32, 32, 32}, {0, 0, 0}, 0}},
    {"seq_4_o16", 1, {4, {16, 16, 16, 16}, {0, 0, 0, 0}, {32, 32, 32, 32}, {0, 0, 0, 0}, 0}},
    {"seq_plain_pred_o16", 1, {2, {16, 16}, {1, 0}, {32, 32}, {0, 0}, 0}},
    {"seq_pred_plain_o16", 1, {2, {16, 16}, {0, 1}, {32, 32}, {0, 0}, 0}},
    {"seq_zero_pred_o16", 1, {2, {16, 16}, {0, 0}, {0, 32}, {0, 0}, 0}},
    {"seq_pred_zero_o16", 1, {2, {16, 16}, {0, 0}, {32, 0}, {0, 0}, 0}},
    {"seq_ca_pred_o16", 1, {2, {16, 16}, {2, 0}, {32, 32}, {0, 0}, 0}},
    {"seq_2_o16_r1", 1, {2, {16, 16}, {0, 0}, {32, 1}, {0, 0}, 0}},
    {"seq_2_o16_r17", 1, {2, {16, 16}, {0, 0}, {32, 17}, {0, 0}, 0}},
    {"seq_w2_1_o16", 2, {1, {16}, {0}, {32}, {0}, 0}},
    {"seq_w8_1_o16", 8, {1, {16}, {0}, {32}, {0}, 0}},
    {"seq_w8_2_o16", 8, {2, {16, 16}, {0, 0}, {32, 32}, {0, 0}, 0}},
    {"seq_w8_2_o16_wait", 8, {2, {16, 16}, {0, 0}, {32, 32}, {2, 0}, 0}},
    {"seq_1_o16_again", 1, {1, {16}, {0}, {32}, {0}, 0}},
    {"seq_2_o16_again", 1, {2, {16, 16}, {0, 0}, {32, 32}, {0, 0}, 0}},
};

}  // namespace

int main(int argc, char** argv) {
  const bool recipes = argc > 1 && !std::strcmp(argv[1], "--recipes");
  int i = 0;
  for (const Case& c : kCases) {
    const int a = c.M * c.K, b = c.K * c.N, m = c.M * c.N;
    if (recipes) {
      std::printf(
          "%s --kernel sgemm_async_%sx128x16s3_vec --grid %d,%d --block %d --shared %d "
          "--arg float[%d]=random(1) --arg float[%d]=random(2) --arg float[%d]=zeros "
          "--arg int=%d --arg int=%d --arg int=%d\n",
          c.name, c.tile == 128 ? "128" : "64", c.gx, c.gy, c.tile == 128 ? 256 : 128,
          c.tile == 128 ? 49920 : 37632, a, b, m, c.M, c.N, c.K);
      continue;
    }
    std::vector<float> ha(a), hb(b);
    for (int j = 0; j < a; ++j) ha[j] = (j % 7) * 0.25f;
    for (int j = 0; j < b; ++j) hb[j] = (j % 5) * 0.5f;
    float *A, *B, *C;
    cudaMalloc(&A, a * 4);
    cudaMalloc(&B, b * 4);
    cudaMalloc(&C, m * 4);
    cudaMemcpy(A, ha.data(), a * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(B, hb.data(), b * 4, cudaMemcpyHostToDevice);
    launch(c, A, B, C);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("launch %d %s %s\n", i++, c.name, e == cudaSuccess ? "ok" : cudaGetErrorString(e));
    cudaFree(A), cudaFree(B), cudaFree(C);
    if (e != cudaSuccess) return 1;
  }
  if (recipes) return 0;
  char* g;
  cudaMalloc(&g, 64 << 10);
  cudaMemset(g, 1, 64 << 10);
  cudaFuncSetAttribute(seq_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536);
  for (const SeqCase& q : kSeq) {
    seq_probe<<<1, 32 * q.warps, 65536>>>(g, q.cfg);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("launch %d %s %s\n", i++, q.name, e == cudaSuccess ? "ok" : cudaGetErrorString(e));
    if (e != cudaSuccess) return 1;
  }
  return 0;
}
