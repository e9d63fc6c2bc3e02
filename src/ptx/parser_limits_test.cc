// Broken and hostile PTX: each input is an error naming FILE:LINE:COL, never
// a crash, an overflow or unbounded memory (issue 10's findings).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "ptx/parser.h"

namespace smemlab::ptx {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse(text, "x.ptx");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "(no error)";
}

const char* kHead = ".version 9.0\n.target sm_90\n.address_size 64\n";

TEST(ParserLimits, NegativeArraySize) {
  EXPECT_EQ(error_of(std::string(kHead) + ".const .b8 c[-4] = {1, 2, 3, 4};\n"),
            "x.ptx:4:14: array size -4 must be at least 1");
}

TEST(ParserLimits, ArrayDimensionsOverflow) {
  std::string e =
      error_of(std::string(kHead) + ".global .b32 g[4611686018427387904][4611686018427387904];\n");
  EXPECT_EQ(e, "x.ptx:4:16: 'g' is larger than 1073741824 bytes (the limit for one variable)");
  e = error_of(std::string(kHead) + ".global .b32 g[65536][65536];\n");
  EXPECT_EQ(e, "x.ptx:4:23: 'g' is larger than 1073741824 bytes (the limit for one variable)");
  // INT64_MIN: its negation does not exist.
  e = error_of(std::string(kHead) + ".global .b32 g[-9223372036854775808];\n");
  EXPECT_EQ(e, "x.ptx:4:16: array size -9223372036854775808 must be at least 1");
  e = error_of(std::string(kHead) + ".global .b32 g[-9223372036854775809];\n");
  EXPECT_EQ(e, "x.ptx:4:16: integer out of range (a signed 64-bit number)");
}

TEST(ParserLimits, UnsizedArrayInitializerCountsAgainstTheLimit) {
  // Fine: a few initializers.
  Module m = parse(std::string(kHead) + ".global .b32 g[] = {1, 2, 3};\n", "x.ptx");
  EXPECT_EQ(m.globals[0].size_bytes(), 12);
}

TEST(ParserLimits, DeepNestingIsAnErrorNotARecursion) {
  std::string deep(200000, '{');
  EXPECT_EQ(error_of(std::string(kHead) + ".global .b32 g[4] = " + deep),
            "x.ptx:4:85: nested deeper than 64 levels");
  std::string body = std::string(kHead) + ".visible .entry k()\n{\n mov.b32 " + deep;
  EXPECT_EQ(error_of(body), "x.ptx:6:74: nested deeper than 64 levels");
  body = std::string(kHead) + ".visible .entry k()\n{\n call f, " + std::string(1000, '(');
  EXPECT_EQ(error_of(body), "x.ptx:6:74: nested deeper than 64 levels");
  body = std::string(kHead) + ".visible .entry k()\n" + deep;
  EXPECT_EQ(error_of(body), "x.ptx:5:66: nested deeper than 64 levels");
}

TEST(ParserLimits, RegisterCountsAreCapped) {
  std::string fn = std::string(kHead) + ".visible .entry k()\n{\n";
  EXPECT_EQ(error_of(fn + " .reg .b32 %r<2000000000>;\n ret;\n}\n"),
            "x.ptx:6:15: register count 2000000000 out of range (0 to 65536)");
  EXPECT_EQ(error_of(fn + " .reg .b32 %r<40000>;\n .reg .f32 %f<40000>;\n ret;\n}\n"),
            "x.ptx:7:12: more than 65536 registers declared in function k");
  EXPECT_EQ(error_of(fn + " .reg .b32 %r<-1>;\n ret;\n}\n"),
            "x.ptx:6:15: register count -1 out of range (0 to 65536)");
  // A huge register index in an inner scope is just an undeclared name.
  Module m =
      parse(fn + " { .reg .b32 %r<2>; mov.b32 %r99999999999999999999, 1; }\n ret;\n}\n", "x.ptx");
  EXPECT_EQ(m.functions[0].body[0].operands[0].name, "%r99999999999999999999");
}

TEST(ParserLimits, NumbersOutOfRangeAreLocated) {
  EXPECT_EQ(error_of(std::string(kHead) + ".global .b64 g = 0x1FFFFFFFFFFFFFFFF;\n"),
            "x.ptx:4:18: integer out of range (more than 64 bits)");
  EXPECT_EQ(error_of(std::string(kHead) + ".global .b64 g = 99999999999999999999;\n"),
            "x.ptx:4:18: integer out of range (more than 64 bits)");
  EXPECT_EQ(error_of(std::string(kHead) + ".global .f64 g = 1e999;\n"),
            "x.ptx:4:18: floating-point number '1e999' out of range");
  EXPECT_EQ(error_of(std::string(kHead) + ".global .f64 g = 1.5.5;\n"),
            "x.ptx:4:18: bad floating-point number '1.5.5'");
  EXPECT_EQ(error_of(".version 9.0\n.address_size 4294967360\n"),
            "x.ptx:2:15: .address_size 4294967360 out of range (32 to 64)");
  EXPECT_EQ(error_of(std::string(kHead) + ".global .align 3 .b32 g;\n"),
            "x.ptx:4:16: .align 3 is not a power of two");
  std::string fn = std::string(kHead) + ".visible .entry k()\n{\n";
  EXPECT_EQ(error_of(fn + " .loc 1 99999999999 1\n ret;\n}\n"),
            "x.ptx:6:9: .loc line 99999999999 out of range (0 to 2147483647)");
  EXPECT_EQ(error_of(fn + " ld.u32 %r1, [%rd1+9223372036854775807+1];\n}\n"),
            "x.ptx:6:39: address offset out of range (a signed 64-bit number)");
}

TEST(ParserLimits, UnterminatedPragmaDoesNotHang) {
  EXPECT_EQ(error_of(std::string(kHead) + ".pragma \"nounroll\""),
            "x.ptx:4:19: missing ';' at end of file");
  EXPECT_EQ(error_of(std::string(kHead) + ".visible .entry k()\n{\n .pragma \"x\""),
            "x.ptx:6:13: missing ';' at end of file");
}

TEST(ParserLimits, BinaryBytesAreNamed) {
  EXPECT_EQ(error_of(std::string("\x01\x02", 2)), "x.ptx:1:1: unexpected byte 0x01");
}

TEST(ParserLimits, FilesMustBeRegularAndBounded) {
  try {
    parse_file("/dev/zero");
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_STREQ(e.what(), "/dev/zero:0:0: not a regular file");
  }
  std::string path =
      ::testing::TempDir() + "/parser_limits_big_" + std::to_string(getpid()) + ".ptx";
  {
    std::ofstream out(path);
    out.seekp(kMaxFileBytes);
    out.put('\n');
  }
  try {
    parse_file(path);
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("larger than the 67108864-byte limit"), std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace smemlab::ptx
