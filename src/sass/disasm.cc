#include "sass/disasm.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

namespace smemlab::sass {

const char* space_name(Space s) {
  switch (s) {
    case Space::Shared:
      return "shared";
    case Space::Global:
      return "global";
    case Space::Local:
      return "local";
    case Space::Generic:
      return "generic";
  }
  return "?";
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::stringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

bool is_immediate(const std::string& t) { return t.rfind("0x", 0) == 0 || t.rfind("-0x", 0) == 0; }

using Versions = std::map<std::string, int>;

// "R2.64" -> "R2"
std::string reg_of(const std::string& term) { return term.substr(0, term.find('.')); }

bool is_register(const std::string& t) {
  size_t i = t[0] == 'U' ? 1 : 0;
  return t.size() > i + 1 && t[i] == 'R' && std::isdigit(static_cast<unsigned char>(t[i + 1]));
}

// "R19+0x40" / "R2.64+-0x8" / "UR4" / "0x10" -> base and offset.
void parse_address(const std::string& inside, const Versions& versions, MemInstr* m) {
  m->base.clear();
  m->offset = 0;
  for (const std::string& term : split(inside, '+')) {
    if (term.empty()) continue;
    if (is_immediate(term)) {
      bool neg = term[0] == '-';
      m->offset +=
          (neg ? -1 : 1) * static_cast<int64_t>(std::stoull(term.substr(neg ? 3 : 2), nullptr, 16));
    } else {
      auto v = versions.find(reg_of(term));
      m->base += (m->base.empty() ? "" : "+") + term + "#" +
                 std::to_string(v == versions.end() ? 0 : v->second);
    }
  }
}

// Opcode root -> space and direction; false for anything else.
bool classify(const std::string& root, MemInstr* m) {
  static const std::map<std::string, std::pair<Space, bool>> kinds = {
      {"LDS", {Space::Shared, false}}, {"STS", {Space::Shared, true}},
      {"LDG", {Space::Global, false}}, {"STG", {Space::Global, true}},
      {"LDL", {Space::Local, false}},  {"STL", {Space::Local, true}},
      {"LD", {Space::Generic, false}}, {"ST", {Space::Generic, true}}};
  auto it = kinds.find(root);
  if (it == kinds.end()) return false;
  m->space = it->second.first;
  m->store = it->second.second;
  return true;
}

unsigned width_of(const std::vector<std::string>& mods) {
  for (const auto& mod : mods) {
    if (mod == "U8" || mod == "S8") return 1;
    if (mod == "U16" || mod == "S16") return 2;
    if (mod == "64") return 8;
    if (mod == "128") return 16;
  }
  return 4;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

Disassembly parse_disassembly(const std::string& text) {
  Disassembly out;
  std::vector<MemInstr>* current = nullptr;
  std::string file;
  int line = 0;
  Versions versions;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    std::string t = trim(l);
    if (t.rfind(".section", 0) == 0) {
      // .section  .text.NAME,"ax",@progbits
      auto at = t.find(".text.");
      if (at == std::string::npos) {
        current = nullptr;
        continue;
      }
      std::string name = t.substr(at + 6, t.find(',', at) - at - 6);
      current = &out[name];
      versions.clear();
      file.clear();
      line = 0;
      continue;
    }
    if (t.rfind("//## File \"", 0) == 0) {
      auto q = t.find('"', 11);
      auto comma = t.find(", line ", q);
      if (q == std::string::npos || comma == std::string::npos) continue;
      file = t.substr(11, q - 11);
      line = std::atoi(t.c_str() + comma + 7);
      continue;
    }
    if (!current || t.rfind("/*", 0) != 0) continue;
    auto close = t.find("*/");
    auto semi = t.rfind(';');
    if (close == std::string::npos || semi == std::string::npos) continue;
    std::string body = trim(t.substr(close + 2, semi - close - 2));
    if (!body.empty() && body[0] == '@') body = trim(body.substr(body.find(' ')));
    std::string opcode = body.substr(0, body.find(' '));
    auto mods = split(opcode, '.');
    MemInstr m;
    bool memory = !mods.empty() && classify(mods[0], &m);
    if (memory) {
      auto lb = body.rfind('['), rb = body.rfind(']');
      if (lb != std::string::npos && rb != std::string::npos && rb > lb) {
        m.address = static_cast<uint32_t>(std::stoul(t.substr(2, close - 2), nullptr, 16));
        m.file = file;
        m.line = line;
        m.opcode = opcode;
        m.width = width_of(mods);
        parse_address(body.substr(lb + 1, rb - lb - 1), versions, &m);
        m.text = body;
        current->push_back(m);
      }
    }
    // The destination (first operand, when a register) gets a new value:
    // all of it for wide loads (LDS.128 R4 writes R4..R7).
    std::string first = trim(body.substr(std::min(body.size(), opcode.size())));
    first = first.substr(0, first.find(','));
    if (!first.empty() && is_register(first) && !(memory && m.store)) {
      bool uniform = first[0] == 'U';
      int n = std::atoi(first.c_str() + (uniform ? 2 : 1));
      unsigned regs = memory ? (m.width + 3) / 4 : 1;
      for (unsigned r = 0; r < regs; ++r)
        ++versions[(uniform ? "UR" : "R") + std::to_string(n + static_cast<int>(r))];
    }
  }
  return out;
}

}  // namespace smemlab::sass

namespace smemlab::sass {

namespace {

// One entry per kernel of cuobjdump -sass's text (its .text section), each
// folded over the kernel's instruction lines (those with a "/*" address
// comment) by fn(entry, line).
template <typename PerKernel, typename Fn>
PerKernel per_kernel(const std::string& text, Fn fn) {
  PerKernel out;
  typename PerKernel::mapped_type* current = nullptr;
  std::istringstream in(text);
  const std::string section = ".section\t.text.";
  for (std::string l; std::getline(in, l);) {
    if (size_t at = l.find(section); at != std::string::npos) {
      std::string name = l.substr(at + section.size());
      current = &out[name.substr(0, name.find(','))];
      continue;
    }
    if (current && l.find("/*") != std::string::npos) fn(*current, l);
  }
  return out;
}

}  // namespace

RegisterCounts registers_used(const std::string& text) {
  return per_kernel<RegisterCounts>(text, [](uint32_t& used, const std::string& l) {
    // Wide accesses and 64-bit arithmetic name the first of their registers.
    uint32_t span = l.find(".128") != std::string::npos  ? 4
                    : l.find(".64") != std::string::npos ? 2
                                                         : 1;
    for (size_t i = 0; i + 1 < l.size(); ++i) {
      if (l[i] != 'R' || !std::isdigit(static_cast<unsigned char>(l[i + 1]))) continue;
      if (i > 0 && (std::isalnum(static_cast<unsigned char>(l[i - 1])) || l[i - 1] == '_'))
        continue;
      uint32_t n = static_cast<uint32_t>(std::stoul(l.substr(i + 1, 3)));
      used = std::max(used, n + span);
    }
  });
}

NullHgmmas null_hgmmas(const std::string& text) {
  return per_kernel<NullHgmmas>(text, [](std::vector<unsigned>& nulls, const std::string& l) {
    const size_t op = l.find("HGMMA.64x");
    if (op == std::string::npos || l.find("gdesc[URZ]") == std::string::npos ||
        l.find("!UPT") == std::string::npos)
      return;
    nulls.push_back(static_cast<unsigned>(std::atoi(l.c_str() + op + 9)));
  });
}

}  // namespace smemlab::sass
