// The classic "unrolled last warp" reduction without volatile or __syncwarp:
// lanes read neighbours' partial sums with no synchronization, which
// independent thread scheduling (Volta+) no longer makes safe.
// smemlab: --kernel lastWarpUnsafe --grid 1 --block 64 --arg float[64]=random(2) --arg float[1]=zeros
__global__ void lastWarpUnsafe(const float* in, float* out) {
  __shared__ float s[64];
  unsigned t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  if (t < 32) {
    s[t] += s[t + 32];
    s[t] += s[t + 16];  // EXPECT: warp-race
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
  }
  if (t == 0) out[0] = s[0];
}
