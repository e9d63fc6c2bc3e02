// Real calls (ops_call.cc, decode_call.cc): recursion, calls through
// function addresses, predicated calls, divergent targets and their
// reconvergence, the stack bound and bad function pointers.
#include <gtest/gtest.h>

#include "emu/snippet_test_util.h"

namespace smemlab::emu::test {
namespace {

// fib(n) by two recursive calls, and a function whose address is taken.
const char* kFuncs = R"(
.func (.param .b32 r) fib(.param .b32 n)
{
  .reg .pred %q;
  .reg .b32 %a<6>;
  ld.param.b32 %a0, [n];
  setp.lt.s32 %q, %a0, 2;
  @%q bra DONE;
  add.s32 %a1, %a0, -1;
  {
  .param .b32 p0;
  .param .b32 r0;
  st.param.b32 [p0], %a1;
  call.uni (r0), fib, (p0);
  ld.param.b32 %a2, [r0];
  }
  add.s32 %a3, %a0, -2;
  {
  .param .b32 p0;
  .param .b32 r0;
  st.param.b32 [p0], %a3;
  call.uni (r0), fib, (p0);
  ld.param.b32 %a4, [r0];
  }
  add.s32 %a0, %a2, %a4;
DONE:
  st.param.b32 [r], %a0;
  ret;
}
.func (.param .b32 r) mask_f(.param .b32 x)
{
  .reg .b32 %m;
  activemask.b32 %m;
  st.param.b32 [r], %m;
  ret;
}
.func (.param .b32 r) mask_g(.param .b32 x)
{
  .reg .b32 %m<2>;
  activemask.b32 %m0;
  ld.param.b32 %m1, [x];
  add.s32 %m0, %m0, %m1;
  st.param.b32 [r], %m0;
  ret;
}
.global .align 8 .u64 table[2] = {mask_f, mask_g};
)";

// Calls fib(tid % 12) for real: lanes at different depths of one function.
TEST(Calls, RecursionPerLane) {
  auto r = run_snippet(R"(
  rem.u32 %r1, %r15, 12;
  {
  .param .b32 p0;
  .param .b32 r0;
  st.param.b32 [p0], %r1;
  call.uni (r0), fib, (p0);
  ld.param.b32 %r2, [r0];
  }
  st.u32 [%rd14], %r2;
  )",
                       32, kFuncs);
  SNIPPET_OK(r);
  const int fib[12] = {0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89};
  for (int t = 0; t < 32; ++t) EXPECT_EQ(r.u32(0, t), static_cast<uint32_t>(fib[t % 12])) << t;
}

// Odd lanes call mask_g, even lanes mask_f through the table: inside each
// function only its lanes run (serialized), and after the call the warp is
// whole again (activemask of all 32).
TEST(Calls, DivergentIndirectCallsSerializeAndReconverge) {
  auto r = run_snippet(R"(
  and.b32 %r1, %r15, 1;
  mul.wide.u32 %rd1, %r1, 8;
  mov.u64 %rd2, table;
  add.s64 %rd3, %rd2, %rd1;
  ld.global.u64 %rd4, [%rd3];
  {
  .param .b32 p0;
  .param .b32 r0;
  st.param.b32 [p0], %r1;
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  call (r0), %rd4, (p0), proto;
  ld.param.b32 %r2, [r0];
  }
  activemask.b32 %r3;
  st.u32 [%rd14], %r2;
  st.u32 [%rd14+8], %r3;
  mov.u64 %rd5, mask_f;
  setp.eq.u64 %p1, %rd4, %rd5;
  selp.u32 %r4, 1, 0, %p1;
  st.u32 [%rd14+16], %r4;
  )",
                       32, kFuncs);
  SNIPPET_OK(r);
  for (int t = 0; t < 32; ++t) {
    const bool odd = t & 1;
    EXPECT_EQ(r.u32(0, t), odd ? 0xaaaaaaaau + 1 : 0x55555555u) << t;
    EXPECT_EQ(r.u32(1, t), 0xffffffffu) << t;
    EXPECT_EQ(r.u32(2, t), odd ? 0u : 1u) << t;  // function addresses compare as values
  }
}

TEST(Calls, PredicatedCall) {
  auto r = run_snippet(R"(
  setp.lt.u32 %p1, %r15, 4;
  mov.u32 %r2, 99;
  {
  .param .b32 p0;
  .param .b32 r0;
  st.param.b32 [p0], %r15;
  st.param.b32 [r0], %r2;
  @%p1 call.uni (r0), mask_f, (p0);
  ld.param.b32 %r2, [r0];
  }
  st.u32 [%rd14], %r2;
  )",
                       8, kFuncs);
  SNIPPET_OK(r);
  for (int t = 0; t < 8; ++t) EXPECT_EQ(r.u32(0, t), t < 4 ? 0xfu : 99u) << t;
}

TEST(Calls, StackOverflowIsAFault) {
  auto r = run_snippet(R"(
  mov.u32 %r1, 100000;
  {
  .param .b32 p0;
  .param .b32 r0;
  st.param.b32 [p0], %r1;
  call.uni (r0), fib, (p0);
  }
  )",
                       1, kFuncs);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("stack overflow calling 'fib' at call depth 65"), std::string::npos)
      << r.error;
}

TEST(Calls, BadFunctionPointerIsAFault) {
  auto r = run_snippet(R"(
  mov.u64 %rd4, 4096;
  {
  .param .b32 p0;
  .param .b32 r0;
  st.param.b32 [p0], %r15;
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  call (r0), %rd4, (p0), proto;
  }
  )",
                       1, kFuncs);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("holding 0x1000, which is the address of no function"), std::string::npos)
      << r.error;
}

}  // namespace
}  // namespace smemlab::emu::test
