#include "check/finding_kinds.h"

namespace smemlab::check {

const std::vector<FindingKindInfo>& finding_kinds() {
  static const std::vector<FindingKindInfo> kinds = {
#define SMEMLAB_FINDING(name, description) {name, description},
#include "check/finding_kinds.def"
  };
  return kinds;
}

const FindingKindInfo* finding_kind(std::string_view name) {
  for (const FindingKindInfo& k : finding_kinds())
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace smemlab::check
