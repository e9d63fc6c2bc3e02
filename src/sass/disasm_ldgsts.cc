// nvdisasm's LDGSTS instructions: which form ptxas gave each cp.async.
#include <cctype>
#include <sstream>

#include "sass/disasm.h"

namespace smemlab::sass {

namespace {

std::string trim_ldgsts(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "P0", "!P3", "PT", "!UP1": a predicate operand.
bool is_predicate(std::string t) {
  if (!t.empty() && t[0] == '!') t = t.substr(1);
  if (!t.empty() && t[0] == 'U') t = t.substr(1);
  return t.size() == 2 && t[0] == 'P' &&
         (t[1] == 'T' || std::isdigit(static_cast<unsigned char>(t[1])));
}

}  // namespace

LdgstsInstrs ldgsts_instrs(const std::string& text) {
  LdgstsInstrs out;
  std::vector<LdgstsInstr>* current = nullptr;
  std::string file;
  int line = 0;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    const std::string t = trim_ldgsts(l);
    if (t.rfind(".section", 0) == 0) {
      const auto at = t.find(".text.");
      current =
          at == std::string::npos ? nullptr : &out[t.substr(at + 6, t.find(',', at) - at - 6)];
      file.clear();
      line = 0;
      continue;
    }
    if (t.rfind("//## File \"", 0) == 0) {
      const auto q = t.find('"', 11);
      const auto comma = t.find(", line ", q);
      if (q == std::string::npos || comma == std::string::npos) continue;
      file = t.substr(11, q - 11);
      line = std::atoi(t.c_str() + comma + 7);
      continue;
    }
    const auto close = t.find("*/"), semi = t.rfind(';');
    if (!current || t.rfind("/*", 0) != 0 || close == std::string::npos ||
        semi == std::string::npos)
      continue;
    std::string body = trim_ldgsts(t.substr(close + 2, semi - close - 2));
    if (!body.empty() && body[0] == '@') body = trim_ldgsts(body.substr(body.find(' ')));
    const std::string opcode = body.substr(0, body.find(' '));
    if (opcode != "LDGSTS" && opcode.rfind("LDGSTS.", 0) != 0) continue;
    LdgstsInstr g;
    g.file = file;
    g.line = line;
    g.text = body;
    g.bypass = opcode.find(".BYPASS") != std::string::npos;
    g.zfill = opcode.find(".ZFILL") != std::string::npos;
    const auto comma = body.rfind(',');
    const std::string last = comma == std::string::npos ? "" : trim_ldgsts(body.substr(comma + 1));
    g.predicated = !g.zfill && is_predicate(last);
    if (g.predicated) g.predicate = last;
    current->push_back(g);
  }
  return out;
}

}  // namespace smemlab::sass
