// The kinds of fault that stop an emulated launch (fault_kinds.def) as a
// typed value: emu::Fault and emu::LaunchError carry a FaultKind; its name,
// exit class and description are looked up here. The table's CUresult and
// finding columns are expanded by the layers that own those types
// (runtime/driver.cc, session/launch_analysis.cc).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string_view>
#include <vector>

namespace smemlab::emu {

enum class FaultKind : uint8_t {
#define SMEMLAB_FAULT(id, name, cuda_error, exit, finding, description) id,
#include "emu/fault_kinds.def"
};

// How `smemlab` ends after a launch stopped by a fault of this kind (the
// cli maps each class to its documented exit status).
enum class FaultExit : uint8_t {
  Usage,        // the launch was refused before a block ran: bad input
  Runtime,      // the kernel failed while running
  Interrupted,  // stopped by a signal
};

struct FaultKindInfo {
  FaultKind kind;
  std::string_view name;  // "out-of-bounds", ...
  FaultExit exit;
  std::string_view description;
};

// Every row of fault_kinds.def, in its order.
const std::vector<FaultKindInfo>& fault_kinds();
const FaultKindInfo& info(FaultKind kind);
inline std::string_view name(FaultKind kind) { return info(kind).name; }
inline FaultExit exit_class(FaultKind kind) { return info(kind).exit; }
// A launch refused before any block ran (a Usage fault): no block, thread
// or instruction to name, and the CUDA context stays usable.
inline bool refused_launch(FaultKind kind) { return exit_class(kind) == FaultExit::Usage; }
// The kind named `name` (the inverse of name()); nullopt when no row declares it.
std::optional<FaultKind> fault_kind(std::string_view name);
// Its name, for test failure messages (gtest finds it by ADL).
void PrintTo(FaultKind kind, std::ostream* os);

}  // namespace smemlab::emu
