// IR -> Program for one kernel (see program.h). Every instruction is either
// decoded or rejected here with "FILE:LINE:COL: unsupported instruction
// 'opcode'": nothing is skipped at run time.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "emu/program.h"
#include "ptx/ir.h"

namespace smemlab::emu {

class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where module-scope .global and .const variables live (set up at load).
struct ModuleLayout {
  std::map<std::string, SymbolInfo> symbols;
  uint32_t const_bytes = 0;
};

std::unique_ptr<Program> decode_kernel(const ptx::Module& m, const ptx::Function& kernel,
                                       const ModuleLayout& layout);

// T for a PTX type name ("b32" -> U32); false if it is not a scalar type.
bool parse_type(const std::string& s, T* out);

}  // namespace smemlab::emu
