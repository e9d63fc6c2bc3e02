// Single-warp / single-warpgroup probes of Hopper's shared-memory traffic,
// for scripts/hopper-rules/run: each line of a case file is one launch whose
// counters Nsight Compute reads (docs/bank-model.md, "Hopper"). The launches
// run in file order in one process; the program prints one line per launch
// ("launch <n> <NAME> ok|<error>") so the run can pair ncu's launch ids with
// the cases.
//   probe CASEFILE [NAME,NAME,... | prefix=P]   (only those cases / names starting
//   with P, in file order)
// Case line: NAME FAMILY key=value ...
//   tma    mode=load|store|reduce es=1|2|4 sw=0..3 box=a,b[,c] soff=N count=N
//          c=x,y dim0=N pitch=N (one thread issues `count` cp.async.bulk.tensor of the
//          box at coordinates c (elements, default 0,0) of a dim0 x 64 [x 8]
//          tensor (rows `pitch` bytes apart, default dim0*es, dim0 256) into/out of
//          shared memory `soff` bytes past a 1024-byte boundary; copy i goes
//          1024*ceil(box bytes/1024)*i further; reduce: .add of u32)
//   bulk   mode=load|store bytes=N soff=N goff=N count=N (cp.async.bulk, no
//          tensor map; goff: bytes past a 4 KiB-aligned global buffer)
//   gmma   n=N ss=0|1 ta=0|1 tb=0|1 da=HEX db=HEX count=N (descriptors with
//          start addresses relative to a 1024-byte boundary; 128 threads)
//   mat    op=ld|st x=1|2|4 trans=0|1 stride=N swz=0|1 soff=N count=N
//          (row r of matrix m, r+8m = lane, at soff + (8m+r)*stride, its
//          16-byte chunk index XOR (row%8) when swz)
//   dsm    op=none|ld|st|atom|red width=4|8|16 stride=N mask=HEX target=0|1
//          generic=0|1 soff=N perm=0..3 count=N (cluster of 2 blocks of 32
//          threads; block 0's lanes access block `target`'s shared memory at
//          soff + P(lane)*stride, P per `perm`: lane, 31-lane, lane^1, lane/4)
//   dsm_cl op=ld|st|atom|red|atom64|red64 c=N from=R t=32 ranks o=32 offsets mask=HEX (dsm_table's
//          access in a cluster of c blocks launched with cudaLaunchKernelEx,
//          issued by rank `from`; prints every rank's %smid)
//   ldgsts size=4|8|16 cg=0|1 sstride=N gstride=N soff=N goff=N sperm=0..3
//          gperm=0..3 mask=HEX count=N (lane i copies global goff +
//          P(i)*gstride to shared soff + P(i)*sstride, P as for dsm)
//   ldgsts_table size=4|8|16 cg=0|1 s=32 offsets g=32 offsets [z=32 src-sizes]
//          [pred=1] mask=HEX (lane i copies global g[i] to shared s[i]; z: each
//          lane's src-size, .ca and .cg; pred=1 passes it as `z ? SIZE : 0`,
//          which ptxas compiles to the predicated LDGSTS without .ZFILL, as in
//          kernels/matmul.cu's cp_async16, rather than LDGSTS.ZFILL)
//   mbar   op=arrive|init|test|expect|arrive_tx mask=HEX spread=N count=N
//          (lane i's mbarrier at spread*i bytes; each barrier first initialised
//          by one lane to 1000000 arrivals, so no phase completes; then the
//          lanes in mask run `op` count times: arrive, init, test_wait.parity 1
//          (the preceding phase: true at once), expect_tx 16, arrive.expect_tx 16)
//   pf     mode=bulk|tensor bytes=N box=a,b count=N (one thread prefetches to L2:
//          cp.async.bulk.prefetch.L2 of `bytes`, or prefetch.tensor of an
//          es=4 box of a 256 x 64 tensor)
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -I../../tests/programs -o probe probe.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmma_kernels.inc"
#include "tensor_map.cuh"  // tests/programs: the encoder the TMA test programs use

namespace {

__device__ uint32_t aligned_base(const void* smem) {
  return (static_cast<uint32_t>(__cvta_generic_to_shared(smem)) + 1023u) & ~1023u;
}

// perm: 0 lane, 1 31 - lane, 2 lane ^ 1, 3 lane / 4 (the index a stride multiplies)
__device__ unsigned permute(unsigned lane, int perm) {
  return perm == 1 ? 31 - lane : perm == 2 ? lane ^ 1 : perm == 3 ? lane / 4 : lane;
}

__device__ bool wait_parity0(uint32_t bar) {
  const long long t0 = clock64();
  for (;;) {
    uint32_t done;
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
        " selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(bar)
        : "memory");
    if (done) return true;
    if (clock64() - t0 > 2000000000ll) return false;
  }
}

// store: 0 load, 1 store, 2 reduction (add)
__global__ void tma_probe(const __grid_constant__ CUtensorMap map, int store, int dims, int count,
                          unsigned soff, unsigned step, unsigned tx, int c0, int c1, unsigned* flags) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ __align__(8) uint64_t bar;
  const uint32_t dst = aligned_base(smem) + soff;
  const uint32_t sbar = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x != 0) return;
  if (!store) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"(tx * count)
                 : "memory");
    for (int i = 0; i < count; ++i) {
      const uint32_t d = dst + i * step;
      if (dims == 2)
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %4}], [%3];" ::"r"(d),
            "l"(&map), "r"(c0), "r"(sbar), "r"(c1)
            : "memory");
      else
        asm volatile(
            "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %4, %5}], [%3];" ::"r"(d),
            "l"(&map), "r"(c0), "r"(sbar), "r"(c1), "r"(0)
            : "memory");
    }
    if (!wait_parity0(sbar)) flags[0] = 1;
  } else {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    for (int i = 0; i < count; ++i) {
      const uint32_t d = dst + i * step;
      if (store == 2)
        asm volatile(
            "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                &map),
            "r"(d), "r"(c0), "r"(c1)
            : "memory");
      else if (dims == 2)
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(&map),
                     "r"(d), "r"(c0), "r"(c1)
                     : "memory");
      else
        asm volatile(
            "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(&map),
            "r"(d), "r"(c0), "r"(c1), "r"(0)
            : "memory");
    }
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

__global__ void bulk_probe(uint8_t* g, int store, int count, unsigned soff, unsigned bytes, unsigned* flags) {
  extern __shared__ __align__(1024) uint8_t smem[];
  __shared__ __align__(8) uint64_t bar;
  const uint32_t dst = aligned_base(smem) + soff;
  const uint32_t sbar = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x != 0) return;
  const unsigned step = (bytes + soff % 1024 + 1023) / 1024 * 1024;
  if (!store) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"(bytes * count)
                 : "memory");
    for (int i = 0; i < count; ++i)
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                       dst + i * step),
                   "l"(g), "r"(bytes), "r"(sbar)
                   : "memory");
    if (!wait_parity0(sbar)) flags[0] = 1;
  } else {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    for (int i = 0; i < count; ++i)
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(g), "r"(dst + i * step),
                   "r"(bytes)
                   : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

template <int X, int TRANS, int ST>
__device__ void matrix_op(uint32_t addr, uint32_t* r) {
  if constexpr (ST == 0) {
    if constexpr (X == 1 && TRANS == 0)
      asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
    if constexpr (X == 2 && TRANS == 0)
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                   : "=r"(r[0]), "=r"(r[1])
                   : "r"(addr));
    if constexpr (X == 4 && TRANS == 0)
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(addr));
    if constexpr (X == 1 && TRANS == 1)
      asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
    if constexpr (X == 2 && TRANS == 1)
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                   : "=r"(r[0]), "=r"(r[1])
                   : "r"(addr));
    if constexpr (X == 4 && TRANS == 1)
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(addr));
  } else {
    if constexpr (X == 1 && TRANS == 0)
      asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r[0]) : "memory");
    if constexpr (X == 2 && TRANS == 0)
      asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r[0]), "r"(r[1])
                   : "memory");
    if constexpr (X == 4 && TRANS == 0)
      asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r[0]),
                   "r"(r[1]), "r"(r[2]), "r"(r[3])
                   : "memory");
    if constexpr (X == 1 && TRANS == 1)
      asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r[0]) : "memory");
    if constexpr (X == 2 && TRANS == 1)
      asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r[0]),
                   "r"(r[1])
                   : "memory");
    if constexpr (X == 4 && TRANS == 1)
      asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r[0]),
                   "r"(r[1]), "r"(r[2]), "r"(r[3])
                   : "memory");
  }
}

template <int X, int TRANS, int ST>
__global__ void mat_probe(unsigned stride, int swz, unsigned soff, int count, unsigned* out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const unsigned lane = threadIdx.x;
  uint32_t off = soff + lane * stride;
  if (swz) off ^= (lane % 8) << 4;
  const uint32_t addr = aligned_base(smem) + off;
  uint32_t r[4] = {lane, lane + 1, lane + 2, lane + 3};
  for (int i = 0; i < count; ++i) matrix_op<X, TRANS, ST>(addr, r);
  out[lane] = r[0] ^ r[1] ^ r[2] ^ r[3];
}

using MatKernel = void (*)(unsigned, int, unsigned, int, unsigned*);
MatKernel mat_kernel(int x, int trans, int st) {
#define MK(X, T, S) \
  if (x == X && trans == T && st == S) return mat_probe<X, T, S>;
  MK(1, 0, 0) MK(2, 0, 0) MK(4, 0, 0) MK(1, 1, 0) MK(2, 1, 0) MK(4, 1, 0)
  MK(1, 0, 1) MK(2, 0, 1) MK(4, 0, 1) MK(1, 1, 1) MK(2, 1, 1) MK(4, 1, 1)
#undef MK
  return nullptr;
}

// op: 0 none, 1 ld, 2 st, 3 atom.add, 4 red.add
__global__ void __cluster_dims__(2, 1, 1)
    dsm_probe(int op, int width, unsigned stride, unsigned mask, int target, int generic, int count,
              unsigned soff, int perm, unsigned selfmask, unsigned* out) {
  __shared__ __align__(16) uint32_t buf[4096];
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) buf[i] = i;
  asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const unsigned lane = threadIdx.x;
  uint32_t acc = 0;
  if (rank == 0 && op != 0 && (mask >> lane & 1)) {
    const unsigned at = (soff + permute(lane, perm) * stride) % 16384;
    const uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(buf)) + at;
    uint32_t remote;
    // Lanes of selfmask reach the block's own shared memory through the
    // cluster window (mapa to its own rank), the others block `target`.
    const int to = selfmask >> lane & 1 ? static_cast<int>(rank) : target;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(to));
    uint64_t gen = 0;
    if (generic)
      asm volatile("mapa.u64 %0, %1, %2;"
                   : "=l"(gen)
                   : "l"(reinterpret_cast<uint64_t>(buf) + at), "r"(to));
    for (int i = 0; i < count; ++i) {
      uint32_t a = 0, b = 0, c = 0, d = 0;
      if (generic && op == 1 && width == 4) {
        asm volatile("ld.u32 %0, [%1];" : "=r"(a) : "l"(gen) : "memory");
      } else if (generic && op == 2 && width == 4) {
        asm volatile("st.u32 [%0], %1;" ::"l"(gen), "r"(lane) : "memory");
      } else if (op == 1 && width == 4) {
        asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(a) : "r"(remote) : "memory");
      } else if (op == 1 && width == 8) {
        asm volatile("ld.shared::cluster.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(remote) : "memory");
      } else if (op == 1 && width == 16) {
        asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                     : "r"(remote)
                     : "memory");
      } else if (op == 2 && width == 4) {
        asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(remote), "r"(lane) : "memory");
      } else if (op == 2 && width == 8) {
        asm volatile("st.shared::cluster.v2.u32 [%0], {%1, %1};" ::"r"(remote), "r"(lane) : "memory");
      } else if (op == 2 && width == 16) {
        asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(remote), "r"(lane) : "memory");
      } else if (generic && op == 3) {
        asm volatile("atom.add.u32 %0, [%1], 1;" : "=r"(a) : "l"(gen) : "memory");
      } else if (op == 3) {
        asm volatile("atom.shared::cluster.add.u32 %0, [%1], 1;" : "=r"(a) : "r"(remote) : "memory");
      } else if (op == 4) {
        asm volatile("red.shared::cluster.add.u32 [%0], 1;" ::"r"(remote) : "memory");
      }
      acc += a ^ b ^ c ^ d;
    }
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
  out[rank * 32 + lane] = acc;
}

// Clusters of 4 one-warp blocks: lane l of block rank 0 reaches block
// table[l] (itself for 0) at byte offset table[32 + l] of its buffer
// (op 1 ld, 2 st, 3 atom.add; 4-byte accesses; lanes outside mask idle).
// What DSMEM sectors an instruction costs whose lanes reach several peers.
__global__ void __cluster_dims__(4, 1, 1) dsm_table_probe(int op, const unsigned* table, unsigned mask,
                                                         unsigned* out) {
  __shared__ __align__(16) uint32_t buf[4096];
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) buf[i] = i;
  asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const unsigned lane = threadIdx.x;
  uint32_t a = 0;
  if (rank == 0 && (mask >> lane & 1)) {
    const uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(buf)) + table[32 + lane] % 16384;
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(table[lane] % 4));
    if (op == 1)
      asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(a) : "r"(remote) : "memory");
    else if (op == 2)
      asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(remote), "r"(lane) : "memory");
    else if (op == 3)
      asm volatile("atom.shared::cluster.add.u32 %0, [%1], 1;" : "=r"(a) : "r"(remote) : "memory");
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::: "memory");
  out[rank * 32 + lane] = a;
  if (lane == 0) {  // where each block ran (the host prints it: placement of ranks)
    uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    out[128 + rank] = sm;
  }
}

// dsm_table's access from rank `from` of a cluster of `csize` blocks (a
// cudaLaunchKernelEx cluster dimension, 2 ... 16): lane i reaches rank
// table[i] % csize at byte offset table[32 + i]; every block records its %smid
// at out[256 + rank] (which ranks share an SM pair: docs/bank-model.md, DSMEM).
__global__ void dsm_cl_probe(int op, const unsigned* table, unsigned mask, unsigned from,
                             unsigned csize, unsigned* out) {
  __shared__ __align__(16) uint32_t buf[4096];
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) buf[i] = i;
  asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const unsigned lane = threadIdx.x;
  uint32_t a = 0;
  if (rank == from && (mask >> lane & 1)) {
    const uint32_t local =
        static_cast<uint32_t>(__cvta_generic_to_shared(buf)) + table[32 + lane] % 16384;
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(remote)
                 : "r"(local), "r"(table[lane] % csize));
    if (op == 1)
      asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(a) : "r"(remote) : "memory");
    else if (op == 2)
      asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(remote), "r"(lane) : "memory");
    else if (op == 3)
      asm volatile("atom.shared::cluster.add.u32 %0, [%1], 1;" : "=r"(a) : "r"(remote) : "memory");
    else if (op == 4)
      asm volatile("red.shared::cluster.add.u32 [%0], 1;" ::"r"(remote) : "memory");
    else if (op == 5) {  // 64-bit: offsets 8-byte aligned (the table's, rounded down)
      unsigned long long v;
      asm volatile("atom.shared::cluster.add.u64 %0, [%1], 1;"
                   : "=l"(v)
                   : "r"(remote & ~7u)
                   : "memory");
      a = static_cast<uint32_t>(v);
    } else if (op == 6)
      asm volatile("red.shared::cluster.add.u64 [%0], 1;" ::"r"(remote & ~7u) : "memory");
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n barrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
  out[lane] += a;
  if (lane == 0) {
    uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    out[256 + rank] = sm;
    // buf's shared-window address: the slice rule hashes the address, not
    // the offset into buf (docs/bank-model.md, DSMEM run 13)
    if (rank == from) out[272] = static_cast<uint32_t>(__cvta_generic_to_shared(buf));
  }
}

template <int SIZE, int CG>
__global__ void ldgsts_probe(const uint8_t* g, unsigned sstride, unsigned gstride, unsigned mask, int count,
                             unsigned soff, int sperm, int gperm) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const unsigned lane = threadIdx.x;
  const uint32_t dst = aligned_base(smem) + soff + permute(lane, sperm) * sstride;
  const uint8_t* src = g + permute(lane, gperm) * gstride;
  if (mask >> lane & 1) {
    for (int i = 0; i < count; ++i) {
      if constexpr (CG)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
      else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(SIZE) : "memory");
    }
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
}

// cp.async with each lane's shared and global offsets (and src-size, for
// .ca: 0 or SIZE) read from a table: table[lane], table[32 + lane],
// table[64 + lane].
template <int SIZE, int CG>
__global__ void ldgsts_table_probe(const uint8_t* g, const unsigned* table, unsigned mask, int zfill) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const unsigned lane = threadIdx.x;
  const uint32_t dst = aligned_base(smem) + table[lane];
  const uint8_t* src = g + table[32 + lane];
  if (mask >> lane & 1) {
    if constexpr (CG) {
      if (zfill == 2)  // a size of 0 or 16: the predicated form
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
                     "r"(table[64 + lane] ? 16 : 0)
                     : "memory");
      else if (zfill)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(table[64 + lane])
                     : "memory");
      else
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
    } else if (zfill == 2)
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(dst), "l"(src), "n"(SIZE),
                   "r"(table[64 + lane] ? SIZE : 0)
                   : "memory");
    else if (zfill)
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(dst), "l"(src), "n"(SIZE),
                   "r"(table[64 + lane])
                   : "memory");
    else
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(SIZE) : "memory");
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
}

// mbarrier operations (op: 0 arrive, 1 init, 2 test_wait, 3 expect_tx, 4
// arrive.expect_tx) on lane i's barrier at spread * i.
__global__ void mbar_probe(int op, unsigned mask, unsigned spread, int count, unsigned* out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const unsigned lane = threadIdx.x;
  const uint32_t bar = aligned_base(smem) + lane * spread;
  if (spread != 0 || lane == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1000000;" ::"r"(bar) : "memory");
  __syncwarp();
  unsigned acc = 0;
  if (mask >> lane & 1)
    for (int i = 0; i < count; ++i) {
      if (op == 0)
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
      else if (op == 1)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1000000;" ::"r"(bar) : "memory");
      else if (op == 2) {
        uint32_t done;
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 1;\n"
            " selp.u32 %0, 1, 0, p;\n}"
            : "=r"(done)
            : "r"(bar)
            : "memory");
        acc += done;
      } else if (op == 3)
        asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 16;" ::"r"(bar) : "memory");
      else
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" ::"r"(bar) : "memory");
    }
  out[lane] = acc;
}

// One thread's L2 prefetches: bulk (bytes from g) or tensor (the box at 0,0).
__global__ void pf_probe(const __grid_constant__ CUtensorMap map, const uint8_t* g, int tensor, unsigned bytes,
                         int count) {
  if (threadIdx.x != 0) return;
  for (int i = 0; i < count; ++i) {
    if (tensor)
      asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(&map), "r"(0), "r"(0)
                   : "memory");
    else
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(g + 4096 * i), "r"(bytes) : "memory");
  }
}

using Params = std::map<std::string, std::string>;

long num(const Params& p, const char* k, long dflt) {
  auto it = p.find(k);
  return it == p.end() ? dflt : std::strtol(it->second.c_str(), nullptr, 0);
}
unsigned long long unum(const Params& p, const char* k, unsigned long long dflt) {
  auto it = p.find(k);
  return it == p.end() ? dflt : std::strtoull(it->second.c_str(), nullptr, 0);
}
std::string str(const Params& p, const char* k, const char* dflt) {
  auto it = p.find(k);
  return it == p.end() ? dflt : it->second;
}
std::vector<long> list(const std::string& s) {
  std::vector<long> v;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ',')) v.push_back(std::strtol(x.c_str(), nullptr, 0));
  return v;
}

struct Device {
  uint8_t* global = nullptr;  // 4 MiB of patterned bytes: TMA/bulk/cp.async sources and destinations
  unsigned* flags = nullptr;
  unsigned* out = nullptr;
};

constexpr size_t kGlobal = 4u << 20;
constexpr unsigned kSmem = 200 * 1024;

std::string run_tma(const Params& p, const Device& dev) {
  const int es = num(p, "es", 4);
  const int sw = num(p, "sw", 0);
  std::vector<long> box = list(str(p, "box", "8,8"));
  const int dims = box.size() == 3 ? 3 : 2;
  const cuuint64_t dim0 = num(p, "dim0", 256), dim1 = num(p, "dim1", 64);
  const cuuint64_t dim[3] = {dim0, dim1, 8};
  // pitch: bytes between rows (default dim0 * es; a multiple of 16 wider than
  // a row leaves the row's last chunk partly inside the tensor).
  const cuuint64_t pitch = num(p, "pitch", static_cast<int>(dim0 * es));
  const cuuint64_t strides[2] = {pitch, pitch * dim1};
  cuuint32_t b[3], e[3] = {1, 1, 1};
  for (int i = 0; i < dims; ++i) b[i] = box[i];
  const CUtensorMapDataType type = es == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : es == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                             : CU_TENSOR_MAP_DATA_TYPE_UINT32;
  CUtensorMap map;
  static EncodeTiled enc = encode_tiled();
  if (!enc) return "no cuTensorMapEncodeTiled";
  // promo: CUtensorMapL2promotion (0 none .. 3 256B; tma_tile asks 128B).
  CUresult r = enc(&map, type, dims, dev.global, dim, strides, b, e, CU_TENSOR_MAP_INTERLEAVE_NONE,
                   static_cast<CUtensorMapSwizzle>(sw), static_cast<CUtensorMapL2promotion>(num(p, "promo", 0)),
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) return "encode error " + std::to_string(r);
  const unsigned inner = b[0] * es, span = sw ? 16u << sw : 0;
  unsigned rows = b[1] * (dims == 3 ? b[2] : 1);
  const unsigned footprint = rows * (span > inner ? span : inner);
  const unsigned soff = num(p, "soff", 0);
  const unsigned step = (footprint + soff + 1023) / 1024 * 1024;
  const int count = num(p, "count", 1);
  const std::string mode = str(p, "mode", "load");
  const int store = mode == "store" ? 1 : mode == "reduce" ? 2 : 0;
  std::vector<long> c = list(str(p, "c", "0,0"));
  tma_probe<<<1, 32, kSmem>>>(map, store, dims, count, soff, step, inner * rows, c[0], c[1], dev.flags);
  return "";
}

std::string run_pf(const Params& p, const Device& dev) {
  CUtensorMap map{};
  const bool tensor = str(p, "mode", "bulk") == "tensor";
  if (tensor) {
    std::vector<long> box = list(str(p, "box", "8,8"));
    const cuuint64_t dim[2] = {256, 64}, strides[1] = {256 * 4};
    const cuuint32_t b[2] = {static_cast<cuuint32_t>(box[0]), static_cast<cuuint32_t>(box[1])}, e[2] = {1, 1};
    static EncodeTiled enc = encode_tiled();
    if (!enc) return "no cuTensorMapEncodeTiled";
    CUresult r = enc(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, dev.global, dim, strides, b, e,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) return "encode error " + std::to_string(r);
  }
  pf_probe<<<1, 32>>>(map, dev.global, tensor, num(p, "bytes", 256), num(p, "count", 1));
  return "";
}

std::string run_gmma(const Params& p, const Device& dev) {
  const int n = num(p, "n", 8), ss = num(p, "ss", 0), ta = num(p, "ta", 0), tb = num(p, "tb", 0);
  for (const GmmaKernel& k : kGmmaKernels)
    if (k.n == n && k.ss == ss && k.ta == (ss ? ta : 0) && k.tb == tb) {
      k.fn<<<1, 128, kSmem>>>(unum(p, "da", 0), unum(p, "db", 0), num(p, "count", 1), dev.out);
      return "";
    }
  return "no such gmma kernel";
}

std::string run_case(const std::string& family, const Params& p, const Device& dev) {
  const int count = num(p, "count", 1);
  if (family == "tma") return run_tma(p, dev);
  if (family == "bulk") {
    bulk_probe<<<1, 32, kSmem>>>(dev.global + num(p, "goff", 0), str(p, "mode", "load") == "store", count,
                                 num(p, "soff", 0),
                                 num(p, "bytes", 16), dev.flags);
    return "";
  }
  if (family == "gmma") return run_gmma(p, dev);
  if (family == "mat") {
    MatKernel k = mat_kernel(num(p, "x", 1), num(p, "trans", 0), str(p, "op", "ld") == "st");
    if (!k) return "no such matrix kernel";
    k<<<1, 32, kSmem>>>(num(p, "stride", 16), num(p, "swz", 0), num(p, "soff", 0), count, dev.out);
    return "";
  }
  if (family == "dsm") {
    const std::string op = str(p, "op", "none");
    const int o = op == "ld" ? 1 : op == "st" ? 2 : op == "atom" ? 3 : op == "red" ? 4 : 0;
    dsm_probe<<<2, 32>>>(o, num(p, "width", 4), num(p, "stride", 4), unum(p, "mask", 0xffffffffu),
                         num(p, "target", 1), num(p, "generic", 0), count, num(p, "soff", 0), num(p, "perm", 0),
                         unum(p, "selfmask", 0), dev.out);
    return "";
  }
  if (family == "dsm_table") {  // t=32 target ranks (0..3), o=32 byte offsets
    std::vector<long> t = list(str(p, "t", "")), o = list(str(p, "o", ""));
    if (t.size() != 32 || o.size() != 32) return "dsm_table needs 32 t= ranks and 32 o= offsets";
    std::vector<unsigned> table(64, 0);
    for (int i = 0; i < 32; ++i) table[i] = t[i], table[32 + i] = o[i];
    cudaMemcpy(dev.out + 512, table.data(), 64 * 4, cudaMemcpyHostToDevice);
    const std::string op = str(p, "op", "atom");
    dsm_table_probe<<<4, 32>>>(op == "ld" ? 1 : op == "st" ? 2 : op == "atom" ? 3 : 0, dev.out + 512,
                               unum(p, "mask", 0xffffffffu), dev.out);
    unsigned sm[4] = {};
    if (cudaMemcpy(sm, dev.out + 128, sizeof sm, cudaMemcpyDeviceToHost) == cudaSuccess)
      std::printf("smid %s %u %u %u %u\n", str(p, "name", "?").c_str(), sm[0], sm[1], sm[2], sm[3]);
    return "";
  }
  if (family == "dsm_cl") {  // dsm_table in a cluster of c= blocks, issued by rank from=
    std::vector<long> t = list(str(p, "t", "")), o = list(str(p, "o", ""));
    if (t.size() != 32 || o.size() != 32) return "dsm_cl needs 32 t= ranks and 32 o= offsets";
    const unsigned csize = num(p, "c", 4), from = num(p, "from", 0);
    if (csize < 1 || csize > 16 || from >= csize) return "dsm_cl: c= 1..16, from= below c";
    std::vector<unsigned> table(64, 0);
    for (int i = 0; i < 32; ++i) table[i] = t[i], table[32 + i] = o[i];
    cudaMemcpy(dev.out + 512, table.data(), 64 * 4, cudaMemcpyHostToDevice);
    const std::string op = str(p, "op", "atom");
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(csize);
    cfg.blockDim = dim3(32);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = csize, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr, cfg.numAttrs = 1;
    if (csize > 8)
      cudaFuncSetAttribute(dsm_cl_probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaLaunchKernelEx(&cfg, dsm_cl_probe,
                       op == "ld"       ? 1
                       : op == "st"     ? 2
                       : op == "atom"   ? 3
                       : op == "red"    ? 4
                       : op == "atom64" ? 5
                       : op == "red64"  ? 6
                                        : 0,
                       static_cast<const unsigned*>(dev.out + 512), unum(p, "mask", 0xffffffffu),
                       from, csize, dev.out);
    unsigned sm[17] = {};
    if (cudaMemcpy(sm, dev.out + 256, sizeof sm, cudaMemcpyDeviceToHost) == cudaSuccess) {
      std::printf("smid %s", str(p, "name", "?").c_str());
      for (unsigned r = 0; r < csize; ++r) std::printf(" %u", sm[r]);
      std::printf("\nbase %s %u\n", str(p, "name", "?").c_str(), sm[16]);
    }
    return "";
  }
  if (family == "ldgsts_table") {  // s=32 shared offsets, g=32 global offsets, z=32 src-sizes
    std::vector<long> so = list(str(p, "s", "")), go = list(str(p, "g", "")), z = list(str(p, "z", ""));
    if (so.size() != 32 || go.size() != 32) return "ldgsts_table needs 32 s= and 32 g= offsets";
    std::vector<unsigned> table(96, 0);
    for (int i = 0; i < 32; ++i) {
      table[i] = so[i];
      table[32 + i] = go[i];
      table[64 + i] = z.size() == 32 ? z[i] : 0;
    }
    cudaMemcpy(dev.out + 512, table.data(), 96 * 4, cudaMemcpyHostToDevice);
    const int size = num(p, "size", 16), cg = num(p, "cg", 1);
    auto* k = cg ? ldgsts_table_probe<16, 1>
                 : size == 4 ? ldgsts_table_probe<4, 0>
                 : size == 8 ? ldgsts_table_probe<8, 0>
                             : ldgsts_table_probe<16, 0>;
    k<<<1, 32, kSmem>>>(dev.global, dev.out + 512, unum(p, "mask", 0xffffffffu),
                        z.size() == 32 ? (num(p, "pred", 0) ? 2 : 1) : 0);
    return "";
  }
  if (family == "mbar") {
    const std::string op = str(p, "op", "arrive");
    const int o = op == "arrive" ? 0 : op == "init" ? 1 : op == "test" ? 2 : op == "expect" ? 3 : 4;
    mbar_probe<<<1, 32, kSmem>>>(o, unum(p, "mask", 0xffffffffu), num(p, "spread", 8), count, dev.out);
    return "";
  }
  if (family == "pf") return run_pf(p, dev);
  if (family == "ldgsts") {
    const int size = num(p, "size", 4), cg = num(p, "cg", 0);
    auto* k = cg ? ldgsts_probe<16, 1>
                 : size == 4 ? ldgsts_probe<4, 0>
                 : size == 8 ? ldgsts_probe<8, 0>
                             : ldgsts_probe<16, 0>;
    k<<<1, 32, kSmem>>>(dev.global + num(p, "goff", 0), num(p, "sstride", size), num(p, "gstride", size),
                        unum(p, "mask", 0xffffffffu), count, num(p, "soff", 0), num(p, "sperm", 0),
                        num(p, "gperm", 0));
    return "";
  }
  return "unknown family " + family;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: probe CASEFILE [NAME,...]\n");
    return 2;
  }
  std::set<std::string> only;
  std::string prefix;
  if (argc > 2 && std::strncmp(argv[2], "prefix=", 7) == 0) {
    prefix = argv[2] + 7;
  } else if (argc > 2) {
    std::stringstream ss(argv[2]);
    std::string x;
    while (std::getline(ss, x, ',')) only.insert(x);
  }
  Device dev;
  cudaMalloc(&dev.global, kGlobal);
  cudaMalloc(&dev.flags, 64);
  cudaMalloc(&dev.out, 4096);
  std::vector<uint8_t> pattern(kGlobal);
  for (size_t i = 0; i < kGlobal; ++i) pattern[i] = static_cast<uint8_t>(i * 37 + 11);
  cudaMemcpy(dev.global, pattern.data(), kGlobal, cudaMemcpyHostToDevice);
  cudaMemset(dev.flags, 0, 64);
  // Every probe kernel may take up to kSmem bytes of dynamic shared memory.
  cudaFuncSetAttribute(tma_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(bulk_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  for (const GmmaKernel& k : kGmmaKernels)
    cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  for (int x : {1, 2, 4})
    for (int t : {0, 1})
      for (int s : {0, 1}) cudaFuncSetAttribute(mat_kernel(x, t, s), cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(ldgsts_probe<4, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(ldgsts_probe<8, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(ldgsts_probe<16, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(ldgsts_probe<16, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(ldgsts_table_probe<4, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(ldgsts_table_probe<8, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(ldgsts_table_probe<16, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(ldgsts_table_probe<16, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  cudaFuncSetAttribute(mbar_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::printf("setup error %s\n", cudaGetErrorName(e));
    return 1;
  }
  FILE* f = std::fopen(argv[1], "r");
  if (!f) {
    std::fprintf(stderr, "probe: cannot read %s\n", argv[1]);
    return 2;
  }
  char line[1024];
  int launch = 0, failed = 0;
  while (std::fgets(line, sizeof line, f)) {
    std::stringstream ss(line);
    std::string name, family, kv;
    if (!(ss >> name >> family) || name[0] == '#') continue;
    if (!only.empty() && !only.count(name)) continue;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    Params p;
    while (ss >> kv) {
      auto eq = kv.find('=');
      if (eq != std::string::npos) p[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    p["name"] = name;
    std::string err = run_case(family, p, dev);
    if (err.empty()) {
      cudaError_t le = cudaGetLastError();
      cudaError_t se = cudaDeviceSynchronize();
      unsigned flag = 0;
      cudaMemcpy(&flag, dev.flags, 4, cudaMemcpyDeviceToHost);
      if (le != cudaSuccess || se != cudaSuccess)
        err = std::string(cudaGetErrorName(le)) + "/" + cudaGetErrorName(se);
      else if (flag)
        err = "mbarrier wait timed out", cudaMemset(dev.flags, 0, 64);
      std::printf("launch %d %s %s\n", launch++, name.c_str(), err.empty() ? "ok" : err.c_str());
      if (se != cudaSuccess) {  // a sticky error ends the context: stop here
        std::printf("stopping after %s\n", name.c_str());
        return 1;
      }
    } else {
      std::printf("skipped %s %s\n", name.c_str(), err.c_str());
    }
    failed += !err.empty();
    std::fflush(stdout);
  }
  return failed ? 1 : 0;
}
