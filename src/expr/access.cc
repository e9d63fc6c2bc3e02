// Accesses `NAME[e1][e2]...`: parsing against a declaration, and evaluation
// to a row-major byte offset for one thread.
#include "expr/parser.h"

namespace smemlab::expr {
namespace {

std::string thread_name(const Thread& t) {
  return "thread (" + std::to_string(t.x) + "," + std::to_string(t.y) + "," + std::to_string(t.z) +
         ")";
}

std::string plural(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

Access Access::parse(std::string_view text, const Decl& decl, const Vars& vars) {
  detail::Cursor cur(detail::tokenize(text));
  const detail::Token& name = cur.peek();
  if (name.kind != detail::Tok::Ident)
    cur.fail("expected an access to '" + decl.name + "', e.g. " + decl.name +
             "[threadIdx.x], found " + detail::describe(name));
  if (name.text != decl.name)
    cur.fail("unknown array '" + name.text + "' (the declared array is '" + decl.name + "')");
  cur.next();
  Access a;
  a.decl_ = decl;
  while (cur.is("[")) {
    if (a.subscripts_.size() == decl.dims.size())
      cur.fail("too many subscripts: '" + decl.name + "' has " +
               plural(decl.dims.size(), "dimension"));
    cur.next();
    a.columns_.push_back(cur.peek().column);
    a.subscripts_.push_back(Expr(detail::parse_expression(cur, vars, true)));
    cur.expect("]");
  }
  if (cur.peek().kind != detail::Tok::End)
    cur.fail(a.subscripts_.empty() && decl.dims.size() > 0
                 ? "expected '[', found " + detail::describe(cur.peek())
                 : "unexpected " + detail::describe(cur.peek()) + " after the access");
  if (a.subscripts_.size() < decl.dims.size())
    cur.fail("too few subscripts: '" + decl.name + "' has " +
             plural(decl.dims.size(), "dimension") + ", the access gives " +
             plural(a.subscripts_.size(), "subscript") + " (an access names one element)");
  return a;
}

uint64_t Access::offset(const Thread& thread) const {
  uint64_t index = 0;
  for (size_t i = 0; i < subscripts_.size(); ++i) {
    int64_t v = 0;
    try {
      v = subscripts_[i].eval(thread);
    } catch (const Error& e) {
      throw Error(e.column(), thread_name(thread) + ": " + e.what());
    }
    uint64_t dim = decl_.dims[i];
    if (v < 0 || (dim != 0 && static_cast<uint64_t>(v) >= dim)) {
      std::string range = dim != 0 ? "0.." + std::to_string(dim - 1) : "0 or more";
      throw Error(columns_[i], thread_name(thread) + ": subscript " + std::to_string(i + 1) +
                                   " of '" + decl_.name + "' is " + std::to_string(v) +
                                   ", outside " + range);
    }
    // Only an open (extern) first dimension can push the offset past the
    // window; the declared ones were checked by parse_decl.
    index = index * dim + static_cast<uint64_t>(v);
    if (index >= (uint64_t{1} << 32) / decl_.elem_size)
      throw Error(columns_[i], thread_name(thread) + ": subscript " + std::to_string(i + 1) +
                                   " of '" + decl_.name + "' is " + std::to_string(v) +
                                   ", beyond the 32-bit shared memory window");
  }
  return index * decl_.elem_size;
}

}  // namespace smemlab::expr
