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

// Throws ParseError ("FILE:LINE:COL: message").
Module parse(std::string_view text, const std::string& path);
Module parse_file(const std::string& path);

}  // namespace smemlab::ptx
