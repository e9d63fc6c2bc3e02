#include "expr/lexer.h"

#include <cctype>
#include <limits>

#include "expr/expr.h"

namespace smemlab::expr::detail {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

// An integer literal starting at text[i]; advances i past it.
Token lex_int(std::string_view text, size_t& i) {
  size_t start = i;
  unsigned column = static_cast<unsigned>(start + 1);
  int base = 10;
  if (text[i] == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  size_t digits_start = i;
  uint64_t value = 0;
  bool overflow = false;
  while (i < text.size() && digit_value(text[i]) < base) {
    uint64_t d = static_cast<uint64_t>(digit_value(text[i]));
    if (value > (std::numeric_limits<uint64_t>::max() - d) / static_cast<uint64_t>(base))
      overflow = true;
    value = value * static_cast<uint64_t>(base) + d;
    ++i;
  }
  if (i == digits_start) throw Error(column, "hexadecimal literal without digits");
  // C's integer suffixes (u, l, ll, ul, ...) change nothing for us.
  while (i < text.size() && (text[i] == 'u' || text[i] == 'U' || text[i] == 'l' || text[i] == 'L'))
    ++i;
  if (i < text.size() && ident_char(text[i]))
    throw Error(static_cast<unsigned>(i + 1),
                "bad character '" + std::string(1, text[i]) + "' in integer literal");
  std::string spelled(text.substr(start, i - start));
  if (base == 10 && spelled.size() > 1 && spelled[0] == '0' && std::isdigit(spelled[1]))
    throw Error(column,
                "octal literal '" + spelled + "' is not supported (write it in decimal or 0x hex)");
  if (overflow || value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    throw Error(column, "integer literal '" + spelled + "' does not fit in 64 bits");
  return {Tok::Int, spelled, static_cast<int64_t>(value), column};
}

}  // namespace

std::vector<Token> tokenize(std::string_view text) {
  static constexpr std::string_view kTwo[] = {"<<", ">>"};
  static constexpr std::string_view kOne = "+-*/%&|^~()[].;=,";
  // Bounds the depth of the trees built from the tokens (parsing and
  // evaluation recurse), so no input can exhaust the stack.
  if (text.size() > kMaxLength)
    throw Error(static_cast<unsigned>(kMaxLength + 1),
                "longer than " + std::to_string(kMaxLength) + " characters");
  std::vector<Token> out;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    unsigned column = static_cast<unsigned>(i + 1);
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      out.push_back(lex_int(text, i));
    } else if (ident_start(c)) {
      size_t start = i;
      while (i < text.size() && ident_char(text[i])) ++i;
      out.push_back({Tok::Ident, std::string(text.substr(start, i - start)), 0, column});
    } else {
      std::string_view rest = text.substr(i);
      bool two = false;
      for (std::string_view p : kTwo)
        if (rest.starts_with(p)) two = true;
      if (two) {
        out.push_back({Tok::Punct, std::string(rest.substr(0, 2)), 0, column});
        i += 2;
      } else if (kOne.find(c) != std::string_view::npos) {
        out.push_back({Tok::Punct, std::string(1, c), 0, column});
        ++i;
      } else if (c == '<' || c == '>' || c == '=' || c == '!' || c == '?') {
        throw Error(column, "comparison and conditional operators are not supported");
      } else if (std::isprint(static_cast<unsigned char>(c))) {
        throw Error(column, "unexpected character '" + std::string(1, c) + "'");
      } else {
        throw Error(column, "unexpected non-printable character");
      }
    }
  }
  out.push_back({Tok::End, "", 0, static_cast<unsigned>(text.size() + 1)});
  return out;
}

const Token& Cursor::peek(size_t ahead) const {
  size_t i = pos_ + ahead;
  return i < toks_.size() ? toks_[i] : toks_.back();
}

const Token& Cursor::next() {
  const Token& t = peek();
  if (pos_ + 1 < toks_.size()) ++pos_;
  return t;
}

bool Cursor::is(std::string_view punct) const {
  return peek().kind == Tok::Punct && peek().text == punct;
}

bool Cursor::accept(std::string_view punct) {
  if (!is(punct)) return false;
  next();
  return true;
}

void Cursor::expect(std::string_view punct) {
  if (!accept(punct)) fail("expected '" + std::string(punct) + "', found " + describe(peek()));
}

void Cursor::fail(const std::string& message) const { throw Error(peek().column, message); }

std::string describe(const Token& t) {
  if (t.kind == Tok::End) return "end of input";
  return "'" + t.text + "'";
}

}  // namespace smemlab::expr::detail
