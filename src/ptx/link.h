// Separate compilation (nvcc -rdc=true): the PTX of each translation unit
// joined into one module, as nvlink joins their relocatable SASS. An
// `.extern` declaration binds to the unit that defines the symbol, a
// `.weak` definition yields to a `.visible` one (else the first stays), the
// largest `.common` variable stays, and a unit's internal symbols (static
// functions and variables, printf's `$str`) are renamed where another unit
// uses the same name.
#pragma once

#include <stdexcept>
#include <vector>

#include "ptx/ir.h"

namespace smemlab::ptx {

struct LinkError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws LinkError for a symbol two units define `.visible` (nvlink's
// "multiple definition"). `path` names the result in messages.
Module link(std::vector<Module> units, const std::string& path);

}  // namespace smemlab::ptx
