// Special registers and the built-in external functions (vprintf,
// __assertfail, malloc, free) through PTX snippets.
#include <gtest/gtest.h>

#include "emu/device_runtime.h"
#include "emu/memory.h"
#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

TEST(SpecialRegisters, WarpSizeEnvregAndTimers) {
  auto r = run_snippet(R"(
  mov.u32 %r1, WARP_SZ;
  add.u32 %r2, %r15, WARP_SZ;
  mov.u32 %r3, %envreg31;
  mov.u64 %rd1, %globaltimer;
  mov.u32 %r4, %globaltimer_hi;
  mov.u64 %rd2, %globaltimer;
  st.u32 [%rd14], %r1;
  st.u32 [%rd14+8], %r2;
  st.u32 [%rd14+16], %r3;
  st.u64 [%rd14+24], %rd1;
  st.u32 [%rd14+32], %r4;
  st.u64 [%rd14+40], %rd2;)",
                       2);
  SNIPPET_OK(r);
  EXPECT_EQ(r.u32(0), 32u);
  EXPECT_EQ(r.u32(1, 1), 33u);
  EXPECT_EQ(r.u32(2), 0u);
  EXPECT_LT(r.at(0, 3), r.at(0, 5));  // the timer advances
  EXPECT_EQ(r.u32(4), 0u);            // upper half of a small count
}

TEST(SpecialRegisters, EnvregOutOfRangeIsUndeclared) {
  auto r = run_snippet("  mov.u32 %r1, %envreg32;");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("undeclared register or symbol '%envreg32'"), std::string::npos)
      << r.error;
}

// A .global NUL-terminated byte array, as nvcc writes string literals.
std::string cstring(const std::string& name, const std::string& text) {
  std::string bytes;
  for (char ch : text) bytes += std::to_string(static_cast<unsigned char>(ch)) + ", ";
  return ".global .align 1 .b8 " + name + "[" + std::to_string(text.size() + 1) + "] = {" + bytes +
         "0};\n";
}

const std::string kExterns = std::string(R"(
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.extern .func (.param .b64 func_retval0) malloc (.param .b64 malloc_param_0);
.extern .func free (.param .b64 free_param_0);
.extern .func __assertfail (.param .b64 p0, .param .b64 p1, .param .b32 p2, .param .b64 p3, .param .b64 p4);
.extern .func (.param .b64 func_retval0) cudaGetParameterBufferV2 (.param .b64 p0, .param .align 4 .b8 p1[12], .param .align 4 .b8 p2[12], .param .b32 p3);
.extern .func (.param .b32 func_retval0) mystery (.param .b32 p0);
)") + cstring("fmt1", "i=%d u=%u c=%c f=%.3f ll=%lld s=%s|%%\n") +
                             cstring("word", "abc") + cstring("fmt2", "%5.1f|%-3d|") +
                             cstring("msg", "x > 0") + cstring("file", "k.cu") +
                             cstring("fn", "void k()");

// Packs the vprintf argument buffer the way nvcc does: each argument at an
// offset aligned to its size (int 4, double 8, pointers 8).
TEST(Builtins, VprintfPacksArgumentsLikeCuda) {
  std::string out;
  auto r = run_snippet(R"(
  .local .align 8 .b8 buf[48];
  mov.u64 %rd1, buf;
  cvta.local.u64 %rd2, %rd1;
  st.local.u32 [buf], -7;
  st.local.u32 [buf+4], 4000000000;
  st.local.u32 [buf+8], 65;
  cvt.f64.f32 %fd1, 0f3FC00000;
  st.local.f64 [buf+16], %fd1;
  st.local.u64 [buf+24], -5000000000;
  mov.u64 %rd3, word;
  cvta.global.u64 %rd4, %rd3;
  st.local.u64 [buf+32], %rd4;
  mov.u64 %rd5, fmt1;
  cvta.global.u64 %rd6, %rd5;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd6;
  .param .b64 param1;
  st.param.b64 [param1], %rd2;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  ld.param.b32 %r1, [retval0];
  }
  st.u32 [%rd14], %r1;)",
                       2, kExterns, 0, &out);
  SNIPPET_OK(r);
  std::string line = "i=-7 u=4000000000 c=A f=1.500 ll=-5000000000 s=abc|%\n";
  EXPECT_EQ(out, line + line);  // thread 0, then thread 1
  EXPECT_EQ(r.u32(0), 6u);      // vprintf returns the number of arguments
}

TEST(Builtins, VprintfWidthsAndBadArgumentPointer) {
  std::string out;
  auto r = run_snippet(R"(
  .local .align 8 .b8 buf[16];
  mov.u64 %rd1, buf;
  cvta.local.u64 %rd2, %rd1;
  cvt.f64.f32 %fd1, 0fC0200000;
  st.local.f64 [buf], %fd1;
  st.local.u32 [buf+8], 42;
  mov.u64 %rd5, fmt2;
  cvta.global.u64 %rd6, %rd5;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd6;
  .param .b64 param1;
  st.param.b64 [param1], %rd2;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  })",
                       1, kExterns, 0, &out);
  SNIPPET_OK(r);
  EXPECT_EQ(out, " -2.5|42 |");
  // The argument buffer pointer is 0: reading it is an out-of-bounds fault.
  auto bad = run_snippet(R"(
  mov.u64 %rd5, fmt2;
  cvta.global.u64 %rd6, %rd5;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd6;
  .param .b64 param1;
  st.param.b64 [param1], 0;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  })",
                         1, kExterns, 0, &out);
  ASSERT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("global load of 8 bytes at 0x0 is outside every allocation"),
            std::string::npos)
      << bad.error;
}

std::string malloc_call(const std::string& size, const std::string& dst) {
  return "  {\n  .param .b64 param0;\n  st.param.b64 [param0], " + size +
         ";\n  .param .b64 retval0;\n  call.uni (retval0), malloc, (param0);\n  ld.param.b64 " +
         dst + ", [retval0];\n  }\n";
}
std::string free_call(const std::string& ptr) {
  return "  {\n  .param .b64 param0;\n  st.param.b64 [param0], " + ptr +
         ";\n  call.uni free, (param0);\n  }\n";
}

TEST(Builtins, MallocAlignedZeroWhenExhaustedAndFree) {
  auto r = run_snippet(malloc_call("40", "%rd1") + malloc_call("9000000", "%rd2") +
                           malloc_call("0", "%rd3") + R"(
  st.u32 [%rd1+36], 5;
  ld.u32 %r1, [%rd1+36];
  st.u64 [%rd14], %rd1;
  st.u64 [%rd14+8], %rd2;
  st.u32 [%rd14+16], %r1;
)" + free_call("%rd1") + free_call("0") +
                           free_call("%rd3"),
                       2, kExterns);
  SNIPPET_OK(r);
  EXPECT_NE(r.at(0, 0), 0u);
  EXPECT_EQ(r.at(0, 0) % 16, 0u);
  EXPECT_NE(r.at(0, 0), r.at(1, 0));  // each thread its own block
  EXPECT_EQ(r.at(0, 1), 0u);          // more than the 8 MiB heap: NULL
  EXPECT_EQ(r.u32(2), 5u);
}

TEST(Builtins, HeapOverrunDoubleFreeAndBadFree) {
  auto over = run_snippet(malloc_call("40", "%rd1") + "  st.u32 [%rd1+40], 1;\n", 1, kExterns);
  ASSERT_FALSE(over.ok);
  EXPECT_NE(over.error.find("4 bytes past the end of 40-byte allocation 'malloc(40)'"),
            std::string::npos)
      << over.error;
  auto twice =
      run_snippet(malloc_call("8", "%rd1") + free_call("%rd1") + free_call("%rd1"), 1, kExterns);
  ASSERT_FALSE(twice.ok);
  EXPECT_NE(twice.error.find("not an address malloc returned, or freed twice"), std::string::npos)
      << twice.error;
  auto use_after = run_snippet(
      malloc_call("8", "%rd1") + free_call("%rd1") + "  ld.u32 %r1, [%rd1];\n", 1, kExterns);
  ASSERT_FALSE(use_after.ok);
  EXPECT_NE(use_after.error.find("(inside 'malloc(8)' at 0x1000000000000, which was freed)"),
            std::string::npos)
      << use_after.error;
}

TEST(Builtins, AssertfailIsAnAssertFinding) {
  auto r = run_snippet(R"(
  mov.u64 %rd1, msg;
  cvta.global.u64 %rd2, %rd1;
  mov.u64 %rd3, file;
  cvta.global.u64 %rd4, %rd3;
  mov.u64 %rd5, fn;
  cvta.global.u64 %rd6, %rd5;
  setp.eq.u32 %p1, %r15, 1;
  @!%p1 bra $L_ok;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd2;
  .param .b64 param1;
  st.param.b64 [param1], %rd4;
  .param .b32 param2;
  st.param.b32 [param2], 12;
  .param .b64 param3;
  st.param.b64 [param3], %rd6;
  .param .b64 param4;
  st.param.b64 [param4], 1;
  call.uni __assertfail, (param0, param1, param2, param3, param4);
  }
$L_ok:)",
                       2, kExterns);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("assertion failed: `x > 0` (k.cu:12, in function 'void k()')"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("thread (1,0,0)"), std::string::npos) << r.error;
}

TEST(Builtins, DynamicParallelismAndUnknownExternsAreNamed) {
  auto dp = run_snippet(R"(
  {
  .param .b64 param0;
  st.param.b64 [param0], 0;
  .param .align 4 .b8 param1[12];
  .param .align 4 .b8 param2[12];
  .param .b32 param3;
  .param .b64 retval0;
  call.uni (retval0), cudaGetParameterBufferV2, (param0, param1, param2, param3);
  })",
                        1, kExterns);
  ASSERT_FALSE(dp.ok);
  EXPECT_NE(dp.error.find("dynamic parallelism"), std::string::npos) << dp.error;
  EXPECT_NE(dp.error.find("cudaGetParameterBufferV2"), std::string::npos) << dp.error;
  auto ext = run_snippet(R"(
  {
  .param .b32 param0;
  st.param.b32 [param0], 0;
  .param .b32 retval0;
  call.uni (retval0), mystery, (param0);
  })",
                         1, kExterns);
  ASSERT_FALSE(ext.ok);
  EXPECT_NE(ext.error.find("external function 'mystery'"), std::string::npos) << ext.error;
}

// The texture operand parses and decodes (ops_texture_exec.cc samples it); a
// handle that is no texture object of the device is a fault naming it.
TEST(Builtins, TextureAddressParsesAndABadHandleFaults) {
  auto r = run_snippet("  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("is not a texture object of this device"), std::string::npos) << r.error;
  auto ld = run_snippet("  ld.global.u32 %r1, [%rd1, {%r2}];");
  ASSERT_FALSE(ld.ok);
  EXPECT_NE(ld.error.find("takes no '[a, b]' address"), std::string::npos) << ld.error;
}

// The device runtime's error texts (cudaGetErrorName/String in a kernel):
// codes from driver_types.h, texts the CUDA 13 runtime gives on the host.
TEST(DeviceRuntimeStrings, ErrorNamesAndTexts) {
  EXPECT_STREQ(cuda_error_name(0), "cudaSuccess");
  EXPECT_STREQ(cuda_error_string(0), "no error");
  EXPECT_STREQ(cuda_error_name(400), "cudaErrorInvalidResourceHandle");
  EXPECT_STREQ(cuda_error_string(700), "an illegal memory access was encountered");
  EXPECT_STREQ(cuda_error_name(123456), "unrecognized error code");
  EXPECT_STREQ(cuda_error_string(123456), "unrecognized error code");
}

// An interned string lives in the heap once, readable, outside the limit
// and not the program's to free.
TEST(DeviceRuntimeStrings, InternedOnceAndNotFreeable) {
  DeviceHeap heap;
  heap.set_limit(16);
  const char* text = cuda_error_string(2);
  uint64_t a = heap.intern(text);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(heap.intern(text), a);
  const DeviceAllocation* at = heap.find(a + 3);
  ASSERT_NE(at, nullptr);
  EXPECT_STREQ(reinterpret_cast<const char*>(at->data), "out of memory");
  EXPECT_FALSE(heap.free(a));
  EXPECT_EQ(heap.live_bytes(), 0u);
  EXPECT_NE(heap.allocate(16), 0u);  // the limit is the program's alone
}

}  // namespace
}  // namespace smemlab::emu::test
