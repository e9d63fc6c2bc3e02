#include "ptx/parser.h"

#include <gtest/gtest.h>

namespace smemlab::ptx {
namespace {

std::string ptx_path(const std::string& name) {
  return std::string(SMEMLAB_EMU_PTX_DIR) + "/" + name;
}

TEST(Parser, WholeFilesFromBothDialects) {
  for (const char* base : {"vecadd", "reverse", "transpose", "reduce", "funcloop"}) {
    for (const char* arch : {"sm90", "sm100"}) {
      std::string p = ptx_path(std::string(base) + "." + arch + ".ptx");
      SCOPED_TRACE(p);
      Module m = parse_file(p);
      EXPECT_EQ(m.version, "9.0");
      EXPECT_FALSE(m.kernels().empty());
      for (const Function* k : m.kernels()) EXPECT_FALSE(k->body.empty());
    }
  }
}

TEST(Parser, ReductionDetails) {
  Module m = parse_file(ptx_path("reduce.sm90.ptx"));
  ASSERT_EQ(m.kernels().size(), 1u);
  const Function& k = *m.kernels()[0];
  EXPECT_EQ(k.name, "_Z10reduceShflPKfPfi");
  EXPECT_EQ(k.params.size(), 3u);
  ASSERT_EQ(k.locals.size(), 1u);
  EXPECT_EQ(k.locals[0].space, StateSpace::Shared);
  EXPECT_EQ(k.locals[0].size_bytes(), 128);
  // shfl.sync.down.b32 %r17|%p3, ...: dual destination.
  const Instruction* shfl = nullptr;
  for (const auto& in : k.body)
    if (in.opcode == "shfl") {
      shfl = &in;
      break;
    }
  ASSERT_NE(shfl, nullptr);
  EXPECT_EQ(shfl->operands[0].name, "%r17");
  EXPECT_EQ(shfl->operands[0].pair, "%p3");
  EXPECT_EQ(shfl->text(), "shfl.sync.down.b32");
  // Its source: sm_30_intrinsics.hpp inlined into warpSum (line 3) inlined into line 10.
  auto chain = m.lines.chain(shfl->loc);
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain[0]->line, 440);
  EXPECT_EQ(chain[1]->line, 3);
  EXPECT_EQ(chain[2]->line, 10);
  EXPECT_NE(m.lines.file(chain[2]->file).find("reduce.cu"), std::string::npos);
  EXPECT_TRUE(k.labels.count("$L__BB0_10"));
}

TEST(Parser, ScopesRenameRedeclaredParams) {
  Module m = parse_file(ptx_path("funcloop.sm100.ptx"));
  const Function* k = m.kernels()[0];
  std::vector<std::string> names;
  for (const auto& v : k->locals)
    if (v.space == StateSpace::Param && v.name.rfind("param0", 0) == 0) names.push_back(v.name);
  ASSERT_GE(names.size(), 2u);
  EXPECT_NE(names[0], names[1]);
  const Function* poly = m.find("_Z4polyxi");
  ASSERT_NE(poly, nullptr);
  EXPECT_FALSE(poly->is_entry);
  EXPECT_EQ(poly->retvals.size(), 1u);
}

TEST(Parser, Nvvm20ParamsAndFloatRegs) {
  Module m = parse_file(ptx_path("transpose.sm100.ptx"));
  const Function* k = m.kernels()[0];
  EXPECT_EQ(k->params[0].type, "u64");
  bool f_is_b32 = false;
  for (const auto& r : k->regs) f_is_b32 |= (r.name == "%f" && r.type == "b32");
  EXPECT_TRUE(f_is_b32);
}

// cuda_fp16.hpp's inline asm (hexp) glues the type to the keyword: `.reg.b16`.
TEST(Parser, RegTypeGluedToKeyword) {
  Module m = parse(R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b16 %rs<2>;
  {.reg.b16 spc, ulp;
  mov.b16 spc, 0x1F79;
  }
  ret;
}
)",
                   "x.ptx");
  const Function& k = m.functions[0];
  bool found = false;
  for (const auto& r : k.regs) found |= r.type == "b16" && r.name.rfind("spc", 0) == 0;
  EXPECT_TRUE(found);
  EXPECT_THROW(parse(".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n"
                     "{\n  .reg.v2.b32 v;\n  ret;\n}\n",
                     "v.ptx"),
               ParseError);
}

TEST(Parser, OperandForms) {
  Module m = parse(R"(.version 9.0
.target sm_90
.address_size 64
.global .align 4 .u32 g[3] = {1, 2, -3};
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  .reg .f32 %f<2>;
  ld.shared.u32 %r1, [%r2+-32];
  mov.f32 %f1, 0f3F800000;
  @!%p1 bra $L;
  { .reg .b32 %r<2>; mov.u32 %r1, 5; }
$L:
  ret;
}
)",
                   "x.ptx");
  const Function& k = m.functions[0];
  EXPECT_EQ(k.body[0].operands[1].offset, -32);
  EXPECT_EQ(k.body[1].operands[1].bits, 0x3F800000u);
  EXPECT_TRUE(k.body[2].guard_negate);
  EXPECT_NE(k.body[3].operands[0].name, "%r1");  // inner scope's %r1 is a different register
  EXPECT_EQ(k.labels.at("$L"), 4);
  ASSERT_EQ(m.globals[0].init.size(), 12u);
  EXPECT_EQ(m.globals[0].init[8], 0xFD);
}

TEST(Parser, TextureAndSurfaceAddresses) {
  Module m = parse(R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 t)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<2>;
  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, %rd1, {%r1}];
  suld.b.2d.b32.trap {%r2}, [%rd1, {%r1, %r3}];
  ret;
}
)",
                   "t.ptx");
  const auto& body = m.functions[0].body;
  ASSERT_EQ(body[0].operands[1].elems.size(), 1u);
  EXPECT_EQ(body[0].operands[1].name, "%rd1");
  EXPECT_EQ(body[0].operands[1].elems[0].kind, Operand::Kind::Vector);
  EXPECT_EQ(body[0].operands[1].elems[0].elems.size(), 2u);
  ASSERT_EQ(body[1].operands[1].elems.size(), 2u);  // sampler, coordinates
  EXPECT_EQ(body[1].operands[1].elems[0].name, "%rd1");
  EXPECT_EQ(body[2].operands[1].elems[0].elems.size(), 2u);
}

// Two inlined asm blocks (nvcc 13.0, tests/emu/kernels/cluster.cu's
// wait_parity, twice in peerBarrier) declare the same labels LAB_WAIT and
// DONE, each in its own `{ }` scope: each branch targets its own block's.
TEST(Parser, LabelsOfInlinedAsmScopes) {
  Module m = parse_file(ptx_path("cluster.sm90.ptx"));
  const Function* k = m.find("_Z11peerBarrierPi");
  ASSERT_NE(k, nullptr);
  std::vector<std::pair<std::string, int>> waits, dones;
  for (const auto& [name, at] : k->labels) {
    if (name.rfind("LAB_WAIT$", 0) == 0) waits.push_back({name, at});
    if (name.rfind("DONE$", 0) == 0) dones.push_back({name, at});
  }
  ASSERT_EQ(waits.size(), 2u);
  ASSERT_EQ(dones.size(), 2u);
  // Every branch to them goes to the label of its own scope: the try_wait
  // right after its LAB_WAIT, the DONE right after its loop.
  int branches = 0;
  for (size_t i = 0; i < k->body.size(); ++i) {
    const Instruction& in = k->body[i];
    if (in.opcode != "bra") continue;
    const std::string& target = in.operands[0].name;
    int at = k->labels.at(target);
    if (target.rfind("LAB_WAIT$", 0) == 0) {
      ++branches;
      EXPECT_EQ(k->body[static_cast<size_t>(at)].opcode, "mbarrier");
      EXPECT_EQ(static_cast<size_t>(at), i - 2);  // try_wait; @P1 bra DONE; bra LAB_WAIT
    } else if (target.rfind("DONE$", 0) == 0) {
      ++branches;
      EXPECT_EQ(static_cast<size_t>(at), i + 2);
    }
  }
  EXPECT_EQ(branches, 4);
}

TEST(Parser, LabelScopes) {
  Module m = parse(R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .pred %p<2>;
  bra L;
  { bra L; L: bra L; { bra L; } }
  { bra M; { M: bra M; } M: }
L:
  ret;
}
)",
                   "s.ptx");
  const Function& k = m.functions[0];
  const auto& b = k.body;
  ASSERT_EQ(b.size(), 7u);
  EXPECT_EQ(b[0].operands[0].name, "L");  // the function's L
  EXPECT_NE(b[1].operands[0].name, "L");  // forward, to its scope's L
  EXPECT_EQ(b[1].operands[0].name, b[2].operands[0].name);
  EXPECT_EQ(b[3].operands[0].name, b[2].operands[0].name);  // inner scope: the enclosing L
  EXPECT_EQ(k.labels.at(b[1].operands[0].name), 2);
  EXPECT_EQ(k.labels.at("L"), 6);
  EXPECT_NE(b[4].operands[0].name, b[5].operands[0].name);  // outer M, inner M
  EXPECT_EQ(k.labels.at(b[4].operands[0].name), 6);
  EXPECT_EQ(k.labels.at(b[5].operands[0].name), 5);
  try {
    parse(".version 9.0\n.target sm_90\n.visible .entry k()\n{\n { A: ret;\n A: ret; }\n}\n",
          "d.ptx");
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), "d.ptx:6:2: label 'A' defined twice");
  }
}

TEST(Parser, ErrorsCarryFileLineColumn) {
  try {
    parse(".version 9.0\n.target sm_90\n.visible .entry k()\n{\n  add.s32 %r1, %r2 %r3;\n}\n",
          "bad.ptx");
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), "bad.ptx:5:20: expected ';', found '%r3'");
  }
  EXPECT_THROW(parse(".version 9.0\n.bogus 1\n", "b.ptx"), ParseError);
  EXPECT_THROW(parse(".visible .entry k()\n{\n ret;\n", "c.ptx"), ParseError);
}

}  // namespace
}  // namespace smemlab::ptx
