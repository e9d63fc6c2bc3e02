// ptx::link: the PTX of two -rdc translation units joined as nvlink joins
// their SASS (extern bindings, weak and common symbols, internal names).
#include "ptx/link.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ptx/parser.h"

namespace smemlab::ptx {
namespace {

const char* kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n";

Module unit(const std::string& body, const std::string& name) {
  return parse(std::string(kHeader) + body, name);
}

const char* kMain = R"(
.extern .func (.param .b32 r) lib(.param .b32 x);
.extern .global .align 4 .u32 g_off;
.common .global .align 4 .u32 g_common;
.global .align 1 .b8 $str[2] = {65, 0};
.func (.param .b32 r) twist(.param .b32 x) { .reg .b32 %r<2>; ld.param.u32 %r1, [x]; st.param.b32 [r], %r1; ret; }
.weak .func (.param .b32 r) inl(.param .b32 x) { .reg .b32 %r<2>; mov.u32 %r1, 1; st.param.b32 [r], %r1; ret; }
.visible .entry k(.param .u64 p) {
  .reg .b64 %rd<3>;
  .reg .b32 %r<3>;
  mov.u64 %rd1, $str;
  ld.global.u32 %r1, [g_off];
  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r1;
    call.uni (b), lib, (a); ld.param.b32 %r2, [b]; }
  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r1;
    call.uni (b), twist, (a); ld.param.b32 %r2, [b]; }
  ret;
}
)";

const char* kLib = R"(
.visible .global .align 4 .u32 g_off = 5;
.common .global .align 4 .b8 g_common[16];
.global .align 1 .b8 $str[3] = {66, 67, 0};
.func (.param .b32 r) twist(.param .b32 x) { .reg .b32 %r<2>; .reg .b64 %rd<2>; mov.u64 %rd1, $str; ld.param.u32 %r1, [x]; st.param.b32 [r], %r1; ret; }
.weak .func (.param .b32 r) inl(.param .b32 x) { .reg .b32 %r<2>; mov.u32 %r1, 2; st.param.b32 [r], %r1; ret; }
.visible .func (.param .b32 r) lib(.param .b32 x) {
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r1;
    call.uni (b), twist, (a); ld.param.b32 %r2, [b]; }
  st.param.b32 [r], %r2;
  ret;
}
)";

int count_functions(const Module& m, const std::string& name) {
  int n = 0;
  for (const auto& f : m.functions) n += f.name == name;
  return n;
}

TEST(Link, ExternsBindAndInternalNamesStayApart) {
  std::vector<Module> units;
  units.push_back(unit(kMain, "main.ptx"));
  units.push_back(unit(kLib, "lib.ptx"));
  Module m = link(std::move(units), "linked");
  // The extern function and variable resolve to the definitions.
  const Function* lib = m.find("lib");
  ASSERT_NE(lib, nullptr);
  EXPECT_TRUE(lib->has_body);
  EXPECT_EQ(count_functions(m, "lib"), 1);
  int g_off = 0;
  for (const auto& g : m.globals)
    if (g.name == "g_off") {
      ++g_off;
      EXPECT_FALSE(g.is_extern);
      ASSERT_FALSE(g.init.empty());
      EXPECT_EQ(g.init[0], 5);
    }
  EXPECT_EQ(g_off, 1);
  // The weak function: one copy, the first unit's.
  EXPECT_EQ(count_functions(m, "inl"), 1);
  // .common: the largest (16 bytes) stays.
  for (const auto& g : m.globals)
    if (g.name == "g_common") {
      EXPECT_EQ(g.size_bytes(), 16);
    }
  // Internal names both units use: each unit calls and reads its own.
  EXPECT_EQ(count_functions(m, "twist$u0"), 1);
  EXPECT_EQ(count_functions(m, "twist$u1"), 1);
  EXPECT_EQ(count_functions(m, "twist"), 0);
  // The symbols each function's instructions name.
  auto calls_in = [&](const std::string& fn) {
    std::vector<std::string> out;
    for (const auto& in : m.find(fn)->body)
      for (const auto& o : in.operands) {
        out.push_back(o.name);
        for (const auto& e : o.elems) out.push_back(e.name);
      }
    return out;
  };
  auto k = calls_in("k");
  EXPECT_NE(std::find(k.begin(), k.end(), "$str$u0"), k.end());
  EXPECT_NE(std::find(k.begin(), k.end(), "twist$u0"), k.end());
  auto l = calls_in("lib");
  EXPECT_NE(std::find(l.begin(), l.end(), "twist$u1"), l.end());
  auto t1 = calls_in("twist$u1");
  EXPECT_NE(std::find(t1.begin(), t1.end(), "$str$u1"), t1.end());
}

TEST(Link, TwoVisibleDefinitionsAreAnError) {
  std::vector<Module> units;
  units.push_back(unit(".visible .global .u32 g;\n", "a.ptx"));
  units.push_back(unit(".visible .global .u32 g;\n", "b.ptx"));
  try {
    link(std::move(units), "linked");
    FAIL() << "no LinkError";
  } catch (const LinkError& e) {
    EXPECT_NE(std::string(e.what()).find("'g' is defined in both a.ptx and b.ptx"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace smemlab::ptx
