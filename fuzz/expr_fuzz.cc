// The index-expression language of `smemlab bank`: line 1 is a declaration
// (--decl), line 2 an access, further lines --let NAME=VALUE. Only
// expr::Error may come out.
#include <sstream>
#include <vector>

#include "expr/expr.h"
#include "fuzz/fuzz_main.h"

using namespace smemlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::stringstream in(fuzz::text_of(data, size));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  while (lines.size() < 2) lines.emplace_back();
  expr::Vars vars;
  try {
    for (size_t i = 2; i < lines.size(); ++i) {
      auto [name, value] = expr::parse_let(lines[i], vars);
      vars[name] = value;
    }
  } catch (const expr::Error&) {
  }
  try {
    expr::Expr e = expr::Expr::parse(lines[1], vars);
    for (unsigned t = 0; t < 64; t += 7) e.eval(expr::Thread{t % 32, t / 32, 0, 32, 2, 1});
  } catch (const expr::Error&) {
  }
  try {
    expr::Decl d = expr::parse_decl(lines[0], vars);
    expr::Access a = expr::Access::parse(lines[1], d, vars);
    for (unsigned t = 0; t < 64; ++t) {
      try {
        a.offset(expr::Thread{t % 32, t / 32, 0, 32, 2, 1});
      } catch (const expr::Error&) {
      }
    }
  } catch (const expr::Error&) {
  }
  return 0;
}
