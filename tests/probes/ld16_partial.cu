// Single-warp probe: one 16-byte shared load (LDS.128) of consecutive float4s
// by the first `active` lanes, to measure how Nsight Compute's bank-conflict
// counter treats a partly active quarter-warp (docs/validation.md, fir_best).
// smemlab: --kernel ld16Partial --grid 1 --block 32 --arg float[32]=zeros --arg int=27
__global__ void ld16Partial(float* out, int active) {
  __shared__ float4 s[32];
  s[threadIdx.x] = make_float4(threadIdx.x, 1.f, 2.f, 3.f);
  __syncthreads();
  if (threadIdx.x < active) {
    float4 v = s[threadIdx.x];
    out[threadIdx.x] = v.x + v.y + v.z + v.w;
  }
}
