// Internal to the expr module: the tokens of declarations, expressions and
// --let bindings, each with its 1-based column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace smemlab::expr::detail {

enum class Tok { Int, Ident, Punct, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;   // identifier or punctuator spelling; literal as written
  int64_t value = 0;  // for Int
  unsigned column = 1;
};

constexpr size_t kMaxLength = 10000;

// Splits `text` (at most kMaxLength characters) into tokens ending with one End token (whose column
// is one past the last character). Throws Error for a character or literal that is not part of the
// language.
std::vector<Token> tokenize(std::string_view text);

// A cursor over tokens with the helpers every parser here needs.
class Cursor {
 public:
  explicit Cursor(std::vector<Token> tokens) : toks_(std::move(tokens)) {}
  const Token& peek(size_t ahead = 0) const;
  const Token& next();
  bool is(std::string_view punct) const;
  bool accept(std::string_view punct);
  // Consumes `punct` or throws "expected 'punct'" at the current token.
  void expect(std::string_view punct);
  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::vector<Token> toks_;
  size_t pos_ = 0;
};

// How a token reads in an error message: "'foo'", "end of input".
std::string describe(const Token& t);

}  // namespace smemlab::expr::detail
