#include "ptx/lexer.h"

#include <fmt/format.h>

#include <cctype>

namespace smemlab::ptx {

ParseError::ParseError(const std::string& file, int l, int c, const std::string& msg)
    : std::runtime_error(fmt::format("{}:{}:{}: {}", file, l, c, msg)), line(l), col(c) {}

namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
         c == '.';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
         c == '.';
}

// Digits in `base` (10 or 16) to a 64-bit value; false when it does not fit.
bool parse_digits(std::string_view d, int base, uint64_t* out) {
  uint64_t v = 0;
  for (char c : d) {
    int digit = std::isdigit(static_cast<unsigned char>(c))
                    ? c - '0'
                    : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
    if (v > (UINT64_MAX - static_cast<uint64_t>(digit)) / static_cast<uint64_t>(base))
      return false;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(digit);
  }
  *out = v;
  return true;
}

}  // namespace

std::vector<Token> lex(std::string_view s, const std::string& file) {
  std::vector<Token> out;
  size_t i = 0;
  int line = 1;
  size_t line_start = 0;
  auto err = [&](size_t at, const std::string& msg) {
    throw ParseError(file, line, static_cast<int>(at - line_start) + 1, msg);
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == '\n') {
      ++line;
      line_start = ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t j = i + 2;
      while (j + 1 < s.size() && !(s[j] == '*' && s[j + 1] == '/')) {
        if (s[j] == '\n') {
          ++line;
          line_start = j + 1;
        }
        ++j;
      }
      if (j + 1 >= s.size()) err(i, "unterminated comment");
      i = j + 2;
      continue;
    }
    Token t;
    t.line = line;
    t.col = static_cast<int>(i - line_start) + 1;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      if (c == '0' && i + 1 < s.size() &&
          (s[i + 1] == 'f' || s[i + 1] == 'F' || s[i + 1] == 'd' || s[i + 1] == 'D')) {
        bool d = s[i + 1] == 'd' || s[i + 1] == 'D';
        size_t n = d ? 16 : 8;
        j = i + 2;
        while (j < s.size() && std::isxdigit(static_cast<unsigned char>(s[j]))) ++j;
        if (j - i - 2 != n) err(i, "bad floating-point immediate");
        t.kind = Token::Kind::Float;
        t.is_f64 = d;
        parse_digits(s.substr(i + 2, n), 16, &t.bits);  // 8 or 16 hex digits always fit
      } else if (c == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        j = i + 2;
        while (j < s.size() && std::isxdigit(static_cast<unsigned char>(s[j]))) ++j;
        if (j == i + 2) err(i, "bad hexadecimal number");
        t.kind = Token::Kind::Int;
        if (!parse_digits(s.substr(i + 2, j - i - 2), 16, &t.bits))
          err(i, "integer out of range (more than 64 bits)");
      } else {
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        if (j < s.size() && (s[j] == '.' || s[j] == 'e' || s[j] == 'E')) {
          // Decimal float (not emitted by nvcc, accepted for hand-written PTX).
          size_t k = j;
          while (k < s.size() &&
                 (std::isdigit(static_cast<unsigned char>(s[k])) || s[k] == '.' || s[k] == 'e' ||
                  s[k] == 'E' ||
                  ((s[k] == '-' || s[k] == '+') && (s[k - 1] == 'e' || s[k - 1] == 'E'))))
            ++k;
          std::string text(s.substr(i, k - i));
          double v = 0;
          size_t used = 0;
          try {
            v = std::stod(text, &used);
          } catch (const std::out_of_range&) {
            err(i, fmt::format("floating-point number '{}' out of range", text));
          } catch (const std::invalid_argument&) {
          }
          if (used != text.size()) err(i, fmt::format("bad floating-point number '{}'", text));
          t.kind = Token::Kind::Float;
          t.is_f64 = true;
          static_assert(sizeof(double) == 8);
          __builtin_memcpy(&t.bits, &v, 8);
          j = k;
        } else {
          t.kind = Token::Kind::Int;
          if (!parse_digits(s.substr(i, j - i), 10, &t.bits))
            err(i, "integer out of range (more than 64 bits)");
        }
      }
      if (j < s.size() && (s[j] == 'U' || s[j] == 'u')) ++j;  // 123U
      if (j < s.size() && ident_char(s[j])) err(j, "unexpected character in number");
      i = j;
    } else if (ident_start(c)) {
      size_t j = i + 1;
      while (j < s.size() && (ident_char(s[j]) || (s[j] == ':' && j + 2 < s.size() &&
                                                   s[j + 1] == ':' && ident_char(s[j + 2])))) {
        j += s[j] == ':' ? 2 : 1;
      }
      t.kind = Token::Kind::Ident;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (c == '"') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"' && s[j] != '\n') ++j;
      if (j >= s.size() || s[j] != '"') err(i, "unterminated string");
      t.kind = Token::Kind::String;
      t.text = std::string(s.substr(i + 1, j - i - 1));
      i = j + 1;
    } else if (std::string_view(",;:[]{}()<>+-|!@=*").find(c) != std::string_view::npos) {
      t.kind = Token::Kind::Punct;
      t.text = std::string(1, c);
      ++i;
    } else {
      unsigned char u = static_cast<unsigned char>(c);
      err(i, std::isprint(u) ? fmt::format("unexpected character '{}'", c)
                             : fmt::format("unexpected byte 0x{:02x}", u));
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.kind = Token::Kind::End;
  end.line = line;
  end.col = static_cast<int>(i - line_start) + 1;
  out.push_back(end);
  return out;
}

}  // namespace smemlab::ptx
