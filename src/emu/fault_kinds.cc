#include "emu/fault_kinds.h"

#include <ostream>

namespace smemlab::emu {

const std::vector<FaultKindInfo>& fault_kinds() {
  // Never destroyed: the runtime reports API errors from an exit handler
  // that may run after this table's destructor would have (static order).
  static const std::vector<FaultKindInfo>& kinds = *new std::vector<FaultKindInfo>{
#define SMEMLAB_FAULT(id, name, cuda_error, exit, finding, description) \
  {FaultKind::id, name, FaultExit::exit, description},
#include "emu/fault_kinds.def"
  };
  return kinds;
}

const FaultKindInfo& info(FaultKind kind) { return fault_kinds()[static_cast<size_t>(kind)]; }

std::optional<FaultKind> fault_kind(std::string_view name) {
  for (const FaultKindInfo& k : fault_kinds())
    if (k.name == name) return k.kind;
  return std::nullopt;
}

void PrintTo(FaultKind kind, std::ostream* os) { *os << name(kind); }

}  // namespace smemlab::emu
