// The index-expression language of `smemlab bank`: a C-like declaration of a
// shared array (`int tile[32][32]`) and an access to it written the way a
// kernel writes it (`tile[threadIdx.y][threadIdx.x + i]`), evaluated for one
// thread of a block to a byte offset. Integer arithmetic only, in 64-bit
// signed two's complement (overflow wraps; there are no unsigned types, so
// `threadIdx.x - 1` is -1 for thread 0, and a negative subscript is an
// out-of-range error rather than a huge index). Every error carries the
// 1-based column of the character it is about, so the CLI can point at it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace smemlab::expr {

// A syntax or evaluation error. what() is "<message>"; column() is 1-based
// into the text that was parsed (0 when it concerns the text as a whole).
class Error : public std::runtime_error {
 public:
  Error(unsigned column, const std::string& message)
      : std::runtime_error(message), column_(column) {}
  unsigned column() const { return column_; }

 private:
  unsigned column_;
};

// Values of `--let NAME=VALUE`; bound when an expression is parsed.
using Vars = std::map<std::string, int64_t, std::less<>>;

// One thread of a block: its threadIdx and the block's dimensions. Threads
// are numbered x fastest (tid = x + y*bx + z*bx*by); laneid = tid % 32,
// warpid = tid / 32, as the hardware groups them into warps.
struct Thread {
  unsigned x = 0, y = 0, z = 0;
  unsigned bx = 1, by = 1, bz = 1;
  uint64_t linear() const { return x + uint64_t{y} * bx + uint64_t{z} * bx * by; }
};

// A declared shared array: `[__shared__] [extern] TYPE NAME[D1][D2]... [;]`.
struct Decl {
  std::string name;
  std::string type;        // normalized spelling, e.g. "unsigned int"
  unsigned elem_size = 0;  // bytes; also the access width of one element
  std::vector<uint64_t> dims;
  uint64_t elements() const;
};

// Dimensions are integer constant expressions (they may use --let names but
// not threadIdx and friends). Throws Error.
Decl parse_decl(std::string_view text, const Vars& vars = {});

// The element types parse_decl accepts, with their sizes (for help texts).
std::string known_types();

class Node;

// An integer expression. Identifiers: threadIdx.{x,y,z}, blockDim.{x,y,z},
// laneid, warpid and the names in `vars`; literals: decimal or 0x hex (C
// suffixes u, l, ll are tolerated and ignored). Operators and precedence as
// in C: unary - + ~; * / %; + -; << >>; &; ^; |.
class Expr {
 public:
  // With thread_dependent false, the thread identifiers are errors (for
  // constant expressions such as array dimensions and --let values).
  static Expr parse(std::string_view text, const Vars& vars, bool thread_dependent = true);
  // Throws Error (division by zero, shift out of range) with the operator's column.
  int64_t eval(const Thread& thread) const;

  Expr(Expr&&) noexcept;
  Expr& operator=(Expr&&) noexcept;
  ~Expr();

 private:
  explicit Expr(std::unique_ptr<Node> root);
  std::unique_ptr<Node> root_;
  friend class Access;
};

// `NAME[e1][e2]...` over a declared array: exactly one subscript per
// dimension, row-major as in C.
class Access {
 public:
  static Access parse(std::string_view text, const Decl& decl, const Vars& vars);
  // Byte offset of the element `thread` addresses. Throws Error naming the
  // thread and the value for a subscript outside its dimension.
  uint64_t offset(const Thread& thread) const;

 private:
  Decl decl_;
  std::vector<Expr> subscripts_;
  std::vector<unsigned> columns_;  // where each subscript expression starts
};

// `NAME=VALUE` of --let; VALUE is a constant expression over earlier names.
// Returns the name and value; throws Error with a column into `text`.
std::pair<std::string, int64_t> parse_let(std::string_view text, const Vars& earlier);

}  // namespace smemlab::expr
