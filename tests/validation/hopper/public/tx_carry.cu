// Where bytes beyond those expect_tx announced go (issue 28, run 16,
// h-hop28h). The PTX ISA: a phase completes when its pending arrivals and
// tx-count have both reached zero; the transition reinitializes the
// arrivals (nothing is said of the tx-count). If the tx-count is kept,
// bytes completing after the phase completed count against the next one.
// One thread, an mbarrier of 1 arrival, 1-D bulk copies of 1,024 bytes,
// one case per launch:
//   0 late:     expect 1,024 + arrive; copy 1; wait for phase 0; copy 2
//               (the excess, alone in phase 1); sleep; then phase 1's
//               arrive: complete? then expect_tx 1,024: complete?
//   1 together: expect 1,024 + arrive; copies 1 and 2 back to back; wait
//               for phase 0 (bounded); sleep; as case 0 from the arrive.
//   2 exact:    expect 2,048 + arrive; copies 1 and 2; wait; then phase 1
//               as above (the control: nothing carried).
//   3 reannounce: as case 0, but phase 1's arrival is an arrive.expect_tx
//               of 1,024 with no copy: complete at once (the excess is kept
//               in the tx-count and pays for it) or not (it was dropped)?
//               Then a third copy of 1,024.
// (Cases 0-2 ran on the H200 in run 16; case 3 was added after it.)
// Each line prints what the thread saw, and the raw 64-bit word (its
// encoding is not documented) after each step.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

__device__ bool try_parity(uint32_t bar, uint32_t parity) {
  uint32_t ok;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      " selp.u32 %0, 1, 0, p;\n}"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok;
}

__device__ bool wait_parity(uint32_t bar, uint32_t parity, int tries) {
  for (int i = 0; i < tries; ++i)
    if (try_parity(bar, parity)) return true;
  return false;
}

__device__ void copy(uint32_t dst, const void* src, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::
          "r"(dst),
      "l"(src), "r"(bar)
      : "memory");
}

__global__ void probe(const uint8_t* g, int mode, unsigned long long* words, int* seen) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const uint32_t bar = base, buf = base + 1024;
  volatile unsigned long long* word = reinterpret_cast<unsigned long long*>(smem);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  words[0] = *word;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
               "r"(mode == 2 ? 2048 : 1024)
               : "memory");
  copy(buf, g, bar);
  if (mode == 0 || mode == 3) seen[0] = wait_parity(bar, 0, 1 << 20);
  copy(buf + 1024, g + 1024, bar);
  if (mode == 1 || mode == 2) seen[0] = wait_parity(bar, 0, 1 << 20);
  __nanosleep(200000);  // the second copy has landed long since
  words[1] = *word;
  if (mode == 3)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(bar) : "memory");
  else
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
  __nanosleep(20000);
  seen[1] = try_parity(bar, 1);
  words[2] = *word;
  if (mode == 3)
    copy(buf, g, bar);
  else
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 1024;" ::"r"(bar)
                 : "memory");
  seen[2] = wait_parity(bar, 1, 1 << 16);
  words[3] = *word;
}

int main() {
  const char* const names[] = {"late", "together", "exact", "reannounce"};
  uint8_t* g;
  unsigned long long* words;
  int* seen;
  cudaMalloc(&g, 2048);
  cudaMemset(g, 7, 2048);
  cudaMalloc(&words, 4 * sizeof(unsigned long long));
  cudaMalloc(&seen, 3 * sizeof(int));
  int status = 0;
  for (int mode = 0; mode < 4; ++mode) {
    cudaMemset(words, 0, 4 * sizeof(unsigned long long));
    cudaMemset(seen, 0xff, 3 * sizeof(int));
    probe<<<1, 1, 4096>>>(g, mode, words, seen);
    cudaError_t e = cudaDeviceSynchronize();
    unsigned long long w[4];
    int s[3];
    cudaMemcpy(w, words, sizeof w, cudaMemcpyDeviceToHost);
    cudaMemcpy(s, seen, sizeof s, cudaMemcpyDeviceToHost);
    std::printf(
        "mode %d %s: %s; phase 0 complete %d; phase 1 complete after its arrival %d, after "
        "expect_tx 1024 (mode 3: a copy) %d; words 0x%016llx 0x%016llx 0x%016llx 0x%016llx\n",
        mode, names[mode], cudaGetErrorString(e), s[0], s[1], s[2], w[0], w[1], w[2], w[3]);
    if (e != cudaSuccess) status = 1;
  }
  return status;
}
