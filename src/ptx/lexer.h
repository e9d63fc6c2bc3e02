// Tokens of PTX text. Identifiers keep their dots ("ld.global.f32",
// "%tid.x", ".reg"), so an instruction's opcode is one token.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace smemlab::ptx {

// A parse error with its position: what() is "FILE:LINE:COL: message".
class ParseError : public std::runtime_error {
 public:
  ParseError(const std::string& file, int line, int col, const std::string& msg);
  int line, col;
};

struct Token {
  enum class Kind { Ident, Int, Float, String, Punct, End };
  Kind kind = Kind::End;
  std::string text;   // identifier, punctuation, string contents
  uint64_t bits = 0;  // Int value or Float bits
  bool is_f64 = false;
  int line = 0, col = 0;
};

std::vector<Token> lex(std::string_view text, const std::string& file);

}  // namespace smemlab::ptx
