#include "check/finding_kinds.h"

namespace smemlab::check {

const std::vector<FindingKindInfo>& finding_kinds() {
  // Never destroyed: the runtime reports API errors from an exit handler
  // that may run after this table's destructor would have (static order).
  static const std::vector<FindingKindInfo>& kinds = *new std::vector<FindingKindInfo>{
#define SMEMLAB_FINDING(id, name, description) {FindingKind::id, name, description},
#include "check/finding_kinds.def"
  };
  return kinds;
}

const FindingKindInfo& info(FindingKind kind) { return finding_kinds()[static_cast<size_t>(kind)]; }

std::optional<FindingKind> finding_kind(std::string_view name) {
  for (const FindingKindInfo& k : finding_kinds())
    if (k.name == name) return k.kind;
  return std::nullopt;
}

}  // namespace smemlab::check
