#include "expr/parser.h"

#include <limits>

namespace smemlab::expr {

namespace {

// Two's complement wrap-around without signed-overflow UB.
int64_t wrap(uint64_t v) { return static_cast<int64_t>(v); }
uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }

}  // namespace

int64_t Node::eval(const Thread& t) const {
  switch (kind) {
    case Kind::Const:
      return value;
    case Kind::ThreadVar: {
      uint64_t tid = t.linear();
      switch (value) {
        case kTidX:
          return t.x;
        case kTidY:
          return t.y;
        case kTidZ:
          return t.z;
        case kDimX:
          return t.bx;
        case kDimY:
          return t.by;
        case kDimZ:
          return t.bz;
        case kLane:
          return static_cast<int64_t>(tid % 32);
        case kWarp:
          return static_cast<int64_t>(tid / 32);
        default:
          break;
      }
      return 0;
    }
    case Kind::Unary: {
      int64_t a = lhs->eval(t);
      if (op == "-") return wrap(0 - u(a));
      if (op == "~") return ~a;
      return a;  // unary +
    }
    case Kind::Binary:
      break;
  }
  int64_t a = lhs->eval(t);
  int64_t b = rhs->eval(t);
  const char c = op[0];
  switch (c) {
    case '+':
      return wrap(u(a) + u(b));
    case '-':
      return wrap(u(a) - u(b));
    case '*':
      return wrap(u(a) * u(b));
    case '/':
    case '%':
      if (b == 0) throw Error(column, c == '/' ? "division by zero" : "modulo by zero");
      if (a == std::numeric_limits<int64_t>::min() && b == -1) return c == '/' ? a : 0;
      return c == '/' ? a / b : a % b;
    case '&':
      return a & b;
    case '|':
      return a | b;
    case '^':
      return a ^ b;
    default:
      break;
  }
  // Shifts: C leaves counts outside [0, width) undefined; we refuse them.
  if (b < 0 || b > 63)
    throw Error(column, "shift count " + std::to_string(b) + " is outside 0..63");
  if (op == "<<") return wrap(u(a) << b);
  return a >> b;  // arithmetic shift (C++20 defines it for negative values)
}

namespace detail {
namespace {

struct Parser {
  Cursor& cur;
  const Vars& vars;
  bool thread_dependent;

  using P = std::unique_ptr<Node>;

  P binary(P lhs, const Token& op, P rhs) {
    auto n = std::make_unique<Node>();
    n->kind = Node::Kind::Binary;
    n->op = op.text;
    n->column = op.column;
    n->lhs = std::move(lhs);
    n->rhs = std::move(rhs);
    return n;
  }

  // One precedence level: operand (op operand)*, left-associative.
  template <typename Sub>
  P level(std::initializer_list<std::string_view> ops, Sub sub) {
    P lhs = (this->*sub)();
    for (;;) {
      bool matched = false;
      for (std::string_view o : ops) matched = matched || cur.is(o);
      if (!matched) return lhs;
      Token op = cur.next();
      lhs = binary(std::move(lhs), op, (this->*sub)());
    }
  }

  P bit_or() { return level({"|"}, &Parser::bit_xor); }
  P bit_xor() { return level({"^"}, &Parser::bit_and); }
  P bit_and() { return level({"&"}, &Parser::shift); }
  P shift() { return level({"<<", ">>"}, &Parser::additive); }
  P additive() { return level({"+", "-"}, &Parser::multiplicative); }
  P multiplicative() { return level({"*", "/", "%"}, &Parser::unary); }

  // Nesting of parentheses and unary operators; bounded so that recursion
  // stays shallow whatever the input.
  unsigned depth = 0;
  static constexpr unsigned kMaxDepth = 256;

  void enter() {
    if (++depth > kMaxDepth)
      cur.fail("nested more than " + std::to_string(kMaxDepth) + " levels deep");
  }

  P unary() {
    if (cur.is("-") || cur.is("+") || cur.is("~")) {
      enter();
      Token op = cur.next();
      auto n = std::make_unique<Node>();
      n->kind = Node::Kind::Unary;
      n->op = op.text;
      n->column = op.column;
      n->lhs = unary();
      --depth;
      return n;
    }
    return primary();
  }

  P constant(int64_t v) {
    auto n = std::make_unique<Node>();
    n->value = v;
    return n;
  }

  P thread_var(const Token& at, Node::Var v) {
    if (!thread_dependent)
      throw Error(at.column, "'" + at.text + "' is not allowed here: the value must be a constant");
    auto n = std::make_unique<Node>();
    n->kind = Node::Kind::ThreadVar;
    n->value = v;
    n->column = at.column;
    return n;
  }

  // threadIdx.x, blockDim.z: the component after the dot.
  P component(const Token& base, Node::Var first) {
    cur.expect(".");
    const Token& c = cur.peek();
    if (c.kind == Tok::Ident && (c.text == "x" || c.text == "y" || c.text == "z")) {
      cur.next();
      return thread_var(base, static_cast<Node::Var>(first + (c.text[0] - 'x')));
    }
    cur.fail("expected x, y or z after '" + base.text + ".', found " + describe(c));
  }

  P primary() {
    const Token& t = cur.peek();
    if (t.kind == Tok::Int) {
      cur.next();
      return constant(t.value);
    }
    if (cur.is("(")) {
      enter();
      cur.next();
      P inner = bit_or();
      cur.expect(")");
      --depth;
      return inner;
    }
    if (t.kind != Tok::Ident) cur.fail("expected an expression, found " + describe(t));
    Token id = cur.next();
    if (id.text == "threadIdx") return component(id, Node::kTidX);
    if (id.text == "blockDim") return component(id, Node::kDimX);
    if (id.text == "laneid") return thread_var(id, Node::kLane);
    if (id.text == "warpid") return thread_var(id, Node::kWarp);
    if (id.text == "blockIdx" || id.text == "gridDim")
      throw Error(id.column, "'" + id.text +
                                 "' is not available: shared memory belongs to one block "
                                 "(use --let for a fixed value)");
    if (auto it = vars.find(id.text); it != vars.end()) return constant(it->second);
    throw Error(id.column,
                "unknown name '" + id.text + "' (define it with --let " + id.text + "=VALUE)");
  }
};

}  // namespace

std::unique_ptr<Node> parse_expression(Cursor& cur, const Vars& vars, bool thread_dependent) {
  Parser p{cur, vars, thread_dependent};
  return p.bit_or();
}

bool reserved_name(std::string_view name) {
  return name == "threadIdx" || name == "blockDim" || name == "laneid" || name == "warpid" ||
         name == "blockIdx" || name == "gridDim";
}

}  // namespace detail

Expr::Expr(std::unique_ptr<Node> root) : root_(std::move(root)) {}
Expr::Expr(Expr&&) noexcept = default;
Expr& Expr::operator=(Expr&&) noexcept = default;
Expr::~Expr() = default;

Expr Expr::parse(std::string_view text, const Vars& vars, bool thread_dependent) {
  detail::Cursor cur(detail::tokenize(text));
  auto root = detail::parse_expression(cur, vars, thread_dependent);
  if (cur.peek().kind != detail::Tok::End)
    cur.fail("unexpected " + detail::describe(cur.peek()) + " after the expression");
  return Expr(std::move(root));
}

int64_t Expr::eval(const Thread& thread) const { return root_->eval(thread); }

std::pair<std::string, int64_t> parse_let(std::string_view text, const Vars& earlier) {
  detail::Cursor cur(detail::tokenize(text));
  const detail::Token& name = cur.peek();
  if (name.kind != detail::Tok::Ident)
    cur.fail("expected NAME=VALUE, found " + detail::describe(name));
  if (detail::reserved_name(name.text))
    cur.fail("'" + name.text + "' is a built-in name and cannot be set with --let");
  std::string n = cur.next().text;
  cur.expect("=");
  auto root = detail::parse_expression(cur, earlier, false);
  if (cur.peek().kind != detail::Tok::End)
    cur.fail("unexpected " + detail::describe(cur.peek()) + " after the value");
  return {n, root->eval(Thread{})};
}

}  // namespace smemlab::expr
