#include "sass/disasm.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace smemlab::sass {
namespace {

std::string read(const std::string& name) {
  std::ifstream in(std::string(SMEMLAB_SOURCE_DIR) + "/src/sass/testdata/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Disassembly, MemoryInstructionsWithLinesWidthsAndAddresses) {
  const char* text = R"(	.section	.text.k,"ax",@progbits
k:
	//## File "/x/k.cu", line 57
        /*0160*/              @!P0 LDS.64 R8, [R6] ;
        /*0170*/                   FADD R9, R8, R9 ;
	//## File "/x/k.cu", line 58
        /*0190*/                   STS.128 [R6+0x10], R4 ;
        /*01a0*/                   LDG.E.128.CONSTANT R4, desc[UR6][R2.64+-0x8] ;
        /*01b0*/                   LDS.U8 R1, [UR4+0x200] ;
        /*01c0*/                   LDC R1, c[0x0][0x28] ;
	.section	.text.other,"ax",@progbits
        /*0000*/                   STL [R1+0x4], R2 ;
)";
  Disassembly d = parse_disassembly(text);
  ASSERT_EQ(d.size(), 2u);
  const auto& k = d.at("k");
  ASSERT_EQ(k.size(), 4u);
  EXPECT_EQ(k[0].opcode, "LDS.64");
  EXPECT_EQ(k[0].line, 57);
  EXPECT_EQ(k[0].file, "/x/k.cu");
  EXPECT_EQ(k[0].width, 8u);
  EXPECT_EQ(k[0].base, "R6#0");
  EXPECT_EQ(k[0].offset, 0);
  EXPECT_FALSE(k[0].store);
  EXPECT_EQ(k[1].space, Space::Shared);
  EXPECT_TRUE(k[1].store);
  EXPECT_EQ(k[1].width, 16u);
  EXPECT_EQ(k[1].offset, 16);
  EXPECT_EQ(k[1].line, 58);
  EXPECT_EQ(k[2].space, Space::Global);
  EXPECT_EQ(k[2].base, "R2.64#0");
  EXPECT_EQ(k[2].offset, -8);
  EXPECT_EQ(k[3].width, 1u);
  EXPECT_EQ(k[3].base, "UR4#0");
  EXPECT_EQ(k[3].offset, 0x200);
  EXPECT_EQ(k[3].address, 0x1b0u);
  ASSERT_EQ(d.at("other").size(), 1u);
  EXPECT_EQ(d.at("other")[0].space, Space::Local);
}

// Recorded: ptxas 13.0 -arch=sm_90 of kernels/filter.cu's fir_best, where
// ptxas narrowed two ld.shared.v4.f32 into LDS.64 (docs/validation.md).
TEST(Disassembly, RecordedFirBest) {
  Disassembly d = parse_disassembly(read("fir_best.sass"));
  const auto& k = d.at("fir_best");
  std::vector<std::pair<std::string, int64_t>> lds;
  for (const auto& m : k)
    if (m.space == Space::Shared && !m.store) lds.push_back({m.opcode, m.offset});
  std::vector<std::pair<std::string, int64_t>> want = {
      {"LDS.64", 0x8},   {"LDS.128", 0x10}, {"LDS.128", 0x20}, {"LDS.128", 0x30},
      {"LDS.128", 0x40}, {"LDS.128", 0x50}, {"LDS.64", 0x60}};
  EXPECT_EQ(lds, want);
}

// The LDGSTS forms ptxas 13.0 -arch=sm_90a gives cp.async (copied from its
// output for scripts/hopper-rules/probe.cu and kernels/matmul.cu): plain,
// guarded, .ZFILL (with its own predicate operand) and the predicated form.
TEST(Disassembly, LdgstsForms) {
  const char* text = R"(	.section	.text.k,"ax",@progbits
	//## File "/x/m.cu", line 303
        /*02b0*/                   LDGSTS.E.BYPASS.128 [R9], desc[UR6][R4.64], !P0 ;
        /*02c0*/                   LDGSTS.E [R9], desc[UR6][R4.64], P0 ;
	//## File "/x/m.cu", line 311
        /*0240*/               @P0 LDGSTS.E.BYPASS.128.ZFILL [R9], desc[UR6][R6.64], P1 ;
        /*01e0*/              @!P0 LDGSTS.E.BYPASS.128 [R9+0x200], desc[UR4][R2.64] ;
        /*01f0*/                   LDS.64 R8, [R6] ;
)";
  LdgstsInstrs d = ldgsts_instrs(text);
  const auto& k = d.at("k");
  ASSERT_EQ(k.size(), 4u);
  EXPECT_TRUE(k[0].bypass && k[0].predicated && !k[0].zfill);
  EXPECT_EQ(k[0].predicate, "!P0");  // the operand decides the cost (P0 alone: run 10)
  EXPECT_EQ(k[1].predicate, "P0");
  EXPECT_EQ(k[2].predicate, "");
  EXPECT_EQ(k[0].line, 303);
  EXPECT_EQ(k[0].file, "/x/m.cu");
  EXPECT_TRUE(!k[1].bypass && k[1].predicated);
  EXPECT_TRUE(k[2].bypass && k[2].zfill && !k[2].predicated);
  EXPECT_EQ(k[2].line, 311);
  EXPECT_TRUE(k[3].bypass && !k[3].zfill && !k[3].predicated);
}

}  // namespace
}  // namespace smemlab::sass
