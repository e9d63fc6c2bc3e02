#include <gtest/gtest.h>

#include "expr/expr.h"

namespace smemlab::expr {
namespace {

unsigned decl_error_column(std::string_view text, const Vars& vars = {}) {
  try {
    parse_decl(text, vars);
  } catch (const Error& e) {
    return e.column();
  }
  ADD_FAILURE() << "no error for: " << text;
  return 0;
}

TEST(Decl, NameTypeSizeDims) {
  Decl d = parse_decl("int tile[32][32]");
  EXPECT_EQ(d.name, "tile");
  EXPECT_EQ(d.type, "int");
  EXPECT_EQ(d.elem_size, 4u);
  EXPECT_EQ(d.dims, (std::vector<uint64_t>{32, 32}));
  EXPECT_EQ(d.elements(), 1024u);
}

TEST(Decl, EveryDocumentedElementType) {
  struct Case {
    const char* type;
    unsigned size;
  } cases[] = {{"char", 1},      {"short", 2},         {"int", 4},     {"unsigned", 4},
               {"float", 4},     {"double", 8},        {"half", 2},    {"int2", 8},
               {"float2", 8},    {"int4", 16},         {"float4", 16}, {"unsigned int", 4},
               {"long long", 8}, {"unsigned char", 1}, {"double2", 16}};
  for (const Case& c : cases) {
    Decl d = parse_decl(std::string(c.type) + " a[4]");
    EXPECT_EQ(d.elem_size, c.size) << c.type;
    EXPECT_EQ(d.type, c.type);
  }
}

TEST(Decl, QualifiersSemicolonAndConstantDims) {
  Decl d = parse_decl("__shared__ float s[N][N + 1];", {{"N", 32}});
  EXPECT_EQ(d.type, "float");
  EXPECT_EQ(d.dims, (std::vector<uint64_t>{32, 33}));
  Decl e = parse_decl("  extern __shared__   unsigned   int buf[];");
  EXPECT_EQ(e.type, "unsigned int");
  EXPECT_EQ(e.dims, (std::vector<uint64_t>{0}));
  Decl h = parse_decl("double x[0x10]");
  EXPECT_EQ(h.dims, (std::vector<uint64_t>{16}));
  Decl scalar = parse_decl("int x");
  EXPECT_TRUE(scalar.dims.empty());
}

TEST(Decl, ErrorsNameTheColumn) {
  EXPECT_EQ(decl_error_column("integer tile[32]"), 1u);  // unknown type
  EXPECT_EQ(decl_error_column("int tile[32"), 12u);      // expected ']'
  EXPECT_EQ(decl_error_column("int tile[0]"), 10u);      // not positive
  EXPECT_EQ(decl_error_column("int tile[32][-1]"), 14u);
  EXPECT_EQ(decl_error_column("int tile[N]"), 10u);  // unknown name
  EXPECT_EQ(decl_error_column("int tile[threadIdx.x]"), 10u);
  EXPECT_EQ(decl_error_column("int"), 1u);             // no name
  EXPECT_EQ(decl_error_column("int tile[4][]"), 13u);  // only the first may be open
  EXPECT_EQ(decl_error_column("int tile[4] x"), 13u);
  EXPECT_EQ(decl_error_column("int tile(4)"), 9u);
  EXPECT_EQ(decl_error_column("int __shared__ tile[4]"), 5u);
  EXPECT_EQ(decl_error_column("int tile[65536][65536]"), 16u);  // beyond the 32-bit window
}

TEST(Decl, UnknownTypeListsTheKnownOnes) {
  try {
    parse_decl("integer tile[32]");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("float4"), std::string::npos);
  }
}

}  // namespace
}  // namespace smemlab::expr
