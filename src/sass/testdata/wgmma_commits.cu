#include <cstdint>
extern "C" __global__ void wgmma_commits(uint64_t db, int count, unsigned* out) {
  uint32_t d[2] = {};
  uint32_t a[4] = {threadIdx.x, threadIdx.x * 3u, 7u, 9u};
  const uint32_t one = 1;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int i = 0; i < count; ++i)
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %7, 0;\n wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, %6, p, 1, 1, 0;\n}"
                 : "+r"(d[0]), "+r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(one));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, %6, 1, 1, 1, 0;\n"
                 : "+r"(d[0]), "+r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  out[threadIdx.x] = d[0] ^ d[1];
}
