// Which NaN do the H100's f32/f64 add, mul and fma produce from NaN operands with payloads?
#include <cstdio>
#include <cstdint>
#include <cstring>
__global__ void k(const float* a, const float* b, const float* c, uint32_t* out, const double* da, const double* db, uint64_t* dout) {
  int i = threadIdx.x;
  float x = a[i], y = b[i], z = c[i];
  out[i * 8 + 0] = __float_as_uint(__fadd_rn(x, y));
  out[i * 8 + 1] = __float_as_uint(__fmul_rn(x, y));
  out[i * 8 + 2] = __float_as_uint(__fmaf_rn(x, y, z));
  out[i * 8 + 3] = __float_as_uint(__fsub_rn(x, y));
  out[i * 8 + 4] = __float_as_uint(__fdiv_rn(x, y));
  out[i * 8 + 5] = __float_as_uint(fminf(x, y));
  out[i * 8 + 6] = __float_as_uint(__fsqrt_rn(x));
  out[i * 8 + 7] = __float_as_uint(__fadd_rz(x, y));
  dout[i * 3 + 0] = __double_as_longlong(__dadd_rn(da[i], db[i]));
  dout[i * 3 + 1] = __double_as_longlong(__dmul_rn(da[i], db[i]));
  dout[i * 3 + 2] = __double_as_longlong(__fma_rn(da[i], db[i], da[i]));
}
static float f(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static double d(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
int main() {
  const int n = 6;
  uint32_t A[n] = {0x7fc01234u, 0x3f800000u, 0xffc0abcdu, 0x7f800001u, 0x7fc01234u, 0x7f800000u};
  uint32_t B[n] = {0x3f800000u, 0x7fc05678u, 0x7fc05678u, 0x3f800000u, 0xffc0abcdu, 0xff800000u};
  uint32_t C[n] = {0x3f800000u, 0x3f800000u, 0x7fc09999u, 0x3f800000u, 0x3f800000u, 0x3f800000u};
  uint64_t DA[n] = {0x7ff8000000001234ull, 0x3ff0000000000000ull, 0xfff800000000abcdull, 0x7ff0000000000001ull, 0x7ff8000000001234ull, 0x7ff0000000000000ull};
  uint64_t DB[n] = {0x3ff0000000000000ull, 0x7ff8000000005678ull, 0x7ff8000000005678ull, 0x3ff0000000000000ull, 0xfff800000000abcdull, 0xfff0000000000000ull};
  float ha[n], hb[n], hc[n]; double hda[n], hdb[n];
  for (int i = 0; i < n; ++i) { ha[i] = f(A[i]); hb[i] = f(B[i]); hc[i] = f(C[i]); hda[i] = d(DA[i]); hdb[i] = d(DB[i]); }
  float *a, *b, *c; uint32_t* o; double *da, *db; uint64_t* dout;
  cudaMalloc(&a, sizeof ha); cudaMalloc(&b, sizeof hb); cudaMalloc(&c, sizeof hc); cudaMalloc(&o, n * 8 * 4);
  cudaMalloc(&da, sizeof hda); cudaMalloc(&db, sizeof hdb); cudaMalloc(&dout, n * 3 * 8);
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice); cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice);
  cudaMemcpy(c, hc, sizeof hc, cudaMemcpyHostToDevice); cudaMemcpy(da, hda, sizeof hda, cudaMemcpyHostToDevice);
  cudaMemcpy(db, hdb, sizeof hdb, cudaMemcpyHostToDevice);
  k<<<1, n>>>(a, b, c, o, da, db, dout);
  uint32_t ho[n * 8]; uint64_t hdo[n * 3];
  cudaMemcpy(ho, o, sizeof ho, cudaMemcpyDeviceToHost); cudaMemcpy(hdo, dout, sizeof hdo, cudaMemcpyDeviceToHost);
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
  for (int i = 0; i < n; ++i) {
    printf("f32 a=%08x b=%08x c=%08x: add %08x mul %08x fma %08x sub %08x div %08x min %08x sqrt(a) %08x add.rz %08x\n", A[i], B[i], C[i],
           ho[i*8], ho[i*8+1], ho[i*8+2], ho[i*8+3], ho[i*8+4], ho[i*8+5], ho[i*8+6], ho[i*8+7]);
    printf("f64 a=%016llx b=%016llx: add %016llx mul %016llx fma(a,b,a) %016llx\n", (unsigned long long)DA[i], (unsigned long long)DB[i],
           (unsigned long long)hdo[i*3], (unsigned long long)hdo[i*3+1], (unsigned long long)hdo[i*3+2]);
  }
}
