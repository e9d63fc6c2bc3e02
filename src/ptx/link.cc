#include "ptx/link.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace smemlab::ptx {
namespace {

// Where the winning definition of an external name lives.
struct Definition {
  size_t unit = 0;
  Linkage linkage = Linkage::Internal;
  int64_t size = 0;  // .common variables: the largest stays
};

bool defines(const Function& f) { return f.has_body; }
bool defines(const VarDecl& v) { return !v.is_extern; }

// Records `name`'s definition in `unit`, deciding between two of them.
void define(std::map<std::string, Definition>& defs, const std::string& name, size_t unit,
            Linkage linkage, int64_t size, const std::string& u0, const std::string& u1) {
  auto [it, fresh] = defs.try_emplace(name, Definition{unit, linkage, size});
  if (fresh) return;
  Definition& d = it->second;
  if (d.linkage == Linkage::Visible && linkage == Linkage::Visible)
    throw LinkError(fmt::format("'{}' is defined in both {} and {} (nvlink: multiple definition)",
                                name, u0, u1));
  bool replace = (linkage == Linkage::Visible && d.linkage != Linkage::Visible) ||
                 (linkage == Linkage::Common && d.linkage == Linkage::Common && size > d.size);
  if (replace) d = Definition{unit, linkage, size};
}

void rename_operand(Operand& o, const std::map<std::string, std::string>& names) {
  if (o.kind == Operand::Kind::Reg || o.kind == Operand::Kind::Addr) {
    auto it = names.find(o.name);
    if (it != names.end()) o.name = it->second;
  }
  for (Operand& e : o.elems) rename_operand(e, names);
}

void rename_unit(Module& m, const std::map<std::string, std::string>& names) {
  if (names.empty()) return;
  auto re = [&](std::string& n) {
    auto it = names.find(n);
    if (it != names.end()) n = it->second;
  };
  for (VarDecl& g : m.globals) {
    re(g.name);
    for (auto& [off, sym] : g.init_symbols) re(sym);
  }
  for (Function& f : m.functions) {
    re(f.name);
    for (VarDecl& l : f.locals)
      for (auto& [off, sym] : l.init_symbols) re(sym);
    for (Instruction& in : f.body)
      for (Operand& o : in.operands) rename_operand(o, names);
  }
}

// A unit's internal symbols that another unit also names get `$u<unit>`.
void rename_internal(std::vector<Module>& units) {
  std::map<std::string, std::set<size_t>> users;  // name -> units declaring it
  for (size_t u = 0; u < units.size(); ++u) {
    for (const auto& g : units[u].globals) users[g.name].insert(u);
    for (const auto& f : units[u].functions) users[f.name].insert(u);
  }
  for (size_t u = 0; u < units.size(); ++u) {
    std::map<std::string, std::string> names;
    auto consider = [&](const std::string& name, Linkage l) {
      if (l == Linkage::Internal && users[name].size() > 1)
        names[name] = fmt::format("{}$u{}", name, u);
    };
    for (const auto& g : units[u].globals) consider(g.name, g.linkage);
    for (const auto& f : units[u].functions)
      if (f.has_body) consider(f.name, f.linkage);
    rename_unit(units[u], names);
  }
}

}  // namespace

Module link(std::vector<Module> units, const std::string& path) {
  Module out;
  out.path = path;
  if (units.empty()) return out;
  rename_internal(units);
  std::map<std::string, Definition> vars, funcs;
  for (size_t u = 0; u < units.size(); ++u) {
    for (const auto& g : units[u].globals)
      if (defines(g) && g.linkage != Linkage::Internal)
        define(vars, g.name, u, g.linkage, g.size_bytes(),
               units[vars.count(g.name) ? vars[g.name].unit : u].path, units[u].path);
    for (const auto& f : units[u].functions)
      if (defines(f) && f.linkage != Linkage::Internal)
        define(funcs, f.name, u, f.linkage, 0,
               units[funcs.count(f.name) ? funcs[f.name].unit : u].path, units[u].path);
  }
  out.version = units[0].version;
  out.target = units[0].target;
  out.address_size = units[0].address_size;
  std::set<std::string> declared;  // body-less functions and extern variables kept once
  for (size_t u = 0; u < units.size(); ++u) {
    Module& m = units[u];
    if (m.version > out.version) out.version = m.version;
    int loc_shift = out.lines.append(m.lines);
    for (VarDecl& g : m.globals) {
      auto it = vars.find(g.name);
      bool winner = it != vars.end() && it->second.unit == u;
      if (g.linkage == Linkage::Internal && defines(g)) {
        out.globals.push_back(std::move(g));
      } else if (defines(g)) {
        if (winner) out.globals.push_back(std::move(g));
      } else if (it == vars.end() && declared.insert("v:" + g.name).second) {
        out.globals.push_back(std::move(g));  // never defined: extern shared, or unresolved
      }
    }
    for (Function& f : m.functions) {
      for (Instruction& in : f.body)
        if (in.loc >= 0) in.loc += loc_shift;
      auto it = funcs.find(f.name);
      bool winner = it != funcs.end() && it->second.unit == u;
      if (f.has_body ? (f.linkage == Linkage::Internal || winner)
                     : it == funcs.end() && declared.insert("f:" + f.name).second)
        out.functions.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace smemlab::ptx
