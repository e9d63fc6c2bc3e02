// Entry and variable names in PTX are Itanium-mangled C++ names; every
// report shows them demangled, and every layer demangles the same way.
#pragma once

#include <string>

namespace smemlab::ptx {

// "_Z3addPii" -> "add(int*, int)"; a name that is not mangled comes back as is.
std::string demangle(const std::string& mangled);

}  // namespace smemlab::ptx
