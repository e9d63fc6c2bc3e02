#include "expr/expr.h"

#include <gtest/gtest.h>

#include <limits>

namespace smemlab::expr {
namespace {

int64_t eval(std::string_view text, const Thread& t = {}, const Vars& vars = {}) {
  return Expr::parse(text, vars).eval(t);
}

// Column of the error `text` raises when parsed (or evaluated, when it parses).
unsigned error_column(std::string_view text, const Vars& vars = {}) {
  try {
    eval(text, {}, vars);
  } catch (const Error& e) {
    return e.column();
  }
  ADD_FAILURE() << "no error for: " << text;
  return 0;
}

std::string error_message(std::string_view text) {
  try {
    eval(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Expr, EveryOperator) {
  EXPECT_EQ(eval("7 + 5"), 12);
  EXPECT_EQ(eval("7 - 5"), 2);
  EXPECT_EQ(eval("7 * 5"), 35);
  EXPECT_EQ(eval("7 / 2"), 3);
  EXPECT_EQ(eval("7 % 5"), 2);
  EXPECT_EQ(eval("3 << 4"), 48);
  EXPECT_EQ(eval("48 >> 4"), 3);
  EXPECT_EQ(eval("12 & 10"), 8);
  EXPECT_EQ(eval("12 | 10"), 14);
  EXPECT_EQ(eval("12 ^ 10"), 6);
  EXPECT_EQ(eval("~0"), -1);
  EXPECT_EQ(eval("-7"), -7);
  EXPECT_EQ(eval("+7"), 7);
  EXPECT_EQ(eval("--7"), 7);
}

TEST(Expr, DivisionTruncatesTowardZeroAsInC) {
  EXPECT_EQ(eval("-7 / 2"), -3);
  EXPECT_EQ(eval("-7 % 2"), -1);
  EXPECT_EQ(eval("7 % -2"), 1);
  EXPECT_EQ(eval("-16 >> 2"), -4);
}

TEST(Expr, CPrecedence) {
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 4 - 3"), 3);  // left-associative
  EXPECT_EQ(eval("64 / 4 / 2"), 8);
  EXPECT_EQ(eval("1 << 2 + 1"), 8);     // + binds tighter than <<
  EXPECT_EQ(eval("1 | 2 ^ 3 & 5"), 3);  // & over ^ over |: 1 | (2 ^ (3 & 5))
  EXPECT_EQ(eval("6 & 3 << 1"), 6);     // << over &
  EXPECT_EQ(eval("-2 * 3"), -6);
  EXPECT_EQ(eval("~1 + 1"), -1);  // unary before binary
  EXPECT_EQ(eval("2 * -3"), -6);
  EXPECT_EQ(eval("5 ^ 1 | 8"), 12);  // ^ over |
}

TEST(Expr, Literals) {
  EXPECT_EQ(eval("0x20"), 32);
  EXPECT_EQ(eval("0XfF"), 255);
  EXPECT_EQ(eval("32u"), 32);
  EXPECT_EQ(eval("32ULL"), 32);
  EXPECT_EQ(eval("0"), 0);
  EXPECT_EQ(eval("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(error_column("1 + 9223372036854775808"), 5u);
  EXPECT_EQ(error_column("1 + 017"), 5u);  // octal is refused, not misread
  EXPECT_EQ(error_column("12ab"), 3u);
  EXPECT_EQ(error_column("0x"), 1u);
}

TEST(Expr, WrapsInsteadOfOverflowing) {
  EXPECT_EQ(eval("9223372036854775807 + 1"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(eval("(-9223372036854775807 - 1) / -1"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(eval("(-9223372036854775807 - 1) % -1"), 0);
  EXPECT_EQ(eval("1 << 63"), std::numeric_limits<int64_t>::min());
}

TEST(Expr, ThreadIdentifiers) {
  Thread t{3, 2, 1, 8, 4, 2};  // tid = 3 + 2*8 + 1*32 = 51
  EXPECT_EQ(eval("threadIdx.x", t), 3);
  EXPECT_EQ(eval("threadIdx.y", t), 2);
  EXPECT_EQ(eval("threadIdx.z", t), 1);
  EXPECT_EQ(eval("blockDim.x", t), 8);
  EXPECT_EQ(eval("blockDim.y", t), 4);
  EXPECT_EQ(eval("blockDim.z", t), 2);
  EXPECT_EQ(eval("laneid", t), 19);
  EXPECT_EQ(eval("warpid", t), 1);
  EXPECT_EQ(eval("threadIdx.y * blockDim.x + threadIdx.x", t), 19);
  EXPECT_EQ(eval("threadIdx . x", t), 3);  // spaces around the dot, as C allows
}

TEST(Expr, Variables) {
  Vars v{{"i", 3}, {"pad", 1}};
  EXPECT_EQ(eval("i * (32 + pad)", {}, v), 99);
  EXPECT_EQ(error_column("i + j", v), 5u);
  EXPECT_NE(error_message("j").find("--let j=VALUE"), std::string::npos);
}

TEST(Expr, SyntaxErrorsNameTheColumn) {
  EXPECT_EQ(error_column("(1 + 2"), 7u);  // expected ')' at end of input
  EXPECT_EQ(error_column("1 + * 2"), 5u);
  EXPECT_EQ(error_column("1 2"), 3u);
  EXPECT_EQ(error_column(""), 1u);
  EXPECT_EQ(error_column("1 + $"), 5u);
  EXPECT_EQ(error_column("a < b"), 3u);
  EXPECT_EQ(error_column("threadIdx.w"), 11u);
  EXPECT_EQ(error_column("threadIdx"), 10u);
  EXPECT_EQ(error_column("1 + blockIdx.x"), 5u);
  EXPECT_EQ(error_message("(1 + 2"), "expected ')', found end of input");
}

TEST(Expr, HostileInputIsAnErrorNotACrash) {
  EXPECT_EQ(error_column(std::string(300, '(') + "1" + std::string(300, ')')), 257u);
  EXPECT_EQ(error_column(std::string(300, '-') + "1"), 257u);
  EXPECT_EQ(eval(std::string(200, '(') + "1" + std::string(200, ')')), 1);
  std::string long_sum = "1";
  while (long_sum.size() < 9990) long_sum += "+1";
  EXPECT_EQ(eval(long_sum), static_cast<int64_t>(long_sum.size() / 2 + 1));
  EXPECT_EQ(error_column(long_sum + "+1+1+1+1+1+1"), 10001u);
}

TEST(Expr, EvaluationErrorsNameTheOperator) {
  EXPECT_EQ(error_column("1 / 0"), 3u);
  EXPECT_EQ(error_column("10 % (3 - 3)"), 4u);
  EXPECT_EQ(error_column("1 << 64"), 3u);
  EXPECT_EQ(error_column("1 >> -1"), 3u);
  EXPECT_EQ(error_message("1 / 0"), "division by zero");
  EXPECT_EQ(error_message("1 % 0"), "modulo by zero");
}

TEST(Expr, ConstantExpressionsRefuseThreadIdentifiers) {
  EXPECT_THROW(Expr::parse("threadIdx.x + 1", {}, false), Error);
  EXPECT_EQ(Expr::parse("4 * 8", {}, false).eval({}), 32);
}

TEST(Let, ParsesNameAndValue) {
  auto [name, value] = parse_let("i=3", {});
  EXPECT_EQ(name, "i");
  EXPECT_EQ(value, 3);
  auto [n2, v2] = parse_let("j = i * 0x10", {{"i", 3}});
  EXPECT_EQ(n2, "j");
  EXPECT_EQ(v2, 48);
}

TEST(Let, Errors) {
  auto column = [](std::string_view text) {
    try {
      parse_let(text, {});
    } catch (const Error& e) {
      return e.column();
    }
    return 0u;
  };
  EXPECT_EQ(column("i"), 2u);  // expected '='
  EXPECT_EQ(column("=3"), 1u);
  EXPECT_EQ(column("laneid=3"), 1u);       // built-in
  EXPECT_EQ(column("i=threadIdx.x"), 3u);  // must be constant
  EXPECT_EQ(column("i=3 4"), 5u);
  EXPECT_EQ(column("i=k"), 3u);
}

Decl tile(std::string_view text = "int tile[32][32]") { return parse_decl(text); }

uint64_t offset(std::string_view access, const Decl& d, const Thread& t, const Vars& v = {}) {
  return Access::parse(access, d, v).offset(t);
}

TEST(Access, RowMajorByteOffsets) {
  Decl d = tile();
  Thread t{5, 3, 0, 32, 32, 1};
  EXPECT_EQ(offset("tile[threadIdx.y][threadIdx.x]", d, t), (3u * 32 + 5) * 4);
  EXPECT_EQ(offset("tile[threadIdx.x][threadIdx.y]", d, t), (5u * 32 + 3) * 4);
  Decl padded = tile("float s[32][33]");
  EXPECT_EQ(offset("s[threadIdx.x][threadIdx.y]", padded, t), (5u * 33 + 3) * 4);
  Decl cube = tile("double c[4][8][16]");
  EXPECT_EQ(offset("c[1][2][3]", cube, {}), ((1u * 8 + 2) * 16 + 3) * 8);
  Decl vec = tile("float4 v[64]");
  EXPECT_EQ(offset("v[laneid + i]", vec, t, {{"i", 2}}), (5u + 2) * 16);
}

TEST(Access, OpenFirstDimension) {
  Decl d = tile("extern __shared__ int s[];");
  EXPECT_EQ(d.dims, (std::vector<uint64_t>{0}));
  EXPECT_EQ(offset("s[threadIdx.x * 1000]", d, {7, 0, 0, 32, 1, 1}), 28000u);
  EXPECT_THROW(offset("s[threadIdx.x - 1]", d, {0, 0, 0, 32, 1, 1}), Error);
}

std::string access_error(std::string_view access, const Decl& d, const Thread& t,
                         unsigned* column) {
  try {
    offset(access, d, t);
  } catch (const Error& e) {
    *column = e.column();
    return e.what();
  }
  *column = 0;
  return "(no error)";
}

TEST(Access, Errors) {
  Decl d = tile();
  unsigned col = 0;
  EXPECT_EQ(access_error("tile[threadIdx.x", d, {}, &col), "expected ']', found end of input");
  EXPECT_EQ(col, 17u);
  access_error("tile[threadIdx.x][threadIdx.y", d, {}, &col);
  EXPECT_EQ(col, 30u);
  EXPECT_NE(access_error("tile[1]", d, {}, &col).find("too few subscripts"), std::string::npos);
  EXPECT_EQ(col, 8u);
  EXPECT_NE(access_error("tile[1][2][3]", d, {}, &col).find("too many"), std::string::npos);
  EXPECT_EQ(col, 11u);
  EXPECT_NE(access_error("tail[1][2]", d, {}, &col).find("unknown array 'tail'"),
            std::string::npos);
  EXPECT_EQ(col, 1u);
  access_error("tile[1] + 2", d, {}, &col);
  EXPECT_EQ(col, 9u);
  access_error("tile[1](2)", d, {}, &col);
  EXPECT_EQ(col, 8u);
}

TEST(Access, OutOfRangeNamesThreadAndValue) {
  Decl d = tile();
  unsigned col = 0;
  std::string msg =
      access_error("tile[threadIdx.y][threadIdx.x + 1]", d, {31, 2, 0, 32, 32, 1}, &col);
  EXPECT_EQ(msg, "thread (31,2,0): subscript 2 of 'tile' is 32, outside 0..31");
  EXPECT_EQ(col, 19u);
  msg = access_error("tile[threadIdx.y - 1][0]", d, {0, 0, 0, 32, 32, 1}, &col);
  EXPECT_EQ(msg, "thread (0,0,0): subscript 1 of 'tile' is -1, outside 0..31");
  EXPECT_EQ(col, 6u);
  msg = access_error("tile[0][32 / threadIdx.x]", d, {0, 1, 0, 32, 32, 1}, &col);
  EXPECT_EQ(msg, "thread (0,1,0): division by zero");
  EXPECT_EQ(col, 12u);
}

}  // namespace
}  // namespace smemlab::expr
