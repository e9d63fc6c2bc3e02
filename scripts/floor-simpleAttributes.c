// The native floor of cuda-samples simpleAttributes' one launch
// (kernCacheSegmentTest, 65535 blocks of 32x32 threads, hitCount 0xAFFFF):
// the same per-lane work in plain C, one thread, the block's 32 warps taking
// turns an iteration at a time. No emulation: what the CPU needs just for
// the loop's random read-modify-writes over its 12.5 MB and 200 MB buffers.
// docs/emulator.md ("Issue 29, h-conf29d") cites its numbers.
//
//   cc -O2 -o /tmp/floor scripts/floor-simpleAttributes.c && /tmp/floor 100
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv) {
  const int blocks = argc > 1 ? atoi(argv[1]) : 100;
  const int l2 = 50 * 1024 * 1024;  // an H100's l2CacheSize, as the sample reads it
  const int data_n = (l2 / 4) / 4, trash_n = (l2 * 4) / 4;
  int* data = malloc(sizeof(int) * (size_t)data_n);
  int* trash = malloc(sizeof(int) * (size_t)trash_n);
  for (int i = 0; i < trash_n; ++i) {
    if (i < data_n) data[i] = i;
    trash[trash_n - i - 1] = i;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  long iters = 0;
  for (int b = 0; b < blocks; ++b) {
    uint32_t ps[1024];
    int tid[1024];
    for (int t = 0; t < 1024; ++t) ps[t] = (uint32_t)(tid[t] = (t / 32) * 32 + b * 32 + t % 32);
    unsigned hit = 0, done = 0;
    int finished[32] = {0};
    while (done < 32)
      for (int w = 0; w < 32; ++w) {
        if (finished[w]) continue;
        if (hit >= 0xAFFFFu) {
          finished[w] = 1, ++done;
          continue;
        }
        for (int l = 0; l < 32; ++l, ++iters, ++hit) {
          const int t = w * 32 + l;
          uint32_t p = ps[t];
          p ^= p << 13, p ^= p >> 17, p ^= p << 5;
          ps[t] = p;
          int idx = tid[t] - (int)p;
          if (idx < 0) idx = -idx;
          if (tid[t] % 2 == 0)
            data[p % data_n] = data[p % data_n] + data[idx % data_n];
          else
            trash[p % trash_n] = trash[p % trash_n] + trash[idx % trash_n];
        }
      }
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  const double s = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  printf("%d blocks: %ld lane-iterations, %.2f CPU s, %.1f ns each; 65535 blocks: %.0f CPU s\n",
         blocks, iters, s, s / iters * 1e9, s / blocks * 65535);
  return data[1] == 12345;  // keep the stores
}
