// PTX text -> Module. Accepts whole files as nvcc 13 emits them for sm_90
// (NVVM 7 dialect) and sm_100/sm_120 (NVVM 20). `{ }` scopes that redeclare
// registers or call-sequence params are resolved here: inner declarations
// get unique names, so later stages never see scopes.
#pragma once

#include <string>
#include <string_view>

#include "ptx/ir.h"
#include "ptx/lexer.h"

namespace smemlab::ptx {

// Limits that keep a hostile or broken file from exhausting memory or the
// stack (each is an error naming FILE:LINE:COL, never a crash):
constexpr int64_t kMaxFileBytes = 64ll << 20;  // PTX file size (nvcc's largest are a few MB)
constexpr int kMaxNesting = 64;                // `{`/`(` in initializers, operands, scopes
// Virtual registers per function (all types together). PTX registers are
// virtual (ptxas maps them to at most 255 per thread); the emulator keeps
// 32 lanes x 8 bytes for each, so this bounds a 1024-thread block's
// register file at 512 MiB.
constexpr int kMaxRegisters = 65536;

// Throws ParseError ("FILE:LINE:COL: message").
Module parse(std::string_view text, const std::string& path);
Module parse_file(const std::string& path);

}  // namespace smemlab::ptx
