// A defect found by `smemlab check`: what kind, how bad, where, and the
// accesses or instructions involved. Kinds: check/finding_kinds.def.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "check/finding_kinds.h"
#include "check/source_lines.h"
#include "emu/observer.h"

namespace smemlab::check {

enum class Severity { Warning, Error };
inline const char* severity_name(Severity s) { return s == Severity::Error ? "error" : "warning"; }

// One instruction taking part in a finding.
struct Involved {
  std::string role;  // "read", "write", "atomic", "barrier", "collective", ...
  SourceLine where;  // outermost source line ({"", 0} when unknown)
  int ptx_line = 0;
  std::string instr;  // PTX instruction text
  emu::Dim3 block;
  uint32_t thread = 0;  // linear thread index in the block
};

struct Finding {
  FindingKind kind = FindingKind::Internal;
  Severity severity = Severity::Error;
  std::string message;
  SourceLine where;  // the line the finding is reported at
  std::vector<Involved> involved;
  uint64_t count = 1;  // occurrences merged into this finding
};

// Involved entry for an instruction of the kernel.
Involved involved(const std::string& role, const emu::KernelInfo& kernel,
                  const emu::InstrInfo* instr, emu::Dim3 block, uint32_t thread);

}  // namespace smemlab::check
