// Declarations: `[__shared__] [extern] TYPE NAME[D1][D2]... [;]`.
#include <array>
#include <utility>

#include "expr/expr.h"
#include "expr/parser.h"

namespace smemlab::expr {
namespace {

struct TypeInfo {
  std::string_view spelling;
  unsigned size;
};

// C/CUDA scalar and vector types; the size is also the access width.
constexpr std::array kTypes{
    TypeInfo{"char", 1},          TypeInfo{"signed char", 1},
    TypeInfo{"unsigned char", 1}, TypeInfo{"int8_t", 1},
    TypeInfo{"uint8_t", 1},       TypeInfo{"short", 2},
    TypeInfo{"short int", 2},     TypeInfo{"unsigned short", 2},
    TypeInfo{"int16_t", 2},       TypeInfo{"uint16_t", 2},
    TypeInfo{"half", 2},          TypeInfo{"__half", 2},
    TypeInfo{"int", 4},           TypeInfo{"signed", 4},
    TypeInfo{"signed int", 4},    TypeInfo{"unsigned", 4},
    TypeInfo{"unsigned int", 4},  TypeInfo{"int32_t", 4},
    TypeInfo{"uint32_t", 4},      TypeInfo{"float", 4},
    TypeInfo{"half2", 4},         TypeInfo{"__half2", 4},
    TypeInfo{"char4", 4},         TypeInfo{"uchar4", 4},
    TypeInfo{"short2", 4},        TypeInfo{"long long", 8},
    TypeInfo{"long long int", 8}, TypeInfo{"unsigned long long", 8},
    TypeInfo{"int64_t", 8},       TypeInfo{"uint64_t", 8},
    TypeInfo{"double", 8},        TypeInfo{"int2", 8},
    TypeInfo{"uint2", 8},         TypeInfo{"float2", 8},
    TypeInfo{"int4", 16},         TypeInfo{"uint4", 16},
    TypeInfo{"float4", 16},       TypeInfo{"double2", 16},
};

bool qualifier(std::string_view w) {
  return w == "__shared__" || w == "extern" || w == "static" || w == "volatile" || w == "const";
}

// Arrays live in the 32-bit shared window.
constexpr uint64_t kWindow = uint64_t{1} << 32;

}  // namespace

uint64_t Decl::elements() const {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  return n;
}

std::string known_types() {
  std::string s;
  for (const TypeInfo& t : kTypes) {
    if (!s.empty()) s += ", ";
    s += t.spelling;
  }
  return s;
}

Decl parse_decl(std::string_view text, const Vars& vars) {
  detail::Cursor cur(detail::tokenize(text));
  // Identifiers up to the first '[' / ';' / end: qualifiers, type words, name.
  std::vector<detail::Token> words;
  while (cur.peek().kind == detail::Tok::Ident) words.push_back(cur.next());
  if (cur.peek().kind != detail::Tok::End && !cur.is("[") && !cur.is(";"))
    cur.fail("unexpected " + detail::describe(cur.peek()) + " in the declaration");
  size_t first = 0;
  while (first < words.size() && qualifier(words[first].text)) ++first;
  if (words.size() < first + 2) {
    unsigned col = first < words.size() ? words[first].column : cur.peek().column;
    throw Error(col, "expected a declaration like 'int tile[32][32]' (a type, then a name)");
  }
  Decl d;
  d.name = words.back().text;
  for (size_t i = first; i + 1 < words.size(); ++i) {
    if (qualifier(words[i].text))
      throw Error(words[i].column, "'" + words[i].text + "' must come before the type");
    if (!d.type.empty()) d.type += ' ';
    d.type += words[i].text;
  }
  for (const TypeInfo& t : kTypes)
    if (t.spelling == d.type) d.elem_size = t.size;
  if (d.elem_size == 0)
    throw Error(words[first].column,
                "unknown element type '" + d.type + "' (known: " + known_types() + ")");
  if (detail::reserved_name(d.name))
    throw Error(words.back().column, "'" + d.name + "' is a built-in name");

  uint64_t bytes = d.elem_size;
  while (cur.is("[")) {
    const detail::Token open = cur.next();
    // An extern array's first dimension may be left open: `extern __shared__ int s[];`.
    if (cur.is("]") && d.dims.empty()) {
      cur.next();
      d.dims.push_back(0);
      continue;
    }
    unsigned col = cur.peek().column;
    auto node = detail::parse_expression(cur, vars, false);
    cur.expect("]");
    int64_t v = node->eval(Thread{});
    if (v <= 0) throw Error(col, "array dimension must be positive, not " + std::to_string(v));
    auto dim = static_cast<uint64_t>(v);
    if (dim >= kWindow || bytes * dim >= kWindow)
      throw Error(open.column, "array does not fit in the 32-bit shared memory window");
    bytes *= dim;
    d.dims.push_back(dim);
  }
  cur.accept(";");
  if (cur.peek().kind != detail::Tok::End)
    cur.fail("unexpected " + detail::describe(cur.peek()) + " after the declaration");
  return d;
}

}  // namespace smemlab::expr
