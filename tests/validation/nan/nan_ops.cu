// Which bits do the GPU's arithmetic instructions return for NaN, infinite and
// invalid operands? One thread per operand set, one PTX instruction per
// column (inline asm, so the instruction measured is the one named), plus a
// few libdevice functions. The output is one line per instruction and operand
// set; tests compare `smemlab run` of this program with the GPU's lines.
#include <cstdint>
#include <cstdio>

#define F1(NAME, PTX) \
  __device__ uint32_t NAME(uint32_t a, uint32_t, uint32_t) { float r; asm(PTX " %0, %1;" : "=f"(r) : "f"(__uint_as_float(a))); return __float_as_uint(r); }
#define F2(NAME, PTX) \
  __device__ uint32_t NAME(uint32_t a, uint32_t b, uint32_t) { float r; asm(PTX " %0, %1, %2;" : "=f"(r) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b))); return __float_as_uint(r); }
#define H1(NAME, PTX) \
  __device__ uint32_t NAME(uint32_t a, uint32_t, uint32_t) { unsigned short r; asm(PTX " %0, %1;" : "=h"(r) : "h"((unsigned short)a)); return r; }
#define H2(NAME, PTX) \
  __device__ uint32_t NAME(uint32_t a, uint32_t b, uint32_t) { unsigned short r; asm(PTX " %0, %1, %2;" : "=h"(r) : "h"((unsigned short)a), "h"((unsigned short)b)); return r; }
#define H3(NAME, PTX) \
  __device__ uint32_t NAME(uint32_t a, uint32_t b, uint32_t c) { unsigned short r; asm(PTX " %0, %1, %2, %3;" : "=h"(r) : "h"((unsigned short)a), "h"((unsigned short)b), "h"((unsigned short)c)); return r; }
#define X2(NAME, PTX) \
  __device__ uint32_t NAME(uint32_t a, uint32_t b, uint32_t) { uint32_t r; asm(PTX " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }

F1(rcp_approx, "rcp.approx.f32") F1(rcp_approx_ftz, "rcp.approx.ftz.f32") F1(rcp_rn, "rcp.rn.f32")
F1(sqrt_approx, "sqrt.approx.f32") F1(sqrt_rn, "sqrt.rn.f32") F1(rsqrt_approx, "rsqrt.approx.f32")
F1(ex2_approx, "ex2.approx.f32") F1(ex2_approx_ftz, "ex2.approx.ftz.f32") F1(lg2_approx, "lg2.approx.f32")
F1(sin_approx, "sin.approx.f32") F1(cos_approx, "cos.approx.f32") F1(tanh_approx, "tanh.approx.f32")
F1(abs_f32, "abs.f32") F1(neg_f32, "neg.f32") F1(cvt_rni_f32, "cvt.rni.f32.f32")
F2(div_approx, "div.approx.f32") F2(div_full, "div.full.f32") F2(div_rn, "div.rn.f32")
F2(min_f32, "min.f32") F2(max_f32, "max.f32") F2(add_f32, "add.f32") F2(copysign_f32, "copysign.f32")
F2(add_sat_f32, "add.sat.f32")
__device__ uint32_t cvt_f16_f32(uint32_t a, uint32_t, uint32_t) { unsigned short r; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(__uint_as_float(a))); return r; }
__device__ uint32_t cvt_bf16_f32(uint32_t a, uint32_t, uint32_t) { unsigned short r; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(__uint_as_float(a))); return r; }
__device__ uint32_t cvt_f32_bf16(uint32_t a, uint32_t, uint32_t) { float r; asm("cvt.f32.bf16 %0, %1;" : "=f"(r) : "h"((unsigned short)a)); return __float_as_uint(r); }
__device__ uint32_t cvt_f16x2_f32(uint32_t a, uint32_t b, uint32_t) { uint32_t r; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b))); return r; }
__device__ uint32_t cvt_bf16x2_f32(uint32_t a, uint32_t b, uint32_t) { uint32_t r; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b))); return r; }
__device__ uint32_t cvt_rzi_s32_f32(uint32_t a, uint32_t, uint32_t) { int r; asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(r) : "f"(__uint_as_float(a))); return (uint32_t)r; }
__device__ uint32_t cvt_rni_u32_f32(uint32_t a, uint32_t, uint32_t) { unsigned r; asm("cvt.rni.u32.f32 %0, %1;" : "=r"(r) : "f"(__uint_as_float(a))); return r; }
// f16 (low 16 bits of the operands)
H2(add_f16, "add.f16") H2(mul_f16, "mul.f16") H3(fma_f16, "fma.rn.f16") H2(min_f16, "min.f16") H2(max_f16, "max.f16")
H1(ex2_f16, "ex2.approx.f16") H1(tanh_f16, "tanh.approx.f16") H2(add_bf16, "add.bf16") H3(fma_bf16, "fma.rn.bf16")
H2(mul_bf16, "mul.bf16") H2(min_bf16, "min.bf16") H2(max_bf16, "max.bf16") H1(neg_f16, "neg.f16") H1(abs_f16, "abs.f16")
__device__ uint32_t cvt_f32_f16(uint32_t a, uint32_t, uint32_t) { float r; asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"((unsigned short)a)); return __float_as_uint(r); }
X2(add_f16x2, "add.f16x2") X2(min_f16x2, "min.f16x2") X2(max_f16x2, "max.f16x2") X2(min_bf16x2, "min.bf16x2")
// libdevice functions
__device__ uint32_t lib_expf(uint32_t a, uint32_t, uint32_t) { return __float_as_uint(expf(__uint_as_float(a))); }
__device__ uint32_t lib_logf(uint32_t a, uint32_t, uint32_t) { return __float_as_uint(logf(__uint_as_float(a))); }
__device__ uint32_t lib_sinf(uint32_t a, uint32_t, uint32_t) { return __float_as_uint(sinf(__uint_as_float(a))); }
__device__ uint32_t lib_powf(uint32_t a, uint32_t b, uint32_t) { return __float_as_uint(powf(__uint_as_float(a), __uint_as_float(b))); }
__device__ uint32_t lib_sqrtf(uint32_t a, uint32_t, uint32_t) { return __float_as_uint(sqrtf(__uint_as_float(a))); }
__device__ uint32_t lib_tanhf(uint32_t a, uint32_t, uint32_t) { return __float_as_uint(tanhf(__uint_as_float(a))); }
__device__ uint32_t lib_fdividef(uint32_t a, uint32_t b, uint32_t) { return __float_as_uint(__fdividef(__uint_as_float(a), __uint_as_float(b))); }

typedef uint32_t (*Fn)(uint32_t, uint32_t, uint32_t);
#define OPS(X) X(rcp_approx) X(rcp_approx_ftz) X(rcp_rn) X(sqrt_approx) X(sqrt_rn) X(rsqrt_approx) X(ex2_approx) \
  X(ex2_approx_ftz) X(lg2_approx) X(sin_approx) X(cos_approx) X(tanh_approx) X(abs_f32) X(neg_f32) X(cvt_rni_f32) \
  X(div_approx) X(div_full) X(div_rn) X(min_f32) X(max_f32) X(add_f32) X(copysign_f32) X(add_sat_f32) X(cvt_f16_f32) X(cvt_bf16_f32) \
  X(cvt_f32_bf16) X(cvt_f16x2_f32) X(cvt_bf16x2_f32) \
  X(cvt_rzi_s32_f32) X(cvt_rni_u32_f32) X(cvt_f32_f16) X(add_f16) X(mul_f16) X(fma_f16) X(min_f16) X(max_f16) \
  X(ex2_f16) X(tanh_f16) X(add_bf16) X(fma_bf16) X(mul_bf16) X(min_bf16) X(max_bf16) X(neg_f16) X(abs_f16) \
  X(add_f16x2) X(min_f16x2) X(max_f16x2) X(min_bf16x2) X(lib_expf) X(lib_logf) X(lib_sinf) \
  X(lib_powf) X(lib_sqrtf) X(lib_tanhf) X(lib_fdividef)
#define NAME_OF(f) #f,
#define CALL_OF(f) out[i * kOps + j++] = f(a, b, c);
#define COUNT_OF(f) +1
constexpr int kOps = 0 OPS(COUNT_OF);
static const char* kNames[] = {OPS(NAME_OF)};

// f64 instructions, a separate table (64-bit operands).
#define D1(NAME, PTX) \
  __device__ uint64_t NAME(uint64_t a, uint64_t) { double r; asm(PTX " %0, %1;" : "=d"(r) : "d"(__longlong_as_double(a))); return __double_as_longlong(r); }
#define D2(NAME, PTX) \
  __device__ uint64_t NAME(uint64_t a, uint64_t b) { double r; asm(PTX " %0, %1, %2;" : "=d"(r) : "d"(__longlong_as_double(a)), "d"(__longlong_as_double(b))); return __double_as_longlong(r); }
D1(rcp_rn_f64, "rcp.rn.f64") D1(rcp_approx_f64, "rcp.approx.ftz.f64") D1(sqrt_rn_f64, "sqrt.rn.f64") D1(rsqrt_f64, "rsqrt.approx.f64")
D1(abs_f64, "abs.f64") D1(neg_f64, "neg.f64") D2(div_rn_f64, "div.rn.f64") D2(min_f64, "min.f64") D2(max_f64, "max.f64")
D2(sub_f64, "sub.f64")
__device__ uint64_t cvt_f32_f64(uint64_t a, uint64_t) { float r; asm("cvt.rn.f32.f64 %0, %1;" : "=f"(r) : "d"(__longlong_as_double(a))); return __float_as_uint(r); }
__device__ uint64_t cvt_f64_f32(uint64_t a, uint64_t) { double r; asm("cvt.f64.f32 %0, %1;" : "=d"(r) : "f"(__uint_as_float((uint32_t)(a >> 32)))); return __double_as_longlong(r); }
__device__ uint64_t cvt_f16_f64(uint64_t a, uint64_t) { unsigned short r; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(r) : "d"(__longlong_as_double(a))); return r; }
__device__ uint64_t cvt_bf16_f64(uint64_t a, uint64_t) { unsigned short r; asm("cvt.rn.bf16.f64 %0, %1;" : "=h"(r) : "d"(__longlong_as_double(a))); return r; }
__device__ uint64_t cvt_f64_f16(uint64_t a, uint64_t) { double r; asm("cvt.f64.f16 %0, %1;" : "=d"(r) : "h"((unsigned short)(a >> 48))); return __double_as_longlong(r); }
__device__ uint64_t cvt_rni_f64(uint64_t a, uint64_t) { double r; asm("cvt.rni.f64.f64 %0, %1;" : "=d"(r) : "d"(__longlong_as_double(a))); return __double_as_longlong(r); }
__device__ uint64_t lib_exp(uint64_t a, uint64_t) { return __double_as_longlong(exp(__longlong_as_double(a))); }
__device__ uint64_t lib_log(uint64_t a, uint64_t) { return __double_as_longlong(log(__longlong_as_double(a))); }
#define DOPS(X) X(rcp_rn_f64) X(rcp_approx_f64) X(sqrt_rn_f64) X(rsqrt_f64) X(abs_f64) X(neg_f64) X(div_rn_f64) \
  X(min_f64) X(max_f64) X(sub_f64) X(cvt_f32_f64) X(cvt_f64_f32) X(cvt_f16_f64) X(cvt_bf16_f64) X(cvt_f64_f16) \
  X(cvt_rni_f64) X(lib_exp) X(lib_log)
#define DCALL_OF(f) dout[i * kDOps + j++] = f(a, b);
constexpr int kDOps = 0 DOPS(COUNT_OF);
static const char* kDNames[] = {DOPS(NAME_OF)};

__global__ void k32(const uint32_t* A, const uint32_t* B, const uint32_t* C, uint32_t* out, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  uint32_t a = A[i], b = B[i], c = C[i];
  int j = 0;
  OPS(CALL_OF)
}
__global__ void k64(const uint64_t* A, const uint64_t* B, uint64_t* dout, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  uint64_t a = A[i], b = B[i];
  int j = 0;
  DOPS(DCALL_OF)
}

int main() {
  // a, b, c as f32 bits; the f16 columns read the same words' low halves
  // (so the f16 sets are listed beside them: 7e12 a quiet NaN with payload,
  // 7c01 a signalling one, fe34 a negative quiet one, 7c00/fc00 infinities;
  // the last two sets hold bf16 NaNs: ffc2, 7f81 signalling, 7fc5, 7fc9).
  const uint32_t A[] = {0x7fc01234u, 0x3f800000u, 0xffc0abcdu, 0x7f800001u, 0x7f800000u, 0xff800000u, 0x00000000u,
                        0x80000000u, 0xbf800000u, 0x7fc07e12u, 0x3c00fe34u, 0x7c00u, 0x7c01u, 0x0000u, 0x7fc1ffc2u, 0x3f807f81u};
  const uint32_t B[] = {0x3f800000u, 0x7fc05678u, 0x7fc05678u, 0x3f800000u, 0xff800000u, 0x7f800000u, 0x00000000u,
                        0x80000000u, 0x3f800000u, 0x3c003c00u, 0x7c017e12u, 0xfc00u, 0x3c00u, 0x0000u, 0x3f807fc5u, 0xffc23f80u};
  const uint32_t C[] = {0x3f800000u, 0x3f800000u, 0x7fc09999u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u,
                        0x3f800000u, 0x3f800000u, 0x3c00u, 0x3c00u, 0x3c00u, 0xfe34u, 0x3c00u, 0x3f80u, 0x7fc9u};
  const int n = sizeof A / sizeof A[0];
  const uint64_t DA[] = {0x7ff8000000001234ull, 0x3ff0000000000000ull, 0xfff800000000abcdull, 0x7ff0000000000001ull,
                         0x7ff0000000000000ull, 0xfff0000000000000ull, 0ull, 0xbff0000000000000ull,
                         0x7fc0123400000000ull, 0xffc0abcd00000000ull, 0x7f80000100000000ull};
  const uint64_t DB[] = {0x3ff0000000000000ull, 0x7ff8000000005678ull, 0x7ff8000000005678ull, 0x3ff0000000000000ull,
                         0xfff0000000000000ull, 0x7ff0000000000000ull, 0ull, 0x3ff0000000000000ull,
                         0x3ff0000000000000ull, 0x3ff0000000000000ull, 0x3ff0000000000000ull};
  const int dn = sizeof DA / sizeof DA[0];
  uint32_t *a, *b, *c, *o;
  uint64_t *da, *db, *dout;
  cudaMalloc(&a, sizeof A); cudaMalloc(&b, sizeof B); cudaMalloc(&c, sizeof C); cudaMalloc(&o, n * kOps * 4);
  cudaMalloc(&da, sizeof DA); cudaMalloc(&db, sizeof DB); cudaMalloc(&dout, dn * kDOps * 8);
  cudaMemcpy(a, A, sizeof A, cudaMemcpyHostToDevice); cudaMemcpy(b, B, sizeof B, cudaMemcpyHostToDevice);
  cudaMemcpy(c, C, sizeof C, cudaMemcpyHostToDevice); cudaMemcpy(da, DA, sizeof DA, cudaMemcpyHostToDevice);
  cudaMemcpy(db, DB, sizeof DB, cudaMemcpyHostToDevice);
  k32<<<1, 32>>>(a, b, c, o, n);
  k64<<<1, 32>>>(da, db, dout, dn);
  static uint32_t ho[64 * kOps];
  static uint64_t hdo[64 * kDOps];
  cudaMemcpy(ho, o, n * kOps * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(hdo, dout, dn * kDOps * 8, cudaMemcpyDeviceToHost);
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
  for (int j = 0; j < kOps; ++j)
    for (int i = 0; i < n; ++i) printf("%s %08x %08x %08x -> %08x\n", kNames[j], A[i], B[i], C[i], ho[i * kOps + j]);
  for (int j = 0; j < kDOps; ++j)
    for (int i = 0; i < dn; ++i)
      printf("%s %016llx %016llx -> %016llx\n", kDNames[j], (unsigned long long)DA[i], (unsigned long long)DB[i],
             (unsigned long long)hdo[i * kDOps + j]);
  return 0;
}
