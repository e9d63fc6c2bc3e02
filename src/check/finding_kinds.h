// The declared kinds of finding (finding_kinds.def): for SARIF's rules and
// for tests that every kind reported is declared.
#pragma once

#include <string_view>
#include <vector>

namespace smemlab::check {

struct FindingKindInfo {
  std::string_view name;         // the JSON `kind`, the SARIF ruleId
  std::string_view description;  // the SARIF rule's short description
};

// Every row of finding_kinds.def, in its order.
const std::vector<FindingKindInfo>& finding_kinds();
// The row named `name`, or nullptr when no row declares it.
const FindingKindInfo* finding_kind(std::string_view name);

}  // namespace smemlab::check
