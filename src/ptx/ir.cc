#include "ptx/ir.h"

namespace smemlab::ptx {

const char* space_name(StateSpace s) {
  switch (s) {
    case StateSpace::Reg:
      return "reg";
    case StateSpace::Global:
      return "global";
    case StateSpace::Shared:
      return "shared";
    case StateSpace::Local:
      return "local";
    case StateSpace::Const:
      return "const";
    case StateSpace::Param:
      return "param";
    case StateSpace::Generic:
      return "generic";
  }
  return "?";
}

int type_size(const std::string& t) {
  if (t == "pred") return 0;
  if (t == "f16x2" || t == "bf16x2") return 4;
  if (t == "bf16") return 2;
  if (t == "e4m3" || t == "e5m2") return 1;
  if (t.size() < 2) return 0;
  int bits = std::atoi(t.c_str() + 1);
  return bits / 8;
}

int64_t VarDecl::size_bytes() const { return count * type_size(type); }

std::string Instruction::text() const {
  std::string s = opcode;
  for (const auto& m : mods) s += "." + m;
  return s;
}

bool Instruction::has_mod(const char* m) const {
  for (const auto& x : mods)
    if (x == m) return true;
  return false;
}

const Function* Module::find(const std::string& name) const {
  for (const auto& f : functions)
    if (f.name == name && f.has_body) return &f;
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<const Function*> Module::kernels() const {
  std::vector<const Function*> out;
  for (const auto& f : functions)
    if (f.is_entry && f.has_body) out.push_back(&f);
  return out;
}

}  // namespace smemlab::ptx
