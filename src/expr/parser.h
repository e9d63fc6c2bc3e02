// Internal to the expr module: the expression tree and its recursive-descent
// parser, shared by expressions, array dimensions, subscripts and --let.
#pragma once

#include <memory>
#include <vector>

#include "expr/expr.h"
#include "expr/lexer.h"

namespace smemlab::expr {

class Node {
 public:
  enum class Kind { Const, ThreadVar, Unary, Binary };
  // ThreadVar ids.
  enum Var { kTidX, kTidY, kTidZ, kDimX, kDimY, kDimZ, kLane, kWarp };

  Kind kind = Kind::Const;
  int64_t value = 0;    // Const value or ThreadVar id
  std::string op;       // Unary/Binary operator spelling
  unsigned column = 0;  // of the operator (where evaluation errors point)
  std::unique_ptr<Node> lhs, rhs;

  int64_t eval(const Thread& t) const;
};

namespace detail {

// Parses one expression at the cursor (stops before any token that cannot
// continue it, e.g. ']' or End).
std::unique_ptr<Node> parse_expression(Cursor& cur, const Vars& vars, bool thread_dependent);

// True for names that cannot be --let variables.
bool reserved_name(std::string_view name);

}  // namespace detail
}  // namespace smemlab::expr
