// The declared kinds of finding (finding_kinds.def) as a typed value: the
// FindingKind every finding carries, its name (the JSON `kind`, the SARIF
// ruleId) and its SARIF rule text. A kind is compared as a FindingKind; its
// name is looked up only here.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace smemlab::check {

enum class FindingKind : uint8_t {
#define SMEMLAB_FINDING(id, name, description) id,
#include "check/finding_kinds.def"
};

struct FindingKindInfo {
  FindingKind kind;
  std::string_view name;         // the JSON `kind`, the SARIF ruleId
  std::string_view description;  // the SARIF rule's short description
};

// Every row of finding_kinds.def, in its order.
const std::vector<FindingKindInfo>& finding_kinds();
// The row of `kind`.
const FindingKindInfo& info(FindingKind kind);
// Its name: "race", "warp-race", ...
inline std::string_view name(FindingKind kind) { return info(kind).name; }
// The kind named `name` (the inverse of name(), for findings read back
// from JSON); nullopt when no row declares it.
std::optional<FindingKind> finding_kind(std::string_view name);

}  // namespace smemlab::check
